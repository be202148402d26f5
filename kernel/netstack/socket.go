// Sockets: readiness, and moving data between tcpip endpoints and the kernel's rings.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"bytes"
	"syscall"

	"gmpos/kernel/netabi"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
	"gvisor.dev/gvisor/pkg/waiter"
)

// socket is the stack's side of one kernel socket. Everything but queued belongs to the
// service goroutine; queued is protected by service.mu.
type socket struct {
	sid   uint32
	dgram bool
	ep    tcpip.Endpoint
	wq    *waiter.Queue
	we    waiter.Entry

	queued bool // on service.dirty

	state      uint32 // the netabi.St* bits set in the kernel
	listening  bool
	connecting bool // a stream connect answered -EINPROGRESS, outcome not reported yet
	named      bool // the kernel has the local address (OpSetAddr)
	dead       bool // finished: the endpoint is closed

	// Listener: a connection the kernel's accept queue had no room for, and whether the
	// service waits for EvRxSpace (the program accepted one) to offer it again.
	pend       *pendingConn
	acceptWait bool

	// Receive side: bytes read from the endpoint that the ring did not take.
	rx     []byte
	rxAddr [sockaddrInSize]byte // dgram: rx's source
	rxHeld bool                 // rx holds data (dgram: a datagram, maybe empty)
	rxWait bool                 // the ring was full: wait for EvRxSpace
	rxShut bool                 // the program shut reading (Push said EPIPE): discard
	rxDone bool                 // EOF or an error was reported: stop reading

	// Send side: bytes pulled that the endpoint did not take.
	tx        []byte
	txTo      tcpip.FullAddress // dgram: tx's destination
	txHasTo   bool
	txHeld    bool
	txWait    bool // the endpoint was full: StTxOpen is clear
	txDead    bool // writing failed for good: pull and discard
	txDrained bool // stream: the last pull took less than it could, so the ring is empty
	shutWr    bool // shutdown(SHUT_WR) waits for tx to drain
	closed    bool // the program closed the socket: close the endpoint when tx drains
}

// readyMask is every readiness change the service wants to hear of.
const readyMask = waiter.ReadableEvents | waiter.WritableEvents | waiter.EventErr | waiter.EventHUp

// newSocket registers a socket for ep: from now on tcpip's readiness changes mark it dirty.
func (s *service) newSocket(sid uint32, dgram bool, ep tcpip.Endpoint, wq *waiter.Queue) *socket {
	k := &socket{sid: sid, dgram: dgram, ep: ep, wq: wq}
	k.we = waiter.NewFunctionEntry(readyMask, func(waiter.EventMask) { s.markDirty(k) })
	wq.EventRegister(&k.we)
	s.socks[sid] = k
	s.c.sockets.Add(1)
	s.c.opened.Add(1)
	return k
}

// setState changes k's readiness bits in the kernel, only if they change (errno: for StErr).
func (s *service) setState(k *socket, set, clr uint32, errno syscall.Errno) {
	set &^= k.state
	clr &= k.state
	if set == 0 && clr == 0 {
		return
	}
	if k.closed { // released: the kernel no longer knows the Sid
		k.state = (k.state | set) &^ clr
		return
	}
	s.c.states.Add(1)
	if err := s.k.State(k.sid, set, clr, errno); err != nil {
		s.c.kErrors.Add(1)
		return
	}
	k.state = (k.state | set) &^ clr
}

// fail reports a broken connection: both directions closed with errno pending.
func (s *service) fail(k *socket, errno syscall.Errno) {
	s.setState(k, netabi.StErr|netabi.StHup|netabi.StRxEOF, 0, errno)
	k.rxDone = true
	k.rxHeld = false
}

// poll looks at an endpoint tcpip reported: a connect's outcome, a waiting connection, data to
// read, room to write.
func (s *service) poll(k *socket) {
	if k.dead {
		return
	}
	if k.connecting {
		if k.ep.Readiness(readyMask) == 0 {
			return // still connecting
		}
		k.connecting = false
		err := k.ep.LastError()
		st := tcp.EndpointState(k.ep.State())
		if err == nil && (st == tcp.StateClose || st == tcp.StateError) {
			err = &tcpip.ErrConnectionRefused{}
		}
		if err != nil {
			s.fail(k, errnoOf(err))
			return
		}
		s.setAddr(k, true, true) // before StConnected: Go asks for both once connected
		s.setState(k, netabi.StConnected|netabi.StTxOpen, 0, 0)
		s.tx(k) // anything written while connecting
	}
	if k.listening {
		s.accept(k)
		return
	}
	s.rx(k)
	if k.txWait || k.txHeld || k.closed {
		s.tx(k)
	}
}

