// Tests of the PC board's parsers of firmware data: the ACPI MADT and the Multiboot memory map.
// SPDX-License-Identifier: BSD-3-Clause

package pc

import (
	"encoding/binary"
	"testing"

	"gmpos/kernel/mm"
)

// qemuMADT builds a MADT shaped like QEMU q35's with n processors: local APICs, one I/O APIC at
// 0xfec00000 serving GSIs from 0, and the overrides IRQ 0 → GSI 2 and IRQ 9 level/active-high.
func qemuMADT(n int) []byte {
	t := make([]byte, 44)
	copy(t, "APIC")
	for i := 0; i < n; i++ {
		t = append(t, madtLocalAPIC, 8, byte(i), byte(i), 1, 0, 0, 0)
	}
	io := []byte{madtIOAPIC, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(io[4:], 0xfec00000)
	t = append(t, io...)
	t = append(t, madtOverride, 10, 0, 0, 2, 0, 0, 0, 0, 0)    // IRQ 0 → GSI 2, bus defaults
	t = append(t, madtOverride, 10, 0, 9, 9, 0, 0, 0, 0x0d, 0) // IRQ 9: level, active high
	binary.LittleEndian.PutUint32(t[4:], uint32(len(t)))
	return t
}

func TestMADT(t *testing.T) {
	var m madt
	m.read(qemuMADT(4))
	if m.cpus != 4 || m.nioapic != 1 || m.ioapics[0].addr != 0xfec00000 || m.ioapics[0].gsiBase != 0 {
		t.Fatalf("parsed %+v", m)
	}
	for _, c := range []struct {
		irq, gsi         int
		level, activeLow bool
	}{{0, 2, false, false}, {8, 8, false, false}, {9, 9, true, false}} {
		gsi, level, low := m.isaLine(c.irq)
		if gsi != c.gsi || level != c.level || low != c.activeLow {
			t.Errorf("ISA IRQ %d: GSI %d level %v low %v, want %d %v %v", c.irq, gsi, level, low, c.gsi, c.level, c.activeLow)
		}
	}
	var b Board
	b.madt = m
	if l, lo := b.lineMode(16); !l || !lo {
		t.Errorf("PCI line 16: level %v low %v, want level, active low", l, lo)
	}
	if b.TestIRQ() != 8 {
		t.Errorf("RTC line %d, want 8", b.TestIRQ())
	}
}

// FuzzMADT: no table makes the parser read out of bounds or keep more than it has room for.
func FuzzMADT(f *testing.F) {
	f.Add(qemuMADT(2))
	f.Add(qemuMADT(0)[:50])
	f.Add([]byte("APIC"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m madt
		m.read(b)
		if m.nioapic > maxIOAPICs || m.cpus > len(b)/8 {
			t.Fatalf("%d I/O APICs, %d CPUs from %d bytes", m.nioapic, m.cpus, len(b))
		}
	})
}

// mmapEntry encodes one Multiboot memory map entry.
func mmapEntry(base, length uint64, typ uint32) []byte {
	e := make([]byte, 24)
	binary.LittleEndian.PutUint32(e, 20)
	binary.LittleEndian.PutUint64(e[4:], base)
	binary.LittleEndian.PutUint64(e[12:], length)
	binary.LittleEndian.PutUint32(e[20:], typ)
	return e
}

// TestMmap: QEMU's map for 1 GiB — low memory, reserved areas, RAM from 1 MiB — gives the RAM
// above 1 MiB only, page aligned.
func TestMmap(t *testing.T) {
	var m []byte
	m = append(m, mmapEntry(0, 0x9fc00, mbMemAvailable)...)
	m = append(m, mmapEntry(0x9fc00, 0x400, 2)...)
	m = append(m, mmapEntry(0xf0000, 0x10000, 2)...)
	m = append(m, mmapEntry(0x100000, 0x3fee0000, mbMemAvailable)...)
	m = append(m, mmapEntry(0x3ffe0000, 0x20000, 2)...)
	var b Board
	b.parseMmap(m)
	if got := b.RAM(); len(got) != 1 || got[0] != (mm.Region{Base: 0x100000, Len: 0x3fee0000}) {
		t.Errorf("RAM = %+v", got)
	}
}

// FuzzMmap: no memory map makes the parser read out of bounds, or record a region that wraps,
// lies below 1 MiB or is not page aligned.
func FuzzMmap(f *testing.F) {
	f.Add(mmapEntry(0x100000, 0x1000000, mbMemAvailable))
	f.Add(append(mmapEntry(^uint64(0)-0xfff, 0x2000, mbMemAvailable), 1, 2, 3))
	f.Add([]byte{20, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, m []byte) {
		var b Board
		b.parseMmap(m)
		for _, r := range b.RAM() {
			if r.Base < 1<<20 || r.Base+r.Len < r.Base || r.Base%mm.PageSize != 0 || r.Len%mm.PageSize != 0 || r.Len == 0 {
				t.Fatalf("bad region %+v", r)
			}
		}
	})
}
