// Policy fair: weighted fair queueing per P, an EEVDF-lite.
// SPDX-License-Identifier: BSD-3-Clause

package sched

// fair approximates Linux's EEVDF (Earliest Eligible Virtual Deadline
// First, Stoica & Abdel-Wahab 1995; Linux 6.6 kernel/sched/fair.c) per P.
//
// Idea: each G has a weight w (1024 = nice 0) and a virtual run time v that
// grows by ran*1024/w while it runs (Sched.dropg), so heavier Gs age
// slower and get proportionally more CPU. A queued G is *eligible* when v is
// at most the weighted average v of its P's queue (it is owed service), and
// gets a virtual deadline d = v + request*1024/w. PickNext runs the eligible
// G with the earliest deadline: short requests and owed Gs go first, which
// bounds latency without letting a sleeper hoard credit. A running G is
// preempted once it has run one request (Slice/4) and someone else waits.
//
// Lite: the queue is an unsorted intrusive list scanned on each pick
// (O(queued Gs), no red-black tree); the running G is not part of the
// average; v is P-relative and clamped into [minVR-request, minVR+request]
// when a G (re)joins a queue, which is how wake-ups and migrations between
// Ps are normalised (Linux keeps the lag instead). Stealing takes one G from
// the longest other queue per raid.
//
// Trade-off: weights are honoured and latency is bounded by the request
// size, at the cost of more context switches (shorter requests) and a
// per-P lock plus an O(n) scan on every pick.
type fair struct{}

var fairPolicy fair

func (*fair) Name() string { return "fair" }

func (*fair) Init(s *Sched) {}

// request is the virtual-time request size: a quarter of the slice.
func (s *Sched) fairRequest() int64 { return s.slice / 4 }

// Enqueue: onto the enqueuing P's list, with v clamped around the P's floor
// and a fresh deadline. Idle Ps may steal it.
func (*fair) Enqueue(s *Sched, pid int, gp GID, why Why) int {
	pp := &s.allp[pid]
	g := &s.allg[gp]
	r := s.fairRequest()
	pp.lock.lock()
	switch {
	case why == WhyNew:
		g.vruntime = pp.minVR
	case g.vruntime < pp.minVR-r:
		g.vruntime = pp.minVR - r // sleeper credit capped at one request
	case g.vruntime > pp.minVR+r && why != WhyPreempt && why != WhyYield && why != WhyGosched:
		g.vruntime = pp.minVR + r // migrated from a P whose clock ran ahead
	}
	g.deadline = g.vruntime + r*DefaultWeight/int64(g.weight)
	s.listPushBack(&pp.list, gp)
	pp.sumW += int64(g.weight)
	pp.lock.unlock()
	if why == WhyYield {
		return WakeNone
	}
	return WakeAny
}

// PickNext: the eligible G with the earliest virtual deadline.
func (*fair) PickNext(s *Sched, pid int) (GID, bool) {
	pp := &s.allp[pid]
	pp.lock.lock()
	gp := s.fairPickLocked(pp)
	pp.lock.unlock()
	if gp != 0 {
		pp.stats.add(StatLRQHit, 1)
	}
	return gp, false
}

// fairPickLocked removes and returns the EEVDF choice from pp.list.
// pp.lock must be held.
func (s *Sched) fairPickLocked(pp *P) GID {
	if pp.list.head == 0 {
		return 0
	}
	// Weighted average of v, relative to the floor to keep sums small.
	var sum int64
	minV := int64(1<<63 - 1)
	for gp := pp.list.head; gp != 0; gp = s.allg[gp].schedlink {
		g := &s.allg[gp]
		sum += (g.vruntime - pp.minVR) * int64(g.weight)
		minV = min(minV, g.vruntime)
	}
	avg := pp.minVR + sum/max(pp.sumW, 1)
	var best, bestPrev, prev GID
	for gp := pp.list.head; gp != 0; prev, gp = gp, s.allg[gp].schedlink {
		g := &s.allg[gp]
		if g.vruntime > avg && g.vruntime != minV {
			continue // not eligible (the minimum always is)
		}
		if best == 0 || g.deadline < s.allg[best].deadline {
			best, bestPrev = gp, prev
		}
	}
	s.listRemove(&pp.list, bestPrev, best)
	pp.sumW -= int64(s.allg[best].weight)
	pp.minVR = max(pp.minVR, minV)
	return best
}

// Steal: take the head of the longest other queue (one G per raid), moving
// its v from the victim's clock to ours.
func (*fair) Steal(s *Sched, pid int) GID {
	var victim int = -1
	var most int32
	for i := 0; i < int(s.np); i++ {
		if i == pid {
			continue
		}
		if n := s.listLen(&s.allp[i]); n > most {
			victim, most = i, n
		}
	}
	if victim < 0 {
		return 0
	}
	p2 := &s.allp[victim]
	p2.lock.lock()
	gp := s.listPop(&p2.list)
	var rel int64
	if gp != 0 {
		p2.sumW -= int64(s.allg[gp].weight)
		rel = s.allg[gp].vruntime - p2.minVR
	}
	p2.lock.unlock()
	if gp == 0 {
		return 0
	}
	pp := &s.allp[pid]
	g := &s.allg[gp]
	pp.lock.lock()
	shift := pp.minVR + rel - g.vruntime
	pp.lock.unlock()
	g.vruntime += shift
	g.deadline += shift
	pp.stats.add(StatSteal, 1)
	pp.stats.add(StatStolenG, 1)
	s.traceEv(TraceSteal, pid, gp, s.plat.Now())
	return gp
}

// Tick: preempt after one request if anyone else waits on this P.
func (*fair) Tick(s *Sched, pid int, gp GID, now, sliceStart, ran int64) bool {
	return ran >= s.fairRequest() && s.listLen(&s.allp[pid]) > 0
}

// TickAt: when gp has run one request.
func (*fair) TickAt(s *Sched, pid int, gp GID, sliceStart, runStart int64) int64 {
	return runStart + s.fairRequest()
}

// HasWork: any P's list is non-empty (Steal can reach all of them).
func (*fair) HasWork(s *Sched, pid int) bool {
	for i := 0; i < int(s.np); i++ {
		if s.listLen(&s.allp[i]) > 0 {
			return true
		}
	}
	return false
}
