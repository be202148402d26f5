// The service: the event reader, the service goroutine and the event dispatcher.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"sync"

	"gmpos/kernel/netabi"

	"gvisor.dev/gvisor/pkg/tcpip/stack"
)

// batchEvents is how many records one OpEvents call may return.
const batchEvents = 64

// service carries out the kernel's socket events on a tcpip stack.
//
// socks, orphans and the scratch buffers belong to the service goroutine (run) alone. dirty and
// each socket's queued flag are protected by mu, which is a leaf lock: waiter callbacks take it
// under tcpip's locks, so nothing may be called with it held.
type service struct {
	k  Kernel
	st *stack.Stack
	c  *counters

	socks   map[uint32]*socket   // by Sid
	orphans map[*socket]struct{} // closed by the program and released, still sending
	rbuf    []byte               // scratch: endpoint reads (one datagram fits)
	tbuf    []byte               // scratch: pulls
	abuf    [netabi.AddrBufSize]byte
	obuf    [64]byte // scratch: reply payloads

	mu    sync.Mutex
	dirty []*socket     // sockets whose endpoint reported readiness
	wake  chan struct{} // poked (without blocking) when dirty becomes non-empty

	batches chan []byte   // reader → service: filled event batches
	free    chan []byte   // service → reader: empty batch buffers
	done    chan struct{} // closed when run returns
}

func newService(k Kernel, st *stack.Stack, c *counters) *service {
	return &service{
		k: k, st: st, c: c,
		socks:   make(map[uint32]*socket),
		orphans: make(map[*socket]struct{}),
		rbuf:    make([]byte, 64<<10),
		tbuf:    make([]byte, 64<<10),
		wake:    make(chan struct{}, 1),
		batches: make(chan []byte),
		free:    make(chan []byte, 2),
		done:    make(chan struct{}),
	}
}

// start starts the event reader and the service goroutine.
func (s *service) start() {
	for range 2 {
		s.free <- make([]byte, batchEvents*netabi.EventSize)
	}
	go s.readEvents()
	go s.run()
}

// readEvents fetches event batches: it waits in Kernel.Events (the netpoller on gmpos) and
// hands each batch to the service goroutine. An error ends the service.
func (s *service) readEvents() {
	s.k.Events(func() []byte { b := <-s.free; return b[:cap(b)] }, func(b []byte) { s.batches <- b })
	close(s.batches)
}

// run is the service goroutine: events first, then whatever tcpip reported meanwhile.
func (s *service) run() {
	defer close(s.done)
	for {
		select {
		case b, ok := <-s.batches:
			if !ok {
				s.stop()
				return
			}
			for off := 0; off+netabi.EventSize <= len(b); off += netabi.EventSize {
				s.dispatch(b[off : off+netabi.EventSize])
			}
			s.free <- b[:cap(b)]
		case <-s.wake:
		}
		s.flushDirty()
	}
}

// markDirty is the waiter callback: tcpip says k's endpoint changed. It may run on any tcpip
// goroutine with tcpip's locks held, so it only queues k for the service goroutine.
func (s *service) markDirty(k *socket) {
	s.mu.Lock()
	if !k.queued {
		k.queued = true
		s.dirty = append(s.dirty, k)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// flushDirty polls every socket tcpip reported since the last time.
func (s *service) flushDirty() {
	for {
		s.mu.Lock()
		d := s.dirty
		s.dirty = nil
		for _, k := range d {
			k.queued = false
		}
		s.mu.Unlock()
		if len(d) == 0 {
			return
		}
		for _, k := range d {
			s.poll(k)
		}
	}
}

// dispatch carries out one event record. Nothing in a record is trusted: a record that does
// not decode, an unknown kind and an unknown Sid are counted and ignored (a request is
// answered, so that its caller does not wait forever).
func (s *service) dispatch(rec []byte) {
	s.c.events.Add(1)
	e, ok := netabi.DecodeEvent(rec)
	if !ok {
		s.c.badEvents.Add(1)
		return
	}
	if e.Kind == netabi.EvRequest {
		s.c.requests.Add(1)
		s.request(e)
		return
	}
	k := s.socks[e.Sid]
	switch e.Kind {
	case netabi.EvTxReady, netabi.EvRxSpace, netabi.EvClosed:
	default:
		s.c.badEvents.Add(1)
		return
	}
	if k == nil {
		s.c.unknownSid.Add(1)
		if e.Kind == netabi.EvClosed {
			s.release(e.Sid) // the kernel waits for it whatever we know
		}
		return
	}
	switch e.Kind {
	case netabi.EvTxReady:
		s.tx(k)
	case netabi.EvRxSpace:
		if k.listening {
			k.acceptWait = false // the program accepted: room in the kernel's queue
			s.accept(k)
			break
		}
		k.rxWait = false
		s.rx(k)
	case netabi.EvClosed:
		s.closed(k)
	}
}

// stop ends the service (hosted tests only: on gmpos the service file never fails): every
// endpoint is closed.
func (s *service) stop() {
	for _, k := range s.socks {
		s.finish(k)
	}
	for k := range s.orphans {
		s.finish(k)
	}
}
