// An idle core's wake-up without the big kernel lock: the first path out from under it.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/sched"
)

// Why this path first. In a thread ping-pong on two cores (examples/pingpong futex, 2 vCPUs,
// klog=1) 49,490 of ~70,000 kernel entries found the BKL taken, and the cores spun 150 ms for it
// in a 400 ms run: each hand-off wakes the other core (an IPI or a poll kick, ~25,000 of the
// entries), whose wake-up then waited for the waker's futex call to finish, and the waker's next
// call waited for the wake-up. A wake-up needs almost nothing the BKL protects: the core's own
// state, the scheduler (package sched, which has its own locks) and the thread it picks — the
// same split Linux made first when it took the BKL out of schedule() (2.2 → 2.4).
//
// What wakeUnlocked does without the lock: ends the core's idle stretch (its own cpuState and
// acct), asks the scheduler for a thread (S.Schedule), and resumes it — its page table, its
// timer, its FP state — all of them this core's or the scheduler's; or, if there is nothing to
// run (often: a wakep for a thread its waker then runs itself), goes idle again (idleUnlocked).
//
// When it hands over to trapBKL instead (stats.unlockedFallbacks), which finishes the wake-up as
// before the split:
//   - the BKL section that made the thread runnable is still open (sectionOpen). Every thread
//     becomes runnable inside a BKL section (a wake-up, a new thread, a preemption, a yield:
//     markRunnable), and that section may go on touching it after the scheduler has it — a
//     thread that blocks and is readied in one system call has its result written, and its
//     x87 state is still in its old core's registers (written back as that core switches).
//     Linux's try_to_wake_up waits for the task's on_cpu for the same reason. Here this core
//     waits for the section to end by taking the BKL in trapBKL;
//   - the thread needs the kernel on its way out: it is killed, its process is ending, a signal
//     is deliverable, or a temporary signal mask is still in force (schedule).
//
// The pairing that makes the second check safe: whoever changes what a running thread must see
// (postSignal, procExit, execve's de_thread, a CPU timer's tick) does so under the BKL and then
// looks, through kickThread or recalcCPUArmed, at every core's cur to kick the one running it.
// This path stores cur, then reads the thread's state. Each side puts arch.Fence between its
// store and its load (Dekker's protocol; Linux's smp_mb() in try_to_wake_up and
// signal_wake_up), so at least one of them sees the other's store: this path sees the kill or
// signal and hands over, or the other core sees cur and kicks this one — whose IPI is taken the
// moment the thread is in user mode, and that entry (the thread now running: cur != 0) sees
// the change and takes the BKL (kickUnlocked). The scheduler's own state needs nothing extra:
// its locks order it.
//
// The machine-wide inputs of the timer (the earliest deadline, the periodic tick) are not read
// here but from unlockedView, which every BKL holder publishes as it releases the lock
// (bklUnlock) and recalcCPUArmed as soon as the tick is needed, and from futexQ.next, which
// its lock's holders keep (timer.go unlockedNext). A deadline neither shows yet was added by a
// core whose own way out arms its own timer for it.
//
// Also left to trapBKL, decided before anything is done (wakeUnlockedOK): wake-ups while the
// scheduler trace runs (its buffer is the BKL's), and with the kernel option wakebkl=1, which
// keeps the old path for comparisons. The profiler samples these paths as they are: profEnter
// at entry, profChargeUnlocked on the way out (profile.go).
//
// The network poller is not one of them. It needs the kernel's socket and device state, so its
// Waiters tells the scheduler "none" without the BKL and the scheduler never polls from here:
// this path idles, or runs a thread, without looking at the NIC or the shares. Nothing waits
// for that look. The NIC's receive interrupt is off only while the stack has been told of
// frames and is draining the ring (nic.go nicIRQ), and a share's completion interrupt is never
// off after boot, so every device event still reaches a core by its interrupt, which takes the
// BKL; the poller's looks, on the ways out that hold the BKL, only save some of those
// interrupts. (Until 27 Nov 2026 every path here gave way to the BKL while a program had the
// NIC open and threads blocked, which a program importing net always has: README, Benchmarks.)
//
// Read without the lock, racily on purpose: the picked thread's kill, exit and signal state
// (after the fence above), and its process's address space (procs, roots, spaceGen: they change
// only in execve, which ends the other threads first, and a vfork child's exec, whose space no
// other thread runs in).
//
// Context: trap context (doc.go), without the BKL.

