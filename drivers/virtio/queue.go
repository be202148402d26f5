// The split virtqueue (§2.7): layout, setup, adding buffers and notifying the device.
// SPDX-License-Identifier: BSD-3-Clause

package virtio

import (
	"sync/atomic"
	"unsafe"

	"gmpos/drivers/mmio"
)

// MaxQueueSize is the largest queue this package drives: 256 descriptors of 16 bytes fill
// exactly the descriptor table's page.
const MaxQueueSize = 256

// Split virtqueue layout (§2.7, all little endian):
//
//	descriptor table  struct virtq_desc[size]: le64 addr, le32 len, le16 flags, le16 next   (align 16)
//	driver area       struct virtq_avail: le16 flags, le16 idx, le16 ring[size], le16 used_event (align 2)
//	device area       struct virtq_used: le16 flags, le16 idx, {le32 id, le32 len}[size], le16 avail_event (align 4)
//
// Each lives in its own page (virtio 1.x takes three addresses, §4.1.4.3), so a size-256 queue
// needs 4096 + 518 + 2054 bytes in three pages and nothing straddles a page boundary.
const (
	descSize      = 16
	availRing     = 4 // offset of avail.ring[0]
	usedRing      = 4 // offset of used.ring[0]
	usedElemSize  = 8
	descFNext     = 1 // VIRTQ_DESC_F_NEXT: the chain continues at next (§2.7.5)
	descFWrite    = 2 // VIRTQ_DESC_F_WRITE: device-writable (otherwise device-readable)
	availFNoIntr  = 1 // VIRTQ_AVAIL_F_NO_INTERRUPT (§2.7.10)
	usedFNoNotify = 1 // VIRTQ_USED_F_NO_NOTIFY (§2.7.10)
)

// Descriptor states, in Queue.state.
const (
	descFree    = 0 // on the free stack
	descHead    = 1 // first descriptor of a chain the device owns
	descChained = 2 // a later descriptor of such a chain
)

// Queue is a split virtqueue, driver side. Buffers are added as chains of descriptors (Add: one
// descriptor, AddChain: several) with a caller's token; Kick makes them available and notifies
// the device unless it asked not to be; Pop returns completed chains' tokens and lengths after
// validating what the device wrote. No VIRTIO_F_EVENT_IDX: suppression uses the ring flags.
//
// Memory ordering — why sync/atomic on the ring headers. The device is another agent reading
// and writing these pages concurrently (a hypervisor thread, or real DMA). The flags and idx of
// each ring are two le16 fields in one naturally aligned 32-bit word at the start of a page; we
// access that word only with atomic.LoadUint32/StoreUint32 (flags in the low half, idx in the
// high half: both CPUs we run on are little endian, as virtio 1.x rings are). Go's atomics are
// sequentially consistent (the Go memory model), and the compiler neither reorders ordinary
// accesses across them nor caches them. On x86-64 a store is XCHG (a full fence) and a load a
// plain MOV (TSO keeps loads ordered); on arm64 they are STLR (release) and LDAR (acquire,
// and RCsc: an LDAR is not hoisted above an earlier STLR). That gives exactly:
//
//   - §2.7.13 / §2.7.13.3.1: the descriptors and the avail.ring entry (plain stores) are visible
//     before the new avail.idx (the release store that publishes them);
//   - §2.7.13.4 / §2.7.14: avail.idx is published before we read used.flags to decide whether
//     to notify, and avail.flags is written before we re-read used.idx in EnableInterrupts
//     (store→load ordering, which plain accesses do not give even on x86);
//   - §2.7.14 (device side): used.idx is read before the used elements it covers (acquire); the
//     elements themselves are read with atomic loads too, so each is read exactly once and the
//     value validated is the value used;
//   - the notify write (device memory, drivers/mmio) follows the used.flags load, hence the
//     publish.
//
// A Queue is plain data, usable as a package-level variable; its methods do not allocate. Not
// safe for concurrent use: one caller at a time (the kernel's BKL holder). Init is init-time; the
// rest may run in trap and interrupt context.
type Queue struct {
	index     uint16 // the queue's number on its device
	size      uint16 // power of 2, ≤ MaxQueueSize; 0 until Init
	mask      uint16
	desc      uintptr // virtual addresses of the three areas
	avail     uintptr
	used      uintptr
	notify    uintptr // the 16-bit notify register (0: none, a queue that never notifies)
	availIdx  uint16  // next avail.idx (entries added, not yet necessarily published)
	pubIdx    uint16  // avail.idx as last published
	kickIdx   uint16  // avail.idx when the device was last notified (or told not to be)
	availFlag uint16  // avail.flags as we want it
	lastUsed  uint16  // next used.idx to consume
	consumed  uint64  // used entries consumed in all (lastUsed without the wrap)
	seenUsed  uint16  // used.idx as last read (validated: lastUsed ≤ seenUsed ≤ lastUsed+size)
	broken    bool    // the device moved used.idx impossibly: nothing more is consumed
	nfree     uint16
	freeHead  uint16               // free[freeHead&mask] is the next free descriptor
	inflight  uint16               // chains the device owns
	free      [MaxQueueSize]uint16 // FIFO of free descriptors (see popFree)
	link      [MaxQueueSize]uint16 // our shadow of each descriptor's next, plus 1 (0: end of chain); the table is never read back
	state     [MaxQueueSize]uint8
	limit     [MaxQueueSize]uint32 // per head: the most bytes the device may report as used
	token     [MaxQueueSize]uint32 // per head: the caller's token
	stamp     [MaxQueueSize]uint64 // per head: used entries known published when it was posted
	stats     QueueStats
}

