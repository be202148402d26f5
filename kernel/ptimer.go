// POSIX interval timers: the timer table, arming, expiry, and the life of a timer's signal.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/arch"
	"gmpos/sched"
)

// A POSIX timer (timer_create(2); Linux's struct k_itimer, kernel/time/posix-timers.c and
// posix-cpu-timers.c) counts down on one clock and, when it expires, notifies: a signal to the
// process (SIGEV_SIGNAL), to one thread (SIGEV_THREAD_ID — the Go profiler's per-thread SIGPROF),
// or nothing (SIGEV_NONE: the program polls timer_gettime). Its clock is either
//
//   - real: CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_TAI, all kept on gmpos's one
//     monotonic time base (sys_time.go) — expiry is checked on the timer interrupt (timerTick),
//     whose deadline includes the earliest real timer (armTimer); or
//   - a CPU-time clock (cputime.go): a thread's or the process's — expiry is checked on the
//     tick, for the thread it interrupted (cpuTimersCheck).
//
// # A timer's states (Linux's it_status)
//
//	           settime(value ≠ 0)          expires, one-shot
//	disarmed ─────────────────────▶ armed ───────────────────▶ disarmed, signal queued
//	                                 │  ▲
//	         expires, interval ≠ 0   │  │ signal delivered: the expiry moves past now by
//	                                 ▼  │ whole intervals, the skipped ones are si_overrun
//	                          requeue, signal queued
//
// timer_settime and timer_delete take a timer from any state, and withdraw its pending signal.
// So a periodic timer is re-armed only when its signal is delivered (Linux 6.18:
// __posixtimer_deliver_signal): while the signal waits — blocked, or the thread not running yet
// — the timer stands still. A signal the target ignores is not queued: a periodic timer then
// waits, parked (Linux's ignored list), until rt_sigaction stops ignoring the signal, and then
// sends it (timersUnignore; measured on Linux 6.18).
//
// Timer IDs count up from 0 across the process's life, as Linux 6.18 hands them out
// (posix_timer_add; a failed timer_create uses one up too); a timer lives in slot
// id % maxPosixTimers, so that a lookup is one index, and timer_create fails with EAGAIN when
// every slot is taken.
//
// Everything here is protected by the BKL and runs in trap context: a fixed table, no pointers
// stored, no allocation.

const (
	// maxPosixTimers is the size of the timer table. Go creates one timer per M while profiling.
	maxPosixTimers = 256

	// sigev_notify (include/uapi/asm-generic/siginfo.h).
	sigevSignal   = 0
	sigevNone     = 1
	sigevThread   = 2 // C library's: the kernel treats it as SIGEV_SIGNAL
	sigevThreadID = 4

	sigeventSize = 64 // sizeof(sigevent_t)
	intMax       = 1<<31 - 1
)

// timerState is a timer's state (Linux's it_status).
type timerState uint8

const (
	timerDisarmed timerState = iota // not counting
	timerArmed                      // counting towards expires
	timerRequeue                    // fired with an interval; re-armed when its signal is delivered
)

// A ptimer is one POSIX timer.
type ptimer struct {
	used  bool
	id    int32
	clock int32 // the clock ID timer_create was given

	// The clock: real (CLOCK_MONOTONIC ns), or the CPU clock of kind cpuKind of the process
	// (owner 0) or of thread owner, whose tid ownerTid tells a reused slot from the thread.
	cpu      bool
	cpuKind  int
	owner    sched.GID
	ownerTid int32

	// The notification (struct sigevent).
	notify int32
	signo  int32
	value  uint64 // sigev_value, delivered as si_value
	target int32  // SIGEV_THREAD_ID: the thread's tid

	state       timerState
	expires     int64 // next expiry on the timer's clock (ns)
	interval    int64 // period (ns); 0: one-shot
	overrun     int64 // expirations since the queued one, less one (Linux's it_overrun, from -1)
	overrunLast int64 // the overrun count the last delivered signal reported (timer_getoverrun)

	queued   bool      // its signal is pending at thread queuedAt
	queuedAt sched.GID //
	ignored  bool      // fired with an interval while its signal was ignored: parked
}

// The timer table and its expiry cache. Protected by the BKL.
var ptimers struct {
	t        [maxPosixTimers]ptimer
	nextID   int32 // the next ID to try (next_posix_timer_id)
	realNext int64 // earliest expiry of an armed real-clock timer or ITIMER_REAL, 0: none
	cpuTicks bool  // some CPU-clock timer or CPU itimer is armed, whoever owns it (recalcCPUArmed)
}

