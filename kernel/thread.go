// The thread table: the kernel's side of the scheduler's Gs.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// A Thread is what Linux calls a task and the Go runtime an M: a kernel-schedulable context. The
// kernel's scheduler (package sched) sees it as a G, identified by the same small integer: thread
// i is sched GID i. A thread's state — running, runnable, waiting, free — is the G's status in
// the scheduler (S.Status(gp)); the kernel does not keep a second copy. All threads share the one
// address space (CLONE_VM is the only mode).
//
// Protected by the BKL; the frame and FP area also belong to the core running the thread, which
// saves and restores them on every trap.
type Thread struct {
	frame arch.Frame                                 // user registers while the thread is not on a core
	fp    [arch.FPStateSize + arch.FPStateAlign]byte // FP/SIMD state; fpArea() is the aligned start
	tid   int32
	proc  uint8 // its process (proc.go)
	// killed: another thread of its process called execve; it ends at its next schedule.
	killed bool
	tls    uintptr              // the thread's TLS register (x86: FS base, set by arch_prctl or clone)
	name   [threadNameSize]byte // prctl(PR_SET_NAME), if named
	named  bool

	// Waiting (wait.go): set by block, cleared by the waker.
	wait     waitKind
	waitObj  uintptr // futex word, epoll instance, file, IRQ line
	waitArg  uint64  // futex bitset / epoll event buffer / file events
	waitArg2 uint64  // epoll maxevents
	deadline int64   // CLOCK_MONOTONIC ns, 0 = none
	// queued: the system call under way blocked on futexQ's list (block). Those waits end
	// without the BKL too, so the waker may have set the call's result already (syscall).
	queued bool
	// epollAgain: the epoll_wait under way was woken to run again (epoll.go readyItem), and its
	// next run keeps the deadline it had, epollUntil (0: none), instead of starting its timeout
	// anew. Set by the waker under futexQ's lock while the thread is blocked; read and cleared
	// by the thread itself, by that run or by a signal's delivery before it (setupSigframe).
	epollAgain bool
	epollUntil int64

	// Signals (signal.go). sigpending is atomic: senders without the BKL set bits in it
	// (signal_unlocked.go), so every change is an atomic Or or And, never a plain store.
	sigmask    uint64
	sigpending atomic.Uint64
	// savedSigmask is the mask to restore after a call that waits with a temporary one
	// (epoll_pwait), if restoreSigmask: Linux's saved_sigmask and TIF_RESTORE_SIGMASK.
	savedSigmask   uint64
	restoreSigmask bool
	faultSig       int     // the pending synchronous fault signal (0: none), delivered first
	faultCode      int32   // si_code of the pending synchronous fault signal
	faultAddr      uintptr // si_addr of the pending synchronous fault signal
	faultTrap      uint64  // the architecture's trap number of that fault (sigcontext's trapno)
	altSP          uintptr // sigaltstack: base, size, flags (0 or ssDisable)
	altSize        uintptr
	altFlags       uint32
	sigTimer       uint64 // pending signals a POSIX timer queued (sigsource.go)
	sigKernel      uint64 // pending signals the kernel sent for an itimer: SI_KERNEL

	// CPU time (cputime.go): used so far, and the earliest expiry of a timer on this thread's
	// CPU clocks (ptimer.go).
	cpu    cpuTimes
	cpuExp expiryCache

	// futexCheck remembers the page of the last futex word the path without the BKL found
	// readable (futex_unlocked.go, mm.PeekUserWordRemembered). The thread's own.
	futexCheck mm.WordCheck

	// runnableIn is the BKL section (bklSeq) that last made the thread runnable: until it
	// ends, no core resumes the thread without the BKL (wake_unlocked.go). 0 when a path
	// without the BKL made it runnable (a wake-up, a yield, a preemption): no section touches
	// it after that. Atomic.
	runnableIn uint64
}

// MaxThreads is the size of the thread table: one slot per scheduler G.
const MaxThreads = sched.MaxG

// The thread table and the scheduler. Protected by the BKL (the scheduler has its own locks too).
var (
	threads [MaxThreads]Thread

	// S is the kernel's scheduler: one P per core (M), the policy chosen by sched=NAME.
	S sched.Sched

	// tidGen[slot] counts the threads that have used the slot (thread IDs, below).
	tidGen [MaxThreads]uint32
)

// fpArea returns the address of t's FP save area, aligned as the architecture requires.
func (t *Thread) fpArea() uintptr {
	return (ptrOf(&t.fp[0]) + arch.FPStateAlign - 1) &^ (arch.FPStateAlign - 1)
}

// fpState is fpArea for code that reads or writes the area's contents: if t is the thread whose
// trap this is, part of its FP state may still be in this core's registers, and it is written
// back first (kernel/arch/amd64 fpu.go). BKL held.
func (t *Thread) fpState() uintptr {
	a := t.fpArea()
	arch.Current().SaveFP(a)
	return a
}

// newThread takes a G from the scheduler and clears the matching thread. The G is not runnable
// yet (sched.NewG): the caller fills in the thread, then calls startThread — with several cores,
// another core could otherwise pick the G up before its registers exist.
func newThread(cpu int) (*Thread, sched.GID) {
	gp := S.NewG(cpu, sched.DefaultWeight)
	if gp == 0 {
		return nil, 0
	}
	t := &threads[gp]
	*t = Thread{}
	tidGen[gp]++
	t.tid = tidFor(gp)
	return t, gp
}

// startThread makes a thread from newThread runnable (sched.StartG: runnext of this core's P).
func startThread(gp sched.GID, cpu int) {
	markRunnable(gp)
	S.StartG(gp, cpu)
}

// live reports whether gp is a thread that exists: running, runnable or waiting.
func live(gp sched.GID) bool {
	switch S.Status(gp) {
	case sched.Grunning, sched.Grunnable, sched.Gwaiting:
		return threads[gp].tid != 0
	}
	return false
}

// Thread IDs. A slot of the thread table is reused as soon as its thread exits, but its tid must
// not be: the Go runtime signals threads by tid (tgkill for SIGURG preemption), and a signal meant
// for a thread that just exited must not reach its successor. Like Linux's cyclic PID allocation,
// the tid therefore counts the slot's reuses: tid = generation*MaxThreads + slot, so the slot is
// still found in O(1) (tid % MaxThreads) and a stale tid no longer matches. The first thread of
// slot 1 — the main thread — gets tid 1, which is also the process ID.
func tidFor(gp sched.GID) int32 {
	gen := (tidGen[gp] - 1) % (1 << 31 / MaxThreads)
	return int32(gen)*MaxThreads + int32(gp)
}

// threadByTid returns the live thread with tid, or nil.
func threadByTid(tid int32) (*Thread, sched.GID) {
	if tid <= 0 {
		return nil, 0
	}
	gp := sched.GID(tid % MaxThreads)
	if gp == 0 || threads[gp].tid != tid || !live(gp) {
		return nil, 0
	}
	return &threads[gp], gp
}
