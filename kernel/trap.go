package kernel

import (
	"gmpos/kernel/arch/amd64"
	"gmpos/kernel/mm"
	"gmpos/sched"
	_ "unsafe" // for go:linkname
)

// trap is the kernel's one entry point after boot: the arch layer calls it for every interrupt,
// exception and system call with the interrupted registers in f (on this core's kernel stack), and
// resumes whatever frame it returns — the same thread, another one, or nil to idle the core.
//
// Context: interrupts off, kernel g, kernel stack; no allocation, no write barriers (the kernel's
// tables hold GIDs and uintptrs, never Go pointers), no blocking. A system call that must wait
// parks its thread in the scheduler and returns another thread's frame.
//
//go:linkname trap
func trap(f *amd64.Frame) *amd64.Frame {
	cpu := amd64.Current().ID()
	if f.Vector == amd64.VecFlush {
		// TLB shootdown: acknowledged without the BKL, whose holder is waiting for us.
		amd64.EOI()
		ackFlush(cpu)
		return f
	}
	if !f.FromUser() && (f.Vector < 32 || f.Vector == amd64.VectorSyscall) {
		// An exception or SYSCALL in kernel code: a kernel bug, possibly hit while this core
		// holds the BKL. Report it without taking the lock.
		if f.Vector == amd64.VectorSyscall {
			return kernelSyscall(f)
		}
		kernelFault(f, "")
	}
	bklLock(cpu)
	r := trapLocked(f, cpu)
	flushPending()
	bklUnlock()
	return r
}

// trapLocked is trap under the big kernel lock.
func trapLocked(f *amd64.Frame, cpu int) *amd64.Frame {
	gp := curThread[cpu]
	var t *Thread
	if gp != 0 && f.FromUser() {
		t = &threads[gp]
		t.frame = *f
	}

	switch {
	case f.Vector == amd64.VectorSyscall:
		syscall(t, gp, cpu)
	case f.Vector < 32:
		userException(t, f)
	case f.Vector == amd64.VecTimer:
		amd64.EOI()
		timerArmed[cpu] = 0 // the one-shot timer has fired
		timerTick(cpu)
	case f.Vector == amd64.VecWakeup:
		amd64.EOI()
	case f.Vector == amd64.VecSpurious:
		// §11.9: no EOI for the spurious vector.
	default:
		amd64.EOI()
		klogOnce(&unexpectedVector, "unexpected interrupt vector")
	}
	return schedule(cpu)
}

var unexpectedVector bool

// cpuDispatches[cpu] counts the threads the scheduler started on each core (gmpos_info).
var cpuDispatches [amd64.MaxCPU]uint64

// schedule picks the thread this core resumes: the current one if it is still running, otherwise
// the scheduler's choice. Pending signals are delivered on the way out, as Linux does on every
// return to user mode.
func schedule(cpu int) *amd64.Frame {
	gp := curThread[cpu]
	if gp == 0 || threads[gp].state != threadRunning {
		gp, _ = S.Schedule(cpu)
		if gp == 0 { // Schedule has called ParkM: halt this core until an interrupt
			curThread[cpu] = 0
			armTimer(cpu, false)
			return nil
		}
		curThread[cpu] = gp
		threads[gp].state = threadRunning
		cpuDispatches[cpu]++
	}
	t := &threads[gp]
	if t.sigpending&^t.sigmask != 0 {
		deliverSignals(t, gp, cpu)
		if t.state != threadRunning { // killed by a default action
			return schedule(cpu)
		}
	}
	armTimer(cpu, true)
	amd64.Current().PrepareResume(t.fpArea(), t.fsbase)
	return &t.frame
}

// block parks the running thread gp in the scheduler; trap's final schedule() picks another.
func block(t *Thread, gp sched.GID, cpu int, kind waitKind, deadline int64) {
	t.state = threadBlocked
	t.wait = kind
	t.deadline = deadline
	S.Park(cpu)
	addWaiter(gp)
}

// wakeThread makes the blocked thread gp runnable with system-call result ret.
func wakeThread(gp sched.GID, ret int64, cpu int) {
	t := &threads[gp]
	if t.state != threadBlocked {
		return
	}
	removeWaiter(gp)
	t.frame.AX = uint64(ret)
	t.wait = waitNone
	t.deadline = 0
	t.state = threadRunnable
	S.Ready(gp, cpu)
}