// timerAlloc takes a free slot for the next ID (posix_timer_add), or returns nil: EAGAIN.
func timerAlloc() *ptimer {
	for range maxPosixTimers {
		id := ptimers.nextID
		ptimers.nextID = (id + 1) & intMax
		if k := &ptimers.t[id%maxPosixTimers]; !k.used {
			*k = ptimer{used: true, id: id, overrun: -1}
			return k
		}
	}
	return nil
}

// timerByID finds the timer with ID id, nil if there is none: EINVAL (__lock_timer).
func timerByID(id int32) *ptimer {
	if id < 0 {
		return nil
	}
	if k := &ptimers.t[id%maxPosixTimers]; k.used && k.id == id {
		return k
	}
	return nil
}

// timerFree withdraws the timer's signal and frees its slot (timer_delete).
func timerFree(k *ptimer) {
	timerCancelSignal(k)
	k.used, k.state = false, timerDisarmed
	timerRecalc(k)
}

// timerNow reads the timer's clock. BKL held.
func timerNow(k *ptimer) int64 {
	switch {
	case !k.cpu:
		return nanotime()
	case k.owner == 0:
		return processCPUClock(k.cpuKind)
	case threads[k.owner].tid == k.ownerTid:
		return threadCPUClock(k.owner, k.cpuKind)
	}
	return 0 // the thread has exited: its clock stopped (and the timer never fires)
}

// timerSet arms k for value ns (absolute on its clock if abs, else from now) and then every
// interval ns; value 0 disarms it. A pending signal of the old setting is withdrawn
// (common_timer_set and posix_cpu_timer_set, with do_timer_settime's it_signal_seq).
func timerSet(k *ptimer, value, interval int64, abs bool, cpu int) {
	timerCancelSignal(k)
	k.state = timerDisarmed
	k.expires, k.interval, k.overrun, k.overrunLast = 0, 0, -1, 0
	if value == 0 {
		timerRecalc(k)
		return
	}
	k.interval = interval
	now := timerNow(k)
	k.expires = value
	if !abs {
		k.expires = satAdd(now, value)
	} else if !k.cpu {
		k.expires = realToMonotonic(k.clock, value)
	}
	if k.notify != sigevNone {
		k.state = timerArmed // a SIGEV_NONE timer is never armed: timerGet works it out
	}
	timerRecalc(k)
	if k.cpu && k.state == timerArmed && now >= k.expires {
		// Already past on a CPU clock, which may never advance again (a sleeping thread):
		// notify now (posix_cpu_timer_set). A real timer fires on the next interrupt.
		timerFire(k, cpu)
	}
}

// timerGet reports the time left until k's next expiry and its interval (common_timer_get,
// posix_cpu_timer_get): 0 for a disarmed one-shot timer; for a timer whose signal is pending or
// parked, or a SIGEV_NONE one, the next expiry after now, counting the periods passed as
// overruns; 1 ns for a timer that expired and has not notified yet; 0 for an expired SIGEV_NONE
// one-shot.
func timerGet(k *ptimer) (value, interval int64) {
	sigevNone := k.notify == sigevNone
	if k.interval == 0 && k.state == timerDisarmed && !sigevNone {
		return 0, 0
	}
	now := timerNow(k)
	if k.interval != 0 && k.state != timerArmed {
		var n int64
		k.expires, n = timerForward(k.expires, k.interval, now)
		k.overrun += n
	}
	return timerRemaining(k.expires, now, sigevNone), k.interval
}

// timerRemaining is the value timer_gettime reports for an expiry: the time left, or once it
// has passed 1 ns ("about to notify"), 0 for a SIGEV_NONE timer, which never notifies.
func timerRemaining(expires, now int64, sigevNone bool) int64 {
	switch {
	case expires > now:
		return expires - now
	case sigevNone:
		return 0
	}
	return 1
}

// timerForward moves a periodic expiry past now by whole intervals and returns it with the
// number of intervals added (hrtimer_forward, bump_cpu_timer): none if it is still ahead.
// interval must be positive.
func timerForward(expires, interval, now int64) (int64, int64) {
	if now < expires {
		return expires, 0
	}
	n := (now-expires)/interval + 1
	return satAdd(expires, satMul(n, interval)), n
}

// satAdd and satMul are a+b and a*b for non-negative times, saturating at the largest int64
// (Linux's ktime_add_safe: a timer set for ~292 years never wraps into the past).
func satAdd(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return 1<<63 - 1
}

func satMul(a, b int64) int64 {
	if a != 0 && b > (1<<63-1)/a {
		return 1<<63 - 1
	}
	return a * b
}

// timerFire is k's expiry: a one-shot timer disarms, a periodic one waits for its signal to be
// delivered; then it notifies (posix_timer_queue_signal, cpu_timer_fire).
func timerFire(k *ptimer, cpu int) {
	if k.interval != 0 {
		k.state = timerRequeue
	} else {
		k.state = timerDisarmed
	}
	timerSend(k, cpu)
}

// timerSend queues k's signal (posixtimer_send_sigqueue): at the thread SIGEV_THREAD_ID names —
// nowhere if it has exited, and the timer stays as it is (Linux: the signal goes to a pid without
// a task) — or at a thread of the process, the main one preferably (the process's leader, as
// Linux's PIDTYPE_TGID delivery picks it first). A signal the thread ignores is not queued; a
// periodic timer parks until it is no longer ignored. BKL held.
func timerSend(k *ptimer, cpu int) {
	sig := int(k.signo)
	var gp sched.GID
	if k.notify&sigevThreadID != 0 {
		_, gp = threadByTid(k.target)
	} else {
		gp = groupTarget(0, mainThread(0), sig)
	}
	if gp == 0 {
		return
	}
	t := &threads[gp]
	if sigIgnoredBy(t, sig) {
		k.ignored = k.state == timerRequeue
		return
	}
	bit := sigbit(sig)
	// The source and the pending bit change together under futexQ's lock, which a delivery
	// without the BKL takes to claim a pending signal that has no source (sigsource.go).
	futexQ.lock.lock(cpu)
	if t.sigpending.Load()&bit != 0 && t.sigTimer&bit != 0 {
		futexQ.lock.unlock(cpu)
		// Another timer's instance is pending: Linux would queue both; gmpos has one slot per
		// signal, so this expiry counts as one of the other's overruns and this timer re-arms
		// at once.
		timerDelivered(k)
		return
	}
	t.sigKernel &^= bit // the timer's siginfo replaces kill's or the kernel's
	t.sigTimer |= bit
	t.sigpending.Or(bit)
	futexQ.lock.unlock(cpu)
	k.queued, k.queuedAt = true, gp
	postSignal(t, gp, sig, cpu)
}

// queuedTimer is the timer whose signal sig is pending at thread gp.
func queuedTimer(gp sched.GID, sig int) *ptimer {
	for i := range ptimers.t {
		if k := &ptimers.t[i]; k.used && k.queued && k.queuedAt == gp && int(k.signo) == sig {
			return k
		}
	}
	return nil
}

// timerDelivered is called as k's signal is delivered (or dropped in favour of another timer's):
// a periodic timer re-arms past now, and the periods that went by are the overrun count the
// signal reports (__posixtimer_deliver_signal, posix_cpu_timer_rearm). It returns that count,
// clamped to INT_MAX.
func timerDelivered(k *ptimer) int32 {
	k.queued = false
	if k.state == timerRequeue {
		var n int64
		k.expires, n = timerForward(k.expires, k.interval, timerNow(k))
		k.overrun += n
		k.state = timerArmed
		k.overrunLast, k.overrun = k.overrun, -1
		timerRecalc(k)
	}
	return int32(min(max(k.overrunLast, 0), intMax))
}

// timerCancelSignal withdraws k's pending signal, if the timer's instance still holds it.
func timerCancelSignal(k *ptimer) {
	if k.queued {
		t := &threads[k.queuedAt]
		cpu := currentCPU()
		futexQ.lock.lock(cpu) // the source with the pending bit (timerSend)
		if bit := sigbit(int(k.signo)); t.sigTimer&bit != 0 {
			t.sigTimer &^= bit
			t.sigpending.And(^bit)
		}
		futexQ.lock.unlock(cpu)
	}
	k.queued, k.ignored = false, false
}

// timersUnignore sends the signal of every timer parked because sig was ignored, now that
// rt_sigaction has installed a disposition that does not ignore it (posixtimer_sig_unignore).
func timersUnignore(sig int, cpu int) {
	for i := range ptimers.t {
		if k := &ptimers.t[i]; k.used && k.ignored && int(k.signo) == sig {
			k.ignored = false
			timerSend(k, cpu)
		}
	}
}

// timersThreadExit: thread gp has exited with signals of timers pending. A timer notifying the
// process sends its signal again, to another thread; one notifying that thread stays as it is,
// its signal lost with the thread (Linux flushes a thread's private pending set at exit).
func timersThreadExit(gp sched.GID, cpu int) {
	for i := range ptimers.t {
		if k := &ptimers.t[i]; k.used && k.queued && k.queuedAt == gp {
			k.queued = false
			if k.notify&sigevThreadID == 0 {
				timerSend(k, cpu)
			}
		}
	}
}

// timerRecalc updates the expiry cache that covers k's clock after k changed.
func timerRecalc(k *ptimer) {
	switch {
	case !k.cpu:
		recalcRealTimers()
	case k.owner == 0:
		recalcProcessTimers()
	default:
		recalcThreadTimers(k.owner)
	}
}

// recalcRealTimers sets ptimers.realNext, the deadline armTimer adds to the core's timer.
func recalcRealTimers() {
	next := itimerReal.nextExpiry()
	for i := range ptimers.t {
		if k := &ptimers.t[i]; k.used && !k.cpu && k.state == timerArmed && (next == 0 || k.expires < next) {
			next = max(k.expires, 1)
		}
	}
	ptimers.realNext = next
}

// recalcThreadTimers sets thread gp's CPU-timer expiry cache.
func recalcThreadTimers(gp sched.GID) {
	t := &threads[gp]
	t.cpuExp = expiryCache{}
	for i := range ptimers.t {
		if k := &ptimers.t[i]; k.used && k.cpu && k.state == timerArmed && k.owner == gp && k.ownerTid == t.tid {
			t.cpuExp.lower(k.cpuKind, max(k.expires, 1))
		}
	}
	recalcCPUArmed()
}

// recalcProcessTimers sets the process's CPU-timer expiry cache: its POSIX timers and the two
// CPU itimers.
func recalcProcessTimers() {
	procCPU.exp = expiryCache{}
	for i := range ptimers.t {
		if k := &ptimers.t[i]; k.used && k.cpu && k.state == timerArmed && k.owner == 0 {
			procCPU.exp.lower(k.cpuKind, max(k.expires, 1))
		}
	}
	itimerCPULower(&procCPU.exp)
	recalcCPUArmed()
}

// recalcCPUArmed notes whether any CPU-clock timer is armed: while one is (or a CPU itimer), every
// running thread takes the periodic tick (timer.go periodicTick). The tick is how a CPU timer's
// expiry is found, by interrupting its thread in user mode (cputime.go), and only a steady
// cadence on every thread finds a thread that runs in short stretches between others: a tick
// that started anew on each of its resumptions might never come while it runs. Arming the first
// one kicks the cores that run without ticks, so that they arm theirs.
func recalcCPUArmed() {
	armed := procCPU.exp != (expiryCache{})
	for i := 0; i < len(ptimers.t) && !armed; i++ {
		k := &ptimers.t[i]
		armed = k.used && k.cpu && k.state == timerArmed
	}
	was := ptimers.cpuTicks
	ptimers.cpuTicks = armed
	if was || !armed {
		return
	}
	// Published at once, and fenced before the loads of cur: a core waking up without the BKL
	// either sees the tick wanted or is seen running here (wake_unlocked.go, kickThread).
	publishUnlockedView()
	arch.Fence()
	for c, self := 0, currentCPU(); c < ncpu; c++ {
		if c != self && cpus[c].cur != 0 {
			cpus[self].wakeIPIs |= 1 << c
		}
	}
}

// expireRealTimers fires every real-clock timer due by now, and ITIMER_REAL (from timerTick).
func expireRealTimers(cpu int, now int64) {
	if ptimers.realNext == 0 || now < ptimers.realNext {
		return
	}
	for i := range ptimers.t {
		if k := &ptimers.t[i]; k.used && !k.cpu && k.state == timerArmed && now >= k.expires {
			timerFire(k, cpu)
		}
	}
	itimerRealExpire(now, cpu)
	recalcRealTimers()
}

// fireThreadCPUTimers fires thread gp's CPU-clock timers that its clocks have reached.
func fireThreadCPUTimers(gp sched.GID, cpu int) {
	t := &threads[gp]
	for i := range ptimers.t {
		k := &ptimers.t[i]
		if k.used && k.cpu && k.state == timerArmed && k.owner == gp && k.ownerTid == t.tid &&
			t.cpu.sample(k.cpuKind) >= k.expires {
			timerFire(k, cpu)
		}
	}
	recalcThreadTimers(gp)
}

// fireProcessCPUTimers fires the process's CPU-clock timers and CPU itimers that its clocks have
// reached; gp is the thread returning to user mode, which itimer signals prefer (Linux sends
// them from the tick of the running thread).
func fireProcessCPUTimers(gp sched.GID, cpu int) {
	for i := range ptimers.t {
		k := &ptimers.t[i]
		if k.used && k.cpu && k.state == timerArmed && k.owner == 0 && procCPU.times.sample(k.cpuKind) >= k.expires {
			timerFire(k, cpu)
		}
	}
	itimerCPUExpire(gp, cpu)
	recalcProcessTimers()
}
