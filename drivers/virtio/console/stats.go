// The driver's counters.
// SPDX-License-Identifier: BSD-3-Clause

package console

import "gmpos/drivers/virtio"

// Stats are the driver's counters (protected by the Device's caller, like the Device). Device
// errors are counted by kind: the queues' (used id, used length, used.idx) in Tx, CtrlRx and
// CtrlTx, the driver's own here.
type Stats struct {
	Bytes       uint64 // bytes Write took
	Records     uint64 // records it started
	Chunks      uint64 // descriptors handed to the device
	BadToken    uint64 // transmit completions naming no chunk in flight (never expected)
	CtrlIn      uint64 // control messages received and understood
	CtrlOut     uint64 // control messages sent
	CtrlBad     uint64 // control messages too short, too long or of an unknown event
	CtrlDropped uint64 // control messages not sent: every slot in flight
	Tx          virtio.QueueStats
	CtrlRx      virtio.QueueStats
	CtrlTx      virtio.QueueStats
}

// DevErrors is every error the device made: bad used entries on any queue, bad messages.
func (s *Stats) DevErrors() uint64 {
	return s.Tx.Errors() + s.CtrlRx.Errors() + s.CtrlTx.Errors() + s.BadToken + s.CtrlBad
}
