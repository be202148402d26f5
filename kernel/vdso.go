// The vDSO: its code and its clock page, mapped into the program at boot.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
	"gmpos/kernel/vdso"
)

// The Go runtime reads the clock on every nanotime() and time.Now(); with a vDSO it does so in
// user mode, by calling __vdso_clock_gettime in a small ELF object the kernel maps for it and
// names in the auxiliary vector (AT_SYSINFO_EHDR, stack.go). kernel/vdso has the image and the
// layout of its data page, the "vvar" page; this file gives them frames, maps them and keeps
// the page in step with the kernel clock (clock.go). docs/runtime-contract.md §3.13.
//
// Both pages sit at fixed addresses above the initial stack (kernel/mm/doc.go, "Memory map"):
// the vvar page, then the image one page higher — the image's code finds the clock at that
// distance from itself. -kopt vdso=0 passes no AT_SYSINFO_EHDR, so that every clock read is a
// system call again, as Linux's vdso=0 does (for comparisons); it maps neither page, except on
// arm64, whose signal handlers still return through the image's __kernel_rt_sigreturn.
const (
	vvarAddr = 0x7fff_fff8_0000         // the clock page, read-only for the program
	vdsoAddr = vvarAddr + vdso.PageSize // the image: AT_SYSINFO_EHDR
)

// vdsoState. Immutable after boot (vdsoInit), except the vvar page's contents (vdsoPublish).
var vdsoState struct {
	ehdr uintptr // AT_SYSINFO_EHDR: vdsoAddr, or 0 without a vDSO
	vvar uintptr // the clock page's frame (physical address), or 0
	text uintptr // the image's frame, for children's address spaces too (exec.go)
}

// vdsoInit copies the image into a frame, publishes the clock into another and maps both for
// the program. Boot: after calibrateClock, before the first thread's stack (auxv) is built. A
// failure costs only speed: the program then makes system calls, as with vdso=0.
func vdsoInit() {
	if cmd.noVDSO && !vdsoSigreturn || len(vdso.Image) == 0 {
		return // vdso=0 (where the page carries the signal trampoline, it is mapped anyway)
	}
	if len(vdso.Image) > mm.PageSize || vdso.PageSize != mm.PageSize {
		klog("vdso: the image does not fit a page; running without a vDSO")
		return
	}
	vvar, ok1 := mm.AllocZeroFrame()
	text, ok2 := mm.AllocZeroFrame()
	if !ok1 || !ok2 {
		klog("vdso: out of memory; running without a vDSO")
		return
	}
	copy(mm.FrameBytes(text)[:], vdso.Image)
	arch.SyncICache(mm.PhysToVirt(text), uintptr(len(vdso.Image))) // code written by data stores
	vdsoState.vvar, vdsoState.text = vvar, text
	vdsoPublish()
	if mm.Space.MapSpecial(vvarAddr, vvar, mm.PageSize, mm.PROT_READ) != mm.OK ||
		mm.Space.MapSpecial(vdsoAddr, text, mm.PageSize, mm.PROT_READ|mm.PROT_EXEC) != mm.OK {
		klog("vdso: cannot map it; running without a vDSO")
		return
	}
	if vdsoELF && !cmd.noVDSO {
		vdsoState.ehdr = vdsoAddr
	}
}

// vdsoClock is the kernel clock as the vDSO computes it: the same calibration, the same formula
// (vdso.Clock.Monotonic is nanotime's arithmetic), the coarse clocks' resolution of
// clock_getres.
func vdsoClock() vdso.Clock {
	return vdso.Clock{
		Mode:      vdso.ModeCounter,
		Cycles0:   clock.cycles0,
		Mult:      clock.mult,
		RealBase:  clock.realBase,
		CoarseRes: coarseResolution,
	}
}

// vdsoPublish writes the kernel clock into the vvar page, as a seqlock writer (vdso.Publish).
// Whoever changes clock must call it: today only boot does; clock_settime or a refined
// calibration would. Boot, or trap context with the BKL held (one writer at a time).
func vdsoPublish() {
	if vdsoState.vvar == 0 {
		return
	}
	c := vdsoClock()
	(*vdso.Data)(ptr(mm.PhysToVirt(vdsoState.vvar))).Publish(&c)
}
