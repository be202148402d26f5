// Tests of the PC's PCI support: the ACPI MCFG parser, configuration addresses, MSI messages.
// SPDX-License-Identifier: BSD-3-Clause

package pc

import (
	"encoding/binary"
	"testing"

	"gmpos/drivers/pci"
	"gmpos/kernel/arch/amd64"
)

// mcfgEntry encodes one MCFG allocation entry.
func mcfgEntry(base uint64, seg uint16, start, end uint8) []byte {
	e := make([]byte, mcfgEntrySize)
	binary.LittleEndian.PutUint64(e, base)
	binary.LittleEndian.PutUint16(e[8:], seg)
	e[10], e[11] = start, end
	return e
}

// qemuMCFG is QEMU q35's MCFG (hw/i386/acpi-build.c build_mcfg, hw/pci-host/q35.c
// MCH_HOST_BRIDGE_PCIEXBAR_DEFAULT): the header, 8 reserved bytes, one entry for segment 0 at
// 0xb0000000, buses 0-255, and a checksum that makes the bytes sum to zero.
func qemuMCFG(entries ...[]byte) []byte {
	t := make([]byte, 44)
	copy(t, "MCFG")
	t[8] = 1 // revision
	copy(t[10:], "BOCHS ")
	copy(t[16:], "BXPC    ")
	if len(entries) == 0 {
		entries = [][]byte{mcfgEntry(0xb0000000, 0, 0, 255)}
	}
	for _, e := range entries {
		t = append(t, e...)
	}
	binary.LittleEndian.PutUint32(t[4:], uint32(len(t)))
	var sum byte
	for _, b := range t {
		sum += b
	}
	t[9] = -sum
	return t
}

func TestMCFG(t *testing.T) {
	q := qemuMCFG()
	if len(q) != 60 {
		t.Fatalf("q35 MCFG is %d bytes, want 60", len(q))
	}
	var m mcfg
	m.read(q)
	if !m.valid || m.base != 0xb0000000 || m.start != 0 || m.end != 255 {
		t.Errorf("q35 MCFG parsed as %+v", m)
	}
	// Segment 0's entry is kept even after others; bad entries are skipped.
	m = mcfg{}
	m.read(qemuMCFG(
		mcfgEntry(0xc0000000, 1, 0, 255),     // another segment
		mcfgEntry(0xb0080000, 0, 0, 255),     // not 1 MiB aligned
		mcfgEntry(0xb0000000, 0, 9, 8),       // inverted bus range
		mcfgEntry(1<<52-1<<20, 0, 0, 1),      // past the physical address space
		mcfgEntry(0xe0000000, 0, 0x10, 0x1f), // good
		mcfgEntry(0xf0000000, 0, 0, 0),
	))
	if !m.valid || m.base != 0xe0000000 || m.start != 0x10 || m.end != 0x1f {
		t.Errorf("parsed %+v, want the window at 0xe0000000, buses 16-31", m)
	}
	m = mcfg{}
	m.read(q[:59]) // the entry is cut off
	if m.valid {
		t.Errorf("truncated entry kept: %+v", m)
	}
}

// FuzzMCFG: no table makes the parser read out of bounds or keep a window it cannot map.
func FuzzMCFG(f *testing.F) {
	f.Add(qemuMCFG())
	f.Add(qemuMCFG(mcfgEntry(0xb0000000, 0, 255, 255), mcfgEntry(0, 0, 0, 0))[:70])
	f.Add([]byte("MCFG"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m mcfg
		m.read(b)
		if m.valid && (m.base == 0 || m.base%(1<<20) != 0 || m.start > m.end || m.base+(uint64(m.end)+1)<<20 > maxPhys) {
			t.Fatalf("kept %+v", m)
		}
	})
}

func TestConfigAddress(t *testing.T) {
	// PCI 3.0 Figure 3-2: enable, bus 23:16, device 15:11, function 10:8, register 7:2.
	if a := configAddress(pci.Addr{Bus: 0x12, Dev: 0x1f, Fn: 7}, 0xfe); a != 0x80_12_ff_fc {
		t.Errorf("config address %#x", a)
	}
}

func TestPCIConfigECAM(t *testing.T) {
	var b Board
	b.madt.mcfg.read(qemuMCFG())
	var mapped [2]uintptr
	c, ok := b.PCIConfig(func(pa, size uintptr) bool { mapped = [2]uintptr{pa, size}; return true })
	e, isECAM := c.(*pci.ECAM)
	if !ok || !isECAM || *e != (pci.ECAM{Base: 0xb0000000, StartBus: 0, EndBus: ecamMaxBuses - 1}) {
		t.Fatalf("PCIConfig = %#v %v", c, ok)
	}
	if mapped != [2]uintptr{0xb0000000, ecamMaxBuses << 20} {
		t.Errorf("mapped %#x", mapped)
	}
	// A window starting above bus 0 is mapped from its start bus.
	b = Board{}
	b.madt.mcfg.read(qemuMCFG(mcfgEntry(0xe0000000, 0, 0x10, 0x11)))
	c, _ = b.PCIConfig(func(pa, size uintptr) bool { mapped = [2]uintptr{pa, size}; return true })
	if e := c.(*pci.ECAM); mapped != [2]uintptr{0xe1000000, 2 << 20} || e.EndBus != 0x11 || e.Base != 0xe0000000 {
		t.Errorf("mapped %#x for %+v", mapped, e)
	}
}

func TestMSI(t *testing.T) {
	var b Board
	b.ioapics.lines = 24
	first, n := b.MSILines()
	if first != 24 || n != amd64.MaxIRQLines-24 {
		t.Fatalf("MSI lines %d+%d", first, n)
	}
	addr, data, ok := b.MSIMessage(first+1, 0x08)
	if !ok || addr != 0xfee00000|uint64(amd64.APICID(0))<<12 || data != uint32(amd64.IRQVector(first+1)) || data != 0x30+25 {
		t.Errorf("message %#x %#x %v", addr, data, ok)
	}
	for _, l := range []int{-1, 23, first + n} {
		if _, _, ok := b.MSIMessage(l, 0x08); ok {
			t.Errorf("line %d has an MSI message", l)
		}
	}
	if !b.EnableIRQ(first) || b.EnableIRQ(first+n) {
		t.Error("EnableIRQ on MSI lines")
	}
	b.DisableIRQ(first)
	b.ioapics.lines = 0
	if first, _ := b.MSILines(); first != isaIRQs {
		t.Errorf("without an I/O APIC MSI lines start at %d", first)
	}
}
