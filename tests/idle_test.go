// The idle poll and timer slack (kernel/idle.go, kernel/sys_info.go timerSlack).
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"regexp"
	"strconv"
	"testing"
)

var (
	pollKicks     = regexp.MustCompile(`poll-kicks=(\d+)`)
	unlockedWakes = regexp.MustCompile(`unlocked-wakes=(\d+) unlocked-fallbacks=(\d+) unlocked-idle=(\d+)`)
)

// TestGuestIdlePoll runs a thread ping-pong on two cores, where each hand-off wakes a thread on
// the other core: some of those wake-ups must find the other core polling and end its poll
// with a store instead of an IPI (klog's poll-kicks). And a 1 µs nanosleep must take at least the
// default 50 µs timer slack, as Linux lets it; PR_SET_TIMERSLACK must change the slack.
//
// Those wake-ups are also where the BKL was split first (kernel/wake_unlocked.go): a woken idle
// core picks and resumes its thread, or idles again, without the lock. Most of the 2000 round
// trips' wake-ups must have gone that way (klog's unlocked-wakes and unlocked-idle), and few
// handed over to the BKL.
func TestGuestIdlePoll(t *testing.T) {
	if native() {
		t.Skip("counts gmpos's idle polls")
	}
	g := boot(t, pkg("pingpong"), opts{smp: 2, kopts: []string{"klog=1"}})
	g.wantCode(t, 0)
	wantContains(t, g, "stdout", g.stdout, "pingpong 2000 round trips ok: true", "timer slack now 1 ns")
	m := regexp.MustCompile(`shortest nanosleep\(1µs\): (\d+) µs`).FindStringSubmatch(g.stdout)
	if m == nil {
		t.Fatalf("no nanosleep figure:\n%s", g.stdout)
	}
	if us, _ := strconv.Atoi(m[1]); us < 50 {
		t.Errorf("a 1 µs nanosleep took %d µs: less than the 50 µs slack", us)
	}
	k := pollKicks.FindStringSubmatch(g.log)
	if k == nil {
		t.Fatalf("no poll-kicks in the exit statistics:\n%.3000s", g.log)
	}
	if n, _ := strconv.Atoi(k[1]); n == 0 {
		t.Errorf("no wake-up ended an idle poll in 2000 cross-core round trips:\n%.3000s", g.log)
	}
	u := unlockedWakes.FindStringSubmatch(g.log)
	if u == nil {
		t.Fatalf("no unlocked wake-ups in the exit statistics:\n%.3000s", g.log)
	}
	resumed, fallbacks, idled := atoi(u[1]), atoi(u[2]), atoi(u[3])
	t.Logf("wake-ups without the BKL: %d resumed a thread, %d idled again; %d handed over to the BKL", resumed, idled, fallbacks)
	if resumed+idled < 1000 || fallbacks*4 > resumed+idled {
		t.Errorf("2000 cross-core round trips: %d wake-ups resumed a thread and %d idled without the BKL, %d took it: want 1000 or more without, and at most a quarter as many with it",
			resumed, idled, fallbacks)
	}
}

var tickLines = regexp.MustCompile(`spinning 400ms alone: (\d+) ticks, (\d+) of them preempted nobody\ntwo threads sharing the core 400ms: (\d+) ticks, (\d+) of them preempted nobody\nthread ping-pong, (\d+) round trips: (\d+) timer writes, (\d+) early timer interrupts\na thread in system calls sharing the core 400ms: (\d+) ticks, (\d+) of them preempted nobody`)

// TestGuestTicks: the scheduler tick is armed only when another thread waits, and then for the
// moment the policy could preempt (kernel/timer.go tickAt, sched.PreemptAt), so few ticks
// preempt nobody. One core; first one goroutine spins (the runtime's own threads still wake up
// beside it), then two threads share the core and must be preempted for each other. A periodic
// 4 ms tick gives ~95 ticks per phase, two thirds of which preempt nobody. Last, a thread
// ping-pong moves the timer's deadline at every switch; the kernel writes the timer only when the
// deadline comes sooner (kernel/timer.go armTimer), not ~8 times per round trip. And the shared
// phase once more with one thread in a system-call loop: its ways out of the kernel must not put
// its slice's end off (they did, while a due tick waited for QEMU to deliver it).
func TestGuestTicks(t *testing.T) {
	if native() {
		t.Skip("counts gmpos's ticks")
	}
	g := boot(t, pkg("tickless"), opts{smp: 1})
	g.wantCode(t, 0)
	m := tickLines.FindStringSubmatch(g.stdout)
	if m == nil {
		t.Fatalf("no tick counts:\n%s", g.stdout)
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	t.Logf("alone: %d ticks, %d idle; shared: %d ticks, %d idle", n(1), n(2), n(3), n(4))
	for _, p := range [][2]int{{n(1), n(2)}, {n(3), n(4)}} {
		if p[1]*3 > p[0] {
			t.Errorf("%d of %d ticks preempted nobody: more than a third", p[1], p[0])
		}
	}
	if n(3) < 20 {
		t.Errorf("two threads sharing a core for 400 ms took %d ticks: each 10 ms slice needs one", n(3))
	}
	t.Logf("thread ping-pong: %d timer writes, %d early timer interrupts in %d round trips", n(6), n(7), n(5))
	if n(6)*4 > n(5) {
		t.Errorf("thread ping-pong wrote the timer %d times in %d round trips: more than once per 4", n(6), n(5))
	}
	t.Logf("a thread in system calls sharing the core: %d ticks, %d idle", n(8), n(9))
	// 40 slices end in 400 ms; the two spinners above take 38-41 ticks. The kernel that put the
	// slice's end off took 13-20 here.
	if n(8) < 30 {
		t.Errorf("a thread making system calls shared a core for 400 ms with %d ticks: each 10 ms slice needs one", n(8))
	}
}

// atoi is strconv.Atoi for figures a regexp has already matched as digits.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
