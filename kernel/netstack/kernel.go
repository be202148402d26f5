// The Kernel interface: the service's view of the kernel side of gmpos_net.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import "syscall"

// Kernel is the kernel side of the netabi contract, one method per gmpos_net op the service
// uses. The real one (sysKernel) makes system calls; hosted tests use a fake. Errors are
// syscall.Errno values as gmpos_net returns them.
//
// Events is called by the event-reader goroutine only; every other method by the service
// goroutine only.
type Kernel interface {
	// Events hands the service batches of event records until the service ends: next gives
	// an empty buffer (room for len/netabi.EventSize records), put the filled part of one.
	// It waits while none are queued. An error stops the service (the fake's way to end a
	// test).
	Events(next func() []byte, put func(recs []byte)) error
	// Reply answers request req with result (≥ 0 or -errno) and an optional payload.
	Reply(req uint32, result int64, payload []byte) error
	// Push appends to sid's receive ring: stream, returns the bytes taken; dgram, all of data
	// or EAGAIN. addr is the datagram's source sockaddr (nil for stream).
	Push(sid uint32, data, addr []byte) (int, error)
	// Pull takes from sid's send ring into buf (dgram: one datagram, its destination in addr,
	// netabi.AddrBufSize bytes). Returns 0 when the ring is empty.
	Pull(sid uint32, buf, addr []byte) (int, error)
	// State sets and clears readiness bits; errno is the pending error for StErr.
	State(sid uint32, set, clear uint32, errno syscall.Errno) error
	// Release gives a closed socket back to the kernel.
	Release(sid uint32) error
	// SetAddr records sid's local and peer sockaddrs for getsockname and getpeername (nil
	// leaves one as it was).
	SetAddr(sid uint32, local, peer []byte) error
	// Accepted puts a new connection of listener lsid, with its local and peer sockaddrs,
	// on the kernel's accept queue and returns the new socket's Sid. EAGAIN: the queue is
	// full (an EvRxSpace for the listener follows when the program has accepted one).
	Accepted(lsid uint32, local, peer []byte) (uint32, error)
}
