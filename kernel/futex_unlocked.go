// The Go runtime's futex calls without the big kernel lock: the second path out from under it.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// Why futexes next. The Go runtime parks and wakes its threads with two calls only, a private
// FUTEX_WAIT without a timeout (futexsleep from notesleep: an M with nothing to do) and a
// private FUTEX_WAKE (futexwakeup: wakep, notewakeup), and a thread ping-pong makes about
// twelve of them per round trip. Under the BKL each was a full kernel entry that the other core
// could not overlap (kernel/smp.go: 23,423 contended entries in a 5,000-round-trip run after the
// idle wake-ups had left the lock).
//
// What they need, and what guards it here:
//   - the futex queue and the waiters' wait fields: futexQ's lock (futex.go), which every path
//     that reads another thread's wait state takes too (wait.go interruptWait, endWaitOrKick);
//   - the futex word, read without the BKL, so that another core's munmap may unmap it
//     meanwhile: the page tables are asked first whether the program itself may read it
//     (mm PeekUserWord: not PROT_NONE, not a device page, not another process's or the
//     kernel's data — LoadUser32 reads with the kernel's rights; the thread remembers the last
//     page that passed until a mapping changes: mm PeekUserWordRemembered), then arch.LoadUser32 reads
//     it, and a fault is a failed read (an exception fixup, Linux's get_user). A word not
//     mapped, not yet faulted in, or not the program's hands the call to the BKL path
//     (sysFutex), which faults the page in or answers EFAULT — nothing has been done yet when
//     that happens;
//   - the scheduler (its own locks): S.Park, S.Ready, S.Schedule;
//   - the thread's and the process's CPU time: atomic adds, bracketed for the BKL's readers
//     (cputime.go acctBegin);
//   - the switch to another thread: pickUnlocked (wake_unlocked.go), after the blocked thread
//     is released (oncpu.go), since the core that wakes it may resume it at once.
//
// A FUTEX_WAIT with a timeout (futexsleep with ns >= 0: notetsleep, as in the GC's
// stop-the-world, which waits for the Ps in 100 µs rounds) joined once timeouts could expire
// without the BKL (sleep_unlocked.go): its relative timespec is read as nanosleep's is, before
// the word, and its deadline is the queue's like a sleep's.
//
// Every other futex operation (bitsets, requeue, WAKE_OP, shared futexes) and every error
// but the two a wait answers itself (EAGAIN: the word differs; ETIMEDOUT: the timeout had
// expired before the call) go to sysFutex under the BKL, as do all futex calls while the
// scheduler trace or strace runs, and with the kernel option futexbkl=1, which keeps the old
// path for comparisons. The profiler samples this path as it is (profile.go).
//
// Signals and exits. A thread in this path may be sent a signal, or be told to end (its
// process exits, execve), by a BKL holder on another core. That core stores the news, then
// takes futexQ's lock and looks whether the thread is blocked: if so it ends the wait with
// EINTR, if not it kicks the core running it (wait.go interruptWait, endWaitOrKick). This path
// works under the same lock, so one of the two sections comes first:
//   - the sender's: the lock orders its store before whatever this path reads after taking the
//     lock. An end (killed, or the process no longer live) is looked at inside the section,
//     before the word is read or anyone woken — execve may be about to tear the address space
//     down and load a new image there — and hands the call to trapBKL, which ends the thread.
//     A signal is looked at after the section (needsKernel), and ends the wait just begun;
//   - this path's: the sender finds the thread blocked and ends the wait, or, if the call did
//     not block, kicks the core: the IPI brings the thread back into the kernel as soon as it
//     is in user mode again, where trapBKL's schedule delivers.
//
// Context: trap context (doc.go), without the BKL.

// interruptIfNeeded ends the wait on futexQ's list that thread gp has just begun without the
// BKL if a signal or an exit came meanwhile (needsKernel), as its sender would have (see
// above): with EINTR, nothing if a waker or the deadline came first. The thread then runs again
// only through trapBKL's schedule. Shared with sleep_unlocked.go.
func interruptIfNeeded(t *Thread, gp sched.GID, cpu int) {
	if needsKernel(t) {
		futexQ.lock.lock(cpu)
		wakeThread(gp, -EINTR, cpu)
		futexQ.lock.unlock(cpu)
	}
}

// futexUnlockedOK reports whether the system call in f, from the thread running on core cpu,
// is one futexUnlocked takes: a private FUTEX_WAIT, its timeout's timespec (if any) in one page,
// or a private FUTEX_WAKE, on a valid address, with nothing on that needs the BKL.
//
// Every system call asks, so the call's number comes first: any other call is answered with one
// comparison.
func futexUnlockedOK(f *arch.Frame, cpu int) bool {
	if nr, _ := syscallNr(f); nr != nrFutex {
		return false
	}
	gp := cpus[cpu].cur
	if gp == 0 || cmd.futexBKL || cmd.trace || cmd.strace {
		return false
	}
	_, a := syscallArgs(f)
	addr, op, ts := uintptr(a[0]), int32(a[1]), uintptr(a[3])
	if op != futexWait|futexPrivate && op != futexWake|futexPrivate || addr&3 != 0 || addr >= mm.UserEnd ||
		op == futexWait|futexPrivate && ts != 0 && !timespecShapeOK(ts) {
		return false // the rest, and every error, is sysFutex's (futex.go)
	}
	return !needsKernel(&threads[gp])
}

// futexUnlocked runs the futex call futexUnlockedOK accepted (trap n, entered at cycle t0), and
// returns the frame to resume (nil: idle) as trap does.
func futexUnlocked(f *arch.Frame, n, cpu int, t0 uint64) *arch.Frame {
	gp := cpus[cpu].cur
	t := &threads[gp]
	_, a := syscallArgs(f)
	addr, val := uintptr(a[0]), uint32(a[2])
	wait := int32(a[1]) == futexWait|futexPrivate
	if wait {
		t.frame = *f // a waker writes the result into it
	}
	r := int64(0)
	blocked := false
	space := procs[t.proc].space
	futexQ.lock.lock(cpu)
	if t.killed || procOf(t).state != procLive {
		// execve or an exit ended it after futexUnlockedOK looked (they mark it, then take
		// this lock: endWaitOrKick). Its address space may be torn down and reloaded meanwhile,
		// so it must not read or wake there: trapBKL ends it. Nothing has changed yet.
		futexQ.lock.unlock(cpu)
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
	}
	if wait {
		var cur uint32
		var deadline int64 // the timeout, relative for FUTEX_WAIT (0: none)
		pt := rootOf(space)
		ok := true
		if ts := uintptr(a[3]); ts != 0 {
			// Read first, as sysFutex reads it before the word (its EFAULT or EINVAL first).
			var ns int64
			if ns, ok = loadTimespecUnlocked(pt, ts); ok {
				deadline = nanotime() + ns
			}
		}
		// What the program itself may read: not PROT_NONE, no device; the page remembered
		// while no mapping changed (a ping-pong's words stay on the same pages).
		ok = ok && pt.PeekUserWordRemembered(addr, &t.futexCheck)
		if ok {
			cur, ok = arch.LoadUser32(addr)
		}
		if !ok {
			// Not mapped, not faulted in yet, or not the program's to read: sysFutex, under
			// the BKL, faults the page in or answers EFAULT. Nothing has changed yet.
			futexQ.lock.unlock(cpu)
			atomic.AddUint64(&stats.futexFallbacks, 1)
			return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
		}
		expired := false
		if deadline != 0 { // as sysFutex: expired before the call, else the timer's range is the slack
			expired = deadline <= nanotime()
			deadline = withSlack(deadline)
		}
		r = futexWaitLocked(t, gp, cpu, addr, cur, val, futexBitsetMatchAny, deadline, expired)
		blocked = r == 0
	} else {
		r = int64(futexWakeN(addr, int32(val), futexBitsetMatchAny, space, cpu))
	}
	futexQ.lock.unlock(cpu)
	if blocked {
		interruptIfNeeded(t, gp, cpu)
	}
	atomic.AddUint64(&stats.unlockedFutex, 1)
	if wait && a[3] != 0 {
		atomic.AddUint64(&stats.unlockedTimedFutex, 1)
	}
	atomic.AddUint64(&stats.syscalls, 1)
	b := ktimeBucket(f, arch.TrapSyscall)
	if blocked {
		return switchUnlocked(cpu, t0, b)
	}
	f.SetSyscallResult(uint64(r))
	return resumeUnlocked(f, cpu, gp, t0, b)
}
