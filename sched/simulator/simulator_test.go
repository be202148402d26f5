package simulator

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// run is Run that fails the test on error.
func run(t *testing.T, cfg Config) Result {
	t.Helper()
	r, err := Run(cfg)
	if err != nil {
		t.Fatalf("%s/%s: %v", cfg.Workload.Name, cfg.Policy, err)
	}
	if !r.Finished {
		t.Fatalf("%s/%s: did not finish by %s", cfg.Workload.Name, cfg.Policy, FormatDuration(r.Makespan))
	}
	return r
}

// Issue #3: "4 cores and 1000 Gs spawned on one P → under gmp every core
// ≥ 90% busy while local leaves three idle".
func TestSpawnStormGMPBalancesLocalDoesNot(t *testing.T) {
	g := run(t, Config{Cores: 4, Seed: 1, Workload: SpawnStorm(1000), Policy: "gmp"})
	for c := range g.Busy {
		if u := g.Utilisation(c); u < 0.90 {
			t.Errorf("gmp: core %d busy %.1f%% of %s, want >= 90%%", c, 100*u, FormatDuration(g.Makespan))
		}
	}
	l := run(t, Config{Cores: 4, Seed: 1, Workload: SpawnStorm(1000), Policy: "local"})
	if u := l.Utilisation(0); u < 0.90 {
		t.Errorf("local: core 0 busy %.1f%%, want >= 90%% (all the work is there)", 100*u)
	}
	for c := 1; c < 4; c++ {
		if l.Busy[c] != 0 {
			t.Errorf("local: core %d ran Gs for %s, want idle (local never moves work)", c, FormatDuration(l.Busy[c]))
		}
	}
	if g.Gs != 1001 || l.Gs != 1001 {
		t.Errorf("created %d (gmp) and %d (local) Gs, want 1001", g.Gs, l.Gs)
	}
	if l.Makespan < 3*g.Makespan {
		t.Errorf("local makespan %s not >= 3x gmp's %s", FormatDuration(l.Makespan), FormatDuration(g.Makespan))
	}
}

// hogBound is "one slice plus ε" for the hog tests: the preemption is
// noticed at the first tick after the slice ends (one tick period late at
// most), every other latency G may be queued ahead of the waiter (50 µs of
// work and a switch each), and a halted core takes the wake-up latency.
func hogBound(cfg Config, latencyGs int) Time {
	slice := cfg.Slice
	if slice == 0 {
		slice = 10 * Millisecond
	}
	return slice + DefaultTickPeriod + Time(latencyGs)*(50*Microsecond+DefaultSwitchCost) + DefaultWakeLatency
}

// maxWait returns the longest run-queue wait of any G labelled label.
func maxWait(r Result, label string) (Time, int) {
	var m Time
	n := 0
	for _, st := range r.GStats {
		if st.Label == label {
			m = max(m, st.MaxWait)
			n++
		}
	}
	return m, n
}

// Issue #3: "a CPU hog delays a waiting G by at most one slice plus ε
// under gmp". Four cores each run a 150 ms hog; every wake-up of a latency
// G finds all cores busy, so it waits for a preemption. Without gmp's
// wake-up preemption (WakeGrain < 0), as in the runtime, the slice is what
// bounds the wait (TestWakeGrainShortensHogDelay: with it).
func TestHogDelaysWaiterAtMostOneSlice(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		cfg := Config{Cores: 4, Seed: seed, Workload: HogLatency(8, 20), Policy: "gmp", WakeGrain: -1}
		r := run(t, cfg)
		bound := hogBound(cfg, 8)
		w, n := maxWait(r, "latency")
		if n != 8 {
			t.Fatalf("seed %d: %d latency Gs, want 8", seed, n)
		}
		if w > bound {
			t.Errorf("seed %d: a latency G waited %s behind hogs, want <= %s (slice + ε)", seed, FormatDuration(w), FormatDuration(bound))
		}
		// Not vacuous: the hogs really held the waiters back, routinely
		// and not just once at start-up.
		var wait, runs Time
		for _, st := range r.GStats {
			if st.Label == "latency" {
				wait += st.Wait
				runs += Time(st.Runs)
			}
		}
		if w < 5*Millisecond || r.Preemptions == 0 || wait/runs < Millisecond {
			t.Errorf("seed %d: longest wait %s, mean %s, %d preemptions: the hogs never got in the way, the test proves nothing",
				seed, FormatDuration(w), FormatDuration(wait/runs), r.Preemptions)
		}
		t.Logf("seed %d: longest latency-G wait %s (bound %s), %d preemptions", seed, FormatDuration(w), FormatDuration(bound), r.Preemptions)
	}
}

