// The Go runtime's netpoller without the big kernel lock: epoll_wait and its eventfd.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"
	"unsafe"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// Why. Every Go program with a timer or a file in the netpoller — time.Sleep, a Ticker, a
// context's deadline, os.Pipe, a socket — parks an idle thread in epoll_pwait with the next
// timer's delay, and wakes it early by writing its eventfd (runtime netpollBreak, whenever a
// timer is set earlier than the one it sleeps for), after which the woken thread drains the
// eventfd with read(2). Those three calls took the BKL, so an idle P's timer sleep and its
// wake-up queued behind whatever another core did in the kernel. epoll's instances and items,
// the open files' watcher links and the eventfds' counters have their own lock now (epollLock,
// epoll.go), and epoll_wait without a temporary mask waits on futexQ's list, whose waits paths
// without the BKL may begin and end (wait.go): so these calls need the BKL for nothing but
// finding their files, which this path does under fdSeq (fd.go fdPeek), as the console's
// writes do.
//
// What each takes without the BKL:
//   - epoll_wait and epoll_pwait without a signal mask on an instance whose ready items are
//     eventfds (none is ready, or the runtime's break fd): it collects those events into the
//     buffer with arch.CopyUser, after the loaded page table says the program may write there
//     (an munmap meanwhile fails the copy, which leaves the ready list as it was); it returns
//     them, or 0 for a zero timeout, or blocks on futexQ's list until a ready item wakes it to
//     run again (wakeEpollWaiter), its deadline passes or a signal arrives — unless the instance
//     watches the NIC's file: a wait for frames is the network poller's (net_poller.go), which
//     readies the waiter from a core's findRunnable, before it halts, without an interrupt, and
//     runs under the BKL; so such a wait begins under the BKL, whose way out idles through
//     that poll, though it parks on the same list.
//   - read and write of 8 bytes on an eventfd opened O_NONBLOCK (the runtime's is): the
//     counter changes under epollLock, and epoll hears of it (epollWake), which may wake a
//     waiter as above. A read copies the count out before it consumes it, so a failed copy
//     loses nothing.
//
// Anything else goes, untouched, to the BKL's path: another kind of file or an fd table that
// changed meanwhile; an instance with a socket's, a pipe's or another instance's item ready
// (their poll functions read state that is the BKL's); a blocking eventfd, or one whose
// change the BKL's waiters must hear of — a thread parked on it in read or write, an instance
// watching it that is itself watched, or that a thread waits on with a temporary mask (the
// files' waiting counts, fd.go); a buffer not mapped as the program may use it now (the BKL's
// path faults it in, or answers EFAULT); every error but the eventfd counter's own EAGAIN and
// EINVAL, answered here as the BKL's path answers them; a thread that needs the kernel on its way
// out; strace and the scheduler trace, which log under the BKL. execve takes epollLock once
// after it has marked the process's other threads (exec.go), so that no copy here reaches into
// the image that replaces theirs; a waiter checks that mark again under futexQ's lock before it
// parks, as the futex path does, since the exit's or execve's wake-up looks there.
//
// The kernel option pollbkl=1 keeps every one of these calls under the BKL, for comparisons.
//
// Context: trap context (doc.go), without the BKL; epollLock, and futexQ's lock inside it.

// pollResult is how a call pollUnlocked tried ended.
type pollResult uint8

const (
	pollDone    pollResult = iota // answered here: the result is the call's
	pollBlocked                   // parked on futexQ's list: the waker sets the result
	pollBKL                       // nothing done: the call is the BKL's
)

