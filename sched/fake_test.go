// Test fakes: a manual clock platform and a scripted poller.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import (
	"sync/atomic"
	"testing"
)

// fakePlatform is a Platform with a manually advanced clock that counts
// WakeM/ParkM calls per P. Safe for concurrent use.
type fakePlatform struct {
	now   atomic.Int64
	auto  int64 // added to the clock on every Now() (0: manual only)
	wakes [MaxP]atomic.Int64
	parks [MaxP]atomic.Int64
}

func (f *fakePlatform) Now() int64 {
	if f.auto != 0 {
		return f.now.Add(f.auto)
	}
	return f.now.Load()
}
func (f *fakePlatform) WakeM(pid int) { f.wakes[pid].Add(1) }
func (f *fakePlatform) ParkM(pid int) { f.parks[pid].Add(1) }

// fakePoller returns the Gs queued in ready (one batch per Poll call; with
// blockOnly, only from a blocking poll).
type fakePoller struct {
	ready     []GID
	waiters   int
	polls     int
	blocks    int
	blockOnly bool
}

func (f *fakePoller) Poll(block bool, buf []GID) int {
	f.polls++
	if block {
		f.blocks++
	} else if f.blockOnly {
		return 0
	}
	n := copy(buf, f.ready)
	f.ready = f.ready[n:]
	f.waiters -= n
	return n
}

func (f *fakePoller) Waiters() bool { return f.waiters > 0 }

// traceRec records trace events (a TraceFunc that allocates: not for the
// AllocsPerRun tests).
type traceRec struct {
	evs []traceRecEv
}

type traceRecEv struct {
	ev  TraceEvent
	pid int
	gp  GID
}

func (r *traceRec) hook(ev TraceEvent, pid int, gp GID, now int64) {
	r.evs = append(r.evs, traceRecEv{ev, pid, gp})
}

// count returns how many ev events were recorded for gp.
func (r *traceRec) count(ev TraceEvent, gp GID) int {
	n := 0
	for _, e := range r.evs {
		if e.ev == ev && e.gp == gp {
			n++
		}
	}
	return n
}

// newTestSched returns an initialised Sched with np Ps under policy name.
func newTestSched(t testing.TB, np int, policy string) (*Sched, *fakePlatform) {
	t.Helper()
	s := new(Sched)
	f := new(fakePlatform)
	if err := s.Init(Config{NP: np, PolicyName: policy, Platform: f, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return s, f
}

// checkInvariants verifies that every live G is in exactly one place, by
// walking all queues. Only valid while no other goroutine uses s.
func checkInvariants(t testing.TB, s *Sched) {
	t.Helper()
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	var seen [MaxG]uint8
	mark := func(gp GID, where string) {
		if gp == 0 || int(gp) >= MaxG {
			t.Fatalf("%s: bad GID %d", where, gp)
		}
		seen[gp]++
		if seen[gp] > 1 {
			t.Fatalf("%s: G %d seen twice", where, gp)
		}
	}
	for i := 0; i < s.NP(); i++ {
		pp := &s.allp[i]
		if gp := pp.curg.Load(); gp != 0 {
			mark(GID(gp), "curg")
			if s.Status(GID(gp)) != Grunning {
				t.Fatalf("curg %d status %v", gp, s.Status(GID(gp)))
			}
		}
		if gp := pp.runnext.Load(); gp != 0 {
			mark(GID(gp), "runnext")
		}
		for h := pp.runqhead.Load(); h != pp.runqtail.Load(); h++ {
			mark(GID(pp.runq[h%runqSize].Load()), "runq")
		}
		n := int32(0)
		for gp := pp.list.head; gp != 0; gp = s.allg[gp].schedlink {
			mark(gp, "list")
			n++
		}
		if n != pp.list.size {
			t.Fatalf("P%d list size %d, walked %d", i, pp.list.size, n)
		}
	}
	n := int32(0)
	for gp := s.grq.head; gp != 0; gp = s.allg[gp].schedlink {
		mark(gp, "grq")
		n++
	}
	if n != s.grq.size || n != s.grqSize.Load() {
		t.Fatalf("grq size %d/%d, walked %d", s.grq.size, s.grqSize.Load(), n)
	}
	live := 0
	for gp := 1; gp < MaxG; gp++ {
		st := s.Status(GID(gp))
		switch st {
		case Grunnable, Grunning:
			if seen[gp] != 1 {
				t.Fatalf("G %d is %v but on %d queues", gp, st, seen[gp])
			}
		default:
			if seen[gp] != 0 {
				t.Fatalf("G %d is %v but queued", gp, st)
			}
		}
		if st != Gidle && st != Gdead {
			live++
		}
	}
	if live != s.Live() {
		t.Fatalf("live %d, counter %d", live, s.Live())
	}
}