// gmp's wake-up preemption (sched.DefaultWakeGrain, 1 ms): the same hogs and
// latency Gs, the same seeds, with and without it. A woken G in runnext now
// preempts a hog that has run 1 ms, so the latency Gs wait less on average
// and at worst, and the wake-up preemptions are counted.
func TestWakeGrainShortensHogDelay(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		mean := func(r Result) Time {
			var wait, runs Time
			for _, st := range r.GStats {
				if st.Label == "latency" {
					wait += st.Wait
					runs += Time(st.Runs)
				}
			}
			return wait / runs
		}
		off := run(t, Config{Cores: 4, Seed: seed, Workload: HogLatency(8, 20), Policy: "gmp", WakeGrain: -1})
		on := run(t, Config{Cores: 4, Seed: seed, Workload: HogLatency(8, 20), Policy: "gmp"})
		wOff, _ := maxWait(off, "latency")
		wOn, _ := maxWait(on, "latency")
		t.Logf("seed %d: latency-G wait mean %s → %s, longest %s → %s, wake-up preemptions %d",
			seed, FormatDuration(mean(off)), FormatDuration(mean(on)), FormatDuration(wOff), FormatDuration(wOn), on.WakePreemptions)
		if off.WakePreemptions != 0 || on.WakePreemptions == 0 {
			t.Errorf("seed %d: wake-up preemptions %d without the rule, %d with it", seed, off.WakePreemptions, on.WakePreemptions)
		}
		// Measured: means 4.8–5.0 ms → 0.79–0.85 ms, longest 11.05 → 4.55–5.30 ms.
		if 4*mean(on) > mean(off) || 2*wOn > wOff {
			t.Errorf("seed %d: the wake-up preemption did not cut the mean wait by 4 and the longest by 2", seed)
		}
	}
}

// On a single P the bound is two slices, not one, and that is Go's design,
// not a simulator artefact: when the hog is preempted it goes to the GRQ,
// and if that P's next schedtick is a multiple of 61, PickNext takes the
// GRQ (the hog) ahead of latency Gs already on the LRQ (runtime/proc.go
// findRunnable: "if pp.schedtick%61 == 0 && !sched.runq.empty()"). Those
// Gs then wait for the hog's next slice too. This test pins the weaker
// bound and logs whether the two-slice case occurred (it does for seed 3:
// about 18 ms), so the trade-off stays visible in go test -v.
func TestHogOnOnePBoundedByTwoSlices(t *testing.T) {
	cfg := Config{Cores: 1, Seed: 3, Workload: HogLatency(8, 20), Policy: "gmp"}
	r := run(t, cfg)
	w, _ := maxWait(r, "latency")
	one := hogBound(cfg, 8)
	two := one + 10*Millisecond + DefaultTickPeriod
	if w > two {
		t.Errorf("1 P: a latency G waited %s, want <= %s (two slices + ε)", FormatDuration(w), FormatDuration(two))
	}
	if w <= one {
		t.Logf("1 P: longest wait %s is within one slice + ε: the 61st-schedtick case did not occur", FormatDuration(w))
	} else {
		t.Logf("1 P: longest wait %s > one slice + ε (%s): the 61st-schedtick GRQ check picked the hog first", FormatDuration(w), FormatDuration(one))
	}
	if r.GRQTakes == 0 {
		t.Errorf("1 P: no GRQ takes: preempted hogs must come back through the GRQ")
	}
}

// The same check must fail when preemption is broken: with the timer's
// verdict ignored, a waiter sits behind a 150 ms hog.
func TestHogCheckFailsWithoutPreemption(t *testing.T) {
	cfg := Config{Cores: 1, Seed: 3, Workload: HogLatency(8, 20), Policy: "gmp", IgnorePreempt: true}
	r := run(t, cfg)
	w, _ := maxWait(r, "latency")
	if w <= 2*hogBound(cfg, 8) {
		t.Fatalf("without preemption the longest wait is %s, within the bound %s: the hog assertion could never fail",
			FormatDuration(w), FormatDuration(hogBound(cfg, 8)))
	}
	if r.Preemptions != 0 {
		t.Errorf("IgnorePreempt: %d preemptions", r.Preemptions)
	}
}