// pollUnlockedOK reports whether the system call in f, from the thread running on core cpu, is
// one pollUnlocked may try: epoll_wait, epoll_pwait without a signal mask, or a read or write on
// an eventfd, with nothing on that needs the BKL.
func pollUnlockedOK(f *arch.Frame, cpu int) bool {
	nr, _ := syscallNr(f)
	switch int(nr) {
	case nrEpollPwait, nrEpollWait, nrRead, nrWrite:
	default:
		return false
	}
	gp := cpus[cpu].cur
	if gp == 0 || cmd.pollBKL || cmd.trace || cmd.strace || needsKernel(&threads[gp]) {
		return false
	}
	_, a := syscallArgs(f)
	switch int(nr) {
	case nrRead, nrWrite:
		v, _ := fdPeek(procOf(&threads[gp]), int32(a[0]))
		return v.kind == kindEventfd
	case nrEpollPwait:
		return a[4] == 0 // a temporary mask is the BKL's to restore (epoll.go)
	}
	return true
}

// pollUnlocked runs the call pollUnlockedOK accepted (trap n, entered at cycle t0) and returns
// the frame to resume as trap does.
func pollUnlocked(f *arch.Frame, n, cpu int, t0 uint64) *arch.Frame {
	gp := cpus[cpu].cur
	t := &threads[gp]
	nr, _ := syscallNr(f)
	_, a := syscallArgs(f)
	b := ktimeBucket(f, arch.TrapSyscall) // before the result: on amd64 it replaces the number
	var r int64
	var how pollResult
	switch int(nr) {
	case nrRead, nrWrite:
		r, how = eventfdUnlocked(t, int32(a[0]), uintptr(a[1]), uintptr(a[2]), int(nr) == nrWrite, cpu)
	default:
		r, how = epollWaitUnlocked(t, gp, f, cpu, int32(a[0]), uintptr(a[1]), int32(a[2]), epollTimeout(int32(a[3])))
	}
	if how == pollBKL {
		atomic.AddUint64(&stats.pollFallbacks, 1)
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
	}
	if int(nr) == nrRead || int(nr) == nrWrite {
		atomic.AddUint64(&stats.unlockedEventfd, 1)
	} else {
		atomic.AddUint64(&stats.unlockedEpoll, 1)
	}
	atomic.AddUint64(&stats.syscalls, 1)
	if how == pollBlocked {
		interruptIfNeeded(t, gp, cpu) // a signal that came before the wait began
		return switchUnlocked(cpu, t0, b)
	}
	f.SetSyscallResult(uint64(r))
	return resumeUnlocked(f, cpu, gp, t0, b) // a waiter it woke may wait on this core's queue
}

// epollWaitUnlocked is sysEpollPwait without a mask, for the thread t running on core cpu with
// frame f, when the instance's ready items are all eventfds; else it does nothing (pollBKL).
func epollWaitUnlocked(t *Thread, gp sched.GID, f *arch.Frame, cpu int, epfd int32, buf uintptr, max int32, timeoutNS int64) (int64, pollResult) {
	if max <= 0 || max > epMaxEvents {
		return 0, pollBKL // EINVAL: sysEpollPwait's
	}
	if end := buf + uintptr(max)*epollEventSize; end < buf || end > mm.UserEnd {
		return 0, pollBKL // EFAULT: the same
	}
	v, still := fdPeek(procOf(t), epfd)
	if !still || v.kind != kindEpoll {
		return 0, pollBKL
	}
	inst := int32(v.priv)
	epollLock.lock(cpu)
	if !fdStill(v.seq) || t.killed || procOf(t).state != procLive || !readyEventfdsOnly(inst) ||
		timeoutNS != 0 && epolls[inst].nicItems != 0 {
		epollLock.unlock(cpu)
		return 0, pollBKL
	}
	n := epollCollect(inst, buf, int(max), true)
	if n < 0 {
		// The buffer's first event could not be written (not faulted in yet, or not the
		// program's): the ready list is as it was, and the BKL's path faults it in or answers.
		epollLock.unlock(cpu)
		return 0, pollBKL
	}
	again := takeEpollAgain(t) // only now: every hand-over above leaves it to the BKL's path
	deadline, expired := epollDeadline(again, timeoutNS)
	if n != 0 || timeoutNS == 0 || expired {
		epollLock.unlock(cpu)
		return n, pollDone
	}
	t.frame = *f // the waker restarts the call from it
	if !epollBlock(t, gp, cpu, v.fi, deadline) {
		// An exit or execve marked the thread after the look above: the BKL's path ends it.
		if again >= 0 {
			t.epollAgain, t.epollUntil = true, again
		}
		epollLock.unlock(cpu)
		return 0, pollBKL
	}
	epollLock.unlock(cpu)
	return 0, pollBlocked
}

