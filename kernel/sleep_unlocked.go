// Sleeps, yields and the timer interrupt without the big kernel lock: the third path out from
// under it.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
)

// Why these next. Once the futex calls had left the lock, a GC-heavy program on four cores
// (tests/testdata/gcchurn, 4 vCPUs, klog=1) still found the BKL taken 1,630 times in 1.3 s and
// waited 2.2 s for it in all, and the largest item in its kernel time was the timer interrupt:
// 1,535 of them at 989 µs each, the wait for the BKL included. Most were not ticks but
// deadlines, and most deadlines were the Go runtime's own short sleeps: usleep (nanosleep) from
// sysmon and from a spinning M that finds a runnext too fresh to steal (runqgrab's usleep(3)),
// 707 of them, each a BKL section to begin and another to end; and osyield (sched_yield), 593.
// A sleep, a yield and a timeout need what a futex wait needs and nothing more: the waiters'
// queue (futexQ, under its own lock: a sleep is a futex wait with no word), the scheduler, the
// thread's CPU time, and the switch (pickUnlocked).
//
// What runs here without the BKL:
//   - nanosleep, with the timespec read as a futex word is (mm PeekUserWord, then
//     arch.LoadUser32 with its exception fixup): one that cannot be read that way, or is
//     invalid, goes to sysNanosleep under the BKL, which faults it in or answers EFAULT or
//     EINVAL. The remaining time is never written (sysNanosleep does not either: the Go runtime
//     passes NULL). clock_nanosleep stays under the BKL (clocks, absolute times);
//   - sched_yield: the thread goes to the tail of its P's queue (S.GoYield) and the core picks;
//   - the timer interrupt, and a deadline the idle poll reached (idle.go), when nothing the BKL
//     guards is due: no timeout on waiters and no real-clock timer up to now (unlockedView),
//     no periodic tick (CPU-time timers sample on it), no trace (the profiler samples here:
//     profTick). It expires
//     futexQ's timeouts (expireQueue: futex waits with ETIMEDOUT, sleeps with 0), asks the
//     policy whether the running thread's slice is over (S.Tick: its own locks) and, if so,
//     preempts it (S.Preempt) and picks the next; an idle core picks.
//
// The deadline a sleep adds is futexQ.next's at once, under the futexQ lock; this core's way out
// arms its timer for it (pickUnlocked reads unlockedNext), and every later way out of any core
// does. Whichever core's timer fires first expires it, under futexQ's lock.
//
// Signals and exits work as for futex waits (futex_unlocked.go): a sender under the BKL reads
// the wait under futexQ's lock (interruptWait, endWaitOrKick), this path looks at the thread's
// state inside its own section (an end) and after it (a signal: needsKernel).
//
// Context: trap context (doc.go), without the BKL.

// sleepUnlockedOK reports whether the system call in f, from the thread running on core cpu,
// is one sleepUnlocked takes: nanosleep with a timespec that lies in one page, or sched_yield,
// with nothing on that needs the BKL. The call's number comes first (see futexUnlockedOK).
func sleepUnlockedOK(f *arch.Frame, cpu int) bool {
	nr, a0 := syscallNr(f)
	if nr != nrNanosleep && nr != nrSchedYield {
		return false
	}
	gp := cpus[cpu].cur
	if gp == 0 || cmd.sleepBKL || cmd.trace || cmd.strace {
		return false
	}
	if nr == nrNanosleep && !timespecShapeOK(uintptr(a0)) {
		return false // sysNanosleep's
	}
	return !needsKernel(&threads[gp])
}

// timespecShapeOK reports whether a timespec at p can be read without the BKL
// (loadTimespecUnlocked): a user address, 8-aligned, not across two pages. Others go to the
// calls under the BKL, which read any user address or answer EFAULT.
func timespecShapeOK(p uintptr) bool {
	return p&7 == 0 && p&mm.PageMask <= mm.PageSize-16 && p < mm.UserEnd
}

// sleepUnlocked runs the call sleepUnlockedOK accepted (trap n, entered at cycle t0) and
// returns the frame to resume (nil: idle) as trap does.
func sleepUnlocked(f *arch.Frame, n, cpu int, t0 uint64) *arch.Frame {
	gp := cpus[cpu].cur
	t := &threads[gp]
	nr, a := syscallArgs(f)
	b := ktimeBucket(f, arch.TrapSyscall)
	t.frame = *f
	t.frame.SetSyscallResult(0) // a sleep's timeout and a yield both return 0; EINTR overwrites it
	if nr == nrSchedYield {
		atomic.StoreUint64(&t.runnableIn, 0) // no BKL section touches it after this (smp.go sectionOpen)
		S.GoYield(cpu)
		atomic.AddUint64(&stats.unlockedSleep, 1)
		atomic.AddUint64(&stats.syscalls, 1)
		return switchUnlocked(cpu, t0, b)
	}
	futexQ.lock.lock(cpu)
	if t.killed || procOf(t).state != procLive {
		futexQ.lock.unlock(cpu) // ended meanwhile: trapBKL ends it (see futexUnlocked)
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
	}
	ns, ok := loadTimespecUnlocked(rootOf(procs[t.proc].space), uintptr(a[0]))
	if !ok {
		futexQ.lock.unlock(cpu) // unreadable or invalid: sysNanosleep answers; nothing done yet
		atomic.AddUint64(&stats.sleepFallbacks, 1)
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
	}
	blocked := ns > 0
	if blocked {
		block(t, gp, cpu, waitSleep, withSlack(nanotime()+ns))
	}
	futexQ.lock.unlock(cpu)
	if blocked {
		interruptIfNeeded(t, gp, cpu) // a signal or an exit came while it blocked (futex_unlocked.go)
	}
	atomic.AddUint64(&stats.unlockedSleep, 1)
	atomic.AddUint64(&stats.syscalls, 1)
	if blocked {
		return switchUnlocked(cpu, t0, b)
	}
	f.SetSyscallResult(0)
	return resumeUnlocked(f, cpu, gp, t0, b)
}

