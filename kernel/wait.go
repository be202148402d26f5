// Sleeping and waking: how a system call waits, and how it is ended.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/sched"

// The kernel never blocks and is never preempted: a system call that must wait parks its thread
// in the scheduler (block → sched.Park, the runtime's gopark), and the trap returns another
// thread's frame. Whoever ends the wait — a futex wake, a timeout, an eventfd write, a device
// interrupt, a signal — makes the thread runnable again (sched.Ready, the runtime's goready)
// and decides how the system call ends:
//
//   - wakeThread(gp, ret): the call returns ret. The waker has done the call's work (epoll_wait
//     collects events into the sleeper's buffer) or the wait itself was the work (futex, sleep).
//   - wakeToRestart(gp): the call runs again from the start, as if just issued — the blocking
//     read of an eventfd, which on its second run finds the counter non-zero. Linux gets the
//     same effect with a loop around schedule() inside the call; here the loop goes through user
//     mode (arch: Frame.RestartSyscall), which is also how Linux restarts calls after a signal.
//
// A timeout ends the wait with the kind's timeout result; a signal with EINTR.
//
// Every blocked thread is on the waiter list, so that wake-ups and timeouts scan the waiting
// threads only, not the thread table. Protected by the BKL.

type waitKind uint8

const (
	waitNone   waitKind = iota
	waitFutex           // futex word waitObj, bitset waitArg (futex.go); timeout: ETIMEDOUT
	waitSleep           // nanosleep, clock_nanosleep: the deadline is the point
	waitEpoll           // epoll instance waitObj; buffer waitArg, max waitArg2 (epoll.go)
	waitFile            // open file waitObj until one of the events waitArg (fd.go); restarts
	waitIRQ             // the interrupt self-test (irq.go)
	waitNet             // a socket call's round trip to the network stack (net_svc.go)
	waitP9              // a call on a share: its 9P round trips (fs9p.go); request waitObj
	waitP9Slot          // a free request slot of a share (fs9p.go); restarts
	waitChild           // wait4, waitid: a child's end (sys_wait.go); restarts
	waitVfork           // vfork's parent: the child's execve or exit (proc.go)
)

// waiters lists every blocked thread, and caches the earliest of their deadlines, which armTimer
// asks for on every way out of the kernel: next is exact unless stale, and a wait that ends with
// the earliest deadline makes it stale (nextDeadline then looks at every waiter once). Protected
// by the BKL.
var waiters struct {
	g     [MaxThreads]sched.GID
	n     int
	next  int64 // the earliest deadline (0: none), unless stale
	stale bool
}

// block parks the running thread gp until a waker ends the wait, or the deadline (monotonic ns,
// 0: none) passes. The caller's result is ignored: the waker sets it. trap's final schedule picks
// another thread for this core.
func block(t *Thread, gp sched.GID, cpu int, kind waitKind, deadline int64) {
	t.wait = kind
	t.deadline = deadline
	S.Park(cpu)
	waiters.g[waiters.n] = gp
	waiters.n++
	if deadline != 0 && !waiters.stale && (waiters.next == 0 || deadline < waiters.next) {
		waiters.next = deadline
	}
}

// pendingInterrupts ends the wait a system call just began if a deliverable signal is already
// pending — one another core posted while the thread ran, when postSignal had no wait to
// interrupt — as Linux's interruptible sleeps check signal_pending before they sleep; otherwise
// it would wait, undelivered, for whatever ends the sleep. syscall calls it after the result
// handling, so that a restart (SA_RESTART) keeps the call's number.
func pendingInterrupts(t *Thread, gp sched.GID, cpu int) {
	ready := t.sigpending &^ t.sigmask
	if ready == 0 || !blocked(gp) {
		return
	}
	sig := 1
	for ready&1 == 0 {
		ready >>= 1
		sig++
	}
	interruptWait(gp, sig, cpu)
}

// blocked reports whether gp is parked in a system call.
func blocked(gp sched.GID) bool {
	return threads[gp].wait != waitNone && S.Status(gp) == sched.Gwaiting
}

// wakeThread ends gp's wait: its system call returns ret. Nothing if gp is not blocked.
func wakeThread(gp sched.GID, ret int64, cpu int) {
	if !blocked(gp) {
		return
	}
	threads[gp].frame.SetSyscallResult(uint64(ret))
	unblock(gp, cpu)
}