// readyEventfdsOnly reports whether every item on instance inst's ready list watches an
// eventfd: the only kind whose readiness (eventfdFile.poll) is epollLock's, not the BKL's.
// epollLock held.
func readyEventfdsOnly(inst int32) bool {
	for i := epolls[inst].ready.head; i != 0; i = epitems[i-1].next {
		if files[epitems[i-1].file].kind != kindEventfd {
			return false
		}
	}
	return true
}

// eventfdUnlocked is read(2) (write false) or write(2) of n bytes at buf on fd, an eventfd,
// for the thread t running on core cpu, when the file is non-blocking and nothing the BKL keeps
// needs to hear of the change; else it does nothing (pollBKL).
func eventfdUnlocked(t *Thread, fd int32, buf, n uintptr, write bool, cpu int) (int64, pollResult) {
	if n < 8 || !accessOK(buf, n) {
		return 0, pollBKL // EINVAL, EFAULT: sysRead's and sysWrite's
	}
	v, still := fdPeek(procOf(t), fd)
	if !still || v.kind != kindEventfd {
		return 0, pollBKL
	}
	epollLock.lock(cpu)
	fl := &files[v.fi]
	if !fdStill(v.seq) || t.killed || procOf(t).state != procLive || !eventfdQuiet(fl) {
		epollLock.unlock(cpu)
		return 0, pollBKL
	}
	var val uint64
	k := uintptr(unsafe.Pointer(&val))
	if write {
		if !loadedReadable(buf, 8) || !arch.CopyUser(k, buf, 8) {
			epollLock.unlock(cpu)
			return 0, pollBKL
		}
		r := eventfdAddLocked(fl, val, cpu)
		epollLock.unlock(cpu)
		return r, pollDone
	}
	if fl.priv == 0 {
		epollLock.unlock(cpu)
		return -EAGAIN, pollDone
	}
	val = fl.priv // what eventfdTakeLocked takes, copied out before it is taken
	if fl.aux&efdSemaphore != 0 {
		val = 1
	}
	if !loadedWritable(buf, 8) || !arch.CopyUser(buf, k, 8) {
		epollLock.unlock(cpu)
		return 0, pollBKL
	}
	eventfdTakeLocked(fl, cpu)
	epollLock.unlock(cpu)
	return 8, pollDone
}

// eventfdQuiet reports whether a change to eventfd fl may be made without the
// BKL: the file is non-blocking, nobody is parked on it, and every instance watching it is
// watched by no other instance and waited on by nobody with a temporary mask — so that
// epollWake reaches futexQ's waiters only. epollLock held.
//
// A thread that blocked in read or write on the file did so while it was blocking, before an
// F_SETFL that made it non-blocking: that store came after the waiter's count in the BKL's
// order, so the count is read after the flags, with a fence between. A blocking read or write
// that begins after this look finds the counter under epollLock, after this change.
func eventfdQuiet(fl *file) bool {
	nonblock := fl.flags&oNonblock != 0
	arch.Fence() // the flags before the count (arm64)
	if !nonblock || atomic.LoadInt32(&fl.waiting) != 0 {
		return false
	}
	for i := fl.watchers; i != 0; i = epitems[i-1].nextWatch {
		ef := &files[epolls[epitems[i-1].ep-1].file]
		if ef.watchers != 0 || atomic.LoadInt32(&ef.waiting) != 0 {
			return false
		}
	}
	return true
}
