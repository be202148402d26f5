// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "testing"

func TestIdlePollFor(t *testing.T) {
	c := &cpus[0]
	*c = cpuState{}
	const now = 1_000_000
	if !idlePollFor(0, now+idlePollNS, now) || c.pollUntil != now+idlePollNS || !c.pollDeadline {
		t.Errorf("a deadline %d ns away is not polled for: %+v", idlePollNS, c.pollUntil)
	}
	if idlePollFor(0, now+idlePollNS+1, now) || c.pollUntil != 0 {
		t.Errorf("a farther deadline was polled for (window 0): until %d", c.pollUntil)
	}
	c.pollWindow = 50_000
	if idlePollFor(0, 0, now) || c.pollUntil != now+50_000 || c.pollDeadline {
		t.Errorf("no deadline, window 50 µs: until %d deadline %v", c.pollUntil, c.pollDeadline)
	}
	if idlePollFor(0, now+40_000, now) || c.pollUntil != now+40_000 || c.pollDeadline {
		t.Errorf("the window must end at a nearer deadline, armed: until %d", c.pollUntil)
	}
}

func TestIdleEndedWindow(t *testing.T) {
	c := &cpus[0]
	*c = cpuState{}
	stretch := func(d int64, byWake bool) int64 {
		c.idleStart = 1
		idleEnded(0, 1+d, byWake)
		return c.pollWindow
	}
	// Wake-ups 100 µs into each idle stretch: the window grows from the start value, doubling,
	// until it covers them.
	want := []int64{haltPollGrowStartNS, 2 * haltPollGrowStartNS, 4 * haltPollGrowStartNS, 8 * haltPollGrowStartNS, 8 * haltPollGrowStartNS}
	for i, w := range want {
		if got := stretch(100_000, true); got != w {
			t.Fatalf("wake %d at 100 µs: window %d, want %d", i, got, w)
		}
	}
	if got := stretch(180_000, true); got != haltPollMaxNS {
		t.Errorf("window %d, want the maximum %d", got, haltPollMaxNS)
	}
	// Long idle stretches halve it, down to 0.
	for c.pollWindow > 0 {
		before := c.pollWindow
		if got := stretch(5_000_000, true); got >= before {
			t.Fatalf("a 5 ms stretch did not shrink the window (%d)", got)
		}
	}
	// A timer or device interrupt never grows it: the poll would only have delayed it.
	if got := stretch(100_000, false); got != 0 {
		t.Errorf("an interrupt grew the window to %d", got)
	}
	c.pollWindow = 80_000
	if got := stretch(100_000, false); got != 40_000 {
		t.Errorf("an early interrupt left the window at %d, want it halved", got)
	}
	// A stretch that did not halt (idleStart 0) teaches nothing.
	c.idleStart = 0
	idleEnded(0, 1e9, true)
	if c.pollWindow != 40_000 {
		t.Errorf("window changed to %d without a judged stretch", c.pollWindow)
	}
}

func TestKickPoll(t *testing.T) {
	c := &cpus[1]
	*c = cpuState{}
	if kickPoll(1) {
		t.Error("kicked a core that is not polling: its IPI would be lost")
	}
	c.polling.Store(pollActive)
	if !kickPoll(1) || c.polling.Load() != pollKicked {
		t.Error("a polling core was not kicked")
	}
	if kickPoll(1) {
		t.Error("kicked twice")
	}
}

func TestTimerSlack(t *testing.T) {
	defer func(v uint64) { prctlState.timerslack = v }(prctlState.timerslack)
	for set, want := range map[uint64]int64{0: defaultTimerslackNS, 1: 1, 1_000_000: 1_000_000, 1 << 63: defaultTimerslackNS} {
		prctlState.timerslack = set
		if got := timerSlack(); got != want {
			t.Errorf("PR_SET_TIMERSLACK %d: slack %d, want %d", set, got, want)
		}
	}
}
