// Trap entry and exit seen from Go: the upcall into the portable kernel, and Enter.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

import _ "unsafe" // for go:linkname

// The arch package sits below the kernel in the import graph, so its three calls up — kernelMain
// once at boot, apMain once per application processor (smp.go), and trap on every entry — are
// bound by symbol name.
//
//go:linkname kernelTrap gmpos/kernel.trap
func kernelTrap(f *Frame) *Frame

//go:linkname kernelMain gmpos/kernel.kernelMain
func kernelMain()

// trap is called by trapCommon (trap_amd64.s) on the core's kernel stack with interrupts off, the
// interrupted thread's registers in f. It returns the frame to resume (nil idles the core).
func trap(f *Frame) *Frame {
	return kernelTrap(f)
}

// Defined in trap_amd64.s.
func resume()
func enterFirst(f *Frame)
func rt0Addr() uintptr

// Enter leaves the kernel for the first time on this core: it resumes f (nil: idle until an
// interrupt) and never returns. From then on the core only enters the kernel through traps, on the
// kernel stack chosen with UseKernelStack.
//
// nosplit: it switches the kernel g's stack bounds to the new kernel stack while it still runs on
// the old one, so a stack check in its own prologue would compare against the wrong bounds.
//
//go:nosplit
func Enter(f *Frame) {
	c := Current()
	if c.nextStackHi != 0 {
		c.setKernelStack(c.nextStackLo, c.nextStackHi)
		setRSP0(int(c.id), c.nextStackHi)
	}
	enterFirst(f)
}

// UserEntry is the ELF entry point of the Go program, the runtime's _rt0_amd64_linux: the first
// thread starts there with SP pointing at argc (docs/runtime-contract.md §1.1).
func UserEntry() uintptr { return rt0Addr() }
