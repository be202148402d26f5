// PCI Express: the generic ECAM host bridge and its 32-bit memory window.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import (
	"gmpos/drivers/fdt"
	"gmpos/drivers/pci"
)

// virt's PCIe host is "pci-host-ecam-generic" (Linux Documentation/devicetree/bindings/pci/
// host-generic-pci.yaml): reg is the ECAM window of the buses in bus-range, the first bus's
// space first (PCIe base 4.0 §7.2.2: 1 MiB a bus, 32 KiB a device, 4 KiB a function); ranges
// maps PCI bus addresses to physical ones (IEEE 1275 PCI bus binding §2.2.1.1: each entry is
// a 3-cell PCI address — phys.hi carries the space code in bits 25:24, 01 I/O, 10 32-bit
// memory, 11 64-bit memory, and prefetchable in bit 30 — then the parent's address and a 2-cell
// size). QEMU 7.2 puts the ECAM at 0x40_1000_0000 (256 buses, "highmem-ecam"), the 32-bit
// window at 0x1000_0000-0x3eff_0000, identity mapped, and a 64-bit one at 512 GiB.
type pcieInfo struct {
	valid      bool
	ecam       uint64 // physical address of bus `start`'s space (reg)
	start, end uint8  // buses the window decodes
	win        pci.Window
}

// ecamMaxBuses is how many buses' ECAM windows PCIConfig maps, as on the PC
// (board/pc/pci.go): 8 MiB instead of the 256 MiB of every bus. QEMU's devices sit on bus 0 and,
// behind root ports, on the next few.
const ecamMaxBuses = 8

// PCI address space codes (phys.hi bits 25:24) and the prefetchable bit.
const (
	pciSpaceShift = 24
	pciSpaceMem32 = 2
	pciPrefetch   = 1 << 30
)

// read takes the host bridge n's window and bus range, and its 32-bit non-prefetchable memory
// window where bus and physical addresses are the same (the kernel maps a BAR at its bus
// address: pci_devices.go). A node that does not follow the binding is left alone (no PCI).
func (p *pcieInfo) read(t *fdt.Tree, n fdt.Node, ac, sc int) {
	cac, ok1 := t.AddressCells(n)
	csc, ok2 := t.SizeCells(n)
	reg, _ := t.Prop(n, "reg")
	base, size, ok3 := fdt.Reg(reg, ac, sc, 0)
	if !ok1 || !ok2 || !ok3 || cac != 3 || csc != 2 || base%(1<<20) != 0 || size < 1<<20 || base+size < base {
		return
	}
	start, end := uint64(0), size>>20-1
	if br, ok := t.Prop(n, "bus-range"); ok {
		s, ok1 := fdt.Cell(br, 0)
		e, ok2 := fdt.Cell(br, 1)
		if !ok1 || !ok2 || len(br) != 8 {
			return
		}
		start, end = uint64(s), uint64(e)
	}
	if end > 255 {
		end = 255
	}
	if start > end || (end-start+1)<<20 > size || base < start<<20 {
		return
	}
	p.ecam, p.start, p.end, p.valid = base, uint8(start), uint8(end), true

	ranges, _ := t.Prop(n, "ranges")
	per := 3 + ac + 2
	for i := 0; (i+1)*per*4 <= len(ranges); i++ {
		hi, _ := fdt.Cell(ranges, i*per)
		bus, ok1 := fdt.Cells(ranges, i*per+1, 2)
		cpu, ok2 := fdt.Cells(ranges, i*per+3, ac)
		sz, ok3 := fdt.Cells(ranges, i*per+3+ac, 2)
		if !ok1 || !ok2 || !ok3 || hi>>pciSpaceShift&3 != pciSpaceMem32 || hi&pciPrefetch != 0 {
			continue
		}
		if bus != cpu || sz == 0 || cpu+sz < cpu || cpu+sz > 1<<32 {
			continue
		}
		p.win = pci.Window{Lo: cpu, Hi: cpu + sz}
		break
	}
}

// PCIConfig returns ECAM over the tree's window, after mapping its first ecamMaxBuses buses
// with mapDevice (the mechanism reports the buses above as absent). false: no host bridge in
// the tree, or its window cannot be mapped. The interface holds a pointer into b (the kernel's
// statically allocated board): nothing is allocated. Boot only.
func (b *Board) PCIConfig(mapDevice func(pa, size uintptr) bool) (pci.Config, bool) {
	p := &b.pcie
	if !p.valid {
		return nil, false
	}
	end := p.end
	if end-p.start >= ecamMaxBuses {
		end = p.start + ecamMaxBuses - 1
	}
	if !mapDevice(uintptr(p.ecam), uintptr(end-p.start+1)<<20) {
		return nil, false
	}
	// pci.ECAM's Base is bus 0's address, even when the window starts at a later bus.
	b.ecam = pci.ECAM{Base: uintptr(p.ecam) - uintptr(p.start)<<20, StartBus: p.start, EndBus: end}
	return &b.ecam, true
}

// PCIWindow is the host bridge's 32-bit memory window (ranges), where the kernel places BARs a
// firmware left unassigned — all of them on virt, which boots the kernel without firmware. Its
// 64-bit window is not used: the kernel's BAR assignment is 32-bit (drivers/pci/assign.go).
// Empty without a host bridge. Boot, after Probe.
func (b *Board) PCIWindow() pci.Window { return b.pcie.win }
