// Interval timers: setitimer, getitimer, alarm — ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/sched"

// The three interval timers of setitimer(2) belong to the process (kernel/time/itimer.c):
//
//   - ITIMER_REAL counts CLOCK_MONOTONIC and sends SIGALRM to the process — the main thread,
//     if it does not block it. Like a POSIX timer it re-arms when a SIGALRM is delivered (Linux
//     6.18: posixtimer_rearm_itimer), so a periodic one stands still while the signal is
//     pending, and for good if the signal was ignored when it fired (measured on Linux 6.18).
//   - ITIMER_VIRTUAL counts the process's user time (SIGVTALRM), ITIMER_PROF its user and
//     system time (SIGPROF: the Go runtime's process-wide profiler, which it sets next to its
//     per-thread POSIX timers). They re-arm as they fire, by one interval, and their signal goes
//     to the thread whose running made them expire (check_cpu_itimer).
//
// The signals carry si_code SI_KERNEL (sigsource.go). As on Linux, setting a CPU itimer adds one
// tick to its first expiry (set_cpu_itimer: accounting is only that exact there), and reading one
// that is due reports one tick left — gmpos's tick, tickNS. Protected by the BKL.

// setitimer's which (include/uapi/linux/time.h).
const (
	itimerRealWhich    = 0
	itimerVirtualWhich = 1
	itimerProfWhich    = 2

	itimervalSize = 32 // struct __kernel_old_itimerval: it_interval, it_value (timeval: sec, usec)
)

// realItimer is ITIMER_REAL (signal->real_timer and it_real_incr).
type realItimer struct {
	state    timerState
	expires  int64 // CLOCK_MONOTONIC ns
	interval int64
}

// cpuItimer is a CPU itimer (struct cpu_itimer): expires on the process's CPU clock, 0: disarmed.
type cpuItimer struct {
	expires, incr int64
}

// The interval timers. Protected by the BKL.
var (
	itimerReal realItimer
	itimerCPU  [2]cpuItimer // indexed by CPU clock kind: cpuclockProf, cpuclockVirt
)

// nextExpiry is ITIMER_REAL's deadline for the core's timer, 0 if it is not counting.
func (it *realItimer) nextExpiry() int64 {
	if it.state == timerArmed {
		return max(it.expires, 1)
	}
	return 0
}

// itimerRealGet reports ITIMER_REAL's time left and interval (itimer_get_remtime): 1 µs once due
// but not yet fired, 0 when it is not counting — also while its signal waits to be delivered.
func itimerRealGet(now int64) (value, interval int64) {
	it := &itimerReal
	if it.state != timerArmed {
		return 0, it.interval
	}
	if rem := it.expires - now; rem > 0 {
		return rem, it.interval
	}
	return 1000, it.interval
}

// itimerRealSet arms ITIMER_REAL for value ns from now, then every interval ns; value 0 disarms
// it and clears the interval (do_setitimer). A SIGALRM already pending stays pending.
func itimerRealSet(value, interval int64) {
	it := &itimerReal
	it.state, it.interval = timerDisarmed, 0
	if value != 0 {
		it.state, it.interval = timerArmed, interval
		it.expires = satAdd(nanotime(), value)
	}
	recalcRealTimers()
}

// itimerRealExpire sends SIGALRM if ITIMER_REAL is due (it_real_fn). BKL held.
func itimerRealExpire(now int64, cpu int) {
	it := &itimerReal
	if it.state != timerArmed || now < it.expires {
		return
	}
	it.state = timerDisarmed
	if it.interval != 0 {
		it.state = timerRequeue
	}
	postKernelSignal(0, mainThread(0), sigALRM, cpu)
}

// itimerRealRearm re-arms a periodic ITIMER_REAL that fired, as a SIGALRM is delivered.
func itimerRealRearm() {
	it := &itimerReal
	if it.state == timerRequeue && it.interval != 0 {
		it.expires, _ = timerForward(it.expires, it.interval, nanotime())
		it.state = timerArmed
		recalcRealTimers()
	}
}

// itimerCPUGet reports a CPU itimer's time left and interval (get_cpu_itimer).
func itimerCPUGet(kind int) (value, interval int64) {
	it := &itimerCPU[kind]
	if it.expires == 0 {
		return 0, it.incr
	}
	return cpuItimerLeft(it.expires, processCPUClock(kind)), it.incr
}

// cpuItimerLeft is a CPU itimer's time left at CPU time now: one tick once it is due.
func cpuItimerLeft(expires, now int64) int64 {
	if expires < now {
		return tickNS
	}
	return expires - now
}

// itimerCPUSet arms a CPU itimer for value ns of the process's CPU time (plus a tick), then
// every interval ns, and returns the old setting (set_cpu_itimer, set_process_cpu_timer).
func itimerCPUSet(kind int, value, interval int64) (oldValue, oldInterval int64) {
	it := &itimerCPU[kind]
	oldValue, oldInterval = it.expires, it.incr
	if oldValue != 0 || value != 0 {
		now := processCPUClock(kind)
		if oldValue != 0 {
			if oldValue <= now {
				oldValue = tickNS
			} else {
				oldValue -= now
			}
		}
		if value != 0 {
			value = satAdd(satAdd(value, tickNS), now)
		}
	}
	it.expires, it.incr = value, interval
	recalcProcessTimers()
	return oldValue, oldInterval
}

