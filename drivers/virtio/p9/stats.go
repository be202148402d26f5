// The device's counters.
// SPDX-License-Identifier: BSD-3-Clause

package p9

import "gmpos/drivers/virtio"

// Stats are the device's counters (protected by the Device's caller, like the Device). What
// the device did wrong is counted by kind: the queue's checks (used ids, lengths, used.idx) in
// Queue, the slot bookkeeping's here. Replies that parse badly are the client's to count.
type Stats struct {
	Requests    uint64 // requests Submit posted
	Completions uint64 // requests Complete returned (a bad used length included, inLen 0)
	Refused     uint64 // Submit calls refused: not ready, no such slot, slot in flight, bad length
	NotInFlight uint64 // completions for a slot not in flight, past the queue's own checks
	Interrupts  uint64 // AckInterrupt calls (INTx)
	Queue       virtio.QueueStats
}

// Errors is every device error: the queue's (bad ids, stale or duplicate completions, bad
// lengths, used.idx jumps) and completions for slots not in flight.
func (s *Stats) Errors() uint64 { return s.Queue.Errors() + s.NotInFlight }
