// The Go runtime's signals without the big kernel lock: tgkill and rt_sigreturn.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
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
// rt_sigreturn, the handler's way back, runs without the BKL as well (sigreturnUnlocked): it
// touches only its own thread — its registers (the trap's frame), its mask, its FP state — and
// the signal frame on its stack, which another core's munmap may take away meanwhile. So the
// frame is copied into the core's sigBuf with arch.CopyUser (the exception table turns such a
// munmap into a failed copy), after the loaded page table says the program may read it
// (PeekUserRange), and decoded from the copy by the same code as under the BKL (signal.go
// sysRtSigreturn, abi_<arch>.go); a frame it cannot read or does not accept goes, unchanged, to
// sysRtSigreturn under the BKL, which faults pages in or answers SIGSEGV. The restored mask may
// let a pending signal in: the thread then looks, after a fence (Dekker's rule again), and takes
// the BKL's way out, which delivers it.
//
// Delivery itself (schedule's deliverSignal) keeps the BKL: a thread with a signal to take
// enters it on its way out (needsKernel), as before. The kernel option sigbkl=1 keeps tgkill and
// rt_sigreturn under the BKL too, for comparisons; so do strace and the scheduler trace, which
// log under it.
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

// sigreturnUnlockedOK reports whether the system call in f, from the thread running on core cpu,
// is an rt_sigreturn sigreturnUnlocked takes: nothing on that needs the BKL.
func sigreturnUnlockedOK(f *arch.Frame, cpu int) bool {
	if nr, _ := syscallNr(f); nr != nrRtSigreturn {
		return false
	}
	gp := cpus[cpu].cur
	return gp != 0 && !cmd.sigBKL && !cmd.trace && !cmd.strace && !needsKernel(&threads[gp])
}

// sigreturnUnlocked runs the rt_sigreturn sigreturnUnlockedOK accepted (trap n, entered at cycle
// t0): the frame f is the thread's registers, restored in place. It returns the frame to resume
// as trap does.
func sigreturnUnlocked(f *arch.Frame, n, cpu int, t0 uint64) *arch.Frame {
	gp := cpus[cpu].cur
	t := &threads[gp]
	sb := &sigBufs[cpu]
	b := ktimeBucket(f, arch.TrapSyscall) // before the registers change
	if !sigreturnFetch(sb, sigreturnFrame(f), loadedReadable) || !restoreSigcontext(t, f, sb) {
		// Not readable now (not faulted in, unmapped meanwhile, not the program's), or a frame
		// to refuse: sysRtSigreturn decides under the BKL. Nothing has changed yet.
		atomic.AddUint64(&stats.sigFallbacks, 1)
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
	}
	atomic.AddUint64(&stats.syscalls, 1)
	atomic.AddUint64(&stats.unlockedSigreturns, 1)
	arch.Fence() // the restored mask before the pending set (signal.go: Dekker's rule)
	if needsKernel(t) {
		// The mask lets a pending signal in: the BKL's way out delivers it, as schedule does
		// after every call, to this thread, whose frame is now the restored context.
		t.frame = *f
		return trapBKL(nil, arch.TrapIPI, int(arch.IPIWake), cpu, t0)
	}
	return resumeUnlocked(f, cpu, gp, t0, b)
}

// loadedReadable is sigreturnFetch's check without the BKL: the page table loaded on this core —
// the thread's — lets the program read the n bytes at p now (mm PeekUserRange).
func loadedReadable(p, n uintptr) bool {
	return mm.PageTable{Root: cpus[arch.Current().ID()].root}.PeekUserRange(p, n, false)
}
