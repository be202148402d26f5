// Receiving: frames from the receive queue, validated; buffers back to the device.
// SPDX-License-Identifier: BSD-3-Clause

package net

import (
	"unsafe"

	"gmpos/drivers/virtio"
)

// ptr turns a buffer address into a pointer (pages from the caller's allocator, never the Go
// heap), without go vet's unsafeptr complaint.
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// zeroHdr clears the header area of the buffer at v.
func zeroHdr(v uintptr) {
	*(*uint64)(ptr(v)) = 0
	*(*uint32)(ptr(v + 8)) = 0
}

// postRx gives receive buffer slot to the device (visible at the next Kick). Its header is
// zeroed first so that fields a device leaves unwritten (QEMU: num_buffers) read as 0.
func (d *Device) postRx(slot uint16) {
	zeroHdr(d.rxVirt[slot])
	if !d.rx.Add(d.rxPhys[slot], BufSize, true, uint32(slot)) {
		d.stats.RxRepostFail++ // a descriptor per buffer: cannot happen
	}
}

// RxNext returns the next received frame: its address (the header stripped) and length, valid
// until RxDone (or the next RxNext, which gives it back first). ok is false when no frame is
// waiting. Used entries and frames the device got wrong are counted and their buffers
// re-posted on the way; at most one queue's worth is examined per call.
func (d *Device) RxNext() (virt uintptr, n int, ok bool) {
	if !d.ready {
		return 0, 0, false
	}
	if d.rxHeld {
		d.RxDone()
	}
	virt, n, ok, reposted := d.rxScan()
	if reposted {
		d.rxUnkicked++
	}
	if !ok || d.rxUnkicked >= rxKickBatch {
		d.kickRx()
	}
	return virt, n, ok
}

// rxKickBatch is how many re-posted receive buffers may wait before the device is notified.
//
// A device needs the notification only when it ran out of buffers: it reads avail.idx itself
// whenever a frame arrives (QEMU: virtio_net_has_buffers), and only when the ring is empty does
// it hold the frame and wait for a kick. Notifying after every buffer, as RxDone used to, costs
// a trap into the hypervisor per received frame (under TCG an MMIO exit that takes QEMU's big
// lock). So re-posted buffers are published at once but notified in batches: every rxKickBatch
// buffers, and whenever the driver finds the ring drained (the device may be waiting then).
// Linux's virtio_net refills and kicks in batches the same way (try_fill_recv). With
// VIRTIO_F_EVENT_IDX the device would say exactly when it wants a kick (§2.7.10); this driver
// does not negotiate it.
const rxKickBatch = RxQueueSize / 4

// kickRx notifies the device of the buffers re-posted since the last notification.
func (d *Device) kickRx() {
	if d.rxUnkicked > 0 {
		d.rxUnkicked = 0
		d.rx.Kick()
	}
}

// rxScan is RxNext's loop; reposted says whether dropped buffers went back (to be kicked).
func (d *Device) rxScan() (virt uintptr, n int, ok, reposted bool) {
	for budget := d.nrx; budget > 0; budget-- {
		tok, ln, st := d.rx.Pop()
		if st == virtio.PopEmpty {
			return 0, 0, false, reposted
		}
		if tok >= uint32(d.nrx) {
			continue // tokens are ours: cannot happen
		}
		slot := uint16(tok)
		if st == virtio.PopBadLen || d.checkRx(d.rxVirt[slot], ln) {
			// A bad length is counted by the queue, a bad frame by checkRx.
			d.postRx(slot)
			reposted = true
			continue
		}
		n = int(ln) - HdrLen
		d.rxHeld, d.rxSlot = true, slot
		d.stats.RxFrames++
		d.stats.RxBytes += uint64(n)
		return d.rxVirt[slot] + HdrLen, n, true, reposted
	}
	return 0, 0, false, reposted
}

// checkRx validates a received buffer of ln bytes (header included) at v; true: drop it
// (counted). The header's fields are read once each.
func (d *Device) checkRx(v uintptr, ln uint32) (drop bool) {
	switch {
	case ln < HdrLen+MinFrame:
		d.stats.RxShort++
		return true
	case ln > HdrLen+MaxFrame:
		d.stats.RxLong++
		return true
	}
	flags := *(*uint8)(ptr(v + hdrFlags))
	gso := *(*uint8)(ptr(v + hdrGSOType))
	nb := *(*uint16)(ptr(v + hdrNumBuffers))
	if !hdrOK(flags, gso, nb) {
		d.stats.RxBadHeader++
		return true
	}
	return false
}

// RxDone gives the buffer of the frame RxNext returned back to the device: it is published at
// once and notified with the next batch (rxKickBatch; a kick is also suppressed while the device
// polls, VIRTQ_USED_F_NO_NOTIFY). No frame held: nothing.
func (d *Device) RxDone() {
	if !d.rxHeld {
		return
	}
	d.rxHeld = false
	d.postRx(d.rxSlot)
	d.rxUnkicked++
	if d.rxUnkicked >= rxKickBatch {
		d.kickRx()
	} else {
		d.rx.Publish()
	}
}

// RxPending reports whether used receive entries are waiting (one atomic load; for the
// poller). A waiting entry may still turn out to be a dropped frame.
func (d *Device) RxPending() bool { return d.ready && d.rx.Pending() }

// DisableRxInterrupts asks the device not to interrupt for received frames (a hint,
// VIRTQ_AVAIL_F_NO_INTERRUPT): for the interrupt handler before it hands over to the poller.
func (d *Device) DisableRxInterrupts() {
	if d.ready {
		d.rx.DisableInterrupts()
	}
}

// EnableRxInterrupts re-enables receive interrupts and reports whether a frame arrived
// meanwhile (then the caller polls again instead of waiting for an interrupt).
func (d *Device) EnableRxInterrupts() (pending bool) {
	return d.ready && d.rx.EnableInterrupts()
}

// RxBroken reports that the device corrupted the receive queue's used.idx: nothing more will
// be received until the device is reset (re-Init).
func (d *Device) RxBroken() bool { return d.rx.Broken() }
