package kernel

import (
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// Clocks (include/uapi/linux/time.h). gmpos has one monotonic time base; the *_RAW, *_COARSE and
// BOOTTIME variants read it too, and the CPU-time clocks report it (documented approximation).
const (
	clockRealtime        = 0
	clockMonotonic       = 1
	clockProcessCputime  = 2
	clockThreadCputime   = 3
	clockMonotonicRaw    = 4
	clockRealtimeCoarse  = 5
	clockMonotonicCoarse = 6
	clockBoottime        = 7
)

func clockNow(clk int) (int64, bool) {
	switch clk {
	case clockRealtime, clockRealtimeCoarse:
		return walltime(), true
	case clockMonotonic, clockMonotonicRaw, clockMonotonicCoarse, clockBoottime, clockProcessCputime, clockThreadCputime:
		return nanotime(), true
	}
	return 0, false
}

// readTimespec loads a struct timespec; ok is false for bad pointers (EFAULT) and bad is true for
// an out-of-range value (EINVAL).
func readTimespec(p uintptr) (ns int64, fault, bad bool) {
	if !mm.Space.UserRange(p, 16, false) {
		return 0, true, false
	}
	sec, nsec := int64(load64(p)), int64(load64(p+8))
	if sec < 0 || nsec < 0 || nsec >= 1e9 {
		return 0, false, true
	}
	if sec > (1<<62)/1_000_000_000 {
		sec = (1 << 62) / 1_000_000_000
	}
	return sec*1e9 + nsec, false, false
}

func writeTimespec(p uintptr, ns int64) bool {
	if !mm.Space.UserRange(p, 16, true) {
		return false
	}
	store64(p, uint64(ns/1e9))
	store64(p+8, uint64(ns%1e9))
	return true
}

func sysClockGettimeCall(clk int, tp uintptr) int64 {
	ns, ok := clockNow(clk)
	if !ok {
		return -EINVAL
	}
	if !writeTimespec(tp, ns) {
		return -EFAULT
	}
	return 0
}

func sysClockGetresCall(clk int, tp uintptr) int64 {
	if _, ok := clockNow(clk); !ok {
		return -EINVAL
	}
	if tp != 0 && !writeTimespec(tp, 1) {
		return -EFAULT
	}
	return 0
}

func sysGettimeofdayCall(tv uintptr) int64 {
	if tv == 0 {
		return 0
	}
	if !mm.Space.UserRange(tv, 16, true) {
		return -EFAULT
	}
	now := walltime()
	store64(tv, uint64(now/1e9))
	store64(tv+8, uint64(now%1e9/1000))
	return 0
}

// sysNanosleepCall blocks until the deadline; the timer tick wakes the thread with 0. A signal
// ends the sleep early with EINTR (the remaining time is not reported: the runtime passes NULL).
func sysNanosleepCall(t *Thread, gp sched.GID, cpu int, req uintptr) int64 {
	ns, fault, bad := readTimespec(req)
	if fault {
		return -EFAULT
	}
	if bad {
		return -EINVAL
	}
	if ns == 0 {
		return 0
	}
	block(t, gp, cpu, waitSleep, nanotime()+ns)
	return 0
}

func sysClockNanosleepCall(t *Thread, gp sched.GID, cpu int, clk, flags int, req uintptr) int64 {
	const timerAbstime = 1
	now, ok := clockNow(clk)
	if !ok {
		return -EINVAL
	}
	ns, fault, bad := readTimespec(req)
	if fault {
		return -EFAULT
	}
	if bad {
		return -EINVAL
	}
	deadline := nanotime() + ns
	if flags&timerAbstime != 0 {
		deadline = nanotime() + (ns - now)
	}
	if deadline <= nanotime() {
		return 0
	}
	block(t, gp, cpu, waitSleep, deadline)
	return 0
}

// Futex operations (include/uapi/linux/futex.h); the Go runtime uses WAIT/WAKE with
// FUTEX_PRIVATE_FLAG (runtime-contract §3.5). The bitset variants are implemented for completeness.
const (
	futexWait          = 0
	futexWake          = 1
	futexWaitBitset    = 9
	futexWakeBitset    = 10
	futexPrivate       = 128
	futexClockRealtime = 256
)

// sysFutexCall implements wait/wake on a 4-byte word. WAIT compares and blocks atomically with
// respect to WAKE because the kernel runs with interrupts off on one core (SMP: under the futex
// lock, which every waker takes too).
func sysFutexCall(t *Thread, gp sched.GID, cpu int, addr uintptr, op int, val uint32, timeout uintptr, val3 uint32) int64 {
	cmd := op &^ (futexPrivate | futexClockRealtime)
	if addr&3 != 0 {
		return -EINVAL
	}
	// The bitset variants select waiters by bit; the plain ones match every waiter.
	bitset := uint32(0xffffffff)
	if cmd == futexWaitBitset || cmd == futexWakeBitset {
		if val3 == 0 {
			return -EINVAL
		}
		bitset = val3
	}
	switch cmd {
	case futexWait, futexWaitBitset:
		if !mm.Space.UserRange(addr, 4, false) {
			return -EFAULT
		}
		var deadline int64
		if timeout != 0 {
			ns, fault, bad := readTimespec(timeout)
			if fault {
				return -EFAULT
			}
			if bad {
				return -EINVAL
			}
			if cmd == futexWaitBitset { // absolute time on the chosen clock
				clk := clockMonotonic
				if op&futexClockRealtime != 0 {
					clk = clockRealtime
				}
				now, _ := clockNow(clk)
				ns -= now
				if ns <= 0 {
					return -ETIMEDOUT
				}
			}
			deadline = nanotime() + ns
			if ns == 0 {
				return -ETIMEDOUT
			}
		}
		if *(*uint32)(ptr(addr)) != val {
			return -EAGAIN
		}
		t.waitAddr = addr
		t.waitArg = uint64(bitset)
		block(t, gp, cpu, waitFutex, deadline)
		stats.futexWaits++
		return 0
	case futexWake, futexWakeBitset:
		return int64(futexWake1(addr, int(val), bitset, cpu))
	}
	return -ENOSYS
}

// futexWake1 wakes up to n threads waiting on addr whose bitset intersects bitset.
func futexWake1(addr uintptr, n int, bitset uint32, cpu int) int {
	woken := 0
	for i := 0; i < waiters.n && woken < n; {
		gp := waiters.g[i]
		t := &threads[gp]
		if t.wait == waitFutex && t.waitAddr == addr && uint32(t.waitArg)&bitset != 0 {
			wakeThread(gp, 0, cpu)
			woken++
			continue
		}
		i++
	}
	return woken
}
