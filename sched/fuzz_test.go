// Fuzz tests: queue operations against a simple slice model.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import (
	"bytes"
	"slices"
	"testing"
)

// runqModel is the obvious, slow implementation of two Ps' runq/runnext
// plus the GRQ, following the runtime's semantics.
type runqModel struct {
	next [2]GID
	q    [2][]GID
	grq  []GID
}

func (m *runqModel) put(pid int, gp GID, next bool) {
	if next {
		old := m.next[pid]
		m.next[pid] = gp
		if old == 0 {
			return
		}
		gp = old
	}
	if len(m.q[pid]) < runqSize {
		m.q[pid] = append(m.q[pid], gp)
		return
	}
	// runqputslow: the older half and the new G go to the GRQ.
	m.grq = append(m.grq, m.q[pid][:runqSize/2]...)
	m.grq = append(m.grq, gp)
	m.q[pid] = slices.Clone(m.q[pid][runqSize/2:])
}

func (m *runqModel) get(pid int) (GID, bool) {
	if gp := m.next[pid]; gp != 0 {
		m.next[pid] = 0
		return gp, true
	}
	if len(m.q[pid]) == 0 {
		return 0, false
	}
	gp := m.q[pid][0]
	m.q[pid] = m.q[pid][1:]
	return gp, false
}

// steal: P to steals from P 1-to (to's queue is empty).
func (m *runqModel) steal(to int, runnext bool) GID {
	from := 1 - to
	n := len(m.q[from])
	n -= n / 2
	if n == 0 {
		if runnext && m.next[from] != 0 {
			gp := m.next[from]
			m.next[from] = 0
			return gp
		}
		return 0
	}
	batch := m.q[from][:n]
	m.q[from] = slices.Clone(m.q[from][n:])
	m.q[to] = append(m.q[to], batch[:n-1]...)
	return batch[n-1]
}

func (m *runqModel) grqGet(pid, np int) GID {
	if len(m.grq) == 0 {
		return 0
	}
	n := min(runqSize/2, len(m.grq), len(m.grq)/np+1)
	gp := m.grq[0]
	room := runqSize - len(m.q[pid])
	k := min(n-1, room)
	m.q[pid] = append(m.q[pid], m.grq[1:1+k]...)
	m.grq = slices.Clone(m.grq[1+k:])
	return gp
}

// FuzzRunqOps runs a byte-coded sequence of operations on P0/P1 and the
// GRQ of a real Sched and on runqModel, and compares every result and the
// final contents.
func FuzzRunqOps(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3, 4, 5})
	f.Add(bytes.Repeat([]byte{0}, 300))              // overflow to the GRQ
	f.Add(append(bytes.Repeat([]byte{6}, 40), 3, 3)) // runnext kicks, steals
	f.Add([]byte{6, 6, 3, 9, 3, 2, 4, 5, 1, 1, 1})
	f.Add(append(bytes.Repeat([]byte{0, 6, 12}, 200), 4, 4, 5, 3, 1, 2))
	f.Fuzz(func(t *testing.T, ops []byte) {
		s, fp := newTestSched(t, 2, "gmp")
		s.runnextGrace = 0
		var m runqModel
		nextG := GID(1)
		for i, b := range ops {
			pid := int(b/6) % 2
			pp := &s.allp[pid]
			switch b % 6 {
			case 0, 3: // put to tail / runnext (3: next)
				if int(nextG) >= MaxG {
					continue
				}
				gp := nextG
				nextG++
				s.allg[gp].status.Store(uint32(Grunnable))
				s.runqput(pp, gp, b%6 == 3)
				m.put(pid, gp, b%6 == 3)
			case 1: // get
				gp, inh := s.runqget(pp)
				mg, minh := m.get(pid)
				if gp != mg || inh != minh {
					t.Fatalf("op %d get P%d: got %d/%v, model %d/%v", i, pid, gp, inh, mg, minh)
				}
			case 2, 5: // steal into pid (only legal if its LRQ is empty)
				if pp.runqlen() != 0 {
					continue
				}
				gp, _ := s.runqsteal(pp, &s.allp[1-pid], b%6 == 5, fp.Now())
				if mg := m.steal(pid, b%6 == 5); gp != mg {
					t.Fatalf("op %d steal into P%d: got %d, model %d", i, pid, gp, mg)
				}
			case 4: // GRQ batch into pid
				gp := s.globrunqgetbatch(pp, runqSize/2)
				if mg := m.grqGet(pid, 2); gp != mg {
					t.Fatalf("op %d grq get P%d: got %d, model %d", i, pid, gp, mg)
				}
			}
		}
		for pid := 0; pid < 2; pid++ {
			pp := &s.allp[pid]
			if GID(pp.runnext.Load()) != m.next[pid] {
				t.Fatalf("P%d runnext %d, model %d", pid, pp.runnext.Load(), m.next[pid])
			}
			var q []GID
			for h := pp.runqhead.Load(); h != pp.runqtail.Load(); h++ {
				q = append(q, GID(pp.runq[h%runqSize].Load()))
			}
			if !slices.Equal(q, m.q[pid]) {
				t.Fatalf("P%d runq %v, model %v", pid, q, m.q[pid])
			}
		}
		var g []GID
		for gp := s.grq.head; gp != 0; gp = s.allg[gp].schedlink {
			g = append(g, gp)
		}
		if !slices.Equal(g, m.grq) || int(s.grqSize.Load()) != len(m.grq) {
			t.Fatalf("GRQ %v, model %v", g, m.grq)
		}
	})
}

// FuzzGList checks the intrusive list against a slice: push back/front,
// pop, and remove-by-scan in any order.
func FuzzGList(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0, 0, 2, 3})
	f.Add(bytes.Repeat([]byte{0, 1, 3}, 50))
	f.Fuzz(func(t *testing.T, ops []byte) {
		var s Sched
		var l gList
		var model []GID
		next := GID(1)
		for _, b := range ops {
			switch b % 4 {
			case 0, 1:
				if int(next) >= MaxG {
					continue
				}
				if b%4 == 0 {
					s.listPushBack(&l, next)
					model = append(model, next)
				} else {
					s.listPushFront(&l, next)
					model = append([]GID{next}, model...)
				}
				next++
			case 2:
				gp := s.listPop(&l)
				var want GID
				if len(model) > 0 {
					want, model = model[0], model[1:]
				}
				if gp != want {
					t.Fatalf("pop %d want %d", gp, want)
				}
			case 3: // remove the element at index b/4 % len
				if len(model) == 0 {
					continue
				}
				k := int(b/4) % len(model)
				var prev GID
				gp := l.head
				for i := 0; i < k; i++ {
					prev, gp = gp, s.allg[gp].schedlink
				}
				s.listRemove(&l, prev, gp)
				model = slices.Delete(model, k, k+1)
			}
			var got []GID
			for gp := l.head; gp != 0; gp = s.allg[gp].schedlink {
				got = append(got, gp)
			}
			if !slices.Equal(got, model) || int(l.size) != len(model) {
				t.Fatalf("list %v size %d, model %v", got, l.size, model)
			}
			if len(model) > 0 && l.tail != model[len(model)-1] || len(model) == 0 && l.tail != 0 {
				t.Fatalf("tail %d, model %v", l.tail, model)
			}
		}
	})
}
