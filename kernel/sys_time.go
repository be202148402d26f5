// Clocks and sleeping: clock_gettime, clock_getres, gettimeofday, time, nanosleep,
// clock_nanosleep.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/sched"

// Clock IDs (include/uapi/linux/time.h). gmpos has one monotonic time base: the *_RAW, *_COARSE,
// BOOTTIME and TAI variants read it or the wall clock (gmpos does not model leap seconds: TAI is
// REALTIME). The CPU-time clocks read the accounting of cputime.go.
const (
	clockRealtime        = 0
	clockMonotonic       = 1
	clockProcessCputime  = 2
	clockThreadCputime   = 3
	clockMonotonicRaw    = 4
	clockRealtimeCoarse  = 5
	clockMonotonicCoarse = 6
	clockBoottime        = 7
	clockRealtimeAlarm   = 8
	clockBoottimeAlarm   = 9
	clockTAI             = 11

	// Negative IDs name another process's or thread's CPU clock (kernel/time/posix-cpu-timers.c):
	// bits 1:0 the kind (3 is invalid), bit 2 per-thread, the rest ~pid (0: the caller).
	cpuclockPerthread = 4
	cpuclockKindMask  = 3

	// The resolution clock_getres reports: high-resolution clocks 1 ns, the coarse ones one
	// scheduler tick (Linux: a jiffy).
	coarseResolution = tickNS
)

// clockNow reads clock clk for the calling thread. ok is false for an ID Linux rejects with
// EINVAL: the alarm clocks need an RTC alarm device that gmpos does not drive; a CPU clock must
// be the process's or one of its threads' (cpuClockOwner), and clock_gettime also
// accepts the caller's own tid as a process ID (posix-cpu-timers.c pid_for_clock).
func clockNow(clk int32) (ns int64, ok bool) {
	switch clk {
	case clockRealtime, clockRealtimeCoarse, clockTAI:
		return walltime(), true
	case clockMonotonic, clockMonotonicRaw, clockMonotonicCoarse, clockBoottime:
		return nanotime(), true
	}
	self := acct[currentCPU()].g
	owner, _, ok := cpuClockOwner(clk, self)
	if !ok && clk < 0 && clk&(cpuclockPerthread|cpuclockKindMask) < cpuclockKindMask &&
		^(clk>>3) == threads[self].tid {
		owner, ok = 0, true // the process, named by the caller's tid
	}
	if !ok {
		return 0, false
	}
	kind := cpuclockSched
	if clk < 0 {
		kind = int(clk & cpuclockKindMask)
	}
	if owner == 0 {
		return processCPUClock(kind), true
	}
	return threadCPUClock(owner, kind), true
}

// cpuClockOwner names the owner of CPU clock clk for caller self: the process (0) or a thread,
// with its tid; ok is false for an invalid clock — not a CPU clock, kind 3, a thread of another
// process, a pid that is not this process's (posix-cpu-timers.c pid_for_clock, without the
// exception clock_gettime makes: clockNow).
func cpuClockOwner(clk int32, self sched.GID) (owner sched.GID, tid int32, ok bool) {
	switch clk {
	case clockProcessCputime:
		return 0, 0, true
	case clockThreadCputime:
		return self, threads[self].tid, true
	}
	if clk >= 0 || clk&cpuclockKindMask == cpuclockKindMask {
		return 0, 0, false
	}
	pid := ^(clk >> 3)
	if clk&cpuclockPerthread == 0 {
		return 0, 0, pid == 0 || pid == processID
	}
	if pid == 0 {
		return self, threads[self].tid, true
	}
	if t, gp := threadByTid(pid); t != nil {
		return gp, t.tid, true
	}
	return 0, 0, false
}

// readTimespec loads a struct timespec: EFAULT for a bad pointer, EINVAL for a value
// timespec64_valid rejects (negative seconds, nanoseconds outside [0, 1e9)). Very long durations
// saturate at about 146 years.
func readTimespec(p uintptr) (ns int64, errno int64) {
	if !userRange(p, 16, false) {
		return 0, -EFAULT
	}
	ns, ok := timespecNS(int64(load64(p)), int64(load64(p+8)))
	if !ok {
		return 0, -EINVAL
	}
	return ns, 0
}

// timespecNS is a timespec's value in ns: false if it is invalid (a negative field, or tv_nsec
// of a second or more: Linux's timespec64_valid). Seconds beyond 2^62 ns are clamped, so that a
// deadline computed from the result cannot overflow.
func timespecNS(sec, nsec int64) (int64, bool) {
	if sec < 0 || nsec < 0 || nsec >= 1e9 {
		return 0, false
	}
	return min(sec, (1<<62)/1_000_000_000)*1e9 + nsec, true
}

