// Output: records appended to the byte ring, handed to the transmitq, reclaimed in order.
// SPDX-License-Identifier: BSD-3-Clause

package console

import (
	"unsafe"

	"gmpos/drivers/virtio"
)

// ring is the output ring: bytes [done, head) of the stream are in it (positions count from the
// start of the stream; a position's byte is at position mod size), [done, sent) handed to the
// device, [sent, head) not yet. chunks are the descriptors in flight in the order they were
// posted, [first, next) — at most the transmitq's size, so ringSlots (256) slots never collide.
type ring struct {
	virt uintptr
	phys uint64
	size uint64

	head, sent, done uint64

	rec // the last record, while it is still only ours ([sent, head)): a write on its channel continues it

	chunks      [ringSlots]chunk
	first, next uint32
}

// rec is the ring's last record while it is still only the driver's.
type rec struct {
	recOpen bool
	recCh   uint8
	recAt   uint64 // its header's position
	recLen  uint32
}

// chunk is one descriptor's worth of the stream.
type chunk struct {
	end      uint64 // the position after its last byte
	complete bool   // the device is done with it
}

// Space is how many bytes of records the ring can take now (a new record needs RecordHeader
// of them for its header).
func (d *Device) Space() int { return int(d.out.size - (d.out.head - d.out.done)) }

// Idle reports whether the device has taken every byte written (a flush is over).
func (d *Device) Idle() bool { return d.out.done == d.out.head }

// Queued is how many bytes (headers included) are written and not yet completed.
func (d *Device) Queued() int { return int(d.out.head - d.out.done) }

// Write appends p to the stream as records of channel ch (1..255) and returns how many of its
// bytes it took: all of them, or as many as the ring has room for (0 if it is full or the port
// is not Open). Nothing reaches the device before Submit.
func (d *Device) Write(ch uint8, p []byte) int {
	off := 0 // an index, not a re-sliced p: storing a slice through the closure would be a write
	// barrier, which trap and interrupt context must not have (doc.go)
	return d.WriteFrom(ch, len(p), func(dst []byte) bool {
		off += copy(dst, p[off:])
		return true
	})
}

// WriteFrom is Write for n bytes the caller copies into the ring itself, from memory that may
// fail to read (a user buffer another core may unmap): fill is called for each stretch of ring
// in turn and copies the next len(dst) bytes there, reporting whether it could. If it could
// not, the whole call is taken back — the stream, the open record and the counters are as they
// were before it — and WriteFrom returns 0; else how many bytes it took, as Write.
func (d *Device) WriteFrom(ch uint8, n int, fill func(dst []byte) bool) int {
	if !d.Open() || ch == 0 {
		return 0
	}
	r := &d.out
	head, was, records := r.head, r.rec, d.st.Records // to take a failed call back
	done := 0
	for done < n {
		free := r.size - (r.head - r.done)
		var c uint64
		if r.recOpen && r.recCh == ch && r.recLen < MaxRecord {
			c = min(uint64(n-done), uint64(MaxRecord-r.recLen), free) // the open record goes on
			if c == 0 {
				break
			}
		} else {
			if free <= RecordHeader {
				break
			}
			c = min(uint64(n-done), MaxRecord, free-RecordHeader)
			r.rec = rec{recOpen: true, recCh: ch, recAt: r.head}
			hdr := [RecordHeader]byte{ch} // its length is written below
			r.put(hdr[:])
			d.st.Records++
		}
		if !r.fill(c, fill) {
			r.head, r.rec, d.st.Records = head, was, records
			return 0
		}
		r.recLen += uint32(c)
		r.putAt(r.recAt+1, byte(r.recLen))
		r.putAt(r.recAt+2, byte(r.recLen>>8))
		done += int(c)
	}
	d.st.Bytes += uint64(done)
	return done
}

// Submit hands the device what Write appended and notifies it. Bytes that find no free
// descriptor stay in the ring for the next Reap (doc.go).
func (d *Device) Submit() { d.post() }

// post adds descriptors for [sent, head), as many as the transmitq has room for, and kicks.
// The open record is closed first: its header may be among the bytes handed over.
func (d *Device) post() {
	r := &d.out
	r.recOpen = false
	for r.sent < r.head && d.tx.Free() > 0 && r.next-r.first < uint32(d.tx.Size()) {
		at := r.sent % r.size
		n := min(r.head-r.sent, r.size-at, MaxChunk)
		slot := r.next % ringSlots
		if !d.tx.Add(r.phys+at, uint32(n), false, slot) {
			break
		}
		r.chunks[slot] = chunk{end: r.sent + n}
		r.next++
		r.sent += n
		d.st.Chunks++
	}
	d.tx.Kick()
}

// Reap takes back the descriptors the device has completed, frees their ring space in order,
// and posts what waited for a descriptor. Control messages are Poll's. Trap, interrupt or
// report context.
func (d *Device) Reap() {
	if d.ready {
		d.reap()
	}
}

func (d *Device) reap() {
	r := &d.out
	for i := 0; i < int(d.tx.Size()); i++ {
		tok, _, st := d.tx.Pop()
		if st == virtio.PopEmpty {
			break
		}
		// PopBadLen too: the device is done with the buffer (a length is meaningless for a
		// device-readable one; the queue counts it). The token must name a chunk in flight
		// that is not complete yet; the queue only returns tokens of chains it posted, so
		// this is belt and braces.
		if tok >= ringSlots || (tok-r.first)%ringSlots >= r.next-r.first || r.chunks[tok].complete {
			d.st.BadToken++
			continue
		}
		r.chunks[tok].complete = true
	}
	for r.first != r.next && r.chunks[r.first%ringSlots].complete {
		c := &r.chunks[r.first%ringSlots]
		r.done = c.end
		*c = chunk{}
		r.first++
	}
	if r.sent < r.head {
		d.post()
	}
}

// put appends b at head, wrapping.
func (r *ring) put(b []byte) {
	for len(b) > 0 {
		at := r.head % r.size
		c := min(uint64(len(b)), r.size-at)
		copy(bytesAt(r.virt+uintptr(at), int(c)), b[:c])
		b = b[c:]
		r.head += c
	}
}

// fill appends c bytes at head, wrapping, copied by f (WriteFrom); false, with head wherever
// it got to, if f could not (WriteFrom then puts it back).
func (r *ring) fill(c uint64, f func(dst []byte) bool) bool {
	for c > 0 {
		at := r.head % r.size
		k := min(c, r.size-at)
		if !f(bytesAt(r.virt+uintptr(at), int(k))) {
			return false
		}
		r.head += k
		c -= k
	}
	return true
}

// putAt rewrites the byte at stream position pos (in [sent, head): not the device's yet).
func (r *ring) putAt(pos uint64, c byte) {
	*(*byte)(ptr(r.virt + uintptr(pos%r.size))) = c
}

// bytesAt is the n bytes at address a (ring or control memory the caller handed the driver).
func bytesAt(a uintptr, n int) []byte { return unsafe.Slice((*byte)(ptr(a)), n) }

// ptr turns an address into a pointer without go vet's unsafeptr complaint (memory the kernel
// handed the driver, never a Go heap object that could move).
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }
