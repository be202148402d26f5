// The kernel's one entry point: trap, and the way back out.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
	"gmpos/kernel/netabi"
	"gmpos/sched"
	_ "unsafe" // for go:linkname
)

// trap is the kernel's one entry point after boot: the architecture calls it for every
// interrupt, exception and system call with the interrupted registers in f (on this core's kernel
// stack), and resumes whatever frame it returns — the same thread, another one, or nil to idle
// the core until the next interrupt.
//
// Context: trap context (doc.go) — interrupts off, kernel g, kernel stack; no allocation, no
// write barriers, no blocking.
//
//go:linkname trap
func trap(f *arch.Frame) *arch.Frame {
	t0 := arch.Cycles()
	cpu := arch.Current().ID()
	kind, n := f.Trap()
	if kind == arch.TrapIPI && arch.IPI(n) == arch.IPIFlush {
		// TLB shootdown: acknowledged without the BKL, whose holder is waiting for us.
		arch.EOI(f)
		ackFlush(cpu)
		return f
	}
	if cpus[cpu].tlbState.Load() != tlbActive {
		tlbWake(cpu) // an idle core's first step out of idle: the flush a shootdown left it (smp.go)
	}
	if !f.FromUser() && (kind == arch.TrapFault || kind == arch.TrapSyscall) {
		// An exception or system call in kernel code: a kernel bug, possibly hit while this core
		// holds the BKL. Report it without taking the lock.
		if kind == arch.TrapSyscall {
			return kernelSyscall(f)
		}
		if arch.SpuriousFault(f) {
			return f // a descriptor stored just before, now seen by the walker: retry
		}
		if arch.FixupUserAccess(f) {
			return f // a read of user memory without the BKL (futex_unlocked.go) fails instead
		}
		if kernelUserFault(f, cpu) {
			return f // a checked user page another core's madvise dropped: faulted in again
		}
		kernelFault(f, "")
	}
	if prof.hz != 0 {
		profEnter(f, cpu, cpus[cpu].cur) // for a path without the BKL, which samples too (profile.go)
	}
	var r *arch.Frame
	switch {
	case kind == arch.TrapIPI && arch.IPI(n) == arch.IPIWake && wakeUnlockedOK(cpu):
		arch.EOI(f)
		r = wakeUnlocked(cpu, t0) // an idle core's wake-up, without the BKL (wake_unlocked.go)
	case kind == arch.TrapIPI && arch.IPI(n) == arch.IPIWake && kickUnlockedOK(f, cpu):
		r = kickUnlocked(f, cpu, t0) // the same IPI to a running core: a kick, without it
	case kind == arch.TrapSyscall && selfUnlockedOK(f, cpu):
		r = selfUnlocked(f, cpu, t0) // getpid, gettid: the caller's identity, without it
	case kind == arch.TrapSyscall && futexUnlockedOK(f, cpu):
		r = futexUnlocked(f, n, cpu, t0) // the runtime's futex calls, without it (futex_unlocked.go)
	case kind == arch.TrapSyscall && tgkillUnlockedOK(f, cpu):
		r = tgkillUnlocked(f, n, cpu, t0) // the runtime's preemption signal, without it
	case kind == arch.TrapSyscall && sigreturnUnlockedOK(f, cpu):
		r = sigreturnUnlocked(f, n, cpu, t0) // a handler's way back, without it
	case kind == arch.TrapSyscall && sleepUnlockedOK(f, cpu):
		r = sleepUnlocked(f, n, cpu, t0) // nanosleep and sched_yield, without it (sleep_unlocked.go)
	case kind == arch.TrapSyscall && pollUnlockedOK(f, cpu):
		r = pollUnlocked(f, n, cpu, t0) // the netpoller's epoll_wait and eventfd, under epollLock
	case kind == arch.TrapSyscall && consoleUnlockedOK(f, cpu):
		r = consoleUnlocked(f, n, cpu, t0) // a write to the console, under the console's lock only
	case kind == arch.TrapSyscall && mmUnlockedOK(f, cpu):
		r = mmUnlocked(f, n, cpu, t0) // mmap, munmap, mprotect, madvise, under mm's lock only
	case kind == arch.TrapFault && faultUnlockedOK(f, cpu):
		r = faultUnlocked(f, n, cpu, t0) // a first touch of a page, under mm's lock only
	case kind == arch.TrapTimer && timerUnlockedOK(f, cpu):
		r = timerUnlocked(f, cpu, t0) // a timer with nothing of the BKL's due, without it
	default:
		r = trapBKL(f, kind, n, cpu, t0)
	}
	// Going idle: poll first (idle.go) for a deadline due within microseconds or a wake-up
	// from another core, and handle what ends the poll as its interrupt, without one. Idle, the
	// core is lazy for shootdowns (smp.go) until the poll ends or the next trap.
	for r == nil {
		tlbIdle(cpu)
		ev := idlePoll(cpu)
		if ev == pollNone {
			break
		}
		tlbWake(cpu)
		if ev == pollWake && wakeUnlockedOK(cpu) {
			r = wakeUnlocked(cpu, arch.Cycles())
			continue
		}
		if ev == pollDeadline && timerUnlockedOK(nil, cpu) {
			r = timerUnlocked(nil, cpu, arch.Cycles())
			continue
		}
		k := arch.TrapTimer
		if ev == pollWake {
			k = arch.TrapIPI
		}
		r = trapBKL(nil, k, int(arch.IPIWake), cpu, arch.Cycles())
	}
	return r
}

