// Device interrupts: the I/O APIC routes interrupt lines (GSIs) to CPU vectors.
// SPDX-License-Identifier: BSD-3-Clause

package pc

import (
	"github.com/usbarmory/tamago/soc/intel/ioapic"

	"gmpos/kernel/arch/amd64"
)

// On a PC, device interrupt lines end at an I/O APIC input; each input's redirection table entry
// says which vector, on which core, in which trigger mode and polarity it is delivered (82093AA
// datasheet §3.2.4). The kernel numbers interrupt lines by their global system interrupt (GSI):
// I/O APIC i serves GSIs [gsiBase_i, gsiBase_i+entries_i) (ACPI §5.2.12.3). ISA devices (the RTC)
// arrive where the MADT's overrides say; PCI INTx pins (q35: GSIs 16-23) are level triggered and
// active low (PCI Local Bus Spec. 3.0 §2.2.6).
//
// tamago's driver (soc/intel/ioapic) sizes the table; the entries are written here because its
// EnableInterrupt programs edge-triggered, active-high entries only, and PCI lines need level
// and active low.
type ioapicSet struct {
	dev   [maxIOAPICs]ioapic.IOAPIC
	count [maxIOAPICs]int // redirection entries of each
	n     int
	lines int // one past the highest GSI served
}

// Redirection entry bits (82093AA §3.2.4), low dword; the destination APIC ID is bits 63:56.
const (
	redtblActiveLow = 1 << 13
	redtblLevel     = 1 << 15
	redtblMasked    = 1 << ioapic.REDTBL_MASK
)

// InitIRQ maps every I/O APIC the MADT lists (mapDevice identity-maps device registers,
// uncached) and masks all their inputs. Boot only. false if a register window cannot be mapped.
func (b *Board) InitIRQ(mapDevice func(pa, size uintptr) bool) bool {
	s := &b.ioapics
	for i := 0; i < b.madt.nioapic; i++ {
		m := b.madt.ioapics[i]
		if !mapDevice(uintptr(m.addr), 0x20) {
			return false
		}
		s.dev[s.n] = ioapic.IOAPIC{Index: i, Base: m.addr, GSIBase: int(m.gsiBase)}
		s.count[s.n] = s.dev[s.n].Entries()
		for e := 0; e < s.count[s.n]; e++ {
			s.writeEntry(s.n, e, redtblMasked, 0)
		}
		if top := int(m.gsiBase) + s.count[s.n]; top > s.lines {
			s.lines = top
		}
		s.n++
	}
	return true
}

// IRQLines is the number of interrupt lines (one past the highest GSI); 0 without an I/O APIC.
func (b *Board) IRQLines() int { return b.ioapics.lines }

// EnableIRQ routes line to the core with index 0 (the bootstrap processor) on the vector the CPU
// package assigns to it, in the line's trigger mode and polarity, and unmasks it. false if no
// I/O APIC serves the line. An MSI line (msi.go) needs nothing here: true. BKL held.
func (b *Board) EnableIRQ(line int) bool {
	if b.msiLine(line) {
		return true
	}
	s := &b.ioapics
	i, e := s.find(line)
	if i < 0 {
		return false
	}
	level, low := b.lineMode(line)
	lo := uint32(amd64.IRQVector(line)) // fixed delivery, physical destination mode
	if level {
		lo |= redtblLevel
	}
	if low {
		lo |= redtblActiveLow
	}
	s.writeEntry(i, e, lo, amd64.APICID(0))
	return true
}

// DisableIRQ masks line; an MSI line (no I/O APIC serves it) is masked at its device. BKL held.
func (b *Board) DisableIRQ(line int) {
	s := &b.ioapics
	if i, e := s.find(line); i >= 0 {
		s.writeEntry(i, e, redtblMasked, 0)
	}
}

// lineMode returns a GSI's trigger mode and polarity: an ISA override's flags if an ISA IRQ
// arrives there, edge/high for the other ISA lines, level/low for PCI lines.
func (b *Board) lineMode(gsi int) (level, activeLow bool) {
	for irq := 0; irq < isaIRQs; irq++ {
		if g, lv, lo := b.madt.isaLine(irq); g == gsi {
			return lv, lo
		}
	}
	return gsi >= isaIRQs, gsi >= isaIRQs
}

// find returns the I/O APIC serving gsi and the entry index, or -1.
func (s *ioapicSet) find(gsi int) (int, int) {
	for i := 0; i < s.n; i++ {
		if e := gsi - s.dev[i].GSIBase; e >= 0 && e < s.count[i] {
			return i, e
		}
	}
	return -1, 0
}

// writeEntry writes redirection entry e of I/O APIC i: the high dword (destination) first, so
// that the entry is never unmasked with a stale destination.
func (s *ioapicSet) writeEntry(i, e int, lo uint32, dest uint32) {
	base := uintptr(s.dev[i].Base)
	reg := uint32(ioapic.IOAPICREDTBLn + 2*e)
	amd64.MMIOWrite32(base+ioapic.IOREGSEL, reg+1)
	amd64.MMIOWrite32(base+ioapic.IOWIN, dest<<(ioapic.REDTBL_DEST-32))
	amd64.MMIOWrite32(base+ioapic.IOREGSEL, reg)
	amd64.MMIOWrite32(base+ioapic.IOWIN, lo)
}
