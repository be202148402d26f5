package simulator

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"testing"
)

// Property tests: random workloads under every policy. They are the
// simulator's stress test of the scheduler as a whole: a lost wake-up, a G
// run twice at once, a G never run, or a Sched panic fails them.

// randomG builds a G with a random plan of ops, drawn from its own stream
// on its first step. depth bounds spawning. If signal >= 0 the G signals
// that semaphore just before it exits (a fork-join child).
func randomG(depth int, sems *int, signal int) *GSpec {
	var plan []Op
	return &GSpec{Label: "random", Script: func(step int, r *rand.Rand) Op {
		if step == 0 {
			plan = randomPlan(r, depth, sems)
			if signal >= 0 {
				plan = append(plan, Signal(signal))
			}
		}
		if step < len(plan) {
			return plan[step]
		}
		return Exit()
	}}
}

func randomPlan(r *rand.Rand, depth int, sems *int) []Op {
	var plan []Op
	for n := 1 + r.IntN(10); n > 0; n-- {
		switch k := r.IntN(9); {
		case k < 2:
			plan = append(plan, Compute(uniform(r, Microsecond, 3*Millisecond)))
		case k == 2:
			plan = append(plan, Sleep(uniform(r, 0, 2*Millisecond)))
		case k == 3:
			plan = append(plan, Net(uniform(r, Microsecond, 2*Millisecond)))
		case k == 4:
			plan = append(plan, Gosched())
		case k == 5:
			plan = append(plan, GoYield())
		case k == 6 && depth > 0:
			plan = append(plan, Spawn(randomG(depth-1, sems, -1)))
		case k >= 7 && depth > 0:
			// Fork-join on a semaphore of its own.
			sem := *sems
			*sems++
			kids := 1 + r.IntN(4)
			for i := 0; i < kids; i++ {
				plan = append(plan, Spawn(randomG(depth-1, sems, sem)))
			}
			for i := 0; i < kids; i++ {
				plan = append(plan, Wait(sem))
			}
		default:
			plan = append(plan, Compute(uniform(r, Microsecond, 100*Microsecond)))
		}
	}
	return plan
}

func randomWorkload() Workload {
	return Workload{Name: "random", Setup: func(cores int, r *rand.Rand) []Start {
		sems := 0
		var s []Start
		for n := 1 + r.IntN(8); n > 0; n-- {
			s = append(s, Start{Core: r.IntN(cores), G: *randomG(3, &sems, -1)})
		}
		return s
	}}
}

var randomSeeds = flag.Int("sim.seeds", 25, "random workloads per policy in TestRandomWorkloads (3000 take about 90 s)")

func TestRandomWorkloads(t *testing.T) {
	seeds := *randomSeeds
	if testing.Short() || raceEnabled {
		seeds = min(seeds, 3)
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		for _, p := range PolicyNames() {
			cores := 1 + int(seed%4)
			tr := new(Trace)
			r, err := Run(Config{Cores: cores, Seed: seed, Workload: randomWorkload(), Policy: p, Trace: tr, CheckInvariants: !raceEnabled})
			if err != nil {
				t.Fatalf("seed %d %s %d cores: %v", seed, p, cores, err)
			}
			if !r.Finished {
				t.Fatalf("seed %d %s %d cores: not finished by %s", seed, p, cores, FormatDuration(r.Makespan))
			}
			for _, st := range r.GStats {
				if st.Run != st.Demand || !st.Done {
					t.Fatalf("seed %d %s: G%d ran %d of %d ns, exited at %d", seed, p, st.UID, st.Run, st.Demand, st.Exited)
				}
			}
			var buf bytes.Buffer
			tr.WriteTo(&buf)
			if n, err := checkTrace(buf.Bytes(), cores); err != nil || n != r.Dispatches {
				t.Fatalf("seed %d %s: trace: %d slices for %d dispatches, %v", seed, p, n, r.Dispatches, err)
			}
		}
	}
}

// Every policy gets exactly the same work: a G's random durations come
// from its own stream, seeded through its lineage, so the CPU each G asks
// for does not depend on the order a policy runs Gs in.
func TestSameWorkUnderEveryPolicy(t *testing.T) {
	for _, w := range append([]Workload{randomWorkload()}, Workloads...) {
		var want []Time
		for _, p := range PolicyNames() {
			r := run(t, Config{Cores: 3, Seed: 11, Workload: w, Policy: p})
			var got []Time
			for _, st := range r.GStats {
				got = append(got, st.Demand)
			}
			if want == nil {
				want = got
				continue
			}
			if w.Name != "random" && !equalTimes(got, want) {
				// Single-spawner workloads create Gs in the same order
				// under every policy, so even per-G demand matches.
				t.Errorf("%s/%s: per-G CPU demand differs from %s's", w.Name, p, PolicyNames()[0])
			}
			if sum(got) != sum(want) || len(got) != len(want) {
				t.Errorf("%s/%s: %d Gs demanding %d ns, want %d Gs demanding %d ns", w.Name, p, len(got), sum(got), len(want), sum(want))
			}
		}
	}
}

func equalTimes(a, b []Time) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sum(xs []Time) Time {
	var s Time
	for _, x := range xs {
		s += x
	}
	return s
}
