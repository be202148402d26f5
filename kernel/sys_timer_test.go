// Tests of the timers' pure logic: interval arithmetic, argument checks, timer IDs.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"math"
	"testing"
)

// TestTimerForward: a periodic expiry that has passed moves past now by whole intervals, the
// fewest that do (hrtimer_forward, bump_cpu_timer); one still ahead does not move; huge values
// saturate instead of wrapping into the past.
func TestTimerForward(t *testing.T) {
	for _, c := range []struct {
		expires, interval, now int64
		want, n                int64
	}{
		{100, 10, 50, 100, 0},  // ahead: unchanged
		{100, 10, 100, 110, 1}, // due exactly: one interval (expiry must end up > now)
		{100, 10, 105, 110, 1},
		{100, 10, 110, 120, 2},
		{100, 10, 1099, 1100, 100},
		{100, 3, 100, 103, 1},
		{-5, 10, 0, 5, 1}, // a REALTIME expiry before the boot's wall-clock offset
		{math.MaxInt64 - 5, 10, math.MaxInt64 - 1, math.MaxInt64, 1},
		{0, math.MaxInt64, 1, math.MaxInt64, 1},
	} {
		got, n := timerForward(c.expires, c.interval, c.now)
		if got != c.want || n != c.n {
			t.Errorf("timerForward(%d, %d, %d) = %d, %d; want %d, %d", c.expires, c.interval, c.now, got, n, c.want, c.n)
		}
	}
}

// FuzzTimerForward checks the forwarding rule for any expiry, interval and time that fit the
// kernel's ranges (times below 2^62 ns, about 146 years): the new expiry is after now, at a
// whole number of intervals from the old one, and one interval earlier would not be.
func FuzzTimerForward(f *testing.F) {
	f.Add(int64(100), int64(10), int64(105))
	f.Add(int64(1), int64(1), int64(1<<40))
	f.Add(int64(1<<61), int64(7), int64(1<<61+6))
	f.Fuzz(func(t *testing.T, expires, interval, now int64) {
		if expires < 0 || interval <= 0 || now < 0 || expires >= 1<<62 || interval >= 1<<62 || now >= 1<<62 {
			return
		}
		got, n := timerForward(expires, interval, now)
		if now < expires {
			if got != expires || n != 0 {
				t.Fatalf("ahead: got %d, %d", got, n)
			}
			return
		}
		if got <= now || got-expires != n*interval || got-interval > now {
			t.Fatalf("timerForward(%d, %d, %d) = %d, %d", expires, interval, now, got, n)
		}
	})
}

// TestTimeNS: timeval and timespec are checked as timeval_valid and timespec64_valid do —
// negative seconds or a fraction out of range is EINVAL — and a huge time saturates.
func TestTimeNS(t *testing.T) {
	for _, c := range []struct {
		sec, frac, limit, unit uint64
		want                   int64
		ok                     bool
	}{
		{0, 0, 1e9, 1, 0, true},
		{1, 999_999_999, 1e9, 1, 1_999_999_999, true},
		{1, 1e9, 1e9, 1, 0, false},                // nsec = 1e9
		{0, ^uint64(0), 1e9, 1, 0, false},         // nsec = -1 (compared unsigned)
		{^uint64(0), 0, 1e9, 1, 0, false},         // sec = -1
		{1 << 62, 0, 1e9, 1, math.MaxInt64, true}, // saturates
		{3, 999_999, 1e6, 1000, 3_999_999_000, true},
		{3, 1e6, 1e6, 1000, 0, false}, // usec = 1e6
	} {
		got, ok := timeNS(c.sec, c.frac, c.limit, c.unit)
		if got != c.want || ok != c.ok {
			t.Errorf("timeNS(%d, %d, %d) = %d, %v; want %d, %v", c.sec, c.frac, c.limit, got, ok, c.want, c.ok)
		}
	}
	// struct itimerval is interval first, then value.
	v, i, ok := itimervalNS([4]uint64{0, 10_000, 2, 500_000})
	if !ok || v != 2_500_000_000 || i != 10_000_000 {
		t.Errorf("itimervalNS = %d, %d, %v", v, i, ok)
	}
	if _, _, ok := itimervalNS([4]uint64{0, 0, 0, 1_000_000}); ok {
		t.Error("itimervalNS accepted tv_usec = 1000000 in it_value")
	}
}

// TestTimerClock: which clocks a timer can run on, with Linux 6.18's answers (measured on the
// host: timer_create on each clock ID).
func TestTimerClock(t *testing.T) {
	for _, c := range []struct {
		clk   int32
		cpu   bool
		kind  int
		errno int64
	}{
		{clockRealtime, false, 0, 0},
		{clockMonotonic, false, 0, 0},
		{clockProcessCputime, true, cpuclockSched, 0},
		{clockThreadCputime, true, cpuclockSched, 0},
		{clockMonotonicRaw, false, 0, -EOPNOTSUPP},
		{clockRealtimeCoarse, false, 0, -EOPNOTSUPP},
		{clockMonotonicCoarse, false, 0, -EOPNOTSUPP},
		{clockBoottime, false, 0, 0},
		{clockRealtimeAlarm, false, 0, -EOPNOTSUPP},
		{clockBoottimeAlarm, false, 0, -EOPNOTSUPP},
		{10, false, 0, -EINVAL}, // CLOCK_SGI_CYCLE, gone
		{clockTAI, false, 0, 0},
		{12, false, 0, -EINVAL},
		{99, false, 0, -EINVAL},
		{-2, true, cpuclockSched, 0}, // this thread's run time
		{-6, true, cpuclockSched, 0}, // the process's run time
		{-8, true, cpuclockProf, 0},  // the process's user+system time
		{-7, true, cpuclockVirt, 0},  // the process's user time
		{-1, true, 3, 0},             // a thread clock of kind 3: refused later, by cpuClockOwner
		{-5, false, 0, -EOPNOTSUPP},  // a clock fd (fd 0): no timers on dynamic clocks
	} {
		cpu, kind, errno := timerClock(c.clk)
		if cpu != c.cpu || errno != c.errno || (cpu && kind != c.kind) {
			t.Errorf("timerClock(%d) = %v, %d, %d; want %v, %d, %d", c.clk, cpu, kind, errno, c.cpu, c.kind, c.errno)
		}
	}
}

