// CPU-time accounting: how much processor time each thread and the process have used.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/sched"
)

// Every nanosecond a core spends on a thread is charged to that thread at the two places the
// kernel sees a core change hands — it is never preempted in between:
//
//   - on the way in (trap): the time since the thread was resumed is user time;
//   - on the way out (schedule): the time since the way in — waiting for the BKL included — is
//     system time of the thread that entered, even if another thread is resumed.
//
// Linux samples instead (a tick charges the whole jiffy to whoever is running, unless
// CONFIG_VIRT_CPU_ACCOUNTING_GEN measures at kernel entry and exit as here: kernel/sched/cputime.c
// vtime_user_exit, vtime_user_enter). A thread's total is what CLOCK_THREAD_CPUTIME_ID reads; the
// process's — every thread's, including the ones that have exited, as Linux's signal->utime and
// stime keep them — is CLOCK_PROCESS_CPUTIME_ID, and the clock of ITIMER_PROF and ITIMER_VIRTUAL.
//
// # Steal
//
// A virtual CPU does not run all the time: QEMU's vCPU thread waits for a host core like any
// other thread, and the monotonic clock (the cycle counter) goes on meanwhile. Charged as user
// time, such a gap would make a thread's CPU clock jump by tens of milliseconds at once — and a
// CPU timer sends one signal per expiry whatever the jump (the periods skipped are only counted
// as overruns), so a profile loses samples (measured: 8 of 107 on a host busy with other
// QEMUs). Linux subtracts what the hypervisor reports as stolen (account_steal_time); TCG
// reports nothing, but the kernel knows when the thread's next trap was due at the latest — its
// core's timer deadline (armTimer arms one whenever a thread runs) — so user time beyond that
// deadline, and a little slack for the interrupt's way in, is steal and charged to nobody. Steal
// inside the kernel cannot be told from kernel work and stays system time.
//
// CPU timers (ptimer.go, itimer.go) are checked on the tick, for the thread the tick interrupted
// in user mode (cpuTimersCheck, from trapLocked), as Linux checks them (run_posix_cpu_timers from
// update_process_times): the thread's user time has just been charged, and a signal the check
// sends is delivered on the way out, interrupting the instruction the thread was on — what the
// Go profiler records. A running thread gets a tick every tickNS (4 ms, Linux's HZ=250). Not on
// every return to user mode: a CPU timer expires between two traps, and the next trap is far more
// often a system call than a tick, so the sample would land on the system call's return — a
// profile of a network server then had 97% of its samples on syscall sites (runtime.nanotime,
// Syscall6) and none in the code between them. The tick comes at a point in time that has
// nothing to do with what the thread is doing, so the samples are fair; a tick that falls while
// the thread is in the kernel (whose interrupts are off) is taken as it returns, at the system
// call's return site, in proportion to the time it spent in the kernel.

// CPU clock kinds (include/linux/posix-timers.h CPUCLOCK_*): the low two bits of a CPU clock ID.
// gmpos's run time (SCHED) is exactly user + system time (PROF).
const (
	cpuclockProf  = 0 // user + system time: ITIMER_PROF
	cpuclockVirt  = 1 // user time: ITIMER_VIRTUAL
	cpuclockSched = 2 // run time: CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID
	cpuclockMax   = 3
)

// cpuTimes is the CPU time a thread or the process has used, in nanoseconds.
type cpuTimes struct {
	user, sys int64
}

// sample reads the clock of the given kind (cpu_clock_sample). The fields are added to
// atomically (charge), since system calls without the BKL charge the process too.
func (c *cpuTimes) sample(kind int) int64 {
	if kind == cpuclockVirt {
		return atomic.LoadInt64(&c.user)
	}
	return atomic.LoadInt64(&c.user) + atomic.LoadInt64(&c.sys)
}

// expiryCache holds, per clock kind, the earliest expiry of an armed CPU timer on one clock owner
// (a thread, or the process), 0 for none: Linux's posix_cputimers expiries. A charge that leaves
// every sample below it needs no look at the timer table.
type expiryCache [cpuclockMax]int64

