// Unit tests for the local run queue, runnext and the GRQ.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import "testing"

// takeG takes a free G and marks it runnable, bypassing Enqueue.
func takeG(t testing.TB, s *Sched) GID {
	gp := s.gfget()
	if gp == 0 {
		t.Fatal("G table full")
	}
	s.ngLive.Add(1)
	return gp
}

func TestRunqFIFO(t *testing.T) {
	s, _ := newTestSched(t, 2, "gmp")
	pp := &s.allp[0]
	var want []GID
	for i := 0; i < 10; i++ {
		gp := takeG(t, s)
		want = append(want, gp)
		s.runqput(pp, gp, false)
	}
	for i, w := range want {
		gp, inh := s.runqget(pp)
		if gp != w || inh {
			t.Fatalf("get %d: got %d inherit=%v, want %d false", i, gp, inh, w)
		}
	}
	if gp, _ := s.runqget(pp); gp != 0 {
		t.Fatalf("empty queue returned %d", gp)
	}
	if !s.runqempty(pp) {
		t.Fatal("runqempty false on empty queue")
	}
}

func TestRunnextKicksToTail(t *testing.T) {
	s, _ := newTestSched(t, 1, "gmp")
	pp := &s.allp[0]
	a, b, c := takeG(t, s), takeG(t, s), takeG(t, s)
	s.runqput(pp, a, false)
	s.runqput(pp, b, true)
	s.runqput(pp, c, true) // b kicked behind a
	for i, w := range []struct {
		g   GID
		inh bool
	}{{c, true}, {a, false}, {b, false}} {
		gp, inh := s.runqget(pp)
		if gp != w.g || inh != w.inh {
			t.Fatalf("get %d: got %d/%v want %d/%v", i, gp, inh, w.g, w.inh)
		}
	}
}

func TestRunqputslowOverflow(t *testing.T) {
	s, _ := newTestSched(t, 2, "gmp")
	pp := &s.allp[0]
	var gs []GID
	for i := 0; i < runqSize+1; i++ {
		gp := takeG(t, s)
		gs = append(gs, gp)
		s.runqput(pp, gp, false)
	}
	// Half the ring plus the new G moved to the GRQ as one batch.
	if got := pp.runqlen(); got != runqSize/2 {
		t.Fatalf("LRQ len %d, want %d", got, runqSize/2)
	}
	if got := s.GRQLen(); got != runqSize/2+1 {
		t.Fatalf("GRQ len %d, want %d", got, runqSize/2+1)
	}
	if s.Stat(0, StatGRQOverflow) != 1 {
		t.Fatal("overflow not counted")
	}
	// GRQ order: the oldest half first, then the new G.
	for i := 0; i <= runqSize/2; i++ {
		want := gs[i]
		if i == runqSize/2 {
			want = gs[runqSize]
		}
		if gp := s.globrunqget(); gp != want {
			t.Fatalf("GRQ %d: got %d want %d", i, gp, want)
		}
	}
	checkInvariantsNoStatus(t, s)
}

// checkInvariantsNoStatus checks queue membership only (takeG-made Gs are
// runnable but may be off-queue in these tests).
func checkInvariantsNoStatus(t *testing.T, s *Sched) {
	t.Helper()
	seen := map[GID]bool{}
	for i := 0; i < s.NP(); i++ {
		pp := &s.allp[i]
		for h := pp.runqhead.Load(); h != pp.runqtail.Load(); h++ {
			gp := GID(pp.runq[h%runqSize].Load())
			if seen[gp] {
				t.Fatalf("dup %d", gp)
			}
			seen[gp] = true
		}
	}
}

func TestRunqStealHalf(t *testing.T) {
	s, f := newTestSched(t, 2, "gmp")
	p0, p1 := &s.allp[0], &s.allp[1]
	for i := 0; i < 10; i++ {
		s.runqput(p0, takeG(t, s), false)
	}
	gp, n := s.runqsteal(p1, p0, false, f.Now())
	if gp == 0 || n != 5 {
		t.Fatalf("steal got %d, n=%d; want 5", gp, n)
	}
	if p0.runqlen() != 5 || p1.runqlen() != 4 {
		t.Fatalf("after steal: victim %d thief %d, want 5 and 4", p0.runqlen(), p1.runqlen())
	}
	// Odd count: steal ceil(n/2).
	gp, n = s.runqsteal(p1, p0, false, f.Now())
	if gp == 0 || n != 3 {
		t.Fatalf("second steal n=%d, want 3", n)
	}
}

