// Concurrency stress: real goroutines stand in for Ms. Run with -race.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunqStress hammers runqput/runqget/runqsteal/runqputslow and the GRQ
// from one goroutine per P. Every G is a token: taking one off a queue must
// find it not held (else it was duplicated); at the end every token is in
// exactly one queue (else it was lost). >= 1e6 queue operations normally.
func TestRunqStress(t *testing.T) {
	const np = 4
	opsPerM := 300_000 // 4 Ms × 300k = 1.2e6 operations
	if testing.Short() {
		opsPerM = 30_000
	}
	s, f := newTestSched(t, np, "gmp")
	f.auto = 1 // the clock ticks 1 ns per read: runnext ages
	s.runnextGrace = 50
	const ng = 1500
	var held [MaxG]atomic.Uint32
	var total atomic.Int64
	take := func(gp GID, where string) {
		if !held[gp].CompareAndSwap(0, 1) {
			panic("duplicate G from " + where)
		}
	}
	// Seed: all Gs start in hand of P0's M, spread over the queues.
	gs := make([]GID, 0, ng)
	for i := 0; i < ng; i++ {
		gs = append(gs, takeG(t, s))
	}
	var wg sync.WaitGroup
	for m := 0; m < np; m++ {
		mine := gs[m*ng/np : (m+1)*ng/np]
		wg.Add(1)
		go func(pid int, hand []GID) {
			defer wg.Done()
			pp := &s.allp[pid]
			for _, gp := range hand {
				held[gp].Store(1)
			}
			rnd := uint32(pid*7919 + 1)
			for op := 0; op < opsPerM; op++ {
				rnd = rnd*1664525 + 1013904223
				switch r := rnd >> 24; {
				case r < 110 && len(hand) > 0: // put (runnext 1 in 4)
					gp := hand[len(hand)-1]
					hand = hand[:len(hand)-1]
					held[gp].Store(0)
					s.allg[gp].runnableSince = f.Now()
					s.runqput(pp, gp, r%4 == 0)
				case r < 200: // get
					if gp, _ := s.runqget(pp); gp != 0 {
						take(gp, "runqget")
						hand = append(hand, gp)
					}
				case r < 245 && pp.runqlen() == 0: // steal (only when empty, as in findRunnable)
					p2 := &s.allp[(pid+1+int(r)%(np-1))%np]
					if gp, _ := s.runqsteal(pp, p2, r%2 == 0, f.Now()); gp != 0 {
						take(gp, "runqsteal")
						hand = append(hand, gp)
					}
				case r < 250 && len(hand) > 0:
					gp := hand[len(hand)-1]
					hand = hand[:len(hand)-1]
					held[gp].Store(0)
					s.globrunqput(gp)
				default:
					if gp := s.globrunqgetbatch(pp, runqSize/2); gp != 0 {
						take(gp, "globrunqgetbatch")
						hand = append(hand, gp)
					}
				}
			}
			for _, gp := range hand {
				held[gp].Store(0)
				s.globrunqput(gp)
			}
			total.Add(int64(opsPerM))
		}(m, append([]GID(nil), mine...))
	}
	wg.Wait()
	// Drain everything single-threaded: each G exactly once.
	seen := make(map[GID]bool)
	for pid := 0; pid < np; pid++ {
		for {
			gp, _ := s.runqget(&s.allp[pid])
			if gp == 0 {
				break
			}
			if seen[gp] {
				t.Fatalf("G %d twice", gp)
			}
			seen[gp] = true
		}
	}
	for gp := s.globrunqget(); gp != 0; gp = s.globrunqget() {
		if seen[gp] {
			t.Fatalf("G %d twice", gp)
		}
		seen[gp] = true
	}
	if len(seen) != ng {
		t.Fatalf("%d Gs survived of %d (lost %d)", len(seen), ng, ng-len(seen))
	}
	t.Logf("%d queue operations, overflows %d", total.Load(), s.Total(StatGRQOverflow))
}

// stressPlatform: real-ish clock, WakeM sets a flag the idle M polls.
type stressPlatform struct {
	clock atomic.Int64
	woken [MaxP]atomic.Bool
}

func (p *stressPlatform) Now() int64    { return p.clock.Add(7) }
func (p *stressPlatform) WakeM(pid int) { p.woken[pid].Store(true) }
func (p *stressPlatform) ParkM(pid int) {}

// TestSchedStress runs the whole scheduler with one goroutine per M and a
// mix of every entry point. Gs carry a work budget; the test ends when
// every G has exited. Checks: a G never runs on two Ms at once, no G is
// lost (all exit), nothing deadlocks (a lost wake-up would stall: an idle M
// only wakes on WakeM or on an "interrupt" that readies a waiting G).
func TestSchedStress(t *testing.T) {
	for _, pol := range PolicyNames() {
		t.Run(pol, func(t *testing.T) { schedStress(t, pol) })
	}
}