// QueueStats counts what happened on a queue; the error counters say what the device did
// wrong. Read with Queue.Stats.
type QueueStats struct {
	Added       uint64 // chains added
	Used        uint64 // chains completed and returned by Pop with StatusOK
	BadID       uint64 // used entries whose id was ≥ the queue size
	NotInFlight uint64 // used entries naming a descriptor that was not a chain's head in flight
	Stale       uint64 // used entries published before their head was (re-)posted: a duplicate
	BadLen      uint64 // used entries whose len exceeded what the chain offered
	IdxJump     uint64 // used.idx more than the queue size ahead (the queue is then broken)
	Kicks       uint64 // Kick or KickPrepare calls that published new entries
	Notifies    uint64 // ... and found a notification due (the rest were suppressed)
}

// Errors returns the sum of the device-error counters.
func (s *QueueStats) Errors() uint64 {
	return s.BadID + s.NotInFlight + s.Stale + s.BadLen + s.IdxJump
}

// Init sets queue index of t up with size min(want, the device's maximum) entries (§4.1.5.1.3):
// it checks the device's size (non-zero, a power of 2), allocates the three areas from alloc,
// writes the size and addresses, maps the queue's interrupts to MSI-X table entry vector
// (NoVector: none; the device's read-back must match), reads the queue's notify address
// (validated against the notification structure) and enables the queue. Call between Accept
// and DriverOK. want must be a power of 2 in 1..MaxQueueSize.
func (q *Queue) Init(t Transport, index, want, vector uint16, alloc PageAlloc) error {
	*q = Queue{}
	if want == 0 || want&(want-1) != 0 || want > MaxQueueSize {
		return ErrBadSize
	}
	if index >= t.NumQueues() {
		return ErrNoQueue
	}
	if t.QueueEnabled(index) {
		return ErrQueueEnabled
	}
	max := t.QueueMaxSize(index)
	switch {
	case max == 0:
		return ErrNoQueue
	case max&(max-1) != 0:
		return ErrQueueSize // split queues have power-of-2 sizes (§2.7)
	}
	size := want
	if max < size {
		size = max
	}
	var phys [3]uint64
	var virt [3]uintptr
	for i := range virt {
		v, p, ok := alloc()
		if !ok {
			return ErrNoMemory
		}
		if v%descSize != 0 || p%descSize != 0 {
			return ErrBadPage
		}
		virt[i], phys[i] = v, p
	}
	notify, ok := t.QueueNotifyAddr(index)
	if !ok {
		return ErrNotify
	}
	t.SetQueue(index, size, phys[0], phys[1], phys[2])
	if got := t.SetQueueVector(index, vector); got != vector {
		return ErrVector
	}
	q.index, q.size, q.mask = index, size, size-1
	q.desc, q.avail, q.used, q.notify = virt[0], virt[1], virt[2], notify
	for i := uint16(0); i < size; i++ {
		q.free[i] = i
	}
	q.nfree = size
	t.EnableQueue(index)
	return nil
}