// The waiter list: every blocked thread, so that futex wake-ups, timeouts and signals need not
// scan the whole thread table.
var waiters struct {
	g [MaxThreads]sched.GID
	n int
}

func addWaiter(gp sched.GID) {
	waiters.g[waiters.n] = gp
	waiters.n++
}

func removeWaiter(gp sched.GID) {
	for i := 0; i < waiters.n; i++ {
		if waiters.g[i] == gp {
			waiters.n--
			waiters.g[i] = waiters.g[waiters.n]
			return
		}
	}
}

// timerTick runs on every APIC timer interrupt (timer.go arms it): expire timeouts, then let the
// policy decide whether the running thread has used up its slice.
func timerTick(cpu int) {
	now := nanotime()
	for i := 0; i < waiters.n; {
		gp := waiters.g[i]
		t := &threads[gp]
		if t.deadline != 0 && t.deadline <= now {
			ret := int64(0)
			if t.wait == waitFutex {
				ret = -ETIMEDOUT
			}
			wakeThread(gp, ret, cpu) // swaps the last waiter into slot i
			continue
		}
		i++
	}
	if gp := curThread[cpu]; gp != 0 && S.Tick(cpu, now) {
		threads[gp].state = threadRunnable
		S.Preempt(cpu)
		stats.preemptions++
	}
}

// userException turns a CPU exception in user mode into what Linux would do: demand paging for a
// #PF inside a mapping, otherwise a signal (arch/x86/kernel/traps.c, arch/x86/mm/fault.c).
func userException(t *Thread, f *amd64.Frame) {
	switch f.Vector {
	case amd64.VecPage:
		addr := amd64.CR2()
		// #PF error code (SDM Vol. 3A §4.7, Figure 4-12): bit 1 write, bit 4 instruction fetch.
		write, exec := f.Err&2 != 0, f.Err&16 != 0
		ok, code := mm.Space.HandleFault(addr, write, exec, true)
		if ok {
			return
		}
		if code == mm.FaultOOM {
			outOfMemory(t, addr)
			return
		}
		if code == 0 {
			code = segvMapErr
		}
		postFault(t, sigSEGV, int32(code), addr)
	case amd64.VecDivide:
		postFault(t, sigFPE, fpeIntDiv, uintptr(f.IP))
	case amd64.VecFPU, amd64.VecSIMD:
		postFault(t, sigFPE, 0, uintptr(f.IP))
	case amd64.VecInvalidOp:
		postFault(t, sigILL, illIllOpn, uintptr(f.IP))
	case amd64.VecBreakpoint, amd64.VecDebug:
		postFault(t, sigTRAP, siKernel, 0)
	case amd64.VecAlign:
		postFault(t, sigBUS, busAdrAln, 0)
	default: // #GP and the rest: SIGSEGV with SI_KERNEL and no address, as Linux reports #GP
		postFault(t, sigSEGV, siKernel, 0)
	}
}

// outOfMemory handles a demand-paging fault that found no free frame. Linux would invoke the OOM
// killer; gmpos has one process, so it ends it with the status the OOM killer's SIGKILL gives.
func outOfMemory(t *Thread, addr uintptr) {
	var k kbuf
	total, free := mm.FrameCounts()
	k.s("gmpos: out of memory: thread ").d(int64(t.tid)).s(" faulted at ").x(uint64(addr)).
		s(" with ").d(int64(free)).s(" of ").d(int64(total)).s(" frames free\n").to(consolePort(2))
	k.s("log out of memory").record()
	exitProcess(128 + sigKILL)
}

// kernelSyscall handles a SYSCALL executed by kernel code. That only happens when the Go runtime's
// fatal-error path runs on a kernel g — a kernel bug such as "morestack on g0" (kernel stack
// exhausted) or a panic in kernel code. Its messages (write to fd 1 or 2) are printed, so the
// report that follows (runtime.abort's INT3 → kernelFault) comes with the runtime's explanation;
// any other call is itself reported as a kernel fault.
func kernelSyscall(f *amd64.Frame) *amd64.Frame {
	if f.AX == sysWrite && (f.DI == 1 || f.DI == 2) && f.DX < 4096 {
		p := consolePort(2)
		for i := uintptr(0); i < uintptr(f.DX); i++ {
			p.Tx(*(*byte)(ptr(uintptr(f.SI) + i)))
		}
		f.AX = f.DX
		return f
	}
	kernelFault(f, "system call from kernel mode")
	return nil
}