func schedStress(t *testing.T, pol string) {
	const np = 4
	ng, units := 2000, 50
	if testing.Short() {
		ng, units = 200, 10
	}
	s := new(Sched)
	plat := new(stressPlatform)
	if err := s.Init(Config{NP: np, PolicyName: pol, Platform: plat, Seed: 42, Slice: 5_000}); err != nil {
		t.Fatal(err)
	}
	var (
		running [MaxG]atomic.Int32
		left    [MaxG]atomic.Int32
		exited  atomic.Int64
		created atomic.Int64
		waitMu  sync.Mutex
		waitq   []GID
		stop    atomic.Bool
	)
	popWaiter := func() GID {
		waitMu.Lock()
		defer waitMu.Unlock()
		if len(waitq) == 0 {
			return 0
		}
		gp := waitq[0]
		waitq = waitq[1:]
		return gp
	}
	spawn := func(pid int) {
		if created.Load() >= int64(ng) {
			return
		}
		if created.Add(1) > int64(ng) {
			return
		}
		gp := s.NewProc(pid)
		if gp == 0 {
			panic("G table full")
		}
		left[gp].Store(int32(units))
	}
	var wg sync.WaitGroup
	var ready sync.WaitGroup
	ready.Add(np)
	for m := 0; m < np; m++ {
		wg.Add(1)
		go func(pid int) {
			defer wg.Done()
			ready.Done()
			ready.Wait() // all Ms start together
			rnd := uint32(pid*104729 + 7)
			if pid == 0 {
				for i := 0; i < 8; i++ {
					spawn(0)
				}
			}
			for !stop.Load() {
				gp, _ := s.Schedule(pid)
				if gp == 0 {
					// Idle: halt until WakeM, or an "interrupt" (a
					// waiting G to ready on this core).
					for !stop.Load() && !plat.woken[pid].Swap(false) {
						if w := popWaiter(); w != 0 {
							s.Ready(w, pid)
							break
						}
						runtime.Gosched()
					}
					continue
				}
				if !running[gp].CompareAndSwap(0, 1) {
					panic("G running on two Ms")
				}
				for i := 0; i < 50; i++ { // the G's "work"
					spinSink.Load()
				}
				rnd = rnd*1664525 + 1013904223
				r := rnd >> 24
				if r < 40 {
					spawn(pid)
				}
				if r%3 == 0 {
					if w := popWaiter(); w != 0 {
						s.Ready(w, pid)
					}
				}
				n := left[gp].Add(-1)
				running[gp].Store(0)
				switch {
				case n <= 0:
					s.Exit(pid)
					if exited.Add(1) == int64(ng) {
						stop.Store(true)
					}
				case r < 60:
					s.Park(pid)
					waitMu.Lock()
					waitq = append(waitq, gp)
					waitMu.Unlock()
				case r < 110:
					s.Gosched(pid)
				case r < 160:
					s.GoYield(pid)
				case s.Tick(pid, plat.Now()) || r < 200:
					s.Preempt(pid)
				default:
					s.Preempt(pid)
				}
			}
		}(m)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	last, stall := exited.Load(), 0
	for {
		select {
		case <-done:
			if exited.Load() != int64(ng) || s.Live() != 0 {
				t.Fatalf("exited %d of %d, live %d", exited.Load(), ng, s.Live())
			}
			t.Logf("%s: %d Gs, ctxswitch %d steals %d grq %d wakep %d idle %d",
				pol, ng, s.Total(StatCtxSwitch), s.Total(StatSteal), s.Total(StatGRQTake),
				s.Total(StatWakep), s.Total(StatIdle))
			for pid := 0; pid < np; pid++ {
				t.Logf("  P%d: ctxswitch %d spin %d steals %d idle %d", pid, s.Stat(pid, StatCtxSwitch),
					s.Stat(pid, StatSpinStart), s.Stat(pid, StatSteal), s.Stat(pid, StatIdle))
			}
			return
		case <-time.After(2 * time.Second):
			if e := exited.Load(); e == last {
				stall++
				if stall == 5 {
					stop.Store(true)
					<-done
					t.Fatalf("%s: no progress for 10 s: exited %d/%d live %d grq %d idle %d spinning %d waitq %d",
						pol, e, ng, s.Live(), s.GRQLen(), s.NIdle(), s.Spinning(), len(waitq))
				}
			} else {
				last, stall = e, 0
			}
		}
	}
}
