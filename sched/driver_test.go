// A lock-step multi-P driver for policy-level tests (a tiny simulator:
// sched/sim is the real one).
// SPDX-License-Identifier: BSD-3-Clause

package sched

import "testing"

// lockstep runs Ps in lock-step steps of `step` ns of virtual time. Each G
// needs left[gp] ns of CPU; a G with block[gp] > 0 parks every block[gp] ns
// of CPU and is readied by a fake interrupt on P 0 one step later.
type lockstep struct {
	t      testing.TB
	s      *Sched
	f      *fakePlatform
	step   int64
	left   [MaxG]int64
	block  [MaxG]int64
	ranSeg [MaxG]int64
	busy   [MaxP]int64
	wakes  [MaxP]int64
	parked []GID
	check  bool
}

func newLockstep(t testing.TB, np int, policy string, step int64) *lockstep {
	s, f := newTestSched(t, np, policy)
	l := &lockstep{t: t, s: s, f: f, step: step, check: true}
	for pid := 0; pid < np; pid++ {
		s.Schedule(pid) // every core boots into the idle loop
	}
	return l
}

// spawn creates n Gs on P pid needing cpu ns each.
func (l *lockstep) spawn(pid, n int, cpu int64) []GID {
	var gs []GID
	for i := 0; i < n; i++ {
		gp := l.s.NewProc(pid)
		if gp == 0 {
			l.t.Fatal("G table full")
		}
		l.left[gp] = cpu
		gs = append(gs, gp)
	}
	return gs
}

// schedIdle lets every P without a G that is awake (not idle, or woken by
// WakeM since the last look) pick a G; repeats while wake-ups cascade.
func (l *lockstep) schedIdle() {
	for again := true; again; {
		again = false
		for pid := 0; pid < l.s.NP(); pid++ {
			w := l.f.wakes[pid].Load()
			woken := w != l.wakes[pid]
			l.wakes[pid] = w
			if l.s.Curg(pid) != 0 || (l.s.Idle(pid) && !woken) {
				continue
			}
			if gp, _ := l.s.Schedule(pid); gp != 0 {
				l.ranSeg[gp] = 0
				again = true
			}
		}
	}
}

// run advances until every G has finished or limit ns passed; returns the
// makespan.
func (l *lockstep) run(limit int64) int64 {
	s := l.s
	now := l.f.now.Load()
	for s.Live() > 0 {
		if now > limit {
			l.t.Fatalf("%s: %d Gs still live at %d ms", s.Policy().Name(), s.Live(), now/ms)
		}
		// Ready the Gs that parked in the previous step (IRQ on P0).
		for _, gp := range l.parked {
			s.Ready(gp, 0)
		}
		l.parked = l.parked[:0]
		l.schedIdle()
		now += l.step
		l.f.now.Store(now)
		for pid := 0; pid < s.NP(); pid++ {
			gp := s.Curg(pid)
			if gp == 0 {
				continue
			}
			l.busy[pid] += l.step
			l.left[gp] -= l.step
			l.ranSeg[gp] += l.step
			switch {
			case l.left[gp] <= 0:
				s.Exit(pid)
			case l.block[gp] > 0 && l.ranSeg[gp] >= l.block[gp]:
				s.Park(pid)
				l.parked = append(l.parked, gp)
			case s.Tick(pid, now):
				s.Preempt(pid)
			}
		}
		if l.check {
			checkInvariants(l.t, s)
		}
	}
	return now
}

func TestSpawnStormBalance(t *testing.T) {
	for _, pol := range PolicyNames() {
		t.Run(pol, func(t *testing.T) {
			l := newLockstep(t, 4, pol, 100_000)
			l.check = testing.Short()
			l.spawn(0, 1000, 2*ms)
			span := l.run(10_000 * ms)
			var minUtil float64 = 1
			for pid := 0; pid < 4; pid++ {
				u := float64(l.busy[pid]) / float64(span)
				minUtil = min(minUtil, u)
			}
			t.Logf("%s: makespan %d ms, min core utilisation %.2f, steals %d, grq %d",
				pol, span/ms, minUtil, l.s.Total(StatSteal), l.s.Total(StatGRQTake))
			switch pol {
			case "local":
				for pid := 1; pid < 4; pid++ {
					if l.busy[pid] != 0 {
						t.Errorf("local: P%d ran work it should never see", pid)
					}
				}
			default:
				if minUtil < 0.9 {
					t.Errorf("%s: a core was only %.0f%% busy", pol, 100*minUtil)
				}
			}
		})
	}
}