// expired reports whether a sample of c has reached an expiry of e.
func (e *expiryCache) expired(c *cpuTimes) bool {
	for kind, exp := range e {
		if exp != 0 && c.sample(kind) >= exp {
			return true
		}
	}
	return false
}

// lower makes exp the cached expiry of its kind if it is earlier.
func (e *expiryCache) lower(kind int, exp int64) {
	if e[kind] == 0 || exp < e[kind] {
		e[kind] = exp
	}
}

// The process's CPU time and the expiry cache of its CPU timers (CLOCK_PROCESS_CPUTIME_ID timers,
// ITIMER_PROF, ITIMER_VIRTUAL). Protected by the BKL, except that times is also added to, with
// atomic adds, by system calls without it (charge).
var procCPU struct {
	times cpuTimes
	exp   expiryCache
}

// acct is each core's accounting state. Owned by the core (written by core i, under the BKL or
// on its paths without it: wake_unlocked.go startCharging, switchUnlocked, resumeUnlocked; read
// by others, under the BKL, to
// add a running thread's uncharged time to a clock read: g, a fence, then since).
var acct [arch.MaxCPU]struct {
	g     sched.GID // the thread being charged: the one running, or the one that entered the trap
	since int64     // CLOCK_MONOTONIC ns from which g's time is not charged yet
	until int64     // the core's timer deadline when g was resumed (resumed)
}

// chargeUser charges the time since the running thread was resumed, up to the way into the
// kernel at entry (CLOCK_MONOTONIC ns, read before the BKL), as its user time — less steal (see
// "Steal"). BKL held, or the core's trap without it (switchUnlocked, resumeUnlocked: between
// acctBegin and acctEnd).
func chargeUser(cpu int, entry int64) {
	a := &acct[cpu]
	a.g = cpus[cpu].cur
	if cpus[cpu].pickedIdle {
		// Picked by a wake-up without the BKL, not yet run (wake_unlocked.go): the core was
		// idle, and the wait for the BKL is nobody's, as an idle core's wake-up always was.
		a.g, cpus[cpu].pickedIdle = 0, false
	}
	if a.g != 0 {
		charge(a.g, userTime(a.since, entry, a.until), true)
	}
	a.since = entry
}

// stealSlack is how late the core's timer interrupt may legitimately reach the kernel: the
// interrupt's way in, not a fraction of the tick.
const stealSlack = 250_000

// userTime is the user time of a thread resumed at since, back in the kernel at entry, its core's
// timer due at until (0: unknown): what lies beyond until+stealSlack is steal.
func userTime(since, entry, until int64) int64 {
	if limit := until + stealSlack; until != 0 && entry > limit {
		entry = max(limit, since)
	}
	return entry - since
}

// resumed records, as a thread is resumed on core cpu, the latest time it can run before its
// next trap: the deadline the core's timer is armed for (armTimer always arms one while a
// thread runs). Called by the core itself, with or without the BKL.
func resumed(cpu int) { acct[cpu].until = cpus[cpu].timerArmed }

// chargeSystem charges the time since the way in as system time of the thread that entered, and
// starts charging next, the thread this core resumes (0: none, the core idles). It returns the
// time it read, which the way out reuses (armTimer). BKL held, or as chargeUser.
func chargeSystem(cpu int, next sched.GID) (now int64) {
	a := &acct[cpu]
	now = nanotime()
	if a.g != 0 {
		charge(a.g, now-a.since, false)
	}
	a.g, a.since = next, now
	return now
}

// charge adds d ns to thread gp's and the process's user or system time. A thread that exited in
// this trap is charged in its cleared slot (the next thread there starts from zero again); the
// process keeps the time.
func charge(gp sched.GID, d int64, user bool) {
	if d <= 0 {
		return
	}
	t := &threads[gp]
	if user {
		atomic.AddInt64(&t.cpu.user, d)
		atomic.AddInt64(&procCPU.times.user, d)
	} else {
		atomic.AddInt64(&t.cpu.sys, d)
		atomic.AddInt64(&procCPU.times.sys, d)
	}
}

