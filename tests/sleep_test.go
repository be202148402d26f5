// Sleeps, yields and the timer interrupt without the big kernel lock (kernel/sleep_unlocked.go).
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

var sleepStats = regexp.MustCompile(`unlocked-sleep=(\d+) sleep-fallbacks=(\d+) unlocked-timer=(\d+)`)

// TestGuestSleepUnlocked runs testdata/sleeprace on two cores (or GMPOS_TEST_SMP's, if more):
// nanosleep's timespec unmapped, untouched, PROT_NONE, across two pages and invalid; 4,000
// sleeps of 1 µs to 2 ms and 1,328 yields on eight threads, none of which may end early; a
// signal that must end a sleep with EINTR; and children that exit while their threads sleep and
// yield. Every check must hold, as natively. klog's counters must show that the sleeps and
// yields ran without the BKL (at least the 5,328 of the eight threads), that the four bad
// timespecs the fast path accepts were handed to the BKL path (the unmapped, the untouched, the
// PROT_NONE one, and the two invalid ones: five hand-overs), and that timer interrupts ran
// without it (at least one per ten sleeps: most end in one).
//
// Mutations seen failing: a signal no longer ending a sleep on futexQ (wait.go interruptWait
// looking for futex waits only: the EINTR check times out after 10 s); the page-table check
// before the read removed (the PROT_NONE timespec sleeps 1 ns and answers 0, not EFAULT).
func TestGuestSleepUnlocked(t *testing.T) {
	smp := 2
	if n, _ := strconv.Atoi(os.Getenv("GMPOS_TEST_SMP")); n > smp {
		smp = n
	}
	g := boot(t, pkg("sleeprace"), opts{smp: smp, kopts: []string{"klog=1"}})
	g.wantCode(t, 0)
	wantChecks(t, g, 10)
	t.Logf("%s", g.stderr)
	if native() {
		return
	}
	m := sleepStats.FindStringSubmatch(g.log)
	if m == nil {
		t.Fatalf("no sleep counters in the exit statistics:\n%.3000s", g.log)
	}
	sleeps, fallbacks, timers := atoi(m[1]), atoi(m[2]), atoi(m[3])
	t.Logf("sleeps and yields without the BKL %d, handed to it %d; timer interrupts without it %d", sleeps, fallbacks, timers)
	if sleeps < 5328 {
		t.Errorf("%d sleeps and yields without the BKL: want at least the eight threads' 5,328", sleeps)
	}
	if fallbacks < 5 {
		t.Errorf("%d hand-overs to the BKL: want at least 5 (the unmapped, untouched, PROT_NONE and two invalid timespecs)", fallbacks)
	}
	if timers < 400 {
		t.Errorf("%d timer interrupts without the BKL: want at least 400 (one per ten of the 4,000 sleeps)", timers)
	}
}
