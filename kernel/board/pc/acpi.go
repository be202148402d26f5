// ACPI: the processors and interrupt wiring (MADT) and the PCI configuration window (MCFG).
// SPDX-License-Identifier: BSD-3-Clause

package pc

import (
	"unsafe"

	"gmpos/drivers/pci"
)

// The MADT ("APIC" table) lists the processors' local APICs, the I/O APICs with the range of
// global system interrupts (GSIs) each one serves, and the interrupt source overrides that say
// where an ISA IRQ really arrives (on QEMU the PIT's IRQ 0 is GSI 2). Path: RSDP → RSDT/XSDT →
// MADT (ACPI 6.5 §5.2.5, §5.2.7-8, §5.2.12). The tables are read through the boot identity map,
// before the kernel page table is loaded: the ACPI areas are not usable RAM, so the direct map
// need not cover them.

// MADT entry types (ACPI 6.5 Table 5.21) and the fields used (Tables 5.22-5.29).
const (
	madtLocalAPIC   = 0 // flags at +4: bit 0 Enabled, bit 1 Online Capable
	madtIOAPIC      = 1 // id +2, address +4, GSI base +8
	madtOverride    = 2 // bus +2, source IRQ +3, GSI +4, flags +8 (polarity bits 1:0, trigger 3:2)
	madtLocalX2APIC = 9 // flags at +8

	maxIOAPICs = 4
	isaIRQs    = 16
)

// madt is what the kernel keeps of the MADT.
type madt struct {
	cpus    int // enabled (or online-capable) processors
	ioapics [maxIOAPICs]struct {
		addr    uint32 // physical address of the register window
		gsiBase uint32 // first GSI it serves
	}
	nioapic int
	// isa[irq] is where ISA IRQ irq arrives: its GSI and the override's polarity/trigger flags.
	// Without an override, ISA IRQ n is GSI n, active high, edge triggered (ACPI §5.2.12.5).
	isa [isaIRQs]struct {
		gsi   uint32
		flags uint16
		valid bool
	}

	// Not part of the MADT, but found in the same pass over the RSDT/XSDT at Probe:
	mcfg mcfg // the PCI Express configuration window (MCFG, below)
}

// parse finds and reads the MADT; fields stay zero without one.
func (m *madt) parse() {
	if t := findTable(0x43495041 /* "APIC" */); t != 0 {
		m.read(unsafe.Slice((*byte)(ptr(t)), peek32(t+4))) // findTable checked the length
	}
	if t := findTable(0x4746434d /* "MCFG" */); t != 0 {
		m.mcfg.read(unsafe.Slice((*byte)(ptr(t)), peek32(t+4)))
	}
}

// findTable returns the physical address of the first ACPI table with signature sig (its first
// four bytes, little-endian) listed in the XSDT or, before ACPI 2.0, the RSDT, whose checksum is
// right; 0 if there is none. Boot identity map.
func findTable(sig uint32) uintptr {
	rsdp := findRSDP()
	if rsdp == 0 {
		return 0
	}
	var sdt uintptr
	entry := uintptr(4)
	if peek8(rsdp+15) >= 2 && peek64(rsdp+24) != 0 && peek64(rsdp+24) < 1<<32 {
		sdt, entry = uintptr(peek64(rsdp+24)), 8 // XSDT: 64-bit entries
	} else {
		sdt = uintptr(peek32(rsdp + 16)) // RSDT: 32-bit entries
	}
	if sdt == 0 || peek32(sdt+4) < 36 || !checksum(sdt, uintptr(peek32(sdt+4))) {
		return 0 // (a length below the header's would make the entry count wrap)
	}
	n := (uintptr(peek32(sdt+4)) - 36) / entry
	for i := uintptr(0); i < n; i++ {
		var t uintptr
		if entry == 8 {
			t = uintptr(peek64(sdt + 36 + 8*i))
		} else {
			t = uintptr(peek32(sdt + 36 + 4*i))
		}
		if t != 0 && t < 1<<32 && peek32(t) == sig && checksum(t, uintptr(peek32(t+4))) {
			return t
		}
	}
	return 0
}