// Charges without the BKL (wake_unlocked.go switchUnlocked, resumeUnlocked) are bracketed by
// acctBegin and acctEnd, so that a clock read under the BKL never adds a total from before a charge
// to a core's since from after it (the time would be missing, and a CPU clock would go back): it
// reads again if a charge was under way or finished meanwhile (acctRead). Several cores may charge
// at once, hence a count of charges under way and a generation, not one seqlock word.
var (
	acctWriters atomic.Int32  // charges without the BKL under way
	acctGen     atomic.Uint32 // charges without the BKL finished
)

func acctBegin() { acctWriters.Add(1) }
func acctEnd()   { acctGen.Add(1); acctWriters.Add(-1) }

// acctRead returns read's result from a moment when no charge without the BKL was under way.
// The tries are bounded (the BKL holder calls it, interrupts off, and other cores may charge
// without pause): after acctTries the last result stands, off by at most a charge in flight.
func acctRead(read func() int64) int64 {
	for i := 0; i < acctTries; i++ {
		g := acctGen.Load()
		if acctWriters.Load() != 0 {
			arch.Pause()
			continue
		}
		v := read()
		if acctWriters.Load() == 0 && acctGen.Load() == g {
			return v
		}
	}
	return read()
}

// acctTries bounds acctRead's retries: a charge takes well under a microsecond.
const acctTries = 64

// running is the time core i's thread has run since its last charge, as it will be charged: on
// the caller's core, the system time of this trap so far; on another core, which is in user
// mode (or waiting for the BKL, its user time ended), user time less steal. A clock read adds
// it (Linux's task_sched_runtime does the same), and never gets more than the charges will
// bring: CPU clocks do not go back. BKL held.
func running(i, self int, now int64) int64 {
	a := &acct[i]
	g := a.g
	arch.Fence() // g before since: an idle core's wake-up stores them the other way round (wake_unlocked.go startCharging)
	switch {
	case g == 0 || now <= a.since:
		return 0
	case i == self:
		return now - a.since
	}
	return userTime(a.since, now, a.until)
}

// threadCPUClock reads thread gp's CPU clock of the given kind, up to now.
func threadCPUClock(gp sched.GID, kind int) int64 {
	t := &threads[gp]
	now, self := nanotime(), currentCPU()
	return acctRead(func() int64 {
		v := t.cpu.sample(kind)
		for i := 0; i < ncpu; i++ {
			if acct[i].g == gp && !(kind == cpuclockVirt && i == self) {
				v += running(i, self, now)
			}
		}
		return v
	})
}

// processCPUClock reads the process's CPU clock of the given kind, up to now: what has been
// charged, plus what the running threads have used since.
func processCPUClock(kind int) int64 {
	now, self := nanotime(), currentCPU()
	return acctRead(func() int64 {
		v := procCPU.times.sample(kind)
		for i := 0; i < ncpu; i++ {
			if !(kind == cpuclockVirt && i == self) {
				v += running(i, self, now)
			}
		}
		return v
	})
}

// cpuTimersCheck fires the CPU timers that thread gp — interrupted in user mode by the tick on
// core cpu — and the process have run past: the thread's own clocks first, so that its POSIX timer's
// SIGPROF, not ITIMER_PROF's, is the one it finds pending (validSIGPROF in the Go runtime keeps
// the former when the thread has a timer). Linux's run_posix_cpu_timers with its fast path
// (fastpath_timer_check). BKL held.
func cpuTimersCheck(gp sched.GID, cpu int) {
	t := &threads[gp]
	if t.cpuExp.expired(&t.cpu) {
		fireThreadCPUTimers(gp, cpu)
	}
	if procCPU.exp.expired(&procCPU.times) {
		fireProcessCPUTimers(gp, cpu)
	}
}
