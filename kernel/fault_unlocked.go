// A page fault's first touch of a page without the big kernel lock.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
)

// Why. Once the runtime's futex calls, sleeps and timers had left the lock, the largest item in
// a GC-heavy program's kernel time was its page faults: the Go heap grows into fresh mappings,
// and the first touch of each page is a fault the kernel answers with a zeroed frame (5,374 of
// them in one 4-vCPU GC-churn run, at 32 µs each with the wait for the BKL). Linux takes those
// under the address space's lock alone (mmap_lock, or a per-VMA lock since 6.4), never a global
// one. Here that is mm's own lock (kernel/mm/lock.go), which every mm entry point already took:
// it is a real spin lock now, and this path takes it without the BKL.
//
// What runs here: a user page fault on a page that is not present, in a VMA that allows the
// access, with a free frame that no core may still reach through a stale translation —
// mm.FaultFast. Everything else is mm's answer false, having changed nothing, and goes to
// trapBKL, which handles it as before: spurious faults and rights changes (their TLB flush is
// the BKL's), a forbidden access (a signal), no memory (the OOM report), a free list that needs a
// shootdown first.
//
// An execve, or an exit. execve marks the other threads of its process killed under the BKL,
// then tears the address space down under mm's lock and loads a new image into the process's
// space; an exit marks the process no longer live. So this path looks at its thread's state
// under mm's lock, after taking it: if a teardown came first, the mark is visible (stored before
// the teardown took the lock) and the fault goes to trapBKL, which ends the thread; if not, the
// page lands in the old space, and the teardown frees it. Signals need nothing: one that arrives
// meanwhile kicks this core, and the IPI is taken as soon as the thread is back in user mode.
//
// Two threads that first touch one page at once: the second to take mm's lock finds the page
// and, if it grants the access, retries without anything to do (FaultFast).
//
// While a core spins for mm's lock it acknowledges TLB shootdowns (mmRelax): the holder may be
// sending one — an allocation that needs it (mm SyncTLB), an mm call's (mm_unlocked.go), the
// BKL's way out (smp.go flushPending) — and waiting for this core. This path never sends one:
// mm fails an allocation that would need it instead (its noSync).
//
// One window differs from the BKL's path: between another core's munmap (or MADV_DONTNEED,
// MAP_FIXED) releasing mm's lock and its shootdown at the end of its kernel entry, a fault here
// may map a fresh page at an address a third core still reaches the old frame at through a
// stale translation. The old frame is not reused before the shootdown (mm's pending frames), so
// nothing leaks; Linux allows the same window for MADV_DONTNEED.
//
// Left to the BKL as well: every fault while the scheduler trace runs, and with the kernel option
// faultbkl=1 (for comparisons). The profiler samples this path as it is (profile.go).
//
// Context: trap context (doc.go), without the BKL.

// faultUnlockedOK reports whether the exception in f, on core cpu, is one faultUnlocked may try:
// a page fault in user mode, with nothing on that needs the BKL.
func faultUnlockedOK(f *arch.Frame, cpu int) bool {
	gp := cpus[cpu].cur
	if gp == 0 || !f.FromUser() || cmd.faultBKL || cmd.trace {
		return false
	}
	return f.Fault().Kind == arch.FaultPage && !needsKernel(&threads[gp])
}

// faultUnlocked handles the page fault faultUnlockedOK accepted (trap n, entered at cycle t0)
// and returns the frame to resume as trap does.
func faultUnlocked(f *arch.Frame, n, cpu int, t0 uint64) *arch.Frame {
	gp := cpus[cpu].cur
	t := &threads[gp]
	flt := f.Fault()
	mm.Lock()
	ok := !t.killed && procOf(t).state == procLive && // see above: an exit or execve came first
		spaceOf(int(t.proc)).FaultFast(flt.Addr, flt.Write, flt.Exec)
	mm.Unlock()
	if !ok {
		atomic.AddUint64(&stats.faultFallbacks, 1)
		return trapBKL(f, arch.TrapFault, n, cpu, t0)
	}
	atomic.AddUint64(&stats.unlockedFaults, 1)
	return resumeUnlocked(f, cpu, gp, t0, ktimeFault)
}

// mmRelax is mm's hook for a core spinning for its lock (mm.Relax): acknowledge a TLB shootdown
// whose sender may hold the lock and wait for this core, then pause.
func mmRelax() {
	ackFlush(currentCPU())
	arch.Pause()
}