// read walks the MADT's interrupt controller structures, which start at offset 44, in the table
// t. The firmware's data is checked, not trusted: an entry that claims to run past the table, or
// is too short for its own fields, ends the walk; overlong lists are cut at the kernel's limits.
func (m *madt) read(t []byte) {
	for p := 44; p+2 <= len(t); {
		typ, length := t[p], int(t[p+1])
		if length < 2 || p+length > len(t) {
			break
		}
		e := t[p : p+length]
		switch {
		case typ == madtLocalAPIC && length >= 8:
			if le32(e[4:])&3 != 0 {
				m.cpus++
			}
		case typ == madtLocalX2APIC && length >= 12:
			if le32(e[8:])&3 != 0 {
				m.cpus++
			}
		case typ == madtIOAPIC && length >= 12:
			if m.nioapic < maxIOAPICs {
				io := &m.ioapics[m.nioapic]
				io.addr, io.gsiBase = le32(e[4:]), le32(e[8:])
				m.nioapic++
			}
		case typ == madtOverride && length >= 10:
			if src := e[3]; e[2] == 0 && src < isaIRQs { // bus 0: ISA
				o := &m.isa[src]
				o.gsi, o.flags, o.valid = le32(e[4:]), uint16(e[8])|uint16(e[9])<<8, true
			}
		}
		p += length
	}
}

// The MCFG table lists the memory-mapped (ECAM) PCI configuration windows: after the 36-byte
// header and 8 reserved bytes, 16-byte entries of base address (u64), PCI segment group (u16),
// start and end bus (u8 each) and 4 reserved bytes (PCI Firmware Specification 3.2 §4.1.2,
// Table 4-3). Base is the address of bus 0's space even when the start bus is higher. QEMU's
// q35 has one entry (0xb0000000, segment 0, buses 0-255); the pc machine (i440FX) has no MCFG,
// and its configuration space is reached through ports only (pci.go).
const (
	mcfgEntries   = 44
	mcfgEntrySize = 16
	maxPhys       = 1 << 52
)

// mcfg is what the kernel keeps of the MCFG: the first window of segment 0, the only segment it
// uses. Written at Probe; ecam is filled in by PCIConfig (boot), which returns a pointer to it.
type mcfg struct {
	base       uint64 // ECAM address of bus 0
	start, end uint8  // buses decoded
	valid      bool
	ecam       pci.ECAM // the window as mapped (PCIConfig)
}

// read walks the MCFG's entries in the table t and keeps segment 0's first. Firmware data is
// checked: an entry past the table's end is not read; a base that is 0, not 1 MiB aligned, or
// whose window would pass the largest physical address x86-64 has (52 bits, SDM Vol. 3A §4.1.4)
// is skipped, as is an inverted bus range.
func (m *mcfg) read(t []byte) {
	for p := mcfgEntries; p+mcfgEntrySize <= len(t); p += mcfgEntrySize {
		e := t[p : p+mcfgEntrySize]
		base := uint64(le32(e)) | uint64(le32(e[4:]))<<32
		seg, start, end := uint16(e[8])|uint16(e[9])<<8, e[10], e[11]
		if seg != 0 || base == 0 || base%(1<<20) != 0 || base >= maxPhys || start > end || base+(uint64(end)+1)<<20 > maxPhys {
			continue
		}
		m.base, m.start, m.end, m.valid = base, start, end, true
		return
	}
}

// le32 reads a little-endian 32-bit field (ACPI tables are little-endian, §5.2).
func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// isaLine returns the GSI an ISA IRQ arrives on and whether it is level triggered and active
// low (MPS INTI flags: polarity bits 1:0 = 3 active low, trigger bits 3:2 = 3 level).
func (m *madt) isaLine(irq int) (gsi int, level, activeLow bool) {
	o := m.isa[irq]
	if !o.valid {
		return irq, false, false
	}
	return int(o.gsi), o.flags>>2&3 == 3, o.flags&3 == 3
}

// findRSDP searches the BIOS read-only area for the "RSD PTR " signature on a 16-byte boundary
// (ACPI §5.2.5.1; the EBDA is not searched: SeaBIOS and most firmware place it here).
func findRSDP() uintptr {
	for p := uintptr(0xe0000); p < 0x100000; p += 16 {
		if peek64(p) == 0x2052545020445352 /* "RSD PTR " */ && checksum(p, 20) {
			return p
		}
	}
	return 0
}

// checksum reports whether the n bytes at p sum to zero, as every ACPI table's do (§5.2.6).
func checksum(p, n uintptr) bool {
	if n == 0 || n > 1<<20 {
		return false
	}
	var sum byte
	for i := uintptr(0); i < n; i++ {
		sum += peek8(p + i)
	}
	return sum == 0
}
