// Policy global: one shared FIFO for all Ps.
// SPDX-License-Identifier: BSD-3-Clause

package sched

// global keeps every runnable G on the one global run queue.
//
// Idea: the textbook single run queue (xv6, early Linux O(n)): perfect load
// balance and strict FIFO order across cores, since any idle P takes the
// oldest runnable G.
//
// Trade-off: every enqueue and every pick takes the same spinlock, so with
// many Ps the lock and its cache line become the bottleneck (compare the
// GRQ counter and the makespan with gmp in the simulator), and Gs migrate
// freely between cores, losing cache locality. No runnext: a readied G
// queues behind everything else.
type global struct{}

var globalPolicy global

func (*global) Name() string { return "global" }

func (*global) Init(s *Sched) {}

// Enqueue: everything to the GRQ tail. A yielding G needs nobody woken (its
// own P reschedules at once); anything else may be taken by an idle P.
func (*global) Enqueue(s *Sched, pid int, gp GID, why Why) int {
	s.globrunqput(gp)
	if why == WhyYield {
		return WakeNone
	}
	return WakeAny
}

// PickNext: the GRQ head.
func (*global) PickNext(s *Sched, pid int) (GID, bool) {
	gp := s.globrunqget()
	if gp != 0 {
		s.allp[pid].stats.add(StatGRQTake, 1)
	}
	return gp, false
}

// Steal: there is nothing private to steal from.
func (*global) Steal(s *Sched, pid int) GID { return 0 }

// Tick: round robin with the configured slice.
func (*global) Tick(s *Sched, pid int, gp GID, now, sliceStart, ran int64) bool {
	return now-sliceStart >= s.slice && s.grqSize.Load() > 0
}

// TickAt: when the slice runs out.
func (*global) TickAt(s *Sched, pid int, gp GID, sliceStart, runStart int64) int64 {
	return sliceStart + s.slice
}

// HasWork: the GRQ is non-empty.
func (*global) HasWork(s *Sched, pid int) bool { return s.grqSize.Load() > 0 }
