// Sleeping and waking: how a system call waits, and how it is ended.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/sched"
)

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
// Every blocked thread is on a waiter list, so that wake-ups and timeouts scan the waiting
// threads only, not the thread table: a futex waiter, a sleeper or an epoll_wait without a
// temporary mask on futexQ's (futex.go: the waits that may begin and end without the BKL),
// every other on waiters. A thread's wait fields
// (wait, waitObj, waitArg, deadline) are protected by the BKL, and for a wait on futexQ's list
// by futexQ's lock instead: whoever reads another thread's wait state without knowing its kind
// (signals, exits: interruptWait, endWaitOrKick) takes both.

type waitKind uint8

const (
	waitNone        waitKind = iota
	waitFutex                // futex word waitObj, bitset waitArg (futex.go); timeout: ETIMEDOUT
	waitSleep                // nanosleep, clock_nanosleep: the deadline is the point
	waitEpoll                // epoll_wait on the instance of open file waitObj (epoll.go); restarts
	waitEpollMasked          // the same with a temporary signal mask; buffer waitArg, max waitArg2
	waitFile                 // open file waitObj until one of the events waitArg (fd.go); restarts
	waitIRQ                  // the interrupt self-test (irq.go)
	waitNet                  // a socket call's round trip to the network stack (net_svc.go)
	waitP9                   // a call on a share: its 9P round trips (fs9p.go); request waitObj
	waitP9Slot               // a free request slot of a share (fs9p.go); restarts
	waitChild                // wait4, waitid: a child's end (sys_wait.go); restarts
	waitVfork                // vfork's parent: the child's execve or exit (proc.go)
)

// A waitList lists blocked threads, and caches the earliest of their deadlines, which armTimer
// asks for on every way out of the kernel: next is exact unless stale, and a wait that ends with
// the earliest deadline makes it stale (earliest then looks at every waiter once).
type waitList struct {
	g     [MaxThreads]sched.GID
	n     int
	next  int64 // the earliest deadline (0: none), unless stale
	stale bool
}

// add puts gp, waiting until deadline (0: none), on the list.
func (l *waitList) add(gp sched.GID, deadline int64) {
	l.g[l.n] = gp
	l.n++
	if deadline != 0 && !l.stale && (l.next == 0 || deadline < l.next) {
		l.next = deadline
	}
}

// remove takes gp, whose wait had the given deadline, off the list: the last waiter moves into
// its slot.
func (l *waitList) remove(gp sched.GID, deadline int64) {
	for i := 0; i < l.n; i++ {
		if l.g[i] == gp {
			l.n--
			l.g[i] = l.g[l.n]
			break
		}
	}
	if deadline != 0 && deadline == l.next {
		l.stale = true // the earliest deadline may be gone: earliest looks again
	}
}

// earliest is the earliest deadline of a waiter on the list (0: none).
func (l *waitList) earliest() int64 {
	if !l.stale {
		return l.next
	}
	next := int64(0)
	for i := 0; i < l.n; i++ {
		if d := threads[l.g[i]].deadline; d != 0 && (next == 0 || d < next) {
			next = d
		}
	}
	l.next, l.stale = next, false
	return next
}

// waiters lists every blocked thread but the futex waiters, the sleepers and the epoll waits
// without a temporary mask, which are on futexQ's list (futex.go), under its own lock, since
// paths without the BKL add and remove them.
// Protected by the BKL.
var waiters waitList

// block parks the running thread gp until a waker ends the wait, or the deadline (monotonic ns,
// 0: none) passes. The caller's result is ignored: the waker sets it. trap's final schedule picks
// another thread for this core. A wait on futexQ's list (onFutexQ) needs futexQ's lock held.
func block(t *Thread, gp sched.GID, cpu int, kind waitKind, deadline int64) {
	t.wait = kind
	t.deadline = deadline
	S.Park(cpu)
	l := waitListOf(kind)
	l.add(gp, deadline)
	if l == &futexQ.list {
		t.queued = true
		if deadline != 0 {
			futexQ.next.Store(l.earliest()) // for the timers, read without the lock (timer.go)
		}
	}
}

// waitListOf is the list a wait of the given kind is on.
func waitListOf(kind waitKind) *waitList {
	if onFutexQ(kind) {
		return &futexQ.list
	}
	return &waiters
}

// onFutexQ reports whether waits of the given kind are on futexQ's list, under its lock: the
// waits that may begin, time out and end without the BKL.
func onFutexQ(kind waitKind) bool { return kind == waitFutex || kind == waitSleep || kind == waitEpoll }

