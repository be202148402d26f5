// Transmitting: free buffers (reaping completions), and queuing frames.
// SPDX-License-Identifier: BSD-3-Clause

package net

import "gmpos/drivers/virtio"

// reapTx takes back the transmit buffers the device has finished with. A used length above
// the buffer is counted by the queue (PopBadLen) but the buffer is done all the same.
func (d *Device) reapTx() {
	for i := 0; i < int(d.ntx); i++ {
		tok, _, st := d.tx.Pop()
		if st == virtio.PopEmpty {
			return
		}
		if tok < uint32(d.ntx) && d.nTxFree < d.ntx {
			d.txFree[d.nTxFree] = uint16(tok)
			d.nTxFree++
		}
	}
}

// TxBuffer returns a free transmit buffer: where to write the frame and the largest frame it
// takes (1514, less with a smaller device MTU). It reaps completed transmissions first. The
// buffer is the caller's until TxSubmit; calling TxBuffer again before that returns the same
// buffer. ok is false when every buffer is in flight (counted in TxFull).
func (d *Device) TxBuffer() (virt uintptr, max int, ok bool) {
	if !d.ready {
		return 0, 0, false
	}
	if !d.txHeld {
		d.reapTx()
		if d.nTxFree == 0 {
			d.stats.TxFull++
			return 0, 0, false
		}
		d.nTxFree--
		d.txHeld, d.txSlot = true, d.txFree[d.nTxFree]
	}
	return d.txVirt[d.txSlot] + HdrLen, d.txMax, true
}

// TxSubmit sends the n-byte frame written at TxBuffer's address: TxQueue, then TxKick.
func (d *Device) TxSubmit(n int) {
	d.TxQueue(n)
	d.TxKick()
}

// TxKick notifies the device of the frames queued since the last kick (one notification for a
// batch; none while the device polls, VIRTQ_USED_F_NO_NOTIFY).
func (d *Device) TxKick() { d.tx.Kick() }

// TxKickPrepare is TxKick without the notification: it returns the Notifier to call, later and
// without the driver's lock if the caller likes, when the device wants one (Queue.KickPrepare).
func (d *Device) TxKickPrepare() (virtio.Notifier, bool) { return d.tx.KickPrepare() }

// TxQueue queues the n-byte frame written at TxBuffer's address without notifying the device
// (TxKick does): it writes the zeroed virtio_net_hdr in front (no offloads: §5.1.6.2 with flags
// 0 and GSO_NONE) and adds the buffer to the transmit queue. A length outside [14, max] is
// refused and counted (TxBadLen); the buffer stays the caller's. Without a buffer from
// TxBuffer: counted, nothing.
func (d *Device) TxQueue(n int) {
	if !d.txHeld {
		d.stats.TxNoBuffer++
		return
	}
	if n < MinFrame || n > d.txMax {
		d.stats.TxBadLen++
		return
	}
	slot := d.txSlot
	zeroHdr(d.txVirt[slot])
	if !d.tx.Add(d.txPhys[slot], uint32(HdrLen+n), false, uint32(slot)) {
		d.stats.TxFull++ // a descriptor per buffer: cannot happen
		return
	}
	d.txHeld = false
	d.stats.TxFrames++
	d.stats.TxBytes += uint64(n)
}
