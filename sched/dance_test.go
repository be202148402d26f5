// The "Delicate dance" under real concurrency: a P going idle must not miss
// work submitted while it was deciding to.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestDelicateDance races, round after round, a spinning P1 that finds
// nothing and parks against P0 submitting a stealable G while P1 spins
// (so P0's wakep sees nmspinning != 0 and wakes nobody). Afterwards either
// P1 took the G, or P1 has a WakeM pending: a halted P1 with the G still
// queued is a lost wake-up. Only the re-check after dropping spinning
// (findRunnable) closes that window.
func TestDelicateDance(t *testing.T) {
	rounds := 20000
	if testing.Short() || raceEnabled {
		rounds = 2000 // each round re-Inits a Sched: slow under -race
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs 2 threads")
	}
	s := new(Sched)
	f := new(fakePlatform)
	var (
		round atomic.Int64 // M1 waits for round > done
		done  atomic.Int64
		got   atomic.Uint32
	)
	go func() { // M1: the core of P1
		for r := int64(1); r <= int64(rounds); r++ {
			for round.Load() < r {
				runtime.Gosched() // the machine may have fewer free cores than goroutines
			}
			gp, _ := s.Schedule(1)
			got.Store(uint32(gp))
			done.Store(r)
		}
	}()
	lost, stolen := 0, 0
	for r := int64(1); r <= int64(rounds); r++ {
		if err := s.Init(Config{NP: 2, Platform: f}); err != nil {
			t.Fatal(err)
		}
		s.Schedule(1) // P1 idle
		a := s.NewProc(0)
		s.Schedule(0) // a runs on P0
		// NewProc(a)'s wakep claimed P1 (WakeM): P1 is spinning, so P0's
		// wakeps below will not wake anybody.
		if s.Idle(1) || s.Spinning() != 1 {
			t.Fatal("P1 not claimed by wakep")
		}
		w0 := f.wakes[1].Load()
		round.Store(r)
		for i := 0; i < int(r%7); i++ { // vary the interleaving
			spinSink.Load()
		}
		b := s.NewProc(0) // runnext
		c := s.NewProc(0) // runnext; b kicked to the LRQ: stealable
		for done.Load() < r {
			runtime.Gosched()
		}
		switch gp := GID(got.Load()); {
		case gp == b:
			stolen++
		case gp == 0 && f.wakes[1].Load() == w0 && s.allp[0].runqlen() == 1:
			lost++
		case gp != 0:
			t.Fatalf("round %d: P1 ran %d (a=%d b=%d c=%d)", r, gp, a, b, c)
		}
		if err := s.CheckInvariants(); err != nil {
			t.Fatalf("round %d: %v (got %d; nmspinning %d, spinning P0 %v P1 %v)\n%s", r, err, got.Load(),
				s.nmspinning.Load(), s.allp[0].spinning.Load(), s.allp[1].spinning.Load(), s.AppendTrace(nil))
		}
	}
	t.Logf("%d rounds: P1 stole the G %d times, lost wake-ups %d", rounds, stolen, lost)
	if lost != 0 {
		t.Fatalf("%d lost wake-ups", lost)
	}
}