// pendingInterrupts ends the wait a system call just began if a deliverable signal is already
// pending — one another core posted while the thread ran, when postSignal had no wait to
// interrupt — as Linux's interruptible sleeps check signal_pending before they sleep; otherwise
// it would wait, undelivered, for whatever ends the sleep. syscall calls it after the result
// handling, so that a restart (SA_RESTART) keeps the call's number.
func pendingInterrupts(t *Thread, gp sched.GID, cpu int) {
	arch.Fence() // the wait block stored before pending: see deliverable (signal.go)
	ready := t.sigpending.Load() &^ t.sigmask
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

// unblock takes gp off its waiter list and hands it to the scheduler (runnext of this core).
// Under the BKL, or — a futex waiter, a sleeper or an epoll_wait woken without the BKL
// (futex_unlocked.go, a timeout: sleep_unlocked.go, an eventfd write: poll_unlocked.go) — with
// futexQ's lock only: then nothing of the BKL's is touched
// (the kinds whose waits hold something are never on futexQ's list, and the network poller's
// collection is the BKL's), and no BKL section is marked as the one that made gp runnable.
func unblock(gp sched.GID, cpu int) {
	t := &threads[gp]
	l := waitListOf(t.wait)
	l.remove(gp, t.deadline)
	if l == &futexQ.list && t.deadline != 0 {
		futexQ.next.Store(l.earliest())
	}
	// Release what the wait holds, however it ends (its waker, a timeout, a signal): a wait
	// that stayed registered somewhere could later "end" a different wait of the same thread.
	switch t.wait {
	case waitFile:
		atomic.AddInt32(&files[t.waitObj].waiting, -1)
		putFile(int(t.waitObj)) // the reference the wait held
	case waitEpollMasked:
		atomic.AddInt32(&files[t.waitObj].waiting, -1) // no reference: see epoll.go
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
	t.deadline = 0
	if !bklHeld(cpu) {
		atomic.StoreUint64(&t.runnableIn, 0) // no BKL section touches it after this (smp.go sectionOpen)
		S.Ready(gp, cpu)
		return
	}
	markRunnable(gp) // for the poll's buffer too: sched readies those in this section
	if netWakeTake(gp) {
		return // the network poller returns it to the scheduler (net_poller.go)
	}
	S.Ready(gp, cpu)
}

// expireTimeouts ends every wait whose deadline has passed (the timer interrupt, trap.go). BKL.
func expireTimeouts(cpu int, now int64) {
	expireList(&waiters, cpu, now)
	expireQueue(cpu, now)
}

// expireQueue ends the waits on futexQ's list whose deadline has passed. Its lock is taken only
// when one has (futexQ.next). With or without the BKL (sleep_unlocked.go).
func expireQueue(cpu int, now int64) {
	if d := futexQ.next.Load(); d == 0 || d > now {
		return
	}
	futexQ.lock.lock(cpu)
	expireList(&futexQ.list, cpu, now)
	futexQ.lock.unlock(cpu)
}

// expireList ends the waits on l whose deadline has passed.
func expireList(l *waitList, cpu int, now int64) {
	for i := 0; i < l.n; {
		gp := l.g[i]
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
		if i < l.n && l.g[i] == gp {
			i++ // still waiting (cannot happen: every waiter is blocked); do not spin on it
		}
		// Otherwise unblock swapped the last waiter into slot i: look at slot i again.
	}
}

// earlier is the earlier of two deadlines, 0 meaning none.
func earlier(a, b int64) int64 {
	if a == 0 || b != 0 && b < a {
		return b
	}
	return a
}

// endWaitOrKick makes thread gp, which must stop what it is doing (its process exits, execve
// ends it), do so soon: a blocked thread's wait ends with EINTR, a running one is kicked
// (signal.go kickThread). BKL held; the caller has stored what gp must see first. The futex
// lock makes "blocked on futexQ's list, or not blocked" one answer: a thread blocking in a
// futex or a sleep without the BKL looks at that state after its queue section
// (futex_unlocked.go, sleep_unlocked.go), so either it sees the store or this sees it blocked.
// Any other wait is the BKL's alone (it neither begins nor ends without it), so it is ended
// after the futex lock is released: what ending it releases (a file, a device request) must not
// run under that lock (doc.go, "Lock order").
func endWaitOrKick(gp sched.GID, cpu int) {
	futexQ.lock.lock(cpu)
	w := threads[gp].wait
	switch {
	case onFutexQ(w):
		wakeThread(gp, -EINTR, cpu)
	case w == waitNone:
		kickThread(gp, cpu)
	}
	futexQ.lock.unlock(cpu)
	if !onFutexQ(w) && w != waitNone {
		wakeThread(gp, -EINTR, cpu)
	}
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
//
// BKL held. It reads the thread's wait under the futex lock, and ends a futex wait or a sleep
// there, for the same reasons as endWaitOrKick; a thread not blocked then is left alone (the
// caller kicks it), and any other wait is ended after the lock is released.
func interruptWait(gp sched.GID, sig int, cpu int) {
	futexQ.lock.lock(cpu)
	w := threads[gp].wait
	if onFutexQ(w) {
		wakeThread(gp, -EINTR, cpu)
	}
	futexQ.lock.unlock(cpu)
	switch {
	case w == waitNone || onFutexQ(w):
	case w == waitNet || w == waitP9 || w == waitP9Slot || w == waitVfork:
	case w == waitFile && procOf(&threads[gp]).sigactions[sig].flags&saRestart != 0:
		wakeToRestart(gp, cpu)
	default:
		wakeThread(gp, -EINTR, cpu)
	}
}
