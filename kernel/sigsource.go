// Who sent a pending signal: the siginfo of timer and kernel signals, and process-directed ones.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/sched"

// A thread's pending set is one bit per signal (signal.go), and a signal already pending is not
// queued again — Linux's rule for the standard signals (legacy_queue). Most pending signals come
// from kill or tgkill and are delivered with si_code SI_TKILL. Two other senders need their own
// siginfo, so the thread records, per signal, that the pending instance is theirs:
//
//   - sigTimer: a POSIX timer (ptimer.go) queued it. It is delivered with SI_TIMER and the
//     timer's ID, overrun count and sigev_value, and its delivery re-arms a periodic timer. A
//     timer's instance takes over a signal kill or the kernel left pending (Linux would queue
//     both; the Go profiler needs the timer's, so gmpos keeps that one).
//   - sigKernel: the kernel sent it for an itimer (itimer.go), SI_KERNEL with no sender, as
//     Linux's SEND_SIG_PRIV (kernel/signal.c __send_signal_locked).
//
// Signals for the process rather than a thread (kill, itimers, a timer's SIGEV_SIGNAL) are
// pending on one thread that does not block them, chosen as Linux's complete_signal does: the
// thread the sender names first, else any; if every thread blocks the signal, it waits on the
// first choice. Linux keeps such a signal in a process-wide set instead, so that whichever thread
// unblocks it first takes it. Protected by the BKL; and a sender sets a source bit together with
// the pending bit under futexQ's lock, under which a delivery without the BKL claims only a
// pending signal with neither source (signal_unlocked.go deliverUnlocked): the two never
// take each other's instance.

const (
	sigALRM   = 14
	sigVTALRM = 26
	sigPROF   = 27

	siTimer = -2 // si_code of a POSIX timer's signal (SI_TIMER)
)

// sigSource is the siginfo of a signal taken off the pending set: its si_code and, for SI_TIMER,
// the union's _timer member (si_tid, si_overrun, si_sigval).
type sigSource struct {
	code    int32
	timerID int32
	overrun int32
	value   uint64
}

// takeSigSource returns the siginfo for signal sig, which deliverSignal has just taken off t's
// pending set, and tells the sender: a periodic timer re-arms when its signal is delivered
// (Linux's posixtimer_deliver_signal, and posixtimer_rearm_itimer for any SIGALRM).
func takeSigSource(t *Thread, gp sched.GID, sig int) sigSource {
	bit := sigbit(sig)
	src := sigSource{code: siTkill}
	switch {
	case t.sigTimer&bit != 0:
		t.sigTimer &^= bit
		if k := queuedTimer(gp, sig); k != nil {
			src = sigSource{code: siTimer, timerID: k.id, overrun: timerDelivered(k), value: k.value}
		}
	case t.sigKernel&bit != 0:
		t.sigKernel &^= bit
		src.code = siKernel
	}
	if sig == sigALRM {
		itimerRealRearm()
	}
	return src
}

// storeSigSource writes a timer's or the kernel's siginfo fields after si_signo/si_code
// (asm-generic/siginfo.h: _timer's si_tid at 16, si_overrun at 20, si_sigval at 24; SI_KERNEL
// leaves si_pid and si_uid zero).
func storeSigSource(w sigWriter, info uintptr, src sigSource) {
	if src.code == siTimer {
		w.put32(info+16, uint32(src.timerID))
		w.put32(info+20, uint32(src.overrun))
		w.put64(info+24, src.value)
	}
}

// sigDefaultIgnored reports whether sig's default action is to ignore it (kernel/signal.c
// SIG_KERNEL_IGNORE_MASK).
func sigDefaultIgnored(sig int) bool {
	switch sig {
	case sigCHLD, sigURG, sigWINCH, sigCONT:
		return true
	}
	return false
}

// sigIgnoredBy reports whether t would throw sig away on arrival: its disposition ignores it and
// t does not block it — a blocked signal is kept, its handler may change before it is unblocked
// (kernel/signal.c sig_ignored).
func sigIgnoredBy(t *Thread, sig int) bool {
	return t.sigmask&sigbit(sig) == 0 && ignoredAction(procOf(t).sigactions[sig].handler, sig)
}

// ignoredAction reports whether a disposition with this handler ignores sig (sig_handler_ignored).
func ignoredAction(handler uint64, sig int) bool {
	return handler == sigIGN || (handler == sigDFL && sigDefaultIgnored(sig))
}

// groupTarget picks the thread of process k that takes a process-directed signal
// (complete_signal): prefer if it is alive and does not block sig, else the first thread that
// does not; if all block it, prefer (or the first live thread, if prefer is gone or 0). 0 only if
// k has no live thread.
func groupTarget(k int, prefer sched.GID, sig int) sched.GID {
	if prefer != 0 && live(prefer) && threads[prefer].sigmask&sigbit(sig) == 0 {
		return prefer
	}
	first := sched.GID(0)
	for i := 1; i < MaxThreads; i++ {
		gp := sched.GID(i)
		if !live(gp) || int(threads[i].proc) != k {
			continue
		}
		if threads[i].sigmask&sigbit(sig) == 0 {
			return gp
		}
		if first == 0 {
			first = gp
		}
	}
	if prefer != 0 && live(prefer) {
		return prefer
	}
	return first
}

// mainThread is the thread of process k whose tid is its process ID (Linux's group leader), if it
// is alive.
func mainThread(k int) sched.GID {
	t, gp := threadByTid(procs[k].pid)
	if t == nil || int(t.proc) != k {
		return 0
	}
	return gp
}

// postKernelSignal sends sig to process k for an itimer (or the console), with si_code SI_KERNEL,
// to thread prefer if it can take it (groupTarget). An ignored signal is dropped; a signal already pending
// at the chosen thread is not queued twice. BKL held.
func postKernelSignal(k int, prefer sched.GID, sig int, cpu int) {
	gp := groupTarget(k, prefer, sig)
	if gp == 0 {
		return
	}
	t := &threads[gp]
	bit := sigbit(sig)
	if sigIgnoredBy(t, sig) {
		return
	}
	futexQ.lock.lock(cpu) // the source with the pending bit (see above)
	if t.sigpending.Load()&bit != 0 {
		futexQ.lock.unlock(cpu)
		return
	}
	t.sigKernel |= bit
	t.sigpending.Or(bit)
	futexQ.lock.unlock(cpu)
	postSignal(t, gp, sig, cpu)
}

// signalsThreadExit hands on what an exiting thread had pending for the process: the kernel's
// signals and the signals of timers that notify the process go to another thread, as if they had
// waited in Linux's process-wide set. Called by threadExit once gp is no longer alive, before its
// slot is cleared.
func signalsThreadExit(t *Thread, gp sched.GID, cpu int) {
	for sig := 1; sig <= nSig; sig++ {
		if t.sigKernel&sigbit(sig) != 0 {
			postKernelSignal(int(t.proc), mainThread(int(t.proc)), sig, cpu)
		}
	}
	timersThreadExit(gp, cpu)
}
