// The Go runtime's futex calls without the big kernel lock (kernel/futex_unlocked.go).
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"regexp"
	"testing"
)

var futexStats = regexp.MustCompile(`unlocked-futex=(\d+) futex-fallbacks=(\d+) futex-contended=(\d+) oncpu-waits=(\d+) user-fixups=(\d+)`)

// TestGuestFutexUnlocked runs testdata/futexrace on two cores (or GMPOS_TEST_SMP's, if more):
// futex words not mapped, not yet faulted in, or PROT_NONE; a word unmapped and mapped again by
// another thread while one waits on it; a token passed 30,000 times around three threads; and
// children that exit while their threads wait on each other. Every check must hold, as
// natively. klog's counters must show that the calls ran without the BKL (at least the ring's
// 30,000 wake-ups), that the three bad words were handed to the BKL path (three hand-overs),
// and that the boot's own check of the exception fixup ran (at least one fixup; the munmap race
// adds those where the word vanished between the page-table check and the read).
//
// The program imports net, so all of this runs beside an open NIC whose receiver waits in the
// kernel throughout (racecheck.NetworkUp, its first check).
//
// Mutations seen failing: the fixup off (the boot's check stops the machine: exit 101, a kernel
// #PF at LoadUser32's load); the page-table check before the read removed (the PROT_NONE word
// answers EAGAIN); the kernel before the network left the paths' way (27 Nov 2026: 21 futex
// calls without the BKL, every other one under it). Not caught: the re-check for a signal after blocking removed (the window is
// a few instructions wide; four runs passed); kernel/futex_unlocked.go explains why it is needed.
func TestGuestFutexUnlocked(t *testing.T) {
	g := bootRace(t, "futexrace")
	g.wantCode(t, 0)
	wantChecks(t, g, 8)
	t.Logf("%s", g.stderr)
	if native() {
		return
	}
	m := futexStats.FindStringSubmatch(g.log)
	if m == nil {
		t.Fatalf("no futex counters in the exit statistics:\n%.3000s", g.log)
	}
	unlocked, fallbacks, contended, waits, fixups := atoi(m[1]), atoi(m[2]), atoi(m[3]), atoi(m[4]), atoi(m[5])
	t.Logf("futex calls without the BKL %d, handed to it %d; futex lock contended %d times; waits for a held thread %d; user-access fixups %d",
		unlocked, fallbacks, contended, waits, fixups)
	if unlocked < 30000 {
		t.Errorf("%d futex calls without the BKL: want at least the ring's 30,000 wake-ups", unlocked)
	}
	if fixups < 1 || fallbacks < 3 {
		t.Errorf("%d fixups, %d hand-overs to the BKL: want at least the boot's fixup (kernel/fault.go checkUserFixup) and 3 hand-overs (the unmapped, the untouched and the PROT_NONE word)", fixups, fallbacks)
	}
}