// unlockedView is what the BKL holder publishes for the paths without the lock. Atomic; written
// under the BKL (publishUnlockedView).
var unlockedView struct {
	next       atomic.Int64 // bklDeadline: the earliest timeout on waiters or real-clock expiry (0: none)
	periodic   atomic.Bool  // periodicTick: running threads take the periodic tick
	netWaiters atomic.Bool  // netWaiters: threads wait on the network (idle_halts counts the halts)
}

// publishUnlockedView refreshes unlockedView. BKL held.
func publishUnlockedView() {
	unlockedView.next.Store(bklDeadline()) // futexQ's is read directly (unlockedNext)
	unlockedView.periodic.Store(periodicTick())
	unlockedView.netWaiters.Store(netWaiters())
}

// wakeUnlockedOK reports whether an IPIWake (or a poll kick) on core cpu may be handled by
// wakeUnlocked: the core is idle, and nothing that wakeUnlocked leaves to the BKL is on.
func wakeUnlockedOK(cpu int) bool {
	return cpus[cpu].cur == 0 && !cmd.wakeBKL && !cmd.trace
}

// wakeUnlocked handles a wake-up of idle core cpu that entered the kernel at cycle t0 (its
// interrupt, if any, acknowledged) and returns the frame to resume, or nil to idle again (then
// through trapBKL). Call only when wakeUnlockedOK.
func wakeUnlocked(cpu int, t0 uint64) *arch.Frame {
	c := &cpus[cpu]
	entry := nanotimeAt(t0)
	if c.idleSince != 0 { // the halt this wake-up ended (as in trapBKL)
		profIdleCycles(cpu, t0-c.idleSince)
		c.idleSeq.Add(1) // for cpuTime's readers (percpu.go)
		c.idleCycles += t0 - c.idleSince
		c.idleSince = 0
		c.idleSeq.Add(1)
		idleEnded(cpu, entry, true)
	}
	return pickUnlocked(cpu, t0, ktimeIPI)
}

// pickUnlocked is schedule without the BKL, for a core that holds no thread (it was idle, or
// its thread has just blocked, yielded or been preempted without the BKL, futex_unlocked.go,
// sleep_unlocked.go, and been charged and released: switchUnlocked): ask the scheduler for a
// thread and resume it, idle (nil), or hand over to trapBKL.
// The cycles since t0 are the kernel's, charged to ktime's bucket b.
func pickUnlocked(cpu int, t0 uint64, b int) *arch.Frame {
	c := &cpus[cpu]
	gp, _ := S.Schedule(cpu)
	c.cur = gp
	if gp != 0 {
		c.dispatches++
	}
	arch.Fence() // cur before the thread's state: pairs with kickThread's fence (see above)
	if gp == 0 {
		idleUnlocked(cpu, t0, b)
		return nil
	}
	t := &threads[gp]
	if sectionOpen(gp) || needsKernelNotSignals(t) || cmd.sigBKL && needsKernel(t) {
		return pickFallback(cpu, t0, b)
	}
	holdThread(cpu, gp) // its last core may still be switching away from it (oncpu.go)
	if t.sigpending.Load()&^t.sigmask != 0 {
		// A signal to deliver on its way out (schedule's job under the BKL): delivered here,
		// on its stack, through its page table (signal_unlocked.go), or by the BKL's path.
		loadRoot(cpu, procs[t.proc].space)
		if !signalsUnlocked(t, &t.frame, cpu) {
			return pickFallback(cpu, t0, b)
		}
	}
	now := nanotime()
	startCharging(cpu, gp, now)
	loadRoot(cpu, procs[t.proc].space)
	armTimerFor(cpu, true, now, unlockedNext(), unlockedView.periodic.Load())
	resumed(cpu)
	arch.Current().PrepareResume(t.fpArea(), t.tls)
	t1 := arch.Cycles()
	c.kernelCycles += t1 - t0
	ktimeCharge(b, t1-t0)
	profChargeUnlocked(cpu, b, t1-t0)
	atomic.AddUint64(&stats.unlockedWakes, 1)
	sendDeferredWakes(cpu) // the scheduler may have woken another core (wakep)
	return &t.frame
}

