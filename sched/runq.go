// Local run queues: the lock-free per-P ring and the runnext slot.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import "sync/atomic"

// The LRQ is a 256-slot ring indexed by free-running uint32 head and tail
// (runqtail-runqhead is the length even across wrap-around). One producer
// (the owner P, in runqput/runqputbatch/runqsteal) advances tail with a
// store-release; consumers (the owner in runqget, thieves in runqgrab)
// advance head with a CAS. Slots are atomic so that a thief's speculative
// read of a slot the producer is rewriting is not a data race; the head CAS
// decides whether the read counted. See runtime/proc.go runqput..runqsteal.

// runqempty reports whether pp has no Gs on its LRQ or in runnext.
// Mirrors runqempty: tail is read twice around runnext, because a G can move
// from runnext to the ring (runqput kicking it out) between the reads; if
// tail did not change, the three reads were a consistent snapshot.
// Can be executed by any P.
func (s *Sched) runqempty(pp *P) bool {
	for {
		head := pp.runqhead.Load()
		tail := pp.runqtail.Load()
		runnext := pp.runnext.Load()
		if tail == pp.runqtail.Load() {
			return head == tail && runnext == 0
		}
	}
}

// runqput tries to put gp on the local runnable queue.
// If next is false, runqput adds gp to the tail of the runnable queue.
// If next is true, runqput puts gp in pp.runnext and kicks the previous
// runnext G (if any) to the tail. If the ring is full, runqputslow moves half
// of it to the GRQ. Mirrors runqput.
// Executed only by the owner P.
func (s *Sched) runqput(pp *P, gp GID, next bool) {
	if next {
		for {
			old := pp.runnext.Load()
			if pp.runnext.CompareAndSwap(old, uint32(gp)) { // cas-release
				pp.runnextSince.Store(s.allg[gp].runnableSince)
				if old == 0 {
					return
				}
				// Kick the old runnext out to the regular run queue.
				gp = GID(old)
				break
			}
		}
	}
	for {
		h := pp.runqhead.Load() // load-acquire, synchronize with consumers
		t := pp.runqtail.Load()
		if t-h < runqSize {
			pp.runq[t%runqSize].Store(uint32(gp))
			pp.runqtail.Store(t + 1) // store-release, makes the item available for consumption
			return
		}
		if s.runqputslow(pp, gp, h, t) {
			return
		}
		// the queue is not full, now the put above must succeed
	}
}

// runqputslow moves gp and a batch of work (half the ring) from the local
// runnable queue to the global queue, as one locked operation.
// Mirrors runqputslow. Executed only by the owner P.
func (s *Sched) runqputslow(pp *P, gp GID, h, t uint32) bool {
	var batch [runqSize/2 + 1]GID // on the stack: 516 bytes, no allocation

	// First, grab a batch from the local queue.
	n := t - h
	n = n / 2
	if n != runqSize/2 {
		throw("runqputslow: queue is not full")
	}
	for i := uint32(0); i < n; i++ {
		batch[i] = GID(pp.runq[(h+i)%runqSize].Load())
	}
	if !pp.runqhead.CompareAndSwap(h, h+n) { // cas-release, commits consume
		return false
	}
	batch[n] = gp

	// Link the Gs together and put them on the global queue in one go.
	s.grqLock.lock()
	for i := uint32(0); i <= n; i++ {
		s.listPushBack(&s.grq, batch[i])
	}
	s.grqSize.Store(s.grq.size)
	s.grqLock.unlock()
	pp.stats.add(StatGRQOverflow, 1)
	return true
}

// runqget gets a G from the local runnable queue. If inheritTime is true, gp
// should inherit the remaining time in the current time slice (it came from
// runnext). Otherwise it should start a new time slice. Mirrors runqget.
// Executed only by the owner P.
func (s *Sched) runqget(pp *P) (gp GID, inheritTime bool) {
	// If there's a runnext, it's the next G to run.
	next := pp.runnext.Load()
	// If the runnext is non-0 and the CAS fails, it could only have been
	// stolen by another P, because other Ps can race to set runnext to 0,
	// but only the current P can set it to non-0. Hence, there's no need
	// to retry this CAS if it fails.
	if next != 0 && pp.runnext.CompareAndSwap(next, 0) {
		return GID(next), true
	}
	for {
		h := pp.runqhead.Load() // load-acquire, synchronize with other consumers
		t := pp.runqtail.Load()
		if t == h {
			return 0, false
		}
		gp := GID(pp.runq[h%runqSize].Load())
		if pp.runqhead.CompareAndSwap(h, h+1) { // cas-release, commits consume
			return gp, false
		}
	}
}

// runqgrab grabs a batch of Gs from pp's runnable queue into batch, a ring
// starting at batchHead, and returns the number grabbed. If the ring is empty
// and stealRunNextG is set, it may take pp.runnext instead, but only once
// that G has sat there for at least runnextGrace: runqgrab sleeps 3 µs to
// give pp a chance to run a G it just readied; a non-blocking scheduler
// compares the G's age instead. Mirrors runqgrab. Can be executed by any P.
func (s *Sched) runqgrab(pp *P, batch *[runqSize]atomic.Uint32, batchHead uint32, stealRunNextG bool, now int64) uint32 {
	for {
		h := pp.runqhead.Load() // load-acquire, synchronize with other consumers
		t := pp.runqtail.Load() // load-acquire, synchronize with the producer
		n := t - h
		n = n - n/2
		if n == 0 {
			if stealRunNextG {
				// Try to steal from pp.runnext.
				if next := pp.runnext.Load(); next != 0 {
					if now-pp.runnextSince.Load() < s.runnextGrace {
						// Too fresh: pp probably readied it and is about
						// to block and run it. Stealing now would bounce
						// the G between Ps.
						return 0
					}
					if !pp.runnext.CompareAndSwap(next, 0) {
						continue
					}
					batch[batchHead%runqSize].Store(next)
					return 1
				}
			}
			return 0
		}
		if n > runqSize/2 { // read inconsistent h and t
			continue
		}
		for i := uint32(0); i < n; i++ {
			batch[(batchHead+i)%runqSize].Store(pp.runq[(h+i)%runqSize].Load())
		}
		if pp.runqhead.CompareAndSwap(h, h+n) { // cas-release, commits consume
			return n
		}
	}
}

// runqsteal steals half of the Gs from p2's local runnable queue and puts
// them onto pp's; it returns one of the stolen Gs to run, or 0. The grab
// writes straight into pp's ring past its tail: those slots are free and
// invisible to consumers until the tail store publishes them.
// Mirrors runqsteal; also returns how many Gs were taken (for the stats).
// Executed only by the owner P of pp.
func (s *Sched) runqsteal(pp, p2 *P, stealRunNextG bool, now int64) (GID, uint32) {
	t := pp.runqtail.Load()
	n := s.runqgrab(p2, &pp.runq, t, stealRunNextG, now)
	if n == 0 {
		return 0, 0
	}
	stolen := n
	n--
	gp := GID(pp.runq[(t+n)%runqSize].Load())
	if n == 0 {
		return gp, stolen
	}
	h := pp.runqhead.Load() // load-acquire, synchronize with consumers
	if t-h+n >= runqSize {
		throw("runqsteal: runq overflow")
	}
	pp.runqtail.Store(t + n) // store-release, makes the item available for consumption
	return gp, stolen
}

// runqlen is the LRQ length (racy snapshot, excludes runnext).
func (pp *P) runqlen() uint32 {
	return pp.runqtail.Load() - pp.runqhead.Load()
}