// itimerCPULower adds the armed CPU itimers to the process's expiry cache.
func itimerCPULower(e *expiryCache) {
	for kind := range itimerCPU {
		if exp := itimerCPU[kind].expires; exp != 0 {
			e.lower(kind, exp)
		}
	}
}

// itimerCPUExpire fires the CPU itimers the process's clocks have reached: one interval later
// next time, the signal to gp, the thread returning to user mode (check_cpu_itimer).
func itimerCPUExpire(gp sched.GID, cpu int) {
	for kind := range itimerCPU {
		it := &itimerCPU[kind]
		if it.expires == 0 || procCPU.times.sample(kind) < it.expires {
			continue
		}
		if it.incr != 0 {
			it.expires = satAdd(it.expires, it.incr)
		} else {
			it.expires = 0
		}
		sig := sigPROF
		if kind == cpuclockVirt {
			sig = sigVTALRM
		}
		postKernelSignal(int(threads[gp].proc), gp, sig, cpu)
	}
}

// sysGetitimer reads an interval timer (getitimer(2)): EINVAL for an unknown timer, then EFAULT.
func sysGetitimer(which int32, p uintptr) int64 {
	var value, interval int64
	switch which {
	case itimerRealWhich:
		value, interval = itimerRealGet(nanotime())
	case itimerVirtualWhich:
		value, interval = itimerCPUGet(cpuclockVirt)
	case itimerProfWhich:
		value, interval = itimerCPUGet(cpuclockProf)
	default:
		return -EINVAL
	}
	if !writeItimerval(p, value, interval) {
		return -EFAULT
	}
	return 0
}

// sysSetitimer sets an interval timer (setitimer(2)), in Linux's order: the new value is read and
// checked first (EFAULT, EINVAL; NULL means "disarm", a misfeature Linux keeps), then the timer
// (EINVAL), and the old value is written last — after the timer is set (EFAULT).
func sysSetitimer(which int32, newp, oldp uintptr) int64 {
	var value, interval int64
	if newp != 0 {
		if !userRange(newp, itimervalSize, false) {
			return -EFAULT
		}
		var ok bool
		value, interval, ok = itimervalNS([4]uint64{load64(newp), load64(newp + 8), load64(newp + 16), load64(newp + 24)})
		if !ok {
			return -EINVAL
		}
	}
	var oldValue, oldInterval int64
	switch which {
	case itimerRealWhich:
		oldValue, oldInterval = itimerRealGet(nanotime())
		itimerRealSet(value, interval)
	case itimerVirtualWhich:
		oldValue, oldInterval = itimerCPUSet(cpuclockVirt, value, interval)
	case itimerProfWhich:
		oldValue, oldInterval = itimerCPUSet(cpuclockProf, value, interval)
	default:
		return -EINVAL
	}
	if oldp != 0 && !writeItimerval(oldp, oldValue, oldInterval) {
		return -EFAULT
	}
	return 0
}

// sysAlarm is alarm(2): ITIMER_REAL for seconds, once; it returns the seconds that were left,
// rounded to the nearest and at least 1 if any time was left (alarm_setitimer).
func sysAlarm(seconds uint32) int64 {
	old, _ := itimerRealGet(nanotime())
	itimerRealSet(int64(seconds)*1e9, 0)
	return alarmSeconds(old)
}

// alarmSeconds rounds alarm's remaining time: whole seconds, one more for half a second or more
// or for any time under a second.
func alarmSeconds(ns int64) int64 {
	sec, nsec := ns/1e9, ns%1e9
	if (sec == 0 && nsec != 0) || nsec >= 500_000_000 {
		sec++
	}
	return sec
}

// itimervalNS converts a struct itimerval's words (interval sec, usec, value sec, usec) to ns,
// refusing what timeval_valid refuses — negative seconds, microseconds outside [0, 1e6) — and
// saturating a huge value (timespec64_to_ktime).
func itimervalNS(w [4]uint64) (value, interval int64, ok bool) {
	var ok1, ok2 bool
	interval, ok1 = timeNS(w[0], w[1], 1_000_000, 1000)
	value, ok2 = timeNS(w[2], w[3], 1_000_000, 1000)
	return value, interval, ok1 && ok2
}

// timeNS converts seconds and a fraction (below limit, each worth unit ns) to ns: false for
// negative seconds or a fraction out of range, the largest int64 for a time beyond it.
func timeNS(sec, frac, limit, unit uint64) (int64, bool) {
	if int64(sec) < 0 || frac >= limit {
		return 0, false
	}
	const maxSec = (1<<63 - 1) / 1_000_000_000
	if sec >= maxSec {
		return 1<<63 - 1, true
	}
	return int64(sec)*1e9 + int64(frac*unit), true
}

// writeItimerval stores a struct itimerval, ns truncated to µs as Linux's put_itimerval does.
func writeItimerval(p uintptr, value, interval int64) bool {
	if !userRange(p, itimervalSize, true) {
		return false
	}
	store64(p, uint64(interval/1e9))
	store64(p+8, uint64(interval%1e9/1000))
	store64(p+16, uint64(value/1e9))
	store64(p+24, uint64(value%1e9/1000))
	return true
}
