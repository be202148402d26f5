// The driver's counters.
// SPDX-License-Identifier: BSD-3-Clause

package net

import "gmpos/drivers/virtio"

// Stats are the driver's counters (protected by the Device's caller, like the Device). Device
// errors are counted by kind: the queues' (used id, used length, used.idx) in Rx and Tx, the
// frames' here.
type Stats struct {
	RxFrames         uint64 // frames RxNext returned
	RxBytes          uint64 // their bytes (without the virtio header)
	RxShort          uint64 // dropped: used length < header + 14
	RxLong           uint64 // dropped: frame above 1514 bytes
	RxBadHeader      uint64 // dropped: header with unnegotiated flags, GSO or num_buffers > 1
	RxRepostFail     uint64 // a receive buffer could not be re-posted (never expected)
	TxFrames         uint64 // frames TxSubmit queued
	TxBytes          uint64 // their bytes
	TxFull           uint64 // TxBuffer found every transmit buffer in flight
	TxBadLen         uint64 // TxSubmit with a length outside [14, max]: refused
	TxNoBuffer       uint64 // TxSubmit without a buffer from TxBuffer
	Interrupts       uint64 // AckInterrupt calls (INTx)
	ConfigInterrupts uint64 // ... that reported a configuration change
	Rx, Tx           virtio.QueueStats
}

// RxDrops is every received frame or used entry dropped because of what the device wrote
// (kernel/netabi NetRxDrops' device part).
func (s *Stats) RxDrops() uint64 {
	return s.RxShort + s.RxLong + s.RxBadHeader + s.Rx.BadID + s.Rx.NotInFlight + s.Rx.Stale + s.Rx.BadLen
}

// DevErrors is every device-data error: bad used ids, lengths and indices on both queues, and
// bad headers (kernel/netabi NetDevErrors).
func (s *Stats) DevErrors() uint64 {
	return s.Rx.Errors() + s.Tx.Errors() + s.RxBadHeader + s.RxShort + s.RxLong
}
