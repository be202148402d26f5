// Policy local: one FIFO per P, Gs stay on their home P, no stealing.
// SPDX-License-Identifier: BSD-3-Clause

package sched

// local gives each P its own unbounded FIFO (P.list under P.lock). A G's
// home is the P that created it; it always returns there.
//
// Idea: perfect affinity and no shared lock on the fast path; the
// assignment at creation decides everything (like a static partitioning of
// work, or per-CPU run queues without a load balancer).
//
// Trade-off: no balancing at all. Spawn 1000 Gs on one P and the other Ps
// stay idle while that P has a long queue: the simulator's spawn-storm shows
// three idle cores out of four. Waking a G on another core's home queue
// needs a cross-core wake-up (the hint names the home P).
type local struct{}

var localPolicy local

func (*local) Name() string { return "local" }

func (*local) Init(s *Sched) {}

// Enqueue: to the tail of the G's home P; wake that P if it is someone
// else's (it may be idle).
func (*local) Enqueue(s *Sched, pid int, gp GID, why Why) int {
	home := pid
	if lp := int(s.allg[gp].lastP.Load()); why != WhyNew && lp >= 0 && lp < int(s.np) {
		home = lp
	}
	pp := &s.allp[home]
	pp.lock.lock()
	s.listPushBack(&pp.list, gp)
	pp.lock.unlock()
	if home == pid {
		return WakeNone
	}
	return home
}

// PickNext: the head of this P's FIFO.
func (*local) PickNext(s *Sched, pid int) (GID, bool) {
	pp := &s.allp[pid]
	pp.lock.lock()
	gp := s.listPop(&pp.list)
	pp.lock.unlock()
	if gp != 0 {
		pp.stats.add(StatLRQHit, 1)
	}
	return gp, false
}

// Steal: never (that is the point of this policy).
func (*local) Steal(s *Sched, pid int) GID { return 0 }

// Tick: round robin within the P once someone else waits.
func (*local) Tick(s *Sched, pid int, gp GID, now, sliceStart, ran int64) bool {
	return now-sliceStart >= s.slice && s.listLen(&s.allp[pid]) > 0
}

// TickAt: when the slice runs out.
func (*local) TickAt(s *Sched, pid int, gp GID, sliceStart, runStart int64) int64 {
	return sliceStart + s.slice
}

// HasWork: this P's FIFO is non-empty.
func (*local) HasWork(s *Sched, pid int) bool { return s.listLen(&s.allp[pid]) > 0 }

// listLen reads the length of pp's policy list under its lock.
func (s *Sched) listLen(pp *P) int32 {
	pp.lock.lock()
	n := pp.list.size
	pp.lock.unlock()
	return n
}
