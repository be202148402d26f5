// The split virtqueue's device side as the driver sees it: reaping used buffers, with
// validation, and interrupt suppression.
// SPDX-License-Identifier: BSD-3-Clause

package virtio

import "sync/atomic"

// PopStatus says what Pop found.
type PopStatus uint8

const (
	// PopEmpty: nothing (more) to consume now.
	PopEmpty PopStatus = iota
	// PopOK: a chain completed; the token and the used length are valid.
	PopOK
	// PopBadLen: a chain completed but the device reported more bytes than the chain offered.
	// The token is valid and the chain's descriptors are free again, but the data is not to be
	// trusted: the caller drops it and recycles the buffer (counted in QueueStats.BadLen).
	PopBadLen
)

// pending validates and returns how many used entries are waiting. A used.idx more than the
// queue size ahead of what we consumed (or behind it, which in 16-bit arithmetic is the same
// thing) cannot come from a correct device: the queue is marked broken.
func (q *Queue) pending() uint16 {
	if q.broken || q.size == 0 {
		return 0
	}
	if q.seenUsed == q.lastUsed {
		_, idx := q.usedHeader()
		if uint16(idx-q.lastUsed) > q.size {
			q.broken = true
			q.stats.IdxJump++
			return 0
		}
		q.seenUsed = idx
	}
	return q.seenUsed - q.lastUsed
}

// Pending reports whether used entries are waiting (one atomic load; for a poller).
func (q *Queue) Pending() bool { return q.pending() != 0 }

// Pop consumes used entries until it finds a completed chain, and returns its token and the
// length the device wrote (PopOK), or the token of a chain with an impossible length
// (PopBadLen), or PopEmpty. Entries naming an id ≥ the size or a descriptor that is not the
// head of a chain in flight, or published before that chain was posted, are skipped and
// counted: a descriptor is never freed twice, nor freed by a stale duplicate. At most
// one queue's worth of entries is examined per call, so a device that keeps writing garbage
// cannot hold the caller.
func (q *Queue) Pop() (token uint32, n uint32, st PopStatus) {
	for budget := q.size; budget > 0; budget-- {
		if q.pending() == 0 {
			return 0, 0, PopEmpty
		}
		e := q.used + usedRing + uintptr(q.lastUsed&q.mask)*usedElemSize
		id := atomic.LoadUint32((*uint32)(ptr(e)))
		ln := atomic.LoadUint32((*uint32)(ptr(e + 4)))
		pos := q.consumed
		q.lastUsed++
		q.consumed++
		if id >= uint32(q.size) {
			q.stats.BadID++
			continue
		}
		head := uint16(id)
		if q.state[head] != descHead {
			q.stats.NotInFlight++
			continue
		}
		if pos < q.stamp[head] {
			// Published before we (re-)posted head: the device completing an earlier use of
			// the same descriptor twice. Without this check a duplicate would complete the
			// buffer posted since under the same id (ABA).
			q.stats.Stale++
			continue
		}
		token = q.token[head]
		limit := q.limit[head]
		q.freeChain(head)
		if ln > limit {
			q.stats.BadLen++
			return token, 0, PopBadLen
		}
		q.stats.Used++
		return token, ln, PopOK
	}
	return 0, 0, PopEmpty
}

// freeChain returns head's chain to the free FIFO, following our shadow of the links (never
// the table the device could have scribbled on). The walk stops at a descriptor that is not
// part of a chain: the shadow is consistent, so that never happens, but it also bounds it.
func (q *Queue) freeChain(head uint16) {
	q.inflight--
	i := head
	for n := uint16(0); n < q.size; n++ {
		link := q.link[i]
		q.state[i] = descFree
		q.link[i] = 0
		q.pushFree(i)
		if link == 0 {
			return
		}
		i = link - 1
		if q.state[i] != descChained {
			return
		}
	}
}

// DisableInterrupts asks the device not to interrupt for this queue (VIRTQ_AVAIL_F_NO_INTERRUPT,
// §2.7.10): a hint, the device may still interrupt. Used while a poller drains the queue.
func (q *Queue) DisableInterrupts() {
	if q.size == 0 || q.availFlag&availFNoIntr != 0 {
		return
	}
	q.availFlag |= availFNoIntr
	atomic.StoreUint32((*uint32)(ptr(q.avail)), uint32(q.availFlag)|uint32(q.pubIdx)<<16)
}

// EnableInterrupts clears VIRTQ_AVAIL_F_NO_INTERRUPT and then re-reads used.idx: a completion
// the device wrote while interrupts were off (and so did not signal) is reported as pending,
// and the caller polls again instead of waiting for an interrupt that will not come.
func (q *Queue) EnableInterrupts() (pending bool) {
	if q.size == 0 {
		return false
	}
	q.availFlag &^= availFNoIntr
	atomic.StoreUint32((*uint32)(ptr(q.avail)), uint32(q.availFlag)|uint32(q.pubIdx)<<16)
	q.seenUsed = q.lastUsed // force a fresh read of used.idx, after the store
	return q.pending() != 0
}
