// Randomised single-threaded interleavings of every entry point, checking
// the invariants and the no-lost-wake-up property after every step.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import (
	"math/rand/v2"
	"testing"
)

// wakePlatform records pending WakeM/WakeMAt per P, like a core's pending
// IPI or armed one-shot timer.
type wakePlatform struct {
	now     int64
	pending [MaxP]bool
	timerAt [MaxP]int64
}

func (p *wakePlatform) Now() int64                  { return p.now }
func (p *wakePlatform) WakeM(pid int)               { p.pending[pid] = true }
func (p *wakePlatform) ParkM(pid int)               {}
func (p *wakePlatform) WakeMAt(pid int, when int64) { p.timerAt[pid] = when }

// TestRandomOpsNoLostWakeup drives np cores through random operations. A
// core is "halted" after Schedule returned 0 and only runs again on WakeM,
// on its armed timer, or on an interrupt that readies a G on it. After
// every step: CheckInvariants, and if any G is runnable, some core must be
// running, awake, or have a wake-up pending: otherwise the machine would
// sleep for ever with work queued (a lost wake-up).
func TestRandomOpsNoLostWakeup(t *testing.T) {
	steps := 20000
	if testing.Short() {
		steps = 3000
	}
	for _, pol := range PolicyNames() {
		for seed := uint64(1); seed <= 4; seed++ {
			randomOps(t, pol, seed, 1+int(seed)%4, steps)
		}
	}
}

func randomOps(t *testing.T, pol string, seed uint64, np, steps int) {
	s := new(Sched)
	p := new(wakePlatform)
	if err := s.Init(Config{NP: np, PolicyName: pol, Platform: p, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 99))
	halted := make([]bool, np)
	var waiting []GID
	for pid := 0; pid < np; pid++ {
		if gp, _ := s.Schedule(pid); gp == 0 {
			halted[pid] = true
		}
	}
	s.NewProc(0)
	halted[0] = false
	checked := 0
	defer func() {
		t.Logf("%s seed %d np %d: %d checked steps, ctxswitch %d steals %d wakep %d idle %d live %d",
			pol, seed, np, checked, s.Total(StatCtxSwitch), s.Total(StatSteal), s.Total(StatWakep), s.Total(StatIdle), s.Live())
	}()
	for step := 0; step < steps; step++ {
		p.now += int64(r.IntN(2000))
		pid := r.IntN(np)
		switch {
		case s.Curg(pid) != 0: // the running G does something
			switch op := r.IntN(10); {
			case op == 0 && s.Live() < 200:
				s.NewProc(pid)
			case op == 1 && len(waiting) > 0:
				i := r.IntN(len(waiting))
				s.Ready(waiting[i], pid)
				waiting = append(waiting[:i], waiting[i+1:]...)
			case op == 2:
				waiting = append(waiting, s.Park(pid))
			case op == 3:
				s.Gosched(pid)
			case op == 4:
				s.GoYield(pid)
			case op == 5:
				s.Exit(pid)
				if s.Live() == 0 {
					s.NewProc(pid)
				}
			case op == 6:
				if s.Tick(pid, p.now) {
					s.Preempt(pid)
				}
			case op == 7:
				s.Preempt(pid)
			default:
				continue // keeps running
			}
			if s.Curg(pid) == 0 {
				if gp, _ := s.Schedule(pid); gp == 0 {
					halted[pid] = true
				}
			}
		case halted[pid] && len(waiting) > 0 && r.IntN(4) == 0:
			// Device interrupt on a halted core readies a waiter.
			i := r.IntN(len(waiting))
			s.Ready(waiting[i], pid)
			waiting = append(waiting[:i], waiting[i+1:]...)
			halted[pid] = false
			fallthrough
		case !halted[pid] || p.pending[pid] || (p.timerAt[pid] != 0 && p.now >= p.timerAt[pid]):
			p.pending[pid] = false
			p.timerAt[pid] = 0
			gp, _ := s.Schedule(pid)
			halted[pid] = gp == 0
		}
		checked++
		if err := s.CheckInvariants(); err != nil {
			t.Fatalf("%s seed %d np %d step %d: %v", pol, seed, np, step, err)
		}
		runnable := s.Live() - len(waiting)
		for i := 0; i < np; i++ {
			if s.Curg(i) != 0 {
				runnable--
			}
		}
		if runnable == 0 {
			continue
		}
		alive := false
		for i := 0; i < np; i++ {
			if s.Curg(i) != 0 || !halted[i] || p.pending[i] || p.timerAt[i] != 0 {
				alive = true
			}
		}
		if !alive {
			t.Fatalf("%s seed %d np %d step %d: lost wake-up: %d runnable Gs, every core halted with nothing pending\n%s",
				pol, seed, np, step, runnable, s.AppendTrace(nil))
		}
		// Worker thread parking/unparking: a halted core that could find
		// work (HasWork) is acceptable only while some core is about to
		// look (a WakeM or timer pending): wake-ups cascade one at a time.
		looking := false
		for i := 0; i < np; i++ {
			if halted[i] && (p.pending[i] || p.timerAt[i] != 0) {
				looking = true
			}
		}
		for i := 0; i < np && !looking; i++ {
			if halted[i] && s.policy.HasWork(s, i) {
				t.Fatalf("%s seed %d np %d step %d: P%d halted with work it could take and no wake-up pending\n%s",
					pol, seed, np, step, i, s.AppendTrace(nil))
			}
		}
	}
}