// trapBKL is trap's work under the big kernel lock, with the accounting around it. f is nil for
// an event the idle poll found (idle.go): a deadline (TrapTimer) or a wake-up (TrapIPI), with
// no interrupt to acknowledge.
func trapBKL(f *arch.Frame, kind arch.TrapKind, n, cpu int, t0 uint64) *arch.Frame {
	return trapBKLAs(f, kind, n, cpu, t0, ktimeBucket(f, kind))
}

// trapBKLAs is trapBKL with its time charged to ktime's bucket b: a path without the BKL that
// hands its thread to the BKL's way out (f nil, kind TrapIPI: schedule resumes the thread) names
// the work it was doing — a futex call, rt_sigreturn, the timer — so that the profile's
// bkl-wait says which work waited, not "ipi".
func trapBKLAs(f *arch.Frame, kind arch.TrapKind, n, cpu int, t0 uint64, b int) *arch.Frame {
	entry := nanotimeAt(t0) // waiting for the BKL is the thread's time too (cputime.go)
	var pc, fp uintptr      // where the interrupted thread was, for the profiler (profile.go)
	if f != nil && f.FromUser() {
		pc, fp = f.PC(), f.FramePointer()
	}
	bklLock(cpu)
	tl := t0
	if prof.hz != 0 {
		tl = arch.Cycles()  // the BKL is ours: the wait before it is the profiler's "bkl-wait"
		prof.at[cpu].gp = 0 // profEnter's record is not this path's: the idle loop's next is no thread's
	}
	c := &cpus[cpu]
	idle := uint64(0)
	if c.idleSince != 0 { // the halt this trap ended
		idle = t0 - c.idleSince
		c.idleCycles += idle
		c.idleSince = 0
		idleEnded(cpu, entry, kind == arch.TrapIPI && arch.IPI(n) == arch.IPIWake) // idle.go
	}
	gp := c.cur
	if pc == 0 {
		gp = 0
	}
	r := trapLocked(f, kind, n, cpu, entry)
	flushPending()
	t1 := arch.Cycles()
	c.kernelCycles += t1 - t0
	ktimeCharge(b, t1-t0)
	profCharge(cpu, b, t1-tl, tl-t0, idle, gp, pc, fp)
	if r == nil {
		c.idleSince = t1 // halting until the next interrupt
		if c.pollUntil != 0 {
			// Polling from before the lock is released: a waker that queues a thread here
			// after it (and so after this core's scheduler looked) kicks the poll (idle.go).
			// A waker without the BKL (another core's wake-up, whose scheduler may wakep) can
			// claim this P before that: see markPolling.
			markPolling(cpu)
		}
	}
	bklUnlock()
	return r
}