// grqStarvation is one P kept busy by (pair) a producer/consumer pair that
// readies each other through runnext and (churn) Gs that goyield to the
// tail of the LRQ, so the local queues are never empty. The "gosched" G
// keeps putting itself on the GRQ (runtime.Gosched).
func grqStarvation(pair bool, churn int) Workload {
	return Workload{
		Name: "grq-starvation",
		Setup: func(cores int, r *rand.Rand) []Start {
			var s []Start
			if pair {
				s = append(s,
					Start{0, GSpec{"producer", PingPongScript(0, 1, 3000, true)}},
					Start{0, GSpec{"consumer", PingPongScript(0, 1, 3000, false)}})
			}
			for i := 0; i < churn; i++ {
				s = append(s, Start{0, GSpec{"churn", func(step int, r *rand.Rand) Op {
					switch {
					case step >= 2*2000:
						return Exit()
					case step%2 == 0:
						return Compute(20 * Microsecond)
					}
					return GoYield()
				}}})
			}
			s = append(s, Start{0, GSpec{"gosched", func(step int, r *rand.Rand) Op {
				switch {
				case step >= 2*20:
					return Exit()
				case step%2 == 0:
					return Compute(20 * Microsecond)
				}
				return Gosched()
			}}})
			return s
		},
	}
}

// goschedStat returns the stats of the "gosched" G.
func goschedStat(t *testing.T, r Result) GStat {
	t.Helper()
	for _, s := range r.GStats {
		if s.Label == "gosched" {
			if s.Runs < 20 {
				t.Fatalf("the gosched G ran %d times, want >= 20", s.Runs)
			}
			return s
		}
	}
	t.Fatal("no gosched G")
	return GStat{}
}

// Issue #3: "with two Gs ping-ponging through runnext to keep a P busy, a
// G in the GRQ still runs within 61 schedticks". Runnext picks inherit the
// time slice (and do not count as schedticks), so the pair gives the P up
// when its shared slice ends: the GRQ G runs within a few schedticks and
// within one slice + ε.
func TestGRQRunsWithin61SchedticksBehindRunnextPingPong(t *testing.T) {
	r := run(t, Config{Cores: 1, Seed: 1, Workload: grqStarvation(true, 0), Policy: "gmp"})
	st := goschedStat(t, r)
	if st.MaxTicks > 61 {
		t.Errorf("a G in the GRQ waited %d schedticks, want <= 61", st.MaxTicks)
	}
	if b := hogBound(Config{}, 0); st.MaxWait > b {
		t.Errorf("a G in the GRQ waited %s behind the ping-pong, want <= %s (one slice + ε)", FormatDuration(st.MaxWait), FormatDuration(b))
	}
	// Not vacuous: the pair really held the P for most of a slice.
	if st.MaxWait < 5*Millisecond {
		t.Errorf("longest GRQ wait %s: the ping-pong never kept the P busy", FormatDuration(st.MaxWait))
	}
	t.Logf("GRQ G waited at most %d schedticks, %s", st.MaxTicks, FormatDuration(st.MaxWait))
}

// The 61st-schedtick check on its own: three Gs goyield round the LRQ, so
// the P's local queue is never empty and every pick starts a new
// schedtick; only the periodic GRQ check lets the gosched G back in.
func TestGRQCheckedEvery61Schedticks(t *testing.T) {
	r := run(t, Config{Cores: 1, Seed: 1, Workload: grqStarvation(false, 3), Policy: "gmp"})
	st := goschedStat(t, r)
	if st.MaxTicks > 61 {
		t.Errorf("a G in the GRQ waited %d schedticks behind LRQ churn, want <= 61", st.MaxTicks)
	}
	if st.MaxTicks < 30 {
		// Far fewer means the LRQ ran dry and the GRQ was reached the
		// ordinary way: the scenario did not test the periodic check.
		t.Errorf("GRQ G waited only %d schedticks: the LRQ was not kept busy", st.MaxTicks)
	}
	t.Logf("GRQ G waited at most %d schedticks, %s", st.MaxTicks, FormatDuration(st.MaxWait))
}

// Every run of every built-in workload under every policy: each G gets
// exactly the CPU its script asked for, the cores' busy time is the Gs' run
// time, and every G exits. This is the engine's bookkeeping invariant
// (preempted bursts resume with the right remainder, nothing is lost).
func TestConservation(t *testing.T) {
	for _, w := range Workloads {
		for _, p := range PolicyNames() {
			for _, cores := range []int{1, 3} {
				r := run(t, Config{Cores: cores, Seed: 7, Workload: w, Policy: p, CheckInvariants: cores == 3 && !raceEnabled})
				var busy, ran Time
				for _, b := range r.Busy {
					busy += b
				}
				for _, st := range r.GStats {
					ran += st.Run
					if st.Run != st.Demand {
						t.Errorf("%s/%s/%d: G%d (%s) ran %d ns, demanded %d", w.Name, p, cores, st.UID, st.Label, st.Run, st.Demand)
					}
					if !st.Done {
						t.Errorf("%s/%s/%d: G%d (%s) never exited", w.Name, p, cores, st.UID, st.Label)
					}
				}
				if busy != ran {
					t.Errorf("%s/%s/%d: cores busy %d ns, Gs ran %d ns", w.Name, p, cores, busy, ran)
				}
				if len(r.Waits) != r.Dispatches {
					t.Errorf("%s/%s/%d: %d wait samples for %d dispatches", w.Name, p, cores, len(r.Waits), r.Dispatches)
				}
			}
		}
	}
}