// pickFallback hands the thread pickUnlocked picked on core cpu (entered at cycle t0, for the
// work of ktime's bucket b) to trapBKL, whose schedule resumes it: it needs the kernel (an end, a
// signal only the BKL may deliver), or the BKL section that readied it is still open. The thread
// has not run here, so the trap charges nobody (cputime.go pickedIdle).
func pickFallback(cpu int, t0 uint64, b int) *arch.Frame {
	c := &cpus[cpu]
	atomic.AddUint64(&stats.unlockedFallbacks, 1)
	c.kernelCycles += arch.Cycles() - t0
	c.pickedIdle = true
	return trapBKLAs(nil, arch.TrapIPI, int(arch.IPIWake), cpu, arch.Cycles(), b)
}

// kickUnlockedOK reports whether an IPIWake that interrupted a running thread on core cpu (frame
// f) may be handled by kickUnlocked: the thread was in user mode and needs nothing of the
// kernel's, and nothing that wakeUnlocked leaves to the BKL is on.
//
// Such an IPI is a kick (signal.go kickThread, ptimer.go recalcCPUArmed), or a scheduler's
// wake-up (platform.go WakeM) that found the core running again (stale: Schedule took the P
// back from the claim). A kick's sender made its change under the BKL and sends the IPI only
// after releasing it (bklUnlock: on amd64 the release is an XCHG, a full barrier, before the
// local-APIC write; on arm64 a DSB precedes the SGI), so needsKernel sees the signal or the end
// a kick is about, and hands those to trapBKL. A kick from a path without the BKL would need
// that barrier itself. What is left for a kick is the timer: a CPU-time timer armed elsewhere
// wants the periodic tick, which the way out arms (unlockedView.periodic, published first).
//
// A kick for a signal is the common one — the runtime's tgkill (signal_unlocked.go) kicks the
// core its target runs on — and the signal is delivered here too (signalsUnlocked), unless it
// needs the BKL or sigbkl=1 keeps signals under it.
func kickUnlockedOK(f *arch.Frame, cpu int) bool {
	gp := cpus[cpu].cur
	if gp == 0 || !f.FromUser() || cmd.wakeBKL || cmd.trace {
		return false
	}
	t := &threads[gp]
	if cmd.sigBKL {
		return !needsKernel(t)
	}
	return !needsKernelNotSignals(t)
}

// kickUnlocked handles the IPI kickUnlockedOK accepted, entered at cycle t0: acknowledge it,
// deliver the signals it came for, and resume the thread, its timer armed anew. A signal that
// needs the BKL sends the thread the BKL's way out, which delivers it (and any after it).
func kickUnlocked(f *arch.Frame, cpu int, t0 uint64) *arch.Frame {
	arch.EOI(f)
	atomic.AddUint64(&stats.unlockedKicks, 1)
	gp := cpus[cpu].cur
	t := &threads[gp]
	if !signalsUnlocked(t, f, cpu) {
		t.frame = *f
		return trapBKL(nil, arch.TrapIPI, int(arch.IPIWake), cpu, t0)
	}
	return resumeUnlocked(f, cpu, gp, t0, ktimeIPI)
}

// switchUnlocked is the way out of a trap handled without the BKL whose thread stopped running
// here — it blocked, yielded or was preempted, its frame saved and the scheduler told: charge
// it its time, let go of it, and pick the next thread (pickUnlocked). The cycles since t0 are
// the kernel's, charged to ktime's bucket b.
func switchUnlocked(cpu int, t0 uint64, b int) *arch.Frame {
	acctBegin()
	chargeUser(cpu, nanotimeAt(t0))
	chargeSystem(cpu, 0) // the core charges nobody until it resumes a thread
	acctEnd()
	releaseHeld(cpu) // a waker's core may resume it now (oncpu.go)
	return pickUnlocked(cpu, t0, b)
}

// resumeUnlocked is the way out of a trap handled without the BKL back to the thread it
// interrupted, gp, whose frame is f (its result set): charge its time, arm the timer, resume.
func resumeUnlocked(f *arch.Frame, cpu int, gp sched.GID, t0 uint64, b int) *arch.Frame {
	acctBegin()
	chargeUser(cpu, nanotimeAt(t0))
	now := chargeSystem(cpu, gp)
	acctEnd()
	// A thread the trap woke may wait on this core's queue now: the slice's end needs the timer.
	armTimerFor(cpu, true, now, unlockedNext(), unlockedView.periodic.Load())
	resumed(cpu)
	t1 := arch.Cycles()
	cpus[cpu].kernelCycles += t1 - t0
	ktimeCharge(b, t1-t0)
	profChargeUnlocked(cpu, b, t1-t0)
	sendDeferredWakes(cpu) // S.Ready may have woken another core (wakep)
	return f
}

