// The idle poll and timer slack (kernel/idle.go, kernel/sys_info.go timerSlack).
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"regexp"
	"strconv"
	"testing"
)

var pollKicks = regexp.MustCompile(`poll-kicks=(\d+)`)

// TestGuestIdlePoll runs a thread ping-pong on two cores, where each hand-off wakes a thread on
// the other core: some of those wake-ups must find the other core polling and end its poll
// with a store instead of an IPI (klog's poll-kicks). And a 1 µs nanosleep must take at least the
// default 50 µs timer slack, as Linux lets it; PR_SET_TIMERSLACK must change the slack.
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
}