// InitMemory sets q up over three pages the caller already has (virtual addresses; each
// 16-byte aligned) without a transport, for a transport-less device model or a test. notify is
// the notify register's address (0: Kick never notifies).
func (q *Queue) InitMemory(index, size uint16, desc, avail, used, notify uintptr) error {
	*q = Queue{}
	if size == 0 || size&(size-1) != 0 || size > MaxQueueSize {
		return ErrBadSize
	}
	if desc%descSize != 0 || avail%descSize != 0 || used%descSize != 0 {
		return ErrBadPage
	}
	q.index, q.size, q.mask = index, size, size-1
	q.desc, q.avail, q.used, q.notify = desc, avail, used, notify
	for i := uint16(0); i < size; i++ {
		q.free[i] = i
	}
	q.nfree = size
	return nil
}

// Size is the queue's size (0 before Init).
func (q *Queue) Size() uint16 { return q.size }

// Index is the queue's number on its device.
func (q *Queue) Index() uint16 { return q.index }

// Free is how many descriptors are free.
func (q *Queue) Free() int { return int(q.nfree) }

// InFlight is how many chains the device owns.
func (q *Queue) InFlight() int { return int(q.inflight) }

// Broken reports that the device moved used.idx impossibly (more than the queue size ahead):
// the queue no longer delivers anything; the device needs a reset.
func (q *Queue) Broken() bool { return q.broken }

// Stats returns the queue's counters.
func (q *Queue) Stats() QueueStats { return q.stats }

// Segment is one buffer of a chain: physical address, length, and whether the device writes
// it (otherwise it reads it).
type Segment struct {
	Phys  uint64
	Len   uint32
	Write bool
}

// Add adds a one-descriptor buffer (physical address phys, n bytes; device-writable if write)
// with the caller's token, which Pop returns when the device is done with it. It is not visible
// to the device until Kick. ok is false when no descriptor is free or n is 0.
func (q *Queue) Add(phys uint64, n uint32, write bool, token uint32) bool {
	if q.nfree == 0 || n == 0 {
		return false
	}
	head := q.popFree()
	q.writeDesc(head, phys, n, write, false, 0)
	// A device-writable buffer: used len is the bytes written, ≤ n. A device-readable one: the
	// len a device reports is meaningless (QEMU reports 0; §2.7.8 says bytes written), ≤ n is
	// accepted so an old device reporting the buffer's size is not an error.
	q.post(head, n, token)
	return true
}

// AddChain adds the buffers of segs as one chain (device-readable segments first, then
// device-writable ones, §2.7.4.2) with the caller's token. ok is false if segs is empty, a
// segment is empty or out of order, the total exceeds 4 GiB, or too few descriptors are free.
// segs may be a slice of the caller's stack array: it is not kept.
func (q *Queue) AddChain(segs []Segment, token uint32) bool {
	if len(segs) == 0 || len(segs) > int(q.nfree) {
		return false
	}
	var total, writable uint64
	sawWrite := false
	for i := range segs {
		if segs[i].Len == 0 || (sawWrite && !segs[i].Write) {
			return false
		}
		sawWrite = sawWrite || segs[i].Write
		total += uint64(segs[i].Len)
		if segs[i].Write {
			writable += uint64(segs[i].Len)
		}
	}
	if total > 1<<32-1 {
		return false
	}
	// Take the descriptors first so each one's next is known when it is written.
	var ids [MaxQueueSize]uint16
	n := len(segs)
	for i := 0; i < n; i++ {
		ids[i] = q.popFree()
	}
	for i := 0; i < n; i++ {
		last := i == n-1
		nx := uint16(0)
		if !last {
			nx = ids[i+1]
			q.state[ids[i+1]] = descChained
		}
		q.writeDesc(ids[i], segs[i].Phys, segs[i].Len, segs[i].Write, !last, nx)
	}
	limit := uint32(writable)
	if !sawWrite {
		limit = uint32(total)
	}
	q.post(ids[0], limit, token)
	return true
}

// popFree takes a free descriptor (the caller checked nfree). The free list is a FIFO, not the
// usual stack: a descriptor just returned is reused last, so a device that completes the same
// buffer twice (a stale used entry) finds it not in flight — and counted — rather than
// completing the buffer we re-posted in the meantime under the same id (the ABA a LIFO invites).
func (q *Queue) popFree() uint16 {
	i := q.free[q.freeHead&q.mask]
	q.freeHead++
	q.nfree--
	return i
}

// pushFree returns descriptor i to the free FIFO.
func (q *Queue) pushFree(i uint16) {
	q.free[(q.freeHead+q.nfree)&q.mask] = i
	q.nfree++
}

