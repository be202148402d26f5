// tgkill and rt_sigreturn without the big kernel lock (kernel/signal_unlocked.go).
// SPDX-License-Identifier: BSD-3-Clause

package tests

import "testing"

// TestGuestSignalUnlocked runs testdata/sigrace on two cores (or GMPOS_TEST_SMP's, if more): 800
// signals sent across epoll_pwait's temporary mask, each at a different point of its thread's way
// into the sleep, must each end the sleep with EINTR; four threads pass a token 2,000 times
// through futex waits, sleeps and yields while a fifth signals them as fast as it can; threads
// that exit while signalled must be ESRCH once gone. Every check must hold, as natively. klog's
// counters must show that the signals were posted without the BKL (at least 1,000: the storm
// alone sends several thousand), that the ones for a thread asleep in a wait only the BKL may
// end (epoll) were handed to it, and that the handlers were entered and returned from without
// it (at least 1,000 deliveries and rt_sigreturns: each delivered signal ends in one; the
// storm's pending bits merge, so fewer are delivered than sent).
//
// Mutations seen failing: a signal for a thread in a BKL wait counted as done instead of handed
// to the BKL (7 of 800 rounds ended with EINTR, 4 lost at the 2 s timeout before the pairs
// gave up); a futex wait or a sleep no longer ended by the signal (testdata/sleeprace's EINTR
// check, TestGuestSleepUnlocked: the sleep ran its 10 s). Not caught: an rt_sigreturn without
// the BKL that does not look for the signals its restored mask lets in (they wait for the
// thread's next kernel entry, at most a sysmon preemption away); a missing fence of
// Dekker's rule (signal.go) — TCG on an x86 host keeps the guest's stores in order, and the
// window is a few instructions.
func TestGuestSignalUnlocked(t *testing.T) {
	g := bootRace(t, "sigrace")
	g.wantCode(t, 0)
	wantChecks(t, g, 4)
	t.Logf("%s", g.stderr)
	if native() {
		return
	}
	posted, handed := klogCounter(t, g.log, "unlocked-signals"), klogCounter(t, g.log, "sig-fallbacks")
	returned := klogCounter(t, g.log, "unlocked-sigreturns")
	delivered := klogCounter(t, g.log, "unlocked-deliveries")
	t.Logf("without the BKL: tgkill %d, deliveries %d, rt_sigreturn %d; handed to it: %d", posted, delivered, returned, handed)
	if posted < 1000 || returned < 1000 {
		t.Errorf("%d signals posted and %d handlers returned from without the BKL: want at least 1,000 each", posted, returned)
	}
	if delivered < 1000 {
		t.Errorf("%d signals delivered without the BKL: want at least 1,000", delivered)
	}
	if handed < 1 {
		t.Errorf("no tgkill handed to the BKL: the threads asleep in epoll_pwait need it")
	}
}
