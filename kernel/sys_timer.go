// System calls of POSIX timers: timer_create, timer_settime, timer_gettime, timer_getoverrun,
// timer_delete.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/sched"

// The arguments are checked in Linux's order (kernel/time/posix-timers.c, posix-cpu-timers.c
// pid_for_clock), which the conformance test compares with the host's. A timer ID is an int:
// only the low 32 bits of the register count, and a negative ID names no timer.

// sigevent is the part of struct sigevent the kernel reads (asm-generic/siginfo.h): sigev_value
// at 0, sigev_signo at 8, sigev_notify at 12, sigev_notify_thread_id at 16.
type sigevent struct {
	value  uint64
	signo  int32
	notify int32
	tid    int32
}

// timerClock classifies a clock for timer_create (clockid_to_kclock and its timer_create
// method): a real clock; a CPU-time clock of the given kind (its owner is checked later, by
// cpuClockOwner); EOPNOTSUPP for the clocks no timer can run on — the raw and coarse clocks, a
// clock fd, the alarm clocks (they need an RTC alarm device, which gmpos does not drive: Linux
// says the same without one) — and EINVAL for an unknown clock.
func timerClock(clk int32) (cpu bool, kind int, errno int64) {
	const clockfdMask, clockfd = cpuclockPerthread | cpuclockKindMask, 3
	if clk < 0 {
		if clk&clockfdMask == clockfd {
			return false, 0, -EOPNOTSUPP
		}
		return true, int(clk & cpuclockKindMask), 0
	}
	switch clk {
	case clockRealtime, clockMonotonic, clockBoottime, clockTAI:
		return false, 0, 0
	case clockProcessCputime, clockThreadCputime:
		return true, cpuclockSched, 0
	case clockMonotonicRaw, clockRealtimeCoarse, clockMonotonicCoarse, clockRealtimeAlarm, clockBoottimeAlarm:
		return false, 0, -EOPNOTSUPP
	}
	return false, 0, -EINVAL
}

// checkSigevent checks a sigevent's notification as good_sigevent does: SIGEV_NONE; SIGEV_SIGNAL
// or SIGEV_THREAD with a signal in 1..64; SIGEV_THREAD_ID (exactly, with SIGEV_SIGNAL's value 0)
// naming a thread of the process (tidOK) and a valid signal. Anything else is EINVAL.
func checkSigevent(notify, signo int32, tidOK bool) int64 {
	switch notify {
	case sigevNone:
		return 0
	case sigevSignal | sigevThreadID:
		if !tidOK {
			return -EINVAL
		}
	case sigevSignal, sigevThread:
	default:
		return -EINVAL
	}
	if signo <= 0 || signo > nSig {
		return -EINVAL
	}
	return 0
}

// sysTimerCreate creates a timer on clock clk (do_timer_create): the sigevent is read (EFAULT),
// the clock checked (EINVAL, EOPNOTSUPP), a slot taken (EAGAIN), the sigevent checked (EINVAL),
// the ID written (EFAULT), and last a CPU clock's owner checked (EINVAL). Without a sigevent the
// timer sends SIGALRM to the process with its ID as the value.
func sysTimerCreate(gp sched.GID, clk int32, sevp, idp uintptr) int64 {
	var ev sigevent
	if sevp != 0 {
		if !userRange(sevp, sigeventSize, false) {
			return -EFAULT
		}
		ev = sigevent{load64(sevp), int32(load32(sevp + 8)), int32(load32(sevp + 12)), int32(load32(sevp + 16))}
	}
	cpu, kind, errno := timerClock(clk)
	if errno != 0 {
		return errno
	}
	k := timerAlloc()
	if k == nil {
		return -EAGAIN
	}
	if sevp == 0 {
		ev = sigevent{value: uint64(uint32(k.id)), signo: sigALRM, notify: sigevSignal}
	} else if t, _ := threadByTid(ev.tid); checkSigevent(ev.notify, ev.signo, t != nil) != 0 {
		k.used = false
		return -EINVAL
	}
	k.clock, k.cpu, k.cpuKind = clk, cpu, kind
	k.notify, k.signo, k.value, k.target = ev.notify, ev.signo, ev.value, ev.tid
	if !userRange(idp, 4, true) {
		k.used = false
		return -EFAULT
	}
	store32(idp, uint32(k.id))
	if cpu {
		var ok bool
		if k.owner, k.ownerTid, ok = cpuClockOwner(clk, gp); !ok {
			k.used = false
			return -EINVAL
		}
	}
	return 0
}

// sysTimerSettime arms or disarms a timer (timer_settime(2)): EINVAL without a new value, EFAULT
// if it cannot be read, EINVAL for an invalid time or an unknown timer; the old setting is
// written after the new one is in force (EFAULT). Only TIMER_ABSTIME of flags means anything.
func sysTimerSettime(id int32, flags int32, newp, oldp uintptr, cpu int) int64 {
	const timerAbstime = 1
	if newp == 0 {
		return -EINVAL
	}
	if !userRange(newp, 32, false) {
		return -EFAULT
	}
	interval, ok1 := timeNS(load64(newp), load64(newp+8), 1e9, 1)
	value, ok2 := timeNS(load64(newp+16), load64(newp+24), 1e9, 1)
	if !ok1 || !ok2 {
		return -EINVAL
	}
	k := timerByID(id)
	if k == nil {
		return -EINVAL
	}
	var oldValue, oldInterval int64
	if oldp != 0 {
		oldValue, oldInterval = timerGet(k)
	}
	timerSet(k, value, interval, flags&timerAbstime != 0, cpu)
	if oldp != 0 && !writeItimerspec(oldp, oldValue, oldInterval) {
		return -EFAULT
	}
	return 0
}

// sysTimerGettime reports a timer's time left and interval (timer_gettime(2)).
func sysTimerGettime(id int32, p uintptr) int64 {
	k := timerByID(id)
	if k == nil {
		return -EINVAL
	}
	value, interval := timerGet(k)
	if !writeItimerspec(p, value, interval) {
		return -EFAULT
	}
	return 0
}

// sysTimerGetoverrun returns the overrun count the timer's last delivered signal reported.
func sysTimerGetoverrun(id int32) int64 {
	k := timerByID(id)
	if k == nil {
		return -EINVAL
	}
	return int64(min(max(k.overrunLast, 0), intMax))
}

// sysTimerDelete deletes a timer; its pending signal goes with it.
func sysTimerDelete(id int32) int64 {
	k := timerByID(id)
	if k == nil {
		return -EINVAL
	}
	timerFree(k)
	return 0
}

// writeItimerspec stores a struct itimerspec: it_interval, then it_value (timespec: sec, nsec).
func writeItimerspec(p uintptr, value, interval int64) bool {
	if !userRange(p, 32, true) {
		return false
	}
	store64(p, uint64(interval/1e9))
	store64(p+8, uint64(interval%1e9))
	store64(p+16, uint64(value/1e9))
	store64(p+24, uint64(value%1e9))
	return true
}

// realToMonotonic converts an absolute time on real clock clk to CLOCK_MONOTONIC: gmpos's
// REALTIME and TAI are the monotonic clock plus the wall-clock offset read at boot, and BOOTTIME
// is the monotonic clock (nothing suspends).
func realToMonotonic(clk int32, t int64) int64 {
	if clk == clockRealtime || clk == clockTAI {
		return t - clock.realBase
	}
	return t
}
