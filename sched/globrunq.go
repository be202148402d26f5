// The global run queue (GRQ): an unbounded intrusive FIFO under a spinlock.
// SPDX-License-Identifier: BSD-3-Clause

package sched

// globrunqput puts gp on the tail of the global runnable queue.
// Mirrors globrunqput (which expects sched.lock held; here the function
// takes grqLock itself, because it is the only lock it needs).
// Can be executed by any P.
func (s *Sched) globrunqput(gp GID) {
	s.grqLock.lock()
	s.listPushBack(&s.grq, gp)
	s.grqSize.Store(s.grq.size)
	s.grqLock.unlock()
}

// globrunqget takes one G from the head of the GRQ, or returns 0.
// Mirrors globrunqget. Can be executed by any P.
func (s *Sched) globrunqget() GID {
	if s.grqSize.Load() == 0 { // racy fast path; the locked pop decides
		return 0
	}
	s.grqLock.lock()
	gp := s.listPop(&s.grq)
	s.grqSize.Store(s.grq.size)
	s.grqLock.unlock()
	return gp
}

// globrunqgetbatch takes min(max, size, size/nP+1) Gs from the GRQ: the first
// is returned to run, the rest go onto pp's LRQ (runqputbatch, done here under
// the lock because the ring is lock-free for its owner anyway).
// Mirrors globrunqgetbatch + runqputbatch. Executed only by the owner P.
func (s *Sched) globrunqgetbatch(pp *P, max int32) GID {
	if s.grqSize.Load() == 0 {
		return 0
	}
	s.grqLock.lock()
	size := s.grq.size
	if size == 0 {
		s.grqLock.unlock()
		return 0
	}
	n := min(max, size, size/s.np+1)
	gp := s.listPop(&s.grq)
	n--
	h := pp.runqhead.Load() // load-acquire, synchronize with consumers
	t := pp.runqtail.Load()
	for ; n > 0 && t-h < runqSize; n-- {
		pp.runq[t%runqSize].Store(uint32(s.listPop(&s.grq)))
		t++
	}
	pp.runqtail.Store(t) // store-release
	s.grqSize.Store(s.grq.size)
	s.grqLock.unlock()
	return gp
}