// TestCheckSigevent: good_sigevent's rules, with the host's answers for each notify value.
func TestCheckSigevent(t *testing.T) {
	for _, c := range []struct {
		notify, signo int32
		tidOK         bool
		want          int64
	}{
		{sigevSignal, 10, false, 0},
		{sigevNone, 0, false, 0}, // SIGEV_NONE: the signal does not matter
		{sigevThread, 10, false, 0},
		{3, 10, true, -EINVAL},
		{sigevThreadID, 10, true, 0},
		{sigevThreadID, 10, false, -EINVAL}, // no such thread in the process
		{sigevThreadID, 0, true, -EINVAL},
		{sigevThreadID | sigevNone, 10, true, -EINVAL},
		{sigevThreadID | sigevThread, 10, true, -EINVAL},
		{8, 10, true, -EINVAL},
		{-1, 10, true, -EINVAL},
		{sigevSignal, 0, false, -EINVAL},
		{sigevSignal, 1, false, 0},
		{sigevSignal, 64, false, 0},
		{sigevSignal, 65, false, -EINVAL},
		{sigevSignal, -1, false, -EINVAL},
	} {
		if got := checkSigevent(c.notify, c.signo, c.tidOK); got != c.want {
			t.Errorf("checkSigevent(%d, %d, %v) = %d, want %d", c.notify, c.signo, c.tidOK, got, c.want)
		}
	}
}

// TestTimerRemaining: timer_gettime's value for an expiry — and 1 ns for a timer that is due but
// has not notified, 0 for an expired SIGEV_NONE timer.
func TestTimerRemaining(t *testing.T) {
	if got := timerRemaining(150, 100, false); got != 50 {
		t.Errorf("ahead: %d", got)
	}
	if got := timerRemaining(100, 100, false); got != 1 {
		t.Errorf("due: %d", got)
	}
	if got := timerRemaining(100, 100, true); got != 0 {
		t.Errorf("due, SIGEV_NONE: %d", got)
	}
	if got := cpuItimerLeft(100, 101); got != tickNS {
		t.Errorf("CPU itimer past due: %d, want a tick", got)
	}
	if got := cpuItimerLeft(100, 100); got != 0 {
		t.Errorf("CPU itimer due now: %d, want 0", got)
	}
}

// TestAlarmSeconds: alarm(2)'s rounding of the time left (alarm_setitimer).
func TestAlarmSeconds(t *testing.T) {
	for ns, want := range map[int64]int64{0: 0, 1: 1, 499_999_999: 1, 1_499_999_999: 1, 1_500_000_000: 2, 7e9: 7} {
		if got := alarmSeconds(ns); got != want {
			t.Errorf("alarmSeconds(%d) = %d, want %d", ns, got, want)
		}
	}
}

// TestTimerIDs: IDs count up from 0 and are not reused at once; a slot is found by ID in one
// step and a stale or negative ID finds nothing; a full table is EAGAIN (nil); the counter stays
// within the positive int range.
func TestTimerIDs(t *testing.T) {
	saved := ptimers
	defer func() { ptimers = saved }()
	ptimers = saved
	ptimers.t, ptimers.nextID = [maxPosixTimers]ptimer{}, 0

	a, b := timerAlloc(), timerAlloc()
	if a == nil || b == nil || a.id != 0 || b.id != 1 {
		t.Fatalf("first IDs: %v %v", a, b)
	}
	a.used = false // timer_delete without the signal bookkeeping
	c := timerAlloc()
	if c.id != 2 || timerByID(0) != nil || timerByID(2) != c || timerByID(-1) != nil {
		t.Fatalf("after a delete: new ID %d, lookups %v %v", c.id, timerByID(0), timerByID(2))
	}
	for i := 3; i < maxPosixTimers+1; i++ { // slot 0 is free again: ID 256 takes it
		if timerAlloc() == nil {
			t.Fatalf("table full after %d timers", i)
		}
	}
	if k := timerByID(maxPosixTimers); k == nil || k != &ptimers.t[0] {
		t.Fatalf("ID %d not in slot 0", maxPosixTimers)
	}
	if timerAlloc() != nil {
		t.Fatal("a full table handed out a timer")
	}
	ptimers.t[5].used = false
	ptimers.nextID = intMax
	k := timerAlloc()
	if k == nil || k.id != 5 || ptimers.nextID != 6 {
		t.Fatalf("wrap-around: %v, next %d", k, ptimers.nextID)
	}
}