// writeDesc fills descriptor i of the table (plain stores: published by Kick's atomic store).
func (q *Queue) writeDesc(i uint16, phys uint64, n uint32, write, more bool, next uint16) {
	var fl uint32
	if write {
		fl |= descFWrite
	}
	if more {
		fl |= descFNext
	}
	q.link[i] = 0
	if more {
		q.link[i] = next + 1
	}
	a := q.desc + uintptr(i)*descSize
	*(*uint64)(ptr(a)) = phys
	*(*uint32)(ptr(a + 8)) = n
	*(*uint32)(ptr(a + 12)) = fl | uint32(next)<<16
}

// post records head as in flight and puts it in the next avail.ring slot (not yet published).
func (q *Queue) post(head uint16, limit, token uint32) {
	q.state[head] = descHead
	q.limit[head] = limit
	q.token[head] = token
	// Every used entry below this count was published before this post, so it cannot be the
	// completion of this buffer: a later one naming head is a stale duplicate (see Pop).
	q.stamp[head] = q.consumed + uint64(q.seenUsed-q.lastUsed)
	q.inflight++
	*(*uint16)(ptr(q.avail + availRing + uintptr(q.availIdx&q.mask)*2)) = head
	q.availIdx++
	q.stats.Added++
}

// publish stores avail.flags|avail.idx in one atomic 32-bit store (see the type's comment).
func (q *Queue) publish() {
	q.pubIdx = q.availIdx
	atomic.StoreUint32((*uint32)(ptr(q.avail)), uint32(q.availFlag)|uint32(q.pubIdx)<<16)
}

// usedHeader reads used.flags|used.idx in one atomic load.
func (q *Queue) usedHeader() (flags, idx uint16) {
	w := atomic.LoadUint32((*uint32)(ptr(q.used)))
	return uint16(w), uint16(w >> 16)
}

// Publish makes the buffers added since the last Publish or Kick available to the device
// (§2.7.13) without notifying it: a device that polls avail.idx (or finds it when work arrives)
// sees them; one that waits for a notification gets it with the next Kick.
func (q *Queue) Publish() {
	if q.availIdx != q.pubIdx && q.size != 0 {
		q.publish()
	}
}

// Kick makes the buffers added since the last Kick available to the device (§2.7.13) and
// notifies it unless it set VIRTQ_USED_F_NO_NOTIFY (§2.7.10; read after publishing, so a device
// that just cleared the flag to sleep is notified). Reports whether it notified. Call only
// after DriverOK (§3.1.1: no notifications before it). Nothing added since the last Kick
// (published or not): nothing is done.
func (q *Queue) Kick() bool {
	n, ok := q.KickPrepare()
	if ok {
		n.Notify()
	}
	return ok
}

// KickPrepare is Kick without the notification itself: it publishes, decides, and returns the
// Notifier to call if the device wants a notification (Linux's virtqueue_kick_prepare). The
// caller may notify later and elsewhere — after releasing the lock that serialises its use of
// the queue, as Linux's virtio-blk does (virtqueue_notify outside vq->lock): under emulation a
// notification is a trap into the hypervisor that can wait for the hypervisor's own lock, and
// nothing else need wait for it meanwhile. The device is notified at least once after the
// buffers were published, whenever that is; one Notify for several KickPrepares is enough, and
// an extra one is harmless.
func (q *Queue) KickPrepare() (Notifier, bool) {
	if q.availIdx == q.kickIdx || q.size == 0 {
		return Notifier{}, false
	}
	q.publish()
	q.kickIdx = q.availIdx
	q.stats.Kicks++
	flags, _ := q.usedHeader()
	if flags&usedFNoNotify != 0 || q.notify == 0 {
		return Notifier{}, false
	}
	q.stats.Notifies++
	return Notifier{addr: q.notify, index: q.index}, true
}

// Notifier notifies one queue's device (§4.1.5.2 for PCI, §4.2.3.3 for MMIO): a register
// address and the queue's index, fixed once the queue is set up. Notify touches nothing else
// of the queue, so any core may call it without the queue's lock; the zero Notifier does
// nothing.
type Notifier struct {
	addr  uintptr
	index uint16
}

// Notify writes the queue's index to its notification register (without
// VIRTIO_F_NOTIFICATION_DATA: 16 bits, §4.1.5.2).
func (n Notifier) Notify() {
	if n.addr != 0 {
		mmio.Write16(n.addr, n.index)
	}
}

// ptr turns an address into a pointer without go vet's unsafeptr complaint (the address is
// ring memory the kernel handed the driver, never a Go heap object that could move).
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }
