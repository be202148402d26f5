// Unit tests for the G lifecycle, time slices, idle/wakep and the poller.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import (
	"strings"
	"testing"
)

const ms = 1_000_000

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatalf("no panic, want %q", want)
		}
		if s, _ := r.(string); !strings.Contains(s, want) {
			t.Fatalf("panic %v, want %q", r, want)
		}
	}()
	f()
}

func TestInitErrors(t *testing.T) {
	var s Sched
	f := new(fakePlatform)
	for _, tc := range []struct {
		cfg  Config
		want error
	}{
		{Config{NP: 1}, ErrNoPlatform},
		{Config{NP: 0, Platform: f}, ErrBadNP},
		{Config{NP: MaxP + 1, Platform: f}, ErrBadNP},
		{Config{NP: 1, Platform: f, PolicyName: "nope"}, ErrNoPolicy},
		{Config{NP: 1, Platform: f, Slice: -1}, ErrBadSlice},
		{Config{NP: MaxP, Platform: f, PolicyName: "fair"}, nil},
	} {
		if err := s.Init(tc.cfg); err != tc.want {
			t.Errorf("Init(%+v) = %v, want %v", tc.cfg, err, tc.want)
		}
	}
	for _, n := range PolicyNames() {
		if p := PolicyByName(n); p == nil || p.Name() != n {
			t.Errorf("PolicyByName(%q) = %v", n, p)
		}
	}
}

func TestLifecycle(t *testing.T) {
	s, f := newTestSched(t, 1, "gmp")
	gp := s.NewProc(0)
	if gp != 1 || s.Status(gp) != Grunnable || s.Live() != 1 {
		t.Fatalf("NewProc: gp=%d status=%v live=%d", gp, s.Status(gp), s.Live())
	}
	checkInvariants(t, s)
	got, inh := s.Schedule(0)
	if got != gp || !inh || s.Curg(0) != gp || s.Status(gp) != Grunning {
		t.Fatalf("Schedule: %d inherit=%v curg=%d", got, inh, s.Curg(0))
	}
	f.now.Add(5 * ms)
	if s.Park(0) != gp || s.Status(gp) != Gwaiting || s.Curg(0) != 0 {
		t.Fatal("Park did not block the G")
	}
	if got, _ := s.Schedule(0); got != 0 || !s.Idle(0) || f.parks[0].Load() != 1 {
		t.Fatalf("Schedule with no work: got %d idle=%v parks=%d", got, s.Idle(0), f.parks[0].Load())
	}
	checkInvariants(t, s)
	s.Ready(gp, 0) // e.g. from an interrupt on the halted core
	if s.Idle(0) {
		t.Fatal("Ready left its own P idle")
	}
	mustPanic(t, "not waiting", func() { s.Ready(gp, 0) })
	if got, _ := s.Schedule(0); got != gp {
		t.Fatalf("after Ready: got %d", got)
	}
	f.now.Add(2 * ms)
	if s.Exit(0) != gp || s.Live() != 0 || s.Status(gp) != Gidle {
		t.Fatal("Exit did not free the G")
	}
	if info := s.Info(gp); info.RunTotal != 7*ms || info.Runs != 2 {
		t.Fatalf("accounting: %+v", info)
	}
	mustPanic(t, "no running G", func() { s.Park(0) })
	checkInvariants(t, s)
}

// TestGfgetStatus: a slot just taken off the free list is on no queue, so it must not be
// Grunnable (invariant 1); NewG then makes it Gwaiting, StartG Grunnable on a queue.
func TestGfgetStatus(t *testing.T) {
	s, _ := newTestSched(t, 1, "gmp")
	gp := s.gfget()
	if st := s.Status(gp); st == Grunnable || st == Gidle {
		t.Fatalf("gfget left the slot %v", st)
	}
	checkInvariants(t, s)
	s.gfput(gp)
	gp = s.NewG(0, 0)
	if s.Status(gp) != Gwaiting || s.Live() != 1 {
		t.Fatalf("NewG: status %v, live %d", s.Status(gp), s.Live())
	}
	checkInvariants(t, s)
	s.StartG(gp, 0)
	checkInvariants(t, s)
}

func TestGTableFull(t *testing.T) {
	s, _ := newTestSched(t, 1, "global")
	for i := 1; i < MaxG; i++ {
		if s.NewProc(0) == 0 {
			t.Fatalf("NewProc failed at %d", i)
		}
	}
	if s.NewProc(0) != 0 {
		t.Fatal("NewProc beyond MaxG-1 succeeded")
	}
	checkInvariants(t, s)
}

func TestYieldKinds(t *testing.T) {
	s, _ := newTestSched(t, 1, "gmp")
	a := s.NewProc(0)
	b := s.NewProc(0) // a kicked from runnext to the LRQ
	if got, _ := s.Schedule(0); got != b {
		t.Fatalf("runnext first: got %d want %d", got, b)
	}
	s.GoYield(0) // b → LRQ tail, behind a
	if s.GRQLen() != 0 || s.allp[0].runqlen() != 2 {
		t.Fatal("GoYield did not go to the LRQ tail")
	}
	if got, _ := s.Schedule(0); got != a {
		t.Fatalf("after GoYield got %d want %d", got, a)
	}
	s.Gosched(0) // a → GRQ
	if s.GRQLen() != 1 {
		t.Fatal("Gosched did not go to the GRQ")
	}
	if got, _ := s.Schedule(0); got != b {
		t.Fatalf("got %d want %d", got, b)
	}
	s.Preempt(0) // b → GRQ behind a
	if s.GRQLen() != 2 || s.Total(StatPreempt) != 1 {
		t.Fatal("Preempt did not go to the GRQ")
	}
	if got, _ := s.Schedule(0); got != a {
		t.Fatalf("GRQ FIFO: got %d want %d", got, a)
	}
	checkInvariants(t, s)
}

// A G taken from runnext inherits the slice; one from the LRQ does not.
func TestTickSliceInheritance(t *testing.T) {
	s, f := newTestSched(t, 1, "gmp")
	a := s.NewProc(0)
	s.Schedule(0)
	b := s.NewProc(0) // b in runnext; a running
	s.Park(0)         // a blocks; b runs next, inheriting a's slice
	f.now.Store(6 * ms)
	if got, inh := s.Schedule(0); got != b || !inh {
		t.Fatalf("got %d inherit=%v", got, inh)
	}
	if s.Tick(0, 9*ms) {
		t.Fatal("preempted before the slice ended")
	}
	if !s.Tick(0, 10*ms) {
		t.Fatal("inherited slice not enforced at 10 ms")
	}
	f.now.Store(10 * ms)
	s.Ready(a, 0)
	s.GoYield(0) // b to the LRQ tail; a (runnext) runs, inheriting again
	s.Schedule(0)
	s.GoYield(0)
	if got, inh := s.Schedule(0); got != b || inh { // from the LRQ: fresh slice at 10 ms
		t.Fatalf("got %d inherit=%v", got, inh)
	}
	if s.Tick(0, 19*ms) || !s.Tick(0, 20*ms) {
		t.Fatal("fresh slice not 10 ms")
	}
}

// The GRQ fairness check: a G on the GRQ runs within 61 schedticks even
// though the local queue never empties.
func TestGRQWithin61Schedticks(t *testing.T) {
	s, f := newTestSched(t, 1, "gmp")
	s.NewProc(0)
	s.NewProc(0)
	s.Schedule(0) // the second G (runnext)
	c := s.NewProc(0)
	s.GoYield(0)
	s.Schedule(0) // c
	s.Gosched(0)  // c → GRQ
	start := s.allp[0].schedtick
	for i := 0; ; i++ {
		f.now.Add(100_000)
		gp, _ := s.Schedule(0)
		if gp == c {
			if n := s.allp[0].schedtick - start; n > 61 {
				t.Fatalf("GRQ G ran after %d schedticks", n)
			}
			if s.Total(StatGRQTick) != 1 {
				t.Fatal("not taken by the 61st-tick check")
			}
			return
		}
		if i > 200 {
			t.Fatal("GRQ G starved")
		}
		s.GoYield(0) // a and b keep the LRQ busy
	}
}

// Two Gs ping-pong through runnext (each readies the other, then blocks),
// the timer ticks every ms: a G on the GRQ still runs within 61 schedticks.
func TestGRQWithPingPongRunnext(t *testing.T) {
	s, f := newTestSched(t, 1, "gmp")
	a := s.NewProc(0)
	s.Schedule(0)
	b := s.NewProc(0)
	s.Park(0) // a waits, b runs
	s.Schedule(0)
	c := s.NewProc(0)
	s.Park(0)
	s.Schedule(0) // c runs
	s.Gosched(0)  // c → GRQ
	s.Ready(a, 0)
	// All picks so far inherited (runnext), so schedtick is still 0 and
	// the 61-check would fire at once; start mid-cycle instead.
	s.allp[0].schedtick = 1
	if gp, _ := s.Schedule(0); gp != a {
		t.Fatalf("got %d want a=%d", gp, a)
	}
	start := s.allp[0].schedtick
	cur, other := a, b
	for hop := 0; hop < 100000; hop++ {
		f.now.Add(300_000) // 0.3 ms per hop
		if s.Tick(0, f.Now()) {
			s.Preempt(0)
		} else {
			s.Ready(other, 0)
			s.Park(0)
			cur, other = other, cur
		}
		gp, _ := s.Schedule(0)
		if gp == c {
			if n := s.allp[0].schedtick - start; n > 61 {
				t.Fatalf("GRQ G ran after %d schedticks", n)
			}
			return
		}
		if gp == 0 {
			t.Fatal("P went idle")
		}
		cur = gp
		if cur == a {
			other = b
		} else {
			other = a
		}
	}
	t.Fatal("GRQ G starved by the ping-pong")
}

func TestWakepAndSpinning(t *testing.T) {
	s, f := newTestSched(t, 4, "gmp")
	for pid := 1; pid < 4; pid++ {
		if gp, _ := s.Schedule(pid); gp != 0 {
			t.Fatal("work on an empty Sched")
		}
	}
	if s.NIdle() != 3 {
		t.Fatalf("NIdle %d", s.NIdle())
	}
	s.Schedule(0) // P0 idle too, then a G is created there (syscall/IRQ)
	a := s.NewProc(0)
	// One idle P woken, spinning on behalf of its M.
	woken := -1
	for pid := 0; pid < 4; pid++ {
		if f.wakes[pid].Load() == 1 {
			woken = pid
		}
	}
	if woken < 1 || s.Spinning() != 1 || s.Idle(woken) {
		t.Fatalf("woken=%d spinning=%d", woken, s.Spinning())
	}
	b := s.NewProc(0) // a kicked to the LRQ; a spinner exists: no second wake
	var total int64
	for pid := 0; pid < 4; pid++ {
		total += f.wakes[pid].Load()
	}
	if total != 1 {
		t.Fatalf("%d wakes, want 1", total)
	}
	// The woken P steals a from P0's LRQ, stops spinning and wakes the next.
	if gp, _ := s.Schedule(woken); gp != a {
		t.Fatalf("woken P got %d, want stolen %d", gp, a)
	}
	if s.Total(StatSteal) != 1 || s.Spinning() != 1 {
		t.Fatalf("steals=%d spinning=%d", s.Total(StatSteal), s.Spinning())
	}
	if gp, _ := s.Schedule(0); gp != b {
		t.Fatal("P0 lost its runnext")
	}
	checkInvariants(t, s)
	// The second woken P finds nothing: it goes idle and stops spinning.
	for pid := 1; pid < 4; pid++ {
		if pid != woken && !s.Idle(pid) {
			if gp, _ := s.Schedule(pid); gp != 0 {
				t.Fatal("found phantom work")
			}
		}
	}
	if s.Spinning() != 0 || s.NIdle() != 2 {
		t.Fatalf("spinning=%d idle=%d", s.Spinning(), s.NIdle())
	}
}

func TestPoller(t *testing.T) {
	s := new(Sched)
	f := new(fakePlatform)
	pl := new(fakePoller)
	if err := s.Init(Config{NP: 2, Platform: f, Poller: pl}); err != nil {
		t.Fatal(err)
	}
	a := s.NewProc(0)
	s.Schedule(0)
	s.Park(0) // a waits for I/O
	pl.waiters = 1
	// P1 idle, P0 finds nothing locally; the last P to go idle blocks in
	// the poller, which returns a.
	s.Schedule(1)
	pl.ready = []GID{a}
	if gp, _ := s.Schedule(0); gp != a || pl.blocks != 0 {
		t.Fatalf("non-blocking poll: got %d, blocks %d", gp, pl.blocks)
	}
	s.Park(0)
	pl.waiters = 1
	if gp, _ := s.Schedule(0); gp != 0 || pl.blocks != 1 {
		t.Fatalf("blocking poll: got %d blocks %d", gp, pl.blocks)
	}
	// Tick polls once PollInterval has passed, even while a G runs.
	b := s.NewProc(0)
	s.Schedule(0)
	pl.ready = []GID{a}
	polls := pl.polls
	s.Tick(0, f.Now()+DefaultPollInterval-1)
	if pl.polls != polls {
		t.Fatal("Tick polled too early")
	}
	s.TickNoPoll(0, f.Now()+DefaultPollInterval)
	if pl.polls != polls || s.Status(a) != Gwaiting {
		t.Fatalf("TickNoPoll polled: polls %d status %v", pl.polls, s.Status(a))
	}
	s.Tick(0, f.Now()+DefaultPollInterval)
	if pl.polls != polls+1 || s.Status(a) != Grunnable {
		t.Fatalf("Tick poll: polls %d status %v", pl.polls, s.Status(a))
	}
	_ = b
	checkInvariants(t, s)
}

// TestTracePollReady: a G the Poller returns is traced as TracePollReady (on
// the polling P), never as TraceReady, from each of pollOnce's three callers
// (findRunnable, the last P's blocking poll, Tick); a G made runnable by
// Ready is traced as TraceReady only.
func TestTracePollReady(t *testing.T) {
	s := new(Sched)
	f := new(fakePlatform)
	pl := new(fakePoller)
	var tr traceRec
	if err := s.Init(Config{NP: 2, Platform: f, Poller: pl, Trace: tr.hook}); err != nil {
		t.Fatal(err)
	}
	a := s.NewProc(0)
	b := s.NewProc(0)
	c := s.NewProc(0)
	for i := 0; i < 3; i++ {
		s.Schedule(0)
		s.Park(0) // a, b, c wait
	}
	s.Schedule(1) // P1 idle

	// findRunnable's non-blocking poll.
	pl.waiters, pl.ready = 1, []GID{a}
	if gp, _ := s.Schedule(0); gp != a {
		t.Fatalf("non-blocking poll: got %d, want %d", gp, a)
	}
	s.Park(0)
	// The last idle P's blocking poll (the non-blocking one finds nothing).
	pl.waiters, pl.ready, pl.blockOnly = 1, []GID{b}, true
	if gp, _ := s.Schedule(0); gp != b || pl.blocks != 1 {
		t.Fatalf("blocking poll: got %d (want %d), blocks %d", gp, b, pl.blocks)
	}
	pl.blockOnly = false
	// Tick, while b runs: c is polled and queued.
	pl.waiters, pl.ready = 1, []GID{c}
	s.Tick(0, f.Now()+DefaultPollInterval)
	if s.Status(c) != Grunnable {
		t.Fatalf("Tick poll: c is %v", s.Status(c))
	}
	// Ready: a is readied by a waker, not the Poller.
	s.Park(0) // b
	s.Schedule(0)
	s.Park(0) // c
	s.Ready(a, 0)

	for _, g := range []GID{a, b, c} {
		want := 1
		if n := tr.count(TracePollReady, g); n != want {
			t.Errorf("G %d: %d pollready events, want %d", g, n, want)
		}
	}
	if n := tr.count(TraceReady, a); n != 1 {
		t.Errorf("G %d: %d ready events after Ready, want 1", a, n)
	}
	for _, g := range []GID{b, c} {
		if n := tr.count(TraceReady, g); n != 0 {
			t.Errorf("G %d (only polled): %d ready events, want 0", g, n)
		}
	}
	// Each pollready is on the polling P and comes before the G's next run.
	for i, e := range tr.evs {
		if e.ev != TracePollReady {
			continue
		}
		if e.pid != 0 {
			t.Errorf("pollready of G %d on P %d, want P 0 (the poller's caller)", e.gp, e.pid)
		}
		ran := false
		for _, n := range tr.evs[i+1:] {
			if n.ev == TraceRun && n.gp == e.gp {
				ran = true
				break
			}
		}
		if !ran {
			t.Errorf("G %d: pollready not followed by a run", e.gp)
		}
	}
	if got := TracePollReady.String(); got != "pollready" {
		t.Errorf("TracePollReady.String() = %q", got)
	}
	checkInvariants(t, s)
}

// timerPlatform records WakeMAt requests.
type timerPlatform struct {
	fakePlatform
	at [MaxP]int64
}

func (p *timerPlatform) WakeMAt(pid int, when int64) { p.at[pid] = when }

// A fresh runnext is not stolen; the thief parks and asks to be woken when
// it has aged (runqgrab's usleep(3)), and then steals it.
func TestRunnextRetryTimer(t *testing.T) {
	s := new(Sched)
	f := new(timerPlatform)
	if err := s.Init(Config{NP: 2, Platform: f}); err != nil {
		t.Fatal(err)
	}
	s.Schedule(1) // P1 idle
	a := s.NewProc(0)
	s.Schedule(0) // a runs on P0
	f.now.Store(1000)
	b := s.NewProc(0) // b in P0's runnext, fresh; wakep claims P1
	if f.wakes[1].Load() != 1 {
		t.Fatal("P1 not woken")
	}
	if gp, _ := s.Schedule(1); gp != 0 {
		t.Fatalf("stole a fresh runnext: %d", gp)
	}
	if want := int64(1000 + DefaultRunnextGrace); f.at[1] != want {
		t.Fatalf("WakeMAt(1, %d), want %d", f.at[1], want)
	}
	f.now.Store(f.at[1])
	if gp, _ := s.Schedule(1); gp != b {
		t.Fatalf("aged runnext not stolen: got %d", gp)
	}
	_ = a
	checkInvariants(t, s)
}

// NewG + StartG: a G being set up is on no queue, so no core can run it
// before StartG; StartG behaves like NewProc.
func TestNewGStartG(t *testing.T) {
	s, _ := newTestSched(t, 2, "gmp")
	gp := s.NewG(0, 0)
	if gp == 0 || s.Status(gp) != Gwaiting || s.Live() != 1 || s.Info(gp).Weight != DefaultWeight {
		t.Fatalf("NewG: %d %v live %d", gp, s.Status(gp), s.Live())
	}
	checkInvariants(t, s)
	if got, _ := s.Schedule(1); got != 0 {
		t.Fatal("a G being set up was scheduled")
	}
	s.StartG(gp, 0)
	if got, inh := s.Schedule(0); got != gp || !inh {
		t.Fatalf("StartG: got %d inherit %v", got, inh)
	}
	mustPanic(t, "StartG", func() { s.StartG(gp, 0) })
	checkInvariants(t, s)
}

// blockingPoller advances the clock while it "blocks", then returns a G.
type blockingPoller struct {
	f     *fakePlatform
	ready GID
}

func (p *blockingPoller) Poll(block bool, buf []GID) int {
	if !block || p.ready == 0 {
		return 0
	}
	p.f.now.Add(5 * ms) // halted 5 ms until the NIC interrupt
	buf[0], p.ready = p.ready, 0
	return 1
}
func (p *blockingPoller) Waiters() bool { return p.ready != 0 }

// Time spent blocked in the poller is not charged to the G it returns.
func TestBlockingPollTime(t *testing.T) {
	s := new(Sched)
	f := new(fakePlatform)
	pl := &blockingPoller{f: f}
	if err := s.Init(Config{NP: 1, Platform: f, Poller: pl}); err != nil {
		t.Fatal(err)
	}
	a := s.NewProc(0)
	s.Schedule(0)
	s.Park(0)
	pl.ready = a
	if gp, _ := s.Schedule(0); gp != a {
		t.Fatalf("blocking poll returned %d", gp)
	}
	f.now.Add(1 * ms)
	s.Park(0)
	if run := s.Info(a).RunTotal; run != 1*ms {
		t.Fatalf("RunTotal %d ns, want 1 ms (the 5 ms in the poller are not running time)", run)
	}
	checkInvariants(t, s)
}

// blockOnlyPoller returns its Gs only from a blocking poll, as a device that
// signals while every core is idle.
type blockOnlyPoller struct {
	ready   []GID
	waiters int
}

func (b *blockOnlyPoller) Poll(block bool, buf []GID) int {
	if !block {
		return 0
	}
	n := copy(buf, b.ready)
	b.ready = b.ready[n:]
	b.waiters -= n
	return n
}

func (b *blockOnlyPoller) Waiters() bool { return b.waiters > 0 }

// TestBlockingPollWakesAnotherP: when the last P's blocking poll returns
// several Gs, it runs one and the others must reach an idle P — it wakes one
// (runtime: findRunnable's injectglist after netpoll(delay), then wakep via
// resetspinning). A P that stayed parked with a runnable G in its reach would
// leave a core idle while work waits (reported by the simulator's author).
func TestBlockingPollWakesAnotherP(t *testing.T) {
	for _, policy := range []string{"gmp", "global", "fair"} {
		t.Run(policy, func(t *testing.T) {
			s := new(Sched)
			f := new(fakePlatform)
			pl := new(blockOnlyPoller)
			if err := s.Init(Config{NP: 2, PolicyName: policy, Platform: f, Poller: pl}); err != nil {
				t.Fatal(err)
			}
			a := s.NewProc(0)
			b := s.NewProc(0)
			for i := 0; i < 2; i++ {
				s.Schedule(0)
				s.Park(0) // a and b wait for I/O
			}
			pl.waiters = 2
			if gp, _ := s.Schedule(1); gp != 0 {
				t.Fatalf("P1 found G %d, want idle", gp)
			}
			pl.ready = []GID{a, b}
			wakes := f.wakes[1].Load()
			gp, _ := s.Schedule(0)
			if gp != a && gp != b {
				t.Fatalf("P0 got G %d from the blocking poll, want %d or %d", gp, a, b)
			}
			if f.wakes[1].Load() == wakes {
				t.Fatalf("the second polled G is runnable but idle P1 was not woken (P1 idle=%v)", s.Idle(1))
			}
			other, _ := s.Schedule(1)
			if other == 0 || other == gp {
				t.Fatalf("woken P1 found %d, want the other polled G", other)
			}
			checkInvariants(t, s)
		})
	}
}

// PreemptAt is exactly when Tick first says yes, for every policy: a G
// runs with another waiting on its P, and Tick must be false just before
// the time PreemptAt gave and true at it. With nothing running it is 0.
func TestPreemptAtIsTicksFirstYes(t *testing.T) {
	for _, policy := range []string{"gmp", "global", "local", "fair"} {
		t.Run(policy, func(t *testing.T) {
			s, f := newTestSched(t, 1, policy)
			if at := s.PreemptAt(0); at != 0 {
				t.Fatalf("nothing runs, PreemptAt = %d", at)
			}
			f.now.Store(3 * ms)
			s.NewProc(0)
			s.NewProc(0)
			s.Schedule(0)
			f.now.Store(4 * ms)
			s.Gosched(0) // a fresh pick: the slice and the run start now
			s.Schedule(0)
			at := s.PreemptAt(0)
			if at <= 4*ms {
				t.Fatalf("PreemptAt %d, not after the pick at %d", at, 4*ms)
			}
			if s.Tick(0, at-1) {
				t.Fatalf("Tick preempted at %d, before PreemptAt %d", at-1, at)
			}
			if !s.Tick(0, at) {
				t.Fatalf("Tick did not preempt at PreemptAt %d with another G waiting", at)
			}
		})
	}
}

