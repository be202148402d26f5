// The Go runtime's signals without the big kernel lock: tgkill, delivery and rt_sigreturn.
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
//     pending); end its wait if it sleeps on futexQ's list (a futex wait, a sleep or an
//     epoll_wait without a temporary mask: under the lock held already, as wait.go
//     interruptWait does); kick its core if it runs (kickThread,
//     the IPI sent on the way out). The mask and the wait are read after the bit is stored and a
//     fence, and the thread reads its pending set after storing them and a fence (signal.go,
//     Dekker's rule), so either this sees what to do or the thread sees the signal;
//   - a target asleep in any other wait (a file, a child, epoll with a mask...) is the BKL's to wake: the
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
// let a pending signal in: the thread then looks, after a fence (Dekker's rule again), and
// delivers it as below.
//
// Delivery (signalsUnlocked, deliverUnlocked) happens where a thread returns to user mode with
// a signal its mask lets in: in the kick tgkill sent its core (wake_unlocked.go kickUnlocked) and
// after rt_sigreturn. It builds the frame with the code schedule's deliverSignal uses
// (signal.go setupSigframe): in the core's buffer, copied out once with arch.CopyUser after the
// loaded page table says the program may write the stack. It reads the disposition under a
// sequence count, since rt_sigaction may change it meanwhile (setSigaction, loadSigaction), and
// claims the pending bit under futexQ's lock, as the senders that attach a timer's or the
// kernel's siginfo to a pending bit set both under it (sigsource.go): only a signal without such
// a source is delivered here. Everything else — a fault's signal, a default action, a timer's
// or an itimer's signal, SA_RESETHAND, a temporary mask to restore, a stack it cannot write now —
// takes the BKL's way out, with the bit put back. klog logs the deliveries made under the BKL
// (its console is the BKL's) and counts these.
//
// The kernel option sigbkl=1 keeps all of it under the BKL, for comparisons; so do strace and
// the scheduler trace, which log under it.
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
	old := target.sigpending.Or(bit)
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
			// sysTgkill posts the signal itself: take back a bit this call added, or a BKL
			// holder could deliver it before that, and sysTgkill would then post it twice.
			// Under futexQ's lock, no delivery without the BKL can have claimed it yet.
			if old&bit == 0 {
				target.sigpending.And(^bit)
			}
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
	// The restored mask may let a pending signal in: delivered here, as schedule does after
	// every call (signalsUnlocked reads the pending set after a fence: Dekker's rule), or by the
	// BKL's way out, to this thread, whose frame is now the restored context.
	if needsKernelNotSignals(t) || !signalsUnlocked(t, f, cpu) {
		t.frame = *f
		return trapBKLAs(nil, arch.TrapIPI, int(arch.IPIWake), cpu, t0, b)
	}
	return resumeUnlocked(f, cpu, gp, t0, b)
}

// loadedReadable is sigreturnFetch's check without the BKL: the page table loaded on this core —
// the thread's — lets the program read the n bytes at p now (mm PeekUserRange).
func loadedReadable(p, n uintptr) bool {
	return loadedPT().PeekUserRange(p, n, false)
}

// signalsUnlocked delivers, without the BKL, the signals t's mask lets in to t — the thread
// running on core cpu, whose registers are f — on its way back to user mode, each on top of the
// last, as schedule's loop of deliverSignal does: true once none is left, false as soon as one
// needs the BKL (deliverUnlocked), whose way out then delivers the rest. The mask is read after a
// fence (Dekker's rule, signal.go).
func signalsUnlocked(t *Thread, f *arch.Frame, cpu int) bool {
	for n := 0; n < nSig; n++ {
		arch.Fence()
		ready := t.sigpending.Load() &^ t.sigmask
		if ready == 0 {
			return true
		}
		if !deliverUnlocked(t, f, cpu, ready) {
			return false
		}
	}
	return false // a handler that lets every signal in: let the BKL's loop bound it
}

// deliverUnlocked delivers the lowest signal of ready to t, as deliverSignal does, if nothing
// of it needs the BKL: a signal a caught handler takes, sent by tgkill or kill (no timer's or
// kernel's siginfo to fetch, no SIGALRM itimer to re-arm, no fault to describe), with no
// SA_RESETHAND to apply, while t has no temporary mask to restore. (klog logs the deliveries
// made under the BKL — the console is the BKL's — and counts these: unlocked-deliveries.) The disposition is read under its sequence count (loadSigaction); the
// pending bit is claimed under futexQ's lock, as no source is set (sigsource.go); the frame is
// built in the core's buffer and copied out with arch.CopyUser after the loaded page table says
// the program may write there (setupSigframe, loadedWritable). false, with the bit put back and
// nothing else changed, when the BKL's deliverSignal must do it — or when the frame could not be
// written, which that path turns into SIGSEGV if the stack is really bad.
func deliverUnlocked(t *Thread, f *arch.Frame, cpu int, ready uint64) bool {
	if cmd.sigBKL || t.faultSig != 0 || t.restoreSigmask || t.killed || procOf(t).state != procLive {
		return false
	}
	sig := 1
	for ready&1 == 0 {
		ready >>= 1
		sig++
	}
	if sig == sigALRM {
		return false // takeSigSource re-arms the real-time itimer: the BKL's
	}
	act := loadSigaction(procOf(t), sig)
	if act.handler == sigDFL || act.handler == sigIGN || act.flags&saResethand != 0 {
		return false
	}
	bit := sigbit(sig)
	futexQ.lock.lock(cpu)
	// An end is looked at again inside the section: waiting for the lock acknowledges TLB
	// shootdowns, so execve may have marked t and torn its address space down meanwhile (as
	// futex_unlocked.go says), and the frame must not be written into the new image.
	claimed := !t.killed && procOf(t).state == procLive &&
		t.sigTimer&bit == 0 && t.sigKernel&bit == 0 && t.sigpending.Load()&bit != 0
	if claimed {
		t.sigpending.And(^bit)
	}
	futexQ.lock.unlock(cpu)
	if !claimed {
		return false
	}
	info := sigInfo{code: siTkill}
	if _, ok := setupSigframe(t, f, cpu, &act, sig, &info, loadedWritable); !ok {
		t.sigpending.Or(bit) // as it was: the BKL's deliverSignal takes it
		return false
	}
	sigDelivered(t, &act, sig)
	atomic.AddUint64(&stats.unlockedDeliveries, 1)
	return true
}

// loadedWritable is setupSigframe's check without the BKL: the page table loaded on this core —
// the thread's — lets the program write the n bytes at p now (mm PeekUserRange).
func loadedWritable(p, n uintptr) bool {
	return loadedPT().PeekUserRange(p, n, true)
}

// loadedPT is the page table loaded on this core: the running thread's (proc.go loadRoot).
func loadedPT() mm.PageTable { return mm.PageTable{Root: cpus[arch.Current().ID()].root} }
