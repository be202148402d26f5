// Hosted tests of the scheduler trace's kernel side.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"testing"

	"gmpos/sched"
)

// TestTraceNICReady: a Ready made while the NIC's interrupt handler wakes threads (netWake.by ==
// wakeIRQ) is recorded as "nicready"; the same Ready from anyone else stays "ready", and the
// poller's "pollready" is sched's own. Recording allocates nothing (trap context).
func TestTraceNICReady(t *testing.T) {
	defer func() { traceBuf.next = 0; netWake.by = wakeOther }()
	traceBuf.next = 0
	last := func() string { return traceName(traceBuf.ev[(traceBuf.next-1)%traceCap].ev) }
	cases := []struct {
		by   uint8
		ev   sched.TraceEvent
		want string
	}{
		{wakeOther, sched.TraceReady, "ready"},
		{wakeIRQ, sched.TraceReady, "nicready"},
		{wakeIRQ, sched.TraceWake, "wake"}, // the IPI that Ready sends is not a ready
		{wakePoll, sched.TraceReady, "ready"},
		{wakeOther, sched.TracePollReady, "pollready"},
	}
	for _, c := range cases {
		netWake.by = c.by
		traceSched(c.ev, 1, 7, 100)
		if got := last(); got != c.want {
			t.Errorf("%v while netWake.by=%d: recorded %q, want %q", c.ev, c.by, got, c.want)
		}
	}
	if traceName(traceNICReady) == sched.TraceEvent(traceNICReady).String() {
		t.Error("traceNICReady collides with a sched event name")
	}
	netWake.by = wakeIRQ
	if n := testing.AllocsPerRun(100, func() { traceSched(sched.TraceReady, 0, 3, 5) }); n != 0 {
		t.Errorf("traceSched allocates %v times per event", n)
	}
}