// trapLocked is trap under the big kernel lock: charge the interrupted thread's user time, save
// its registers, handle the event, and pick the thread to resume.
func trapLocked(f *arch.Frame, kind arch.TrapKind, n int, cpu int, entry int64) *arch.Frame {
	chargeUser(cpu, entry)
	gp := cpus[cpu].cur
	var t *Thread
	if gp != 0 && f != nil && f.FromUser() {
		t = &threads[gp]
		t.frame = *f
		setCurrentOn(cpu, int(t.proc))
	} else {
		setCurrentOn(cpu, 0) // an interrupt of the idle loop: wakers choose their process (proc.go)
	}

	if t != nil && (procOf(t).state != procLive || t.killed) && (kind == arch.TrapSyscall || kind == arch.TrapFault) {
		// Its process is exiting (or execve ended it): a system call that got here before the
		// news must not run — it could sleep where no one wakes it — and schedule ends the
		// thread (proc.go procExit).
		return schedule(cpu)
	}
	switch kind {
	case arch.TrapSyscall:
		syscall(t, gp, cpu)
	case arch.TrapFault:
		userFault(t, gp, cpu)
	case arch.TrapTimer:
		tick, early := false, false
		if f != nil { // not the idle poll's deadline (idle.go)
			arch.EOI(f)
			c := &cpus[cpu]
			// Armed for the scheduler tick (timer.go tickAt), not a deadline; or left armed when
			// the next deadline moved later (timer.go armTimer): early, unless it preempts.
			tick, early = c.tickArmed, c.timerEarly
			c.timerArmed, c.tickArmed, c.timerEarly = 0, false, false // the one-shot timer has fired
		}
		if t != nil {
			cpuTimersCheck(gp, cpu) // a CPU timer's signal lands where the tick found the thread
			profTick(gp, cpu, nanotime(), t.frame.PC(), t.frame.FramePointer(), userSpace().PT)
		}
		timerTick(cpu, tick, early)
	case arch.TrapIRQ:
		irqDispatch(f, n, cpu)
	case arch.TrapIPI: // IPIWake: leaving the idle halt (or poll) was the point
		if f != nil {
			arch.EOI(f)
		}
	case arch.TrapSpurious:
		// No EOI for a spurious interrupt (it was never delivered as one).
	default:
		arch.EOI(f)
		klogOnce(&unexpectedTrap, "unexpected interrupt vector")
	}
	return schedule(cpu)
}

var unexpectedTrap bool // logged once; BKL

// schedule picks the thread this core resumes: the current one if it is still running, otherwise
// the scheduler's choice. Pending signals are delivered on the way out, as Linux does on every
// return to user mode. BKL held.
func schedule(cpu int) *arch.Frame {
	c := &cpus[cpu]
	var t *Thread
	var now int64
	for {
		gp := c.cur
		// Still this core's running thread? Asked of this P, not of the thread's status: a
		// thread that blocked and was readied in this trap may be running already, picked by
		// another core's wake-up (wake_unlocked.go), which resumes it once this trap is over.
		if gp == 0 || S.Curg(cpu) != gp {
			releaseHeld(cpu) // it blocked, was preempted, yielded or ended: free for any core (oncpu.go)
			gp, _ = S.Schedule(cpu)
			if gp == 0 { // Schedule has called ParkM: halt this core until an interrupt
				if netWaiters() {
					netStats[netabi.NetIdleHalts]++
				}
				c.cur = 0
				arch.Current().PrepareIdle() // no thread's FP state stays behind in the registers
				armTimer(cpu, false, chargeSystem(cpu, 0))
				return nil
			}
			c.cur = gp
			c.dispatches++
		}
		holdThread(cpu, gp) // another core may still be switching away from it (oncpu.go)
		t = &threads[gp]
		if procOf(t).state != procLive || t.killed {
			// Its process is exiting (proc.go procExit): the thread ends instead of returning
			// to user mode, as Linux's threads do in do_exit from their signal check.
			threadExit(t, gp, cpu)
			continue
		}
		now = chargeSystem(cpu, gp)
		setCurrentOn(cpu, int(t.proc)) // signal frames go to this thread's memory (proc.go)
		// Deliver every deliverable signal, each handler's frame on top of the last, as Linux's
		// exit-to-user loop does; a handler masks its own signal, so this ends. (A fatal
		// default action ends the process: the program's never returns, a child's makes the
		// check above end this thread.)
		for n := 0; deliverable(t) && n < nSig && procOf(t).state == procLive; n++ {
			deliverSignal(t, gp, cpu)
		}
		if procOf(t).state == procLive && !t.killed {
			break
		}
	}
	if t.restoreSigmask { // a temporary mask outlived its wait without a signal to take it
		t.sigmask, t.restoreSigmask = t.savedSigmask, false
	}
	armTimer(cpu, true, now)
	resumed(cpu) // the timer's deadline bounds the thread's next stretch of user time (cputime.go)
	arch.Current().PrepareResume(t.fpArea(), t.tls)
	return &t.frame
}

