// Enumeration: every function on bus 0 and on the buses behind its bridges.
// SPDX-License-Identifier: BSD-3-Clause

package pci

// Function is one function found by Enumerate, with the registers a driver matches on.
type Function struct {
	Func
	Vendor, Device  uint16
	Class           uint32 // 24-bit class code (Func.Class)
	HeaderType      uint8  // with the multi-function bit
	IntPin, IntLine uint8  // INTx pin (1-4 = INTA#-INTD#, 0 none) and the firmware's line
}

// Enumerate finds the functions reachable through c and fills out with them, in bus, device,
// function order per bus, buses in the order they were discovered; it returns how many it
// stored (functions beyond len(out) are not reported). It does not assign bus numbers, BARs or
// interrupt lines. On QEMU, SeaBIOS or EDK2 has assigned them all; qboot assigns none, and the
// kernel gives the BARs of the functions it drives addresses itself (assign.go); on arm64 virt
// nobody does, and everything is on bus 0.
//
// A device is present when function 0's vendor ID is not 0xffff (PCI 3.0 §6.2.1); functions 1-7
// are probed only when function 0's header type has bit 7 set (§6.2.1, multi-function). A
// PCI-to-PCI bridge (header type 1) leads to its secondary bus (PCI-to-PCI Bridge 1.2 §3.2.5.4),
// which is queued unless it was seen before: each of the 256 buses is scanned at most once,
// whatever the bridges claim, so a loop in hostile configuration space cannot make the walk
// run away; no recursion. At most 256×32×8 functions are read. Boot.
func Enumerate(c Config, out []Function) int {
	var seen [256 / 32]uint32 // buses queued
	var queue [256]uint8      // buses to scan, in order; each bus enters once
	queue[0], seen[0] = 0, 1
	nq, n := 1, 0
	for qi := 0; qi < nq; qi++ {
		bus := queue[qi]
		for dev := uint8(0); dev < maxDev; dev++ {
			nfn := uint8(1)
			for fn := uint8(0); fn < nfn; fn++ {
				f := Func{C: c, A: Addr{Bus: bus, Dev: dev, Fn: fn}}
				id := f.Read32(RegVendorID)
				if uint16(id) == 0xffff {
					continue
				}
				ht := f.HeaderType()
				if fn == 0 && ht&0x80 != 0 {
					nfn = maxFn
				}
				if ht&0x7f == HeaderBridge {
					if sec := f.Read8(regSecondaryBus); seen[sec/32]&(1<<(sec%32)) == 0 {
						seen[sec/32] |= 1 << (sec % 32)
						queue[nq] = sec
						nq++
					}
				}
				if n < len(out) {
					irq := f.Read32(RegIntLine)
					out[n] = Function{Func: f, Vendor: uint16(id), Device: uint16(id >> 16),
						Class: f.Class(), HeaderType: ht, IntPin: uint8(irq >> 8), IntLine: uint8(irq)}
					n++
				}
			}
		}
	}
	return n
}