// gmp's wake-up preemption: a G readied into runnext preempts the running G once that has run
// WakeGrain of its own (not of the slice it inherited), PreemptAt says when, the preemption is
// counted apart, and the woken G runs next. A G that runs less keeps the core, and
// WakeGrain < 0 turns the rule off (the readied G waits for the slice, as in the runtime).
func TestWakePreempt(t *testing.T) {
	for _, grain := range []int64{0, -1} {
		s, f := new(Sched), new(fakePlatform)
		if err := s.Init(Config{NP: 1, Platform: f, Seed: 1, WakeGrain: grain}); err != nil {
			t.Fatal(err)
		}
		a := s.NewProc(0)
		b := s.NewProc(0) // b in runnext, a on the ring
		s.Schedule(0)     // b
		s.Park(0)         // b waits
		f.now.Store(1 * ms)
		if got, _ := s.Schedule(0); got != a { // a: a fresh slice and run from 1 ms
			t.Fatalf("picked %d, want a", got)
		}
		if at := s.PreemptAt(0); at != 11*ms {
			t.Fatalf("grain %d: a alone, PreemptAt %d, want the slice's end %d", grain, at, 11*ms)
		}
		c := s.NewProc(0) // a new G in runnext does not preempt a: only a woken one
		if at := s.PreemptAt(0); at != 11*ms || s.Tick(0, 5*ms) {
			t.Fatalf("grain %d: a new G waiting, PreemptAt %d, want the slice's end %d, and no preemption at 5 ms", grain, at, 11*ms)
		}
		f.now.Store(1*ms + ms/2)
		s.Ready(b, 0) // b in runnext: a has run 0.5 ms
		want := int64(2 * ms)
		if grain < 0 {
			want = 11 * ms
		}
		if at := s.PreemptAt(0); at != want {
			t.Fatalf("grain %d: b waiting, PreemptAt %d, want %d", grain, at, want)
		}
		if s.Tick(0, want-1) {
			t.Fatalf("grain %d: preempted at %d, before %d", grain, want-1, want)
		}
		if !s.Tick(0, want) {
			t.Fatalf("grain %d: not preempted at %d", grain, want)
		}
		wakes := s.Total(StatWakePreempt)
		if (grain < 0) != (wakes == 0) {
			t.Fatalf("grain %d: %d wake-up preemptions counted", grain, wakes)
		}
		f.now.Store(want)
		s.Preempt(0)
		if got, inh := s.Schedule(0); got != b || !inh {
			t.Fatalf("grain %d: after the preemption picked %d (inherit %v), want b from runnext", grain, got, inh)
		}
		_ = c
		checkInvariants(t, s)
	}

	// A ping-pong pair: each readies the other and parks within WakeGrain, on one slice.
	s, f := newTestSched(t, 1, "gmp")
	a := s.NewProc(0)
	b := s.NewProc(0)
	s.Schedule(0) // b
	s.Park(0)
	s.Schedule(0) // a
	for i := 0; i < 20; i++ {
		f.now.Add(ms / 4)
		cur := a
		other := b
		if i%2 == 1 {
			cur, other = b, a
		}
		s.Ready(other, 0)
		if s.Tick(0, f.now.Load()) {
			t.Fatalf("round %d: %d preempted after %d µs of its own run", i, cur, ms/4/1000)
		}
		s.Park(0)
		if got, _ := s.Schedule(0); got != other {
			t.Fatalf("round %d: picked %d, want %d", i, got, other)
		}
	}
	if n := s.Total(StatWakePreempt); n != 0 {
		t.Fatalf("%d wake-up preemptions in a ping-pong", n)
	}
}

// With another P idle (or spinning), a woken G is that P's to take (Ready's wakep started it):
// no wake-up preemption on the readier's P.
func TestWakePreemptNotWithAnIdleP(t *testing.T) {
	s, f := newTestSched(t, 2, "gmp")
	s.Schedule(1) // P1 idle
	a := s.NewProc(0)
	b := s.NewProc(0)
	s.Schedule(0) // b
	s.Park(0)
	f.now.Store(1 * ms)
	s.Schedule(0) // a, from 1 ms
	s.Ready(b, 0) // wakep: P1 claimed, spinning
	if at := s.PreemptAt(0); at != 11*ms || s.Tick(0, 5*ms) {
		t.Fatalf("another P to take b: PreemptAt %d (want %d), preempted at 5 ms: %v", at, 11*ms, s.Tick(0, 5*ms))
	}
	_ = a
}

// A woken G that runs and exits leaves its GID to the next new G (gfget reuses the latest
// freed); that new G in runnext is not a woken one and must not preempt its creator.
func TestWakePreemptNotByANewGOnAReusedGID(t *testing.T) {
	s, f := newTestSched(t, 1, "gmp")
	a := s.NewProc(0)
	b := s.NewProc(0)
	s.Schedule(0) // b
	s.Park(0)
	f.now.Store(1 * ms)
	s.Schedule(0) // a
	f.now.Store(3 * ms)
	s.Ready(b, 0)
	if !s.Tick(0, 3*ms) {
		t.Fatal("the woken b did not preempt a, which had run 2 ms")
	}
	s.Preempt(0) // a → GRQ
	if got, _ := s.Schedule(0); got != b {
		t.Fatalf("picked %d, want b", got)
	}
	s.Exit(0) // b's GID is free
	f.now.Store(4 * ms)
	if got, _ := s.Schedule(0); got != a {
		t.Fatalf("picked %d, want a", got)
	}
	c := s.NewProc(0)
	if c != b { // the set-up depends on gfget reusing the latest freed GID: say so, do not skip
		t.Fatalf("the new G got GID %d, not b's %d: the test no longer reaches the reuse", c, b)
	}
	if s.Tick(0, 8*ms) || s.PreemptAt(0) != 14*ms {
		t.Fatalf("a new G on a woken G's old GID preempts: Tick(8 ms) %v, PreemptAt %d", s.Tick(0, 8*ms), s.PreemptAt(0))
	}
}