// Every policy finishes a mix of CPU-bound and blocking Gs on 3 Ps with all
// invariants holding after every step.
func TestPoliciesMixedWorkload(t *testing.T) {
	for _, pol := range PolicyNames() {
		t.Run(pol, func(t *testing.T) {
			l := newLockstep(t, 3, pol, 250_000)
			for i, gp := range l.spawn(0, 30, 20*ms) {
				if i%2 == 0 {
					l.block[gp] = ms // I/O-bound: parks every 1 ms of CPU
				}
			}
			l.spawn(1, 5, 50*ms)
			l.run(5_000 * ms)
			if got := l.s.Total(StatExit); got != 35 {
				t.Fatalf("%d Gs exited, want 35", got)
			}
		})
	}
}

// A CPU hog delays a readied G by at most one slice (plus one tick) under gmp.
func TestHogLatency(t *testing.T) {
	for _, pol := range []string{"gmp", "fair", "global", "local"} {
		t.Run(pol, func(t *testing.T) {
			l := newLockstep(t, 1, pol, 100_000)
			l.spawn(0, 1, 1000*ms) // hog
			l.schedIdle()
			hog := l.s.Curg(0)
			w := l.s.NewProc(0)
			l.left[w] = ms
			// w runs first (runnext) for 1 µs-ish then blocks; the hog runs.
			for i := 0; l.s.Curg(0) != w; i++ {
				if i > 3 {
					t.Fatal("w never ran")
				}
				l.s.Preempt(0)
				l.schedIdle()
			}
			l.s.Park(0)
			l.schedIdle()
			if l.s.Curg(0) != hog {
				t.Fatal("hog not running")
			}
			var worst int64
			for round := 0; round < 20; round++ {
				// advance 3.3 ms, then an interrupt readies w
				for i := 0; i < 33; i++ {
					l.f.now.Add(l.step)
					if l.s.Tick(0, l.f.now.Load()) {
						l.s.Preempt(0)
						l.schedIdle()
					}
				}
				readyAt := l.f.now.Load()
				l.s.Ready(w, 0)
				for l.s.Curg(0) != w {
					l.f.now.Add(l.step)
					if l.s.Tick(0, l.f.now.Load()) {
						l.s.Preempt(0)
						l.schedIdle()
					}
					if l.f.now.Load()-readyAt > 100*ms {
						t.Fatal("w starved")
					}
				}
				worst = max(worst, l.f.now.Load()-readyAt)
				l.s.Park(0)
				l.schedIdle()
			}
			t.Logf("%s: worst wake-up latency behind a hog: %.1f ms", pol, float64(worst)/ms)
			if worst > DefaultSlice+l.step {
				t.Errorf("%s: w waited %d ns > one slice + one tick", pol, worst)
			}
		})
	}
}

// Under fair, CPU share follows weight.
func TestFairWeights(t *testing.T) {
	s, f := newTestSched(t, 1, "fair")
	light := s.NewProcWeight(0, 1024)
	heavy := s.NewProcWeight(0, 3072)
	s.Schedule(0)
	for now := int64(0); now < 3000*ms; {
		now += 100_000
		f.now.Store(now)
		if s.Tick(0, now) {
			s.Preempt(0)
			s.Schedule(0)
		}
	}
	s.Preempt(0)
	rl, rh := s.Info(light).RunTotal, s.Info(heavy).RunTotal
	ratio := float64(rh) / float64(rl)
	t.Logf("fair: heavy/light CPU = %.2f (weights 3:1)", ratio)
	if ratio < 2.7 || ratio > 3.3 {
		t.Fatalf("heavy/light = %.2f, want 3 ± 10%%", ratio)
	}
}