// flows reports whether data may move: a datagram socket, or a connected stream socket.
func (k *socket) flows() bool {
	return !k.dead && !k.listening && (k.dgram || k.state&netabi.StConnected != 0)
}

// rx moves data from the endpoint into the kernel's receive ring until the endpoint has none
// or the ring is full (then EvRxSpace brings the service back).
func (s *service) rx(k *socket) {
	if !k.flows() {
		return
	}
	for !k.dead && !k.rxWait {
		if k.rxHeld {
			if !s.pushHeld(k) {
				return
			}
		}
		if k.rxDone || k.closed {
			return
		}
		w := tcpip.SliceWriter(s.rbuf)
		res, err := k.ep.Read(&w, tcpip.ReadOptions{NeedRemoteAddr: k.dgram})
		switch err.(type) {
		case nil:
		case *tcpip.ErrWouldBlock:
			return
		case *tcpip.ErrClosedForReceive:
			k.rxDone = true
			s.setState(k, netabi.StRxEOF, 0, 0)
			return
		default:
			if k.dgram {
				return // a datagram socket has no connection to break
			}
			s.fail(k, errnoOf(err))
			return
		}
		if !k.dgram && res.Count == 0 {
			return
		}
		k.rx = s.rbuf[:res.Count]
		if k.dgram {
			encodeSockaddr(k.rxAddr[:], res.RemoteAddr)
		}
		k.rxHeld = true
		if !s.pushHeld(k) {
			// Keep what the ring did not take: s.rbuf is reused.
			k.rx = append([]byte(nil), k.rx...)
			return
		}
	}
}

// pushHeld pushes k.rx; it reports whether all of it went (false: k.rxWait is set).
func (s *service) pushHeld(k *socket) bool {
	if k.rxShut {
		if k.dgram {
			s.c.rxDgramDrops.Add(1)
		}
		k.rxHeld, k.rx = false, nil
		return true
	}
	var addr []byte
	if k.dgram {
		addr = k.rxAddr[:]
	}
	s.c.pushes.Add(1)
	n, err := s.k.Push(k.sid, k.rx, addr)
	switch {
	case err == syscall.EPIPE:
		k.rxShut = true
		return s.pushHeld(k)
	case err == syscall.EAGAIN:
		k.rxWait = true
		return false
	case err != nil:
		s.c.kErrors.Add(1)
		k.rxHeld, k.rx = false, nil
		return true
	}
	if k.dgram {
		n = len(k.rx)
	}
	s.c.pushBytes.Add(uint64(n))
	if n < len(k.rx) {
		k.rx = k.rx[n:]
		k.rxWait = true
		return false
	}
	k.rxHeld, k.rx = false, nil
	return true
}

// tx moves data from the kernel's send ring into the endpoint until the ring is empty or the
// endpoint is full (StTxOpen is then cleared until tcpip says it is writable again), then
// carries out a pending shutdown or close.
func (s *service) tx(k *socket) {
	if !k.flows() && !k.closed {
		return // not connected yet: the data waits in the ring until StTxOpen
	}
	for !k.dead {
		if k.txHeld && !s.writeHeld(k) {
			if !k.txWait {
				k.txWait = true
				s.setState(k, 0, netabi.StTxOpen, 0)
			}
			return
		}
		if k.txWait {
			k.txWait = false
			s.setState(k, netabi.StTxOpen, 0, 0)
		}
		if k.closed {
			break // released: nothing more to pull
		}
		if k.txDrained {
			// The last pull emptied the ring: whatever the program writes next brings an
			// EvTxReady of its own, so looking again would only cost an empty OpPull.
			k.txDrained = false
			break
		}
		if !s.pull(k) {
			break
		}
	}
	if k.dead || k.txHeld {
		return
	}
	if k.shutWr {
		k.shutWr = false
		k.ep.Shutdown(tcpip.ShutdownWrite)
	}
	if k.closed {
		s.finish(k)
	}
}