func TestRunqStealRunnextAging(t *testing.T) {
	s, f := newTestSched(t, 2, "gmp")
	p0, p1 := &s.allp[0], &s.allp[1]
	gp := takeG(t, s)
	f.now.Store(1000)
	s.allg[gp].runnableSince = f.Now()
	s.runqput(p0, gp, true)
	if g, _ := s.runqsteal(p1, p0, false, f.Now()); g != 0 {
		t.Fatal("stole runnext without stealRunNextG")
	}
	if g, _ := s.runqsteal(p1, p0, true, f.Now()+DefaultRunnextGrace-1); g != 0 {
		t.Fatal("stole a fresh runnext")
	}
	if g, _ := s.runqsteal(p1, p0, true, f.Now()+DefaultRunnextGrace); g != gp {
		t.Fatalf("aged runnext not stolen: got %d", g)
	}
	if p0.runnext.Load() != 0 {
		t.Fatal("runnext still set after steal")
	}
}

func TestGlobrunqgetbatch(t *testing.T) {
	for _, tc := range []struct {
		np, size, wantTaken int
	}{
		{1, 10, 10},    // size/1+1 capped at size
		{4, 10, 3},     // 10/4+1
		{2, 1000, 128}, // capped at half the ring
		{4, 1, 1},
	} {
		s, _ := newTestSched(t, tc.np, "gmp")
		for i := 0; i < tc.size; i++ {
			s.globrunqput(takeG(t, s))
		}
		pp := &s.allp[0]
		if gp := s.globrunqgetbatch(pp, runqSize/2); gp == 0 {
			t.Fatalf("%+v: nothing taken", tc)
		}
		taken := int(pp.runqlen()) + 1
		if taken != tc.wantTaken || s.GRQLen() != tc.size-taken {
			t.Errorf("%+v: took %d (GRQ left %d), want %d", tc, taken, s.GRQLen(), tc.wantTaken)
		}
	}
}

func TestRandomOrderIsPermutation(t *testing.T) {
	for n := uint32(1); n <= MaxP; n++ {
		for r := uint32(0); r < 200; r += 7 {
			var o randomOrder
			seen := make(map[uint32]bool)
			for o.start(n, r*2654435761); !o.done(); o.next() {
				if seen[o.position()] {
					t.Fatalf("n=%d r=%d: %d twice", n, r, o.position())
				}
				seen[o.position()] = true
			}
			if len(seen) != int(n) {
				t.Fatalf("n=%d: %d positions", n, len(seen))
			}
		}
	}
}

// TestRunqEmptyAgreesWithRunqLen: RunqEmpty is RunqLen() == 0 whether the G waits in runnext,
// in the LRQ or on the policy's own list (local).
func TestRunqEmptyAgreesWithRunqLen(t *testing.T) {
	for _, policy := range []string{"gmp", "local"} {
		s, _ := newTestSched(t, 1, policy)
		pp := &s.allp[0]
		check := func(what string, want bool) {
			t.Helper()
			if got, n := s.RunqEmpty(0), s.RunqLen(0); got != want || got != (n == 0) {
				t.Fatalf("%s, %s: RunqEmpty %v, RunqLen %d; want empty %v", policy, what, got, n, want)
			}
		}
		check("nothing queued", true)
		a := takeG(t, s)
		s.runqput(pp, a, true)
		check("runnext", false)
		s.runqget(pp)
		check("runnext taken", true)
		s.runqput(pp, a, false)
		check("LRQ", false)
		s.runqget(pp)
		pp.lock.lock()
		s.listPushBack(&pp.list, a)
		pp.lock.unlock()
		check("policy list", false)
	}
}