// loadTimespecUnlocked reads the timespec at p (8-aligned, within one page) in page table pt
// without the BKL, word by word as futexUnlocked reads a futex word, and returns it in ns; false
// if it cannot be read that way or is invalid (readTimespec's EINVAL), for the BKL path to say
// so. Little-endian on both architectures.
func loadTimespecUnlocked(pt mm.PageTable, p uintptr) (ns int64, ok bool) {
	sec, ok1 := peekUser64(pt, p)
	nsec, ok2 := peekUser64(pt, p+8)
	if !ok1 || !ok2 {
		return 0, false
	}
	return timespecNS(int64(sec), int64(nsec))
}

// peekUser64 reads the 8 bytes at user address p (4-aligned) without the BKL, as the futex
// word is read: page table pt (the one loaded) is asked whether the program itself may read
// each word, then arch.LoadUser32 reads it, a fault being a failed read. Not atomic as a whole.
func peekUser64(pt mm.PageTable, p uintptr) (uint64, bool) {
	var w [2]uint32
	for i := range w {
		a := p + uintptr(4*i)
		if !pt.PeekUserWord(a) {
			return 0, false
		}
		var ok bool
		if w[i], ok = arch.LoadUser32(a); !ok {
			return 0, false
		}
	}
	return uint64(w[0]) | uint64(w[1])<<32, true
}

// timerUnlockedOK reports whether the timer interrupt f on core cpu — or, with f nil, a
// deadline its idle poll reached — may be handled by timerUnlocked: nothing that needs the BKL
// is due or on (see above), and the interrupted thread, if any, was in user mode and needs
// nothing of the kernel's on its way back.
func timerUnlockedOK(f *arch.Frame, cpu int) bool {
	if cmd.sleepBKL || cmd.trace || unlockedView.periodic.Load() {
		return false
	}
	if d := unlockedView.next.Load(); d != 0 && d <= nanotime() {
		return false // a timeout on waiters, or a real-clock timer, is due: the BKL's
	}
	if gp := cpus[cpu].cur; gp != 0 {
		return f != nil && f.FromUser() && !needsKernel(&threads[gp])
	}
	return true
}

// timerUnlocked handles the timer interrupt (or polled deadline) timerUnlockedOK accepted,
// entered at cycle t0, and returns the frame to resume (nil: idle) as trap does.
func timerUnlocked(f *arch.Frame, cpu int, t0 uint64) *arch.Frame {
	c := &cpus[cpu]
	tick, early := false, false
	if f != nil { // as trapLocked does for a timer interrupt (not the idle poll's deadline)
		arch.EOI(f)
		tick, early = c.tickArmed, c.timerEarly
		c.timerArmed, c.tickArmed, c.timerEarly = 0, false, false
	}
	atomic.AddUint64(&stats.unlockedTimer, 1)
	now := nanotime()
	expireQueue(cpu, now)
	gp := c.cur
	if gp == 0 { // the halt or poll of an idle core: end its idle stretch (as wakeUnlocked)
		if c.idleSince != 0 {
			profIdleCycles(cpu, t0-c.idleSince)
			c.idleSeq.Add(1) // for cpuTime's readers (percpu.go)
			c.idleCycles += t0 - c.idleSince
			c.idleSince = 0
			c.idleSeq.Add(1)
			idleEnded(cpu, nanotimeAt(t0), false)
		}
		countTimer(tick, early, false, false)
		return pickUnlocked(cpu, t0, ktimeTimer)
	}
	profTick(gp, cpu, now, f.PC(), f.FramePointer(), rootOf(procs[threads[gp].proc].space))
	preempt := S.TickNoPoll(cpu, now) // the network poller is the BKL's (net_poller.go)
	countTimer(tick, early, preempt, false)
	if !preempt {
		return resumeUnlocked(f, cpu, gp, t0, ktimeTimer)
	}
	t := &threads[gp]
	t.frame = *f
	atomic.StoreUint64(&t.runnableIn, 0) // no BKL section touches it after this (smp.go sectionOpen)
	S.Preempt(cpu)
	return switchUnlocked(cpu, t0, ktimeTimer)
}