// pull takes the next bytes (dgram: datagram) from the send ring into k.tx; false when the
// ring is empty.
func (s *service) pull(k *socket) bool {
	var addr []byte
	if k.dgram {
		addr = s.abuf[:]
		clear(addr)
	}
	s.c.pulls.Add(1)
	n, err := s.k.Pull(k.sid, s.tbuf, addr)
	if err != nil {
		s.c.kErrors.Add(1)
		return false
	}
	if n <= 0 {
		return false
	}
	if n > len(s.tbuf) {
		n = len(s.tbuf)
	}
	s.c.pullBytes.Add(uint64(n))
	k.tx, k.txHeld = s.tbuf[:n], true
	k.txDrained = !k.dgram && n < len(s.tbuf)
	if k.dgram {
		fa, to, e := decodeAddrBuf(addr)
		if e != 0 {
			s.c.txDgramDrops.Add(1)
			k.tx, k.txHeld = nil, false
			return true
		}
		k.txTo, k.txHasTo = fa, to
	}
	return true
}

// writeHeld writes k.tx to the endpoint; false if the endpoint could not take it all (the
// rest is kept, copied out of the scratch buffer).
func (s *service) writeHeld(k *socket) bool {
	if k.txDead {
		k.tx, k.txHeld = nil, false
		return true
	}
	var opts tcpip.WriteOptions
	if k.dgram && k.txHasTo {
		opts.To = &k.txTo
	}
	var r bytes.Reader
	r.Reset(k.tx)
	n, err := k.ep.Write(&r, opts)
	switch err.(type) {
	case nil:
	case *tcpip.ErrWouldBlock:
		n = 0
	default:
		if k.dgram {
			s.c.txDgramDrops.Add(1) // no route, too long, no destination: dropped
		} else {
			k.txDead = true
			if k.state&netabi.StErr == 0 {
				s.setState(k, netabi.StErr|netabi.StHup, 0, errnoOf(err))
			}
		}
		k.tx, k.txHeld = nil, false
		return true
	}
	if k.dgram && !k.named {
		s.setAddr(k, true, false) // the first send bound it to an ephemeral port, as on Linux
	}
	if int(n) >= len(k.tx) {
		k.tx, k.txHeld = nil, false
		return true
	}
	if k.dgram && n > 0 {
		k.tx, k.txHeld = nil, false // a datagram goes whole or not at all
		return true
	}
	k.tx = append([]byte(nil), k.tx[n:]...)
	return false
}

// closed handles EvClosed: pull everything left (the kernel frees the ring on Release), release
// the Sid, and close the endpoint once tcpip has taken the data. A datagram that does not fit
// now is dropped: UDP promises nothing.
func (s *service) closed(k *socket) {
	var pending []byte
	for !k.listening && !k.txDead {
		if k.txHeld && !s.writeHeld(k) {
			if k.dgram {
				s.c.txDgramDrops.Add(1)
				k.tx, k.txHeld = nil, false
			} else {
				pending = append(pending, k.tx...)
				k.tx, k.txHeld = nil, false
			}
		}
		if len(pending) > 0 && !k.dgram {
			// The endpoint is full: collect the rest of the ring behind what it refused.
			for s.pull(k) {
				pending = append(pending, k.tx...)
				k.tx, k.txHeld = nil, false
			}
			break
		}
		if !s.pull(k) {
			break
		}
	}
	delete(s.socks, k.sid)
	s.release(k.sid)
	k.closed = true
	if len(pending) > 0 {
		k.tx, k.txHeld = pending, true
		s.orphans[k] = struct{}{}
		return
	}
	s.finish(k)
}

// finish closes k's endpoint (gracefully: tcpip sends a FIN after its queued data) and
// forgets k.
func (s *service) finish(k *socket) {
	if k.dead {
		return
	}
	k.dead = true
	k.wq.EventUnregister(&k.we)
	k.ep.Close()
	if k.pend != nil {
		k.pend.ep.Abort() // accepted by tcpip, never by the program: reset, as Linux does
		k.pend = nil
	}
	delete(s.orphans, k)
	if s.socks[k.sid] == k {
		delete(s.socks, k.sid)
	}
	s.c.sockets.Add(^uint64(0))
}

// release tells the kernel the stack is done with sid.
func (s *service) release(sid uint32) {
	s.c.released.Add(1)
	if err := s.k.Release(sid); err != nil {
		s.c.kErrors.Add(1)
	}
}