// timerTick runs on every timer interrupt under the BKL (timer.go arms it; the ones with nothing
// of the BKL's due run timerUnlocked instead, sleep_unlocked.go): expire timeouts, then let the
// policy decide whether the running thread has used up its slice.
//
// tick says the timer was armed for the scheduler tick (timer.go tickAt): one that preempts
// nobody and samples nothing interrupted its thread for nothing (stats.idleTicks). early says it
// was left armed although the next deadline had moved later (timer.go armTimer): it is counted
// apart (stats.earlyTimers), unless its thread's slice had ended and it preempts, as a tick.
func timerTick(cpu int, tick, early bool) {
	now := nanotime()
	expireTimeouts(cpu, now)
	expireRealTimers(cpu, now) // ptimer.go, itimer.go
	preempt := false
	if gp := cpus[cpu].cur; gp != 0 && S.Tick(cpu, now) {
		markRunnable(gp)
		S.Preempt(cpu)
		preempt = true
	}
	countTimer(tick, early, preempt, periodicTick())
}

// countTimer counts a timer interrupt in the statistics, as timerTick describes: whether it was
// armed for the tick, or early, whether it preempted, and whether running threads take the
// periodic tick. Atomic: the timer interrupt without the BKL counts too (sleep_unlocked.go).
func countTimer(tick, early, preempt, periodic bool) {
	if preempt {
		atomic.AddUint64(&stats.preemptions, 1)
	}
	switch {
	case early && !preempt:
		atomic.AddUint64(&stats.earlyTimers, 1) // came before anything was due: not a tick (timer.go armTimer)
	case tick || early: // an early timer that preempts did the tick's work
		atomic.AddUint64(&stats.ticks, 1)
		if !preempt && !periodic {
			atomic.AddUint64(&stats.idleTicks, 1)
		}
	}
}

// userFault turns a CPU exception in user mode into what Linux would do: demand paging for a page
// fault inside a mapping, otherwise a signal (arch/x86/kernel/traps.c, arch/x86/mm/fault.c).
func userFault(t *Thread, gp sched.GID, cpu int) {
	flt := t.frame.Fault()
	pc := t.frame.PC()
	switch flt.Kind {
	case arch.FaultPage:
		ok, code := spaceOf(int(t.proc)).HandleFault(flt.Addr, flt.Write, flt.Exec, true)
		if ok {
			return
		}
		if code == mm.FaultOOM {
			outOfMemory(t, flt.Addr)
			return
		}
		if code == 0 {
			code = segvMapErr
		}
		postFault(t, sigSEGV, int32(code), flt.Addr)
	case arch.FaultDivide:
		postFault(t, sigFPE, fpeIntDiv, pc)
	case arch.FaultFloat:
		postFault(t, sigFPE, 0, pc)
	case arch.FaultIllegal:
		postFault(t, sigILL, illegalInsnCode, pc) // the codes differ by architecture (abi_<arch>.go)
	case arch.FaultBreakpoint:
		addr := uintptr(0)
		if breakpointAtPC {
			addr = pc
		}
		postFault(t, sigTRAP, breakpointCode, addr)
	case arch.FaultAlign:
		postFault(t, sigBUS, busAdrAln, 0)
	default: // #GP and the rest: SIGSEGV with SI_KERNEL and no address, as Linux reports #GP
		postFault(t, sigSEGV, siKernel, 0)
	}
}

// outOfMemory handles a demand-paging fault that found no free frame. Linux would invoke the OOM
// killer; gmpos ends the faulting process with the status the OOM killer's SIGKILL gives (the
// program's end is the machine's: exit status 137).
func outOfMemory(t *Thread, addr uintptr) {
	var k kbuf
	total, free := mm.FrameCounts()
	k.s("gmpos: out of memory: thread ").d(int64(t.tid)).s(" faulted at ").x(uint64(addr)).
		s(" with ").d(int64(free)).s(" of ").d(int64(total)).s(" frames free\n").to(consoleStderr)
	k.s("log out of memory").record()
	procExit(int(t.proc), waitStatusSignal(sigKILL), arch.Current().ID())
}

// kernelSyscall handles a system call made by kernel code. That only happens when the Go runtime's
// fatal-error path runs on a kernel g — a kernel bug such as "morestack on g0" (kernel stack
// exhausted) or a panic in kernel code. Its messages (write to fd 1 or 2) are printed, so the
// report that follows (runtime.abort's breakpoint → kernelFault) comes with the runtime's
// explanation; any other call is itself reported as a kernel fault.
func kernelSyscall(f *arch.Frame) *arch.Frame {
	nr, a := f.Syscall()
	if nr == nrWrite && (a[0] == 1 || a[0] == 2) && a[2] < 4096 {
		board.ConsoleWrite(consoleStderr, vconKernelWrite(consoleStderr, userBytes(uintptr(a[1]), uintptr(a[2]))))
		f.SetSyscallResult(a[2])
		return f
	}
	kernelFault(f, "system call from kernel mode")
	return nil
}