func writeTimespec(p uintptr, ns int64) bool {
	if !userRange(p, 16, true) {
		return false
	}
	store64(p, uint64(ns/1e9))
	store64(p+8, uint64(ns%1e9))
	return true
}

func sysClockGettime(clk int32, tp uintptr) int64 {
	ns, ok := clockNow(clk)
	if !ok {
		return -EINVAL
	}
	if !writeTimespec(tp, ns) {
		return -EFAULT
	}
	return 0
}

func sysClockGetres(clk int32, tp uintptr) int64 {
	if _, ok := clockNow(clk); !ok {
		return -EINVAL
	}
	res := int64(1)
	if clk == clockRealtimeCoarse || clk == clockMonotonicCoarse {
		res = coarseResolution
	}
	if tp != 0 && !writeTimespec(tp, res) {
		return -EFAULT
	}
	return 0
}

// sysGettimeofday fills struct timeval (and struct timezone, always UTC: gmpos keeps no time
// zone in the kernel, as a modern Linux keeps none of interest).
func sysGettimeofday(tv, tz uintptr) int64 {
	if tv != 0 {
		if !userRange(tv, 16, true) {
			return -EFAULT
		}
		now := walltime()
		store64(tv, uint64(now/1e9))
		store64(tv+8, uint64(now%1e9/1000))
	}
	if tz != 0 {
		if !userRange(tz, 8, true) {
			return -EFAULT
		}
		store64(tz, 0) // tz_minuteswest, tz_dsttime
	}
	return 0
}

// sysTime returns the seconds since the epoch and stores them at tloc if it is not NULL.
func sysTime(tloc uintptr) int64 {
	r := walltime() / 1e9
	if tloc != 0 {
		if !userRange(tloc, 8, true) {
			return -EFAULT
		}
		store64(tloc, uint64(r))
	}
	return r
}

// sysNanosleep blocks until the deadline; the timer interrupt wakes the thread with 0. A signal
// ends the sleep early with EINTR (the remaining time is not reported: the Go runtime passes
// NULL for it). The runtime's own sleeps (usleep) usually never get here: sleepUnlocked takes
// them without the BKL (sleep_unlocked.go).
func sysNanosleep(t *Thread, gp sched.GID, cpu int, req uintptr) int64 {
	ns, err := readTimespec(req)
	if err != 0 {
		return err
	}
	if ns == 0 {
		return 0
	}
	sleepUntil(t, gp, cpu, withSlack(nanotime()+ns))
	return 0
}

// sleepUntil blocks t until deadline on futexQ's list, whose lock sleeps share (futex.go).
func sleepUntil(t *Thread, gp sched.GID, cpu int, deadline int64) {
	futexQ.lock.lock(cpu)
	block(t, gp, cpu, waitSleep, deadline)
	futexQ.lock.unlock(cpu)
}

// sysClockNanosleep sleeps on a clock, relatively or until an absolute time (TIMER_ABSTIME), in
// Linux's order (kernel/time/posix-timers.c): the clock (EINVAL if unknown, EOPNOTSUPP if it
// cannot sleep: the raw, coarse and alarm clocks and a thread's CPU clock), then the timespec;
// another thread's or process's CPU clock cannot be slept on either (posix_cpu_nsleep: EINVAL).
func sysClockNanosleep(t *Thread, gp sched.GID, cpu int, clk int32, flags int32, req uintptr) int64 {
	const timerAbstime = 1
	switch clk {
	case clockThreadCputime, clockMonotonicRaw, clockRealtimeCoarse, clockMonotonicCoarse,
		clockRealtimeAlarm, clockBoottimeAlarm:
		return -EOPNOTSUPP
	}
	now, ok := clockNow(clk)
	if !ok {
		return -EINVAL
	}
	ns, err := readTimespec(req)
	if err != 0 {
		return err
	}
	if clk < 0 && (clk&cpuclockPerthread != 0 || ^(clk>>3) != 0) {
		return -EINVAL
	}
	deadline := nanotime() + ns
	if flags&timerAbstime != 0 {
		deadline = nanotime() + (ns - now)
	}
	if deadline <= nanotime() {
		return 0
	}
	sleepUntil(t, gp, cpu, withSlack(deadline))
	return 0
}