// resumeSame is resumeUnlocked for a trap that changed nothing the timer is armed for — it
// readied no thread, set no deadline, started no timer: getpid and gettid (self_unlocked.go). The
// armed timer, and the end of the thread's stretch of user time it bounds (resumed), stay as
// they are; the time is charged as resumeUnlocked charges it. Whatever another core changes
// meanwhile reaches this one by a kick, whose way out re-arms (kickUnlocked). Under TCG the
// re-decision resumeUnlocked makes (armTimerFor: tickAt, the policy's PreemptAt) was a fifth
// of a getpid's instructions.
func resumeSame(f *arch.Frame, cpu int, gp sched.GID, t0 uint64, b int) *arch.Frame {
	acctBegin()
	chargeUser(cpu, nanotimeAt(t0))
	chargeSystem(cpu, gp)
	acctEnd()
	t1 := arch.Cycles()
	cpus[cpu].kernelCycles += t1 - t0
	ktimeCharge(b, t1-t0)
	profChargeUnlocked(cpu, b, t1-t0)
	return f
}

// idleUnlocked is schedule's way to idle for pickUnlocked, whose Schedule found nothing: arm the
// timer (and plan the idle poll) from unlockedNext, and mark the core halted. Nothing to charge:
// the core was idle before this wake-up, and still is, or its thread's time was charged as it
// stopped (switchUnlocked).
//
// One race the BKL used to exclude: a waker may claim this idle P (sched's wakep) after Schedule
// published it idle and before the poll is marked active, and then sends an IPI, since it could
// not kick the poll. The IPI would wait, unseen, for the poll's window to end (interrupts are
// off while polling). So once the poll is marked, this core looks whether its P is still idle;
// if not, it kicks its own poll, and goes straight back to Schedule (trap's loop). Both sides
// are sequentially consistent atomics (the waker claims the P, then tries the kick; this core
// marks the poll, then reads the P's idle bit): one of them sees the other.
func idleUnlocked(cpu int, t0 uint64, b int) {
	c := &cpus[cpu]
	now := nanotime()
	acct[cpu].since = now // a.g is 0 (idle); chargeSystem(cpu, 0)'s effect
	armTimerFor(cpu, false, now, unlockedNext(), unlockedView.periodic.Load())
	t1 := arch.Cycles()
	c.kernelCycles += t1 - t0
	ktimeCharge(b, t1-t0)
	profChargeUnlocked(cpu, b, t1-t0)
	atomic.AddUint64(&stats.unlockedIdle, 1)
	if unlockedView.netWaiters.Load() {
		idleHaltsUnlocked.Add(1) // as schedule counts its idle halts (netStat)
	}
	c.idleSince = t1
	if c.pollUntil != 0 {
		markPolling(cpu)
	}
	sendDeferredWakes(cpu)
}

// markPolling marks idle core cpu polling (idle.go), and kicks its own poll if a waker claimed
// its P before the mark: that waker could not kick the poll and sends an IPI, which would wait
// unseen until the poll's window ends (see idleUnlocked). Both halves of the way to idle use it:
// trapBKL's too, since wakers without the BKL exist.
func markPolling(cpu int) {
	c := &cpus[cpu]
	c.polling.Store(pollActive)
	if !S.Idle(cpu) {
		c.polling.CompareAndSwap(pollActive, pollKicked)
	}
}

// needsKernel reports whether thread t, just picked to run, must go through schedule's checks
// under the BKL: killed, its process ending, a deliverable signal, a temporary signal mask to
// restore. Read without the lock, after arch.Fence (see above).
func needsKernel(t *Thread) bool {
	return t.killed || procOf(t).state != procLive || t.sigpending.Load()&^t.sigmask != 0 || t.restoreSigmask
}

// needsKernelNotSignals is needsKernel but for the signals to deliver, which a path without the
// BKL may deliver itself (signal_unlocked.go signalsUnlocked): an end, or a mask to restore.
func needsKernelNotSignals(t *Thread) bool {
	return t.killed || procOf(t).state != procLive || t.restoreSigmask
}

// startCharging makes core cpu charge thread gp from now on (chargeSystem's effect when the core
// was idle: nothing to charge for the time before). since is stored before g, with a fence
// between: a clock read on another core that finds g (threadCPUClock) then reads this since,
// never the idle stretch's.
func startCharging(cpu int, gp sched.GID, now int64) {
	a := &acct[cpu]
	a.since = now
	arch.Fence()
	a.g = gp
}
