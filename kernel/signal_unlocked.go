// The Go runtime's tgkill without the big kernel lock.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/sched"
)

// The runtime preempts a goroutine that runs too long by sending its thread SIGURG
// (runtime/signal_unix.go preemptM → signalM → tgkill(getpid(), tid, SIGURG)): sysmon does it
// every 10 ms a goroutine overstays, and the garbage collector for every running goroutine whose
// stack it must scan. Under the BKL these were the largest remaining wait for the lock: a 4-vCPU
// GC-churn profile (docs/profiling.md, `-peek bkl-wait`) put tgkill at 48% of the waits, ahead of
// rt_sigreturn (22%) and madvise (13%).
//
// tgkillUnlocked posts a signal to a thread of the caller's own process, which is all the runtime
// does with it, without the BKL. What it needs, and what guards it here:
//   - the target's identity: its tid, looked up and checked under futexQ's lock, which a thread's
//     exit takes to clear its tid (sys_thread.go threadExit) — so the bit lands on the thread the
//     caller named, or the lookup fails, never on the slot's next thread;
//   - the pending set: an atomic Or (thread.go), since BKL holders change it too;
//   - what the signal must do to the target: nothing if its mask blocks the signal (it waits
//     pending); end its wait if it sleeps on futexQ's list (a futex wait or a sleep: under the
//     lock held already, as wait.go interruptWait does); kick its core if it runs (kickThread,
//     the IPI sent on the way out). The mask and the wait are read after the bit is stored and a
//     fence, and the thread reads its pending set after storing them and a fence (signal.go,
//     Dekker's rule), so either this sees what to do or the thread sees the signal;
//   - a target asleep in any other wait (epoll, a file, a child...) is the BKL's to wake: the
//     call then goes to sysTgkill under the BKL, which posts the same bit again (no change) and
//     ends the wait (postSignal, interruptWait). So does every case that is not the simple one —
//     another process, a signal the caller sends itself, a bad argument, a thread that does not
//     exist (the errors are sysTgkill's alone) — decided before anything is done.
//
// Nothing else of the signal machinery moves: delivery (schedule's deliverSignal) and
// rt_sigreturn keep the BKL, and a thread with a signal to take enters it on its way out
// (needsKernel), as before. The kernel option sigbkl=1 keeps tgkill under the BKL too, for
// comparisons; so do strace and the scheduler trace, which log under it.
//
// Context: trap context (doc.go), without the BKL.

// tgkillUnlockedOK reports whether the system call in f, from the thread running on core cpu, is
// one tgkillUnlocked takes: tgkill to another thread of the caller's process, with a signal the
// program may send (not SIGKILL or SIGSTOP, whose default actions are the BKL's), and nothing on
// that needs the BKL.
func tgkillUnlockedOK(f *arch.Frame, cpu int) bool {
	if nr, _ := syscallNr(f); nr != nrTgkill {
		return false
	}
	gp := cpus[cpu].cur
	if gp == 0 || cmd.sigBKL || cmd.trace || cmd.strace {
		return false
	}
	t := &threads[gp]
	_, a := syscallArgs(f)
	tgid, tid, sig := int32(a[0]), int32(a[1]), int32(a[2])
	return tgid == procOf(t).pid && tid > 0 && tid != t.tid && sig > 0 && sig <= nSig &&
		sig != sigKILL && sig != sigSTOP && !needsKernel(t)
}

// tgkillUnlocked runs the tgkill tgkillUnlockedOK accepted (trap n, entered at cycle t0), and
// returns the frame to resume as trap does.
func tgkillUnlocked(f *arch.Frame, n, cpu int, t0 uint64) *arch.Frame {
	gp := cpus[cpu].cur
	t := &threads[gp]
	_, a := syscallArgs(f)
	tid, bit := int32(a[1]), sigbit(int(int32(a[2])))
	futexQ.lock.lock(cpu)
	tgp := sched.GID(tid % MaxThreads)
	target := &threads[tgp]
	if tgp == 0 || target.tid != tid || !live(tgp) || target.proc != t.proc {
		// ESRCH, or a thread of another process (a stale tid, reused by a child's thread):
		// sysTgkill says which. Nothing has changed yet.
		futexQ.lock.unlock(cpu)
		atomic.AddUint64(&stats.sigFallbacks, 1)
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
	}
	target.sigpending.Or(bit)
	arch.Fence() // the bit before the mask and the wait (signal.go: Dekker's rule)
	bklWait := false
	if target.sigmask&bit == 0 {
		switch w := target.wait; {
		case onFutexQ(w):
			wakeThread(tgp, -EINTR, cpu) // as interruptWait: a futex wait or a sleep ends
		case w == waitNone:
			kickThread(tgp, cpu) // running, or on its way to: the IPI goes out below
		default:
			bklWait = true
		}
	}
	futexQ.lock.unlock(cpu)
	if bklWait {
		// Asleep in a wait only the BKL may end: sysTgkill does, and posts the bit again.
		atomic.AddUint64(&stats.sigFallbacks, 1)
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
	}
	atomic.AddUint64(&stats.syscalls, 1)
	atomic.AddUint64(&stats.unlockedSignals, 1)
	b := ktimeBucket(f, arch.TrapSyscall) // before the result: on amd64 it replaces the number
	f.SetSyscallResult(0)
	return resumeUnlocked(f, cpu, gp, t0, b)
}
