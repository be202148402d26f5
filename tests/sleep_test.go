// Sleeps, yields, futex timeouts, getpid, gettid and the timer interrupt without the big kernel
// lock (kernel/sleep_unlocked.go, self_unlocked.go, futex_unlocked.go).
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// bootRace boots one of the race programs (testdata/futexrace, sleeprace, faultrace) on two
// cores, or GMPOS_TEST_SMP's if more, with klog=1 for the counters their tests read.
func bootRace(t *testing.T, name string, kopts ...string) guest {
	t.Helper()
	smp := 2
	if n, _ := strconv.Atoi(os.Getenv("GMPOS_TEST_SMP")); n > smp {
		smp = n
	}
	return boot(t, pkg(name), opts{smp: smp, kopts: append([]string{"klog=1"}, kopts...)})
}

// klogCounter finds "name=N" in the kernel's exit statistics.
func klogCounter(t *testing.T, log, name string) int {
	t.Helper()
	m := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `=(\d+)`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no %s= in the exit statistics:\n%.3000s", name, log)
	}
	return atoi(m[1])
}

// ktimeVisits finds the visits of the kernel-time table's row name in the kernel's exit
// statistics, if the row is listed.
func ktimeVisits(log, name string) (int, bool) {
	m := regexp.MustCompile(`ktime ` + regexp.QuoteMeta(name) + ` n=(\d+)`).FindStringSubmatch(log)
	if m == nil {
		return 0, false
	}
	return atoi(m[1]), true
}

// TestGuestSleepUnlocked runs testdata/sleeprace on two cores (or GMPOS_TEST_SMP's, if more):
// nanosleep's timespec unmapped, untouched, PROT_NONE, across two pages and invalid; 4,000 sleeps
// of 1 µs to 2 ms and 1,328 yields on eight threads, none of which may end early; 1,600 futex
// waits that time out, none early, and the timeout's edge cases and error order; a signal that
// must end a sleep with EINTR; a signal for a thread that spins without ticks, and a CPU-time
// timer armed beside it (its core must be kicked); 10,000 getpids and eight gettids on eight
// threads; children that exit while their threads sleep and yield, each of which must report the
// pid its fork returned. Every check must hold, as natively. klog's counters must show that these
// calls ran without the BKL (at least three quarters of the eight sleeping threads' 5,328 sleeps
// and yields, of the 1,600 timed futex waits and of the 10,000 getpids — a call goes to the BKL's
// path when a signal is pending for its thread — and a kick), that the bad timespecs the fast
// paths accept were handed to the BKL path (the program makes 41 such nanosleep calls — the
// unmapped, the PROT_NONE and two invalid timespecs ten times each, the untouched one once — and
// 20 futex calls with an invalid timeout: at least half of each, since a call may go to the BKL's
// path before the fast path looks, for a signal pending at that moment), and that timer interrupts
// ran without it (at least one per ten sleeps: most end in one). The program imports net, so all
// of this runs beside an open NIC whose receiver waits in the kernel throughout
// (racecheck.NetworkUp, its first check).
//
// Mutations seen failing: a signal no longer ending a sleep on futexQ (wait.go interruptWait
// looking for futex waits only: the EINTR check times out after 10 s); the page-table check
// before the read removed (the PROT_NONE timespec sleeps 1 ns and answers 0, not EFAULT);
// getpid answering the tid (the getpid check, and the EINTR one: its tgkill goes astray); a
// timed futex wait's deadline at half its timeout (1,097 waits ended early); the kernel before
// the network left the paths' way (27 Nov 2026: 66 sleeps and yields, 83 timer interrupts
// without the BKL); the periodic tick brought back for the network poller alone (80 timer
// interrupts without the BKL); getpid's kernel time charged after its result was written,
// which on amd64 replaces the call's number (2 vCPUs: write's row counted the calls). Not caught: a kick
// that resumes its thread without looking for a signal to deliver (kickUnlockedOK without
// needsKernel) — every core's timer covers the machine's earliest deadline (sysmon's sleeps
// among them), and the spinning thread's next timer interrupt delivers within milliseconds.
func TestGuestSleepUnlocked(t *testing.T) {
	g := bootRace(t, "sleeprace")
	g.wantCode(t, 0)
	wantChecks(t, g, 22)
	t.Logf("%s", g.stderr)
	if native() {
		return
	}
	sleeps, sleepFallbacks := klogCounter(t, g.log, "unlocked-sleep"), klogCounter(t, g.log, "sleep-fallbacks")
	futexes, futexFallbacks := klogCounter(t, g.log, "unlocked-futex"), klogCounter(t, g.log, "futex-fallbacks")
	timers, self := klogCounter(t, g.log, "unlocked-timer"), klogCounter(t, g.log, "unlocked-self")
	timed, kicks := klogCounter(t, g.log, "unlocked-timed-futex"), klogCounter(t, g.log, "unlocked-kicks")
	t.Logf("without the BKL: sleeps and yields %d (handed to it %d), futex calls %d of which timed %d (handed to it %d), timer interrupts %d, getpid and gettid %d, kicks %d",
		sleeps, sleepFallbacks, futexes, timed, futexFallbacks, timers, self, kicks)
	if sleeps < 5328*3/4 {
		t.Errorf("%d sleeps and yields without the BKL: want at least three quarters of the eight threads' 5,328", sleeps)
	}
	if timed < 1600*3/4 || futexes < timed {
		t.Errorf("%d timed futex waits without the BKL (of %d futex calls): want at least three quarters of the 1,600 that time out", timed, futexes)
	}
	if self < 10000*3/4 || kicks < 1 {
		t.Errorf("%d getpid and gettid calls and %d kicks without the BKL: want at least three quarters of the 10,000 getpids, and a kick", self, kicks)
	}
	// Their kernel time goes to getpid's row of the kernel-time table (ktime.go), whatever path
	// they took, and to no other call's. The table lists its 16 costliest rows, so a row is
	// checked when it is listed: getpid's must count the 10,000 calls, write's (the program
	// writes a few dozen lines) fewer.
	if n, ok := ktimeVisits(g.log, "getpid"); ok && n < 10000 {
		t.Errorf("klog's kernel-time table charges getpid %d times: want the 10,000 calls at least", n)
	}
	if n, ok := ktimeVisits(g.log, "write"); ok && n >= 10000 {
		t.Errorf("klog's kernel-time table charges write %d times: getpid's calls went to another row", n)
	}
	if sleepFallbacks < 20 || futexFallbacks < 10 {
		t.Errorf("%d nanosleep and %d futex hand-overs to the BKL: want at least half of the 41 bad timespecs and of the 20 invalid timeouts", sleepFallbacks, futexFallbacks)
	}
	if timers < 400 {
		t.Errorf("%d timer interrupts without the BKL: want at least 400 (one per ten of the 4,000 sleeps)", timers)
	}
}
