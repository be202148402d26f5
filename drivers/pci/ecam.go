// ECAM: configuration space mapped into memory (PCI Express).
// SPDX-License-Identifier: BSD-3-Clause

package pci

import "gmpos/drivers/mmio"

// ECAM is the Enhanced Configuration Access Mechanism (PCIe base spec 4.0 §7.2.2): each function
// has 4 KiB of configuration space at Base + bus<<20 | dev<<15 | fn<<12. Base is the address
// bus 0's space would have (the convention of the ACPI MCFG table and the devicetree's "reg"),
// even when StartBus is not 0; the caller has mapped [Base+StartBus<<20, Base+(EndBus+1)<<20),
// uncached. Buses outside StartBus..EndBus read as absent.
//
// Accesses are single, naturally aligned 32-bit loads and stores (ECAM must be accessed with
// aligned dwords or smaller, §7.2.2) through package mmio: plain MOVs the compiler cannot drop or
// merge. Not sync/atomic, whose stores are XCHGs on amd64: see mmio's package comment for what
// that did to QEMU.
type ECAM struct {
	Base             uintptr
	StartBus, EndBus uint8
}

// addr returns the address of the dword at off of function a, or false if ECAM does not reach it.
func (e *ECAM) addr(a Addr, off uint16) (uintptr, bool) {
	if a.Bus < e.StartBus || a.Bus > e.EndBus || a.Dev >= maxDev || a.Fn >= maxFn || off >= 4096 {
		return 0, false
	}
	return e.Base + uintptr(a.Bus)<<20 + uintptr(a.Dev)<<15 + uintptr(a.Fn)<<12 + uintptr(off&^3), true
}

func (e *ECAM) Read32(a Addr, off uint16) uint32 {
	p, ok := e.addr(a, off)
	if !ok {
		return 0xffffffff
	}
	return mmio.Read32(p)
}

func (e *ECAM) Write32(a Addr, off uint16, v uint32) {
	if p, ok := e.addr(a, off); ok {
		mmio.Write32(p, v)
	}
}