// wakeToRestart ends gp's wait by running its system call again.
func wakeToRestart(gp sched.GID, cpu int) {
	if !blocked(gp) {
		return
	}
	threads[gp].frame.RestartSyscall()
	unblock(gp, cpu)
}

// unblock takes gp off the waiter list and hands it to the scheduler (runnext of this core).
func unblock(gp sched.GID, cpu int) {
	for i := 0; i < waiters.n; i++ {
		if waiters.g[i] == gp {
			waiters.n--
			waiters.g[i] = waiters.g[waiters.n]
			break
		}
	}
	t := &threads[gp]
	// Release what the wait holds, however it ends (its waker, a timeout, a signal): a wait
	// that stayed registered somewhere could later "end" a different wait of the same thread.
	switch t.wait {
	case waitEpoll, waitFile:
		putFile(int(t.waitObj)) // the reference the wait held
	case waitIRQ:
		irqTestEnd(gp)
	case waitNet:
		netRequestEnd(gp)
	case waitP9:
		p9WaitEnd(gp)
	}
	if t.restoreSigmask && int64(t.frame.SyscallResult()) != -EINTR {
		t.sigmask, t.restoreSigmask = t.savedSigmask, false
	}
	t.wait = waitNone
	if t.deadline != 0 && t.deadline == waiters.next {
		waiters.stale = true // the earliest deadline may be gone: nextDeadline looks again
	}
	t.deadline = 0
	markRunnable(gp) // for the poll's buffer too: sched readies those in this section
	if netWakeTake(gp) {
		return // the network poller returns it to the scheduler (net_poller.go)
	}
	S.Ready(gp, cpu)
}

// expireTimeouts ends every wait whose deadline has passed (the timer interrupt, trap.go).
func expireTimeouts(cpu int, now int64) {
	for i := 0; i < waiters.n; {
		gp := waiters.g[i]
		t := &threads[gp]
		if t.deadline == 0 || t.deadline > now {
			i++
			continue
		}
		switch t.wait {
		case waitFutex:
			wakeThread(gp, -ETIMEDOUT, cpu)
		case waitIRQ:
			irqTestTimeout(gp, cpu)
		case waitNet:
			netRequestTimeout(gp, cpu)
		case waitP9:
			p9Timedout(gp, cpu)
		default: // sleeps, epoll: 0 (no events)
			wakeThread(gp, 0, cpu)
		}
		if i < waiters.n && waiters.g[i] == gp {
			i++ // still waiting (cannot happen: every waiter is blocked); do not spin on it
		}
		// Otherwise unblock swapped the last waiter into slot i: look at slot i again.
	}
}

// nextDeadline is the earliest deadline of a waiting thread (0: none).
func nextDeadline() int64 {
	if !waiters.stale {
		return waiters.next
	}
	next := int64(0)
	for i := 0; i < waiters.n; i++ {
		if d := threads[waiters.g[i]].deadline; d != 0 && (next == 0 || d < next) {
			next = d
		}
	}
	waiters.next, waiters.stale = next, false
	return next
}

// interruptWait ends gp's wait because signal sig arrived for it (signal.go): with EINTR, or —
// for a read or write waiting on a file, when the handler has SA_RESTART — by running the call
// again after the handler (Linux: -ERESTARTSYS, which handle_signal turns into a restart).
//
// A round trip to the network stack (waitNet) or to a share's host (waitP9, and the wait for a
// request slot) is not interrupted: like Linux's short
// uninterruptible sleeps, it ends soon (or at its deadline), and the signal is delivered on the
// way back to user mode. Go does not retry socket, bind or listen after EINTR, and the
// runtime's preemption signal (SIGURG) arrives often. vfork's parent sleeps until its child
// execs or exits, whatever arrives (Linux: killable only).
func interruptWait(gp sched.GID, sig int, cpu int) {
	if w := threads[gp].wait; w == waitNet || w == waitP9 || w == waitP9Slot || w == waitVfork {
		return
	}
	if threads[gp].wait == waitFile && procOf(&threads[gp]).sigactions[sig].flags&saRestart != 0 {
		wakeToRestart(gp, cpu)
		return
	}
	wakeThread(gp, -EINTR, cpu)
}