// output runs every workload under every policy and returns the table and
// trace bytes, as go run ./sched/sim -trace would write them.
func output(t *testing.T, seed uint64) (table, trace []byte) {
	var tb, trb bytes.Buffer
	tr := new(Trace)
	var rs []Result
	for _, w := range Workloads {
		for _, p := range PolicyNames() {
			rs = append(rs, run(t, Config{Cores: 4, Seed: seed, Workload: w, Policy: p, Trace: tr}))
		}
	}
	if err := WriteTable(&tb, rs); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.WriteTo(&trb); err != nil {
		t.Fatal(err)
	}
	return tb.Bytes(), trb.Bytes()
}

// Same seed → identical table and trace bytes; another seed → different
// (the seed really drives the workload).
func TestDeterminism(t *testing.T) {
	t1, tr1 := output(t, 42)
	t2, tr2 := output(t, 42)
	if !bytes.Equal(t1, t2) {
		t.Errorf("same seed, different tables:\n%s\n%s", t1, t2)
	}
	if !bytes.Equal(tr1, tr2) {
		t.Errorf("same seed, different traces (%d vs %d bytes)", len(tr1), len(tr2))
	}
	t3, tr3 := output(t, 43)
	if bytes.Equal(t1, t3) || bytes.Equal(tr1, tr3) {
		t.Errorf("seeds 42 and 43 gave identical output: the seed is not used")
	}
	if n := strings.Count(string(t1), "\n"); n != 1+len(Workloads)*len(PolicyNames()) {
		t.Errorf("table has %d lines, want a header and one row per workload x policy", n)
	}
}

func TestRunErrors(t *testing.T) {
	deadlock := Workload{Name: "deadlock", Setup: func(int, *rand.Rand) []Start {
		return []Start{{0, GSpec{"stuck", func(int, *rand.Rand) Op { return Wait(0) }}}}
	}}
	spin := Workload{Name: "spin", Setup: func(int, *rand.Rand) []Start {
		return []Start{{0, GSpec{"spin", func(int, *rand.Rand) Op { return Signal(0) }}}}
	}}
	badCore := Workload{Name: "bad-core", Setup: func(cores int, _ *rand.Rand) []Start {
		return []Start{{cores, GSpec{"x", func(int, *rand.Rand) Op { return Exit() }}}}
	}}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Cores: 0, Workload: SpawnStorm(1), Policy: "gmp"}, "cores"},
		{Config{Cores: MaxCores + 1, Workload: SpawnStorm(1), Policy: "gmp"}, "cores"},
		{Config{Cores: 1, Workload: SpawnStorm(1), Policy: "nope"}, "unknown policy"},
		{Config{Cores: 1, Workload: Workload{Name: "empty"}, Policy: "gmp"}, "no Setup"},
		{Config{Cores: 2, Workload: deadlock, Policy: "gmp"}, "deadlock"},
		{Config{Cores: 2, Workload: spin, Policy: "gmp"}, "zero-time ops"},
		{Config{Cores: 2, Workload: badCore, Policy: "gmp"}, "core 2 of 2"},
		{Config{Cores: 1, Workload: SpawnStorm(5000), Policy: "gmp"}, "G table full"},
	} {
		_, err := Run(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", c.cfg.Workload.Name, err, c.want)
		}
	}
	// A run that outlives its time limit is reported as unfinished.
	r, err := Run(Config{Cores: 1, Workload: SpawnStorm(100), Policy: "gmp", TimeLimit: 10 * Millisecond})
	if err != nil || r.Finished || r.Makespan != 10*Millisecond {
		t.Errorf("time limit: finished=%v makespan=%s err=%v, want unfinished at 10ms", r.Finished, FormatDuration(r.Makespan), err)
	}
}

func TestLookup(t *testing.T) {
	if ws, err := LookupWorkloads("all"); err != nil || len(ws) != 5 {
		t.Errorf("all workloads: %d, %v", len(ws), err)
	}
	if _, err := LookupWorkloads("nope"); err == nil || !strings.Contains(err.Error(), "spawn-storm") {
		t.Errorf("unknown workload: %v, want an error listing the names", err)
	}
	if ps, err := LookupPolicies("gmp"); err != nil || len(ps) != 1 {
		t.Errorf("gmp: %v %v", ps, err)
	}
	if _, err := LookupPolicies(""); err == nil {
		t.Errorf("empty policy name accepted")
	}
}
