// Trap entry and exit seen from Go: the upcall into the portable kernel, and Enter.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

import "unsafe"

// The arch package sits below the kernel in the import graph, so its calls up — kernelMain once
// at boot and trap on every entry — are bound by symbol name.
//
//go:linkname kernelTrap gmpos/kernel.trap
func kernelTrap(f *Frame) *Frame

//go:linkname kernelMain gmpos/kernel.kernelMain
func kernelMain()

// frameSize is the Frame's size on the kernel stack.
const frameSize = unsafe.Sizeof(Frame{})

// trap is called by trapCommon (vectors_arm64.s) on the core's kernel stack with interrupts
// masked, the interrupted context in f. It returns the frame to resume (nil idles the core).
//
// A fired timer is disabled here, before the kernel looks at it: the generic timer's interrupt
// is a level that stays asserted while CNTV_CVAL has passed (D11.2.4), where the kernel expects
// a one-shot timer that is quiet once it has fired, like the local APIC's (ArmTimer re-arms it).
//
// A user frame to resume is moved to the top of the kernel stack, where resume pops it, so that
// SP_EL1 is the empty kernel stack again when user code runs: EL1 cannot write SP_EL1 while using
// it, so the stack the next trap from EL0 starts on is wherever resume leaves SP.
func trap(f *Frame) *Frame {
	if c := Current(); c.faultSP != 0 { // the entry moved to the overflow stack
		f.SP, f.X[1], c.faultSP = uint64(c.faultSP), uint64(c.faultX1), 0
	}
	if f.Kind == kindIRQ && f.IntID == intidLocal { // the BCM2836's: named here, not in the entry
		f.IntID = localAcknowledge(Current())
	}
	if f.Kind == kindIRQ && f.intid() == intidTimer {
		stopTimer()
	}
	nf := kernelTrap(f)
	if nf == nil || !nf.FromUser() {
		return nf
	}
	top := (*Frame)(ptr(Current().kstackTop - frameSize))
	if nf != top {
		*top = *nf
	}
	return top
}

// Defined in vectors_arm64.s.
func vectorTable()
func trapCommon()
func resume()
func enterFirst(f *Frame)
func rt0Addr() uintptr

// Enter leaves the kernel for the first time on this core: it resumes f (nil: idle until an
// interrupt) and never returns.
//
// nosplit: it switches the kernel g's stack bounds to the new kernel stack while it still runs on
// the old one.
//
//go:nosplit
func Enter(f *Frame) {
	c := Current()
	if c.nextStackHi != 0 {
		c.setKernelStack(c.nextStackLo, c.nextStackHi)
	}
	if f != nil && f.FromUser() {
		top := (*Frame)(ptr(c.kstackTop - frameSize))
		*top = *f
		f = top
	}
	enterFirst(f)
}

// UserEntry is the ELF entry point of the Go program, the runtime's _rt0_arm64_linux: the first
// thread starts there with SP pointing at argc.
func UserEntry() uintptr { return rt0Addr() }
