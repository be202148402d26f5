// Socket calls: the EvRequest records, carried out on tcpip endpoints.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"syscall"

	"gmpos/kernel/netabi"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
	"gvisor.dev/gvisor/pkg/tcpip/transport/udp"
	"gvisor.dev/gvisor/pkg/waiter"
)

// Linux socket constants (linux/net.h, linux/in.h, linux/socket.h).
const (
	sockStream  = 1
	sockDgram   = 2
	sockTypeMsk = 0xf // the type without SOCK_NONBLOCK/SOCK_CLOEXEC
	ipprotoTCP  = 6
	ipprotoUDP  = 17
	shutRd      = 0
	shutWr      = 1
	shutRdwr    = 2
	somaxconn   = 4096 // Linux's default net.core.somaxconn
)

// request carries out one socket call. A round trip (Req ≠ 0: bind, listen, a datagram
// connect, getsockopt) is answered exactly once, also one naming an unknown socket (EBADF) or
// an unknown op (EINVAL). An asynchronous one (Req 0: socket, setsockopt, shutdown, a stream
// connect) has no caller waiting for it: what fails becomes the socket's state (socket,
// connect) or is counted (setsockopt, shutdown: the kernel has checked what Linux checks).
func (s *service) request(e netabi.Event) {
	if e.Op == netabi.ReqSocket {
		r := s.socket(e)
		if r < 0 && e.Req == 0 {
			// No endpoint, so no socket to fail: set the kernel's state directly.
			if err := s.k.State(e.Sid, netabi.StErr|netabi.StHup|netabi.StRxEOF, 0, syscall.Errno(-r)); err != nil {
				s.c.kErrors.Add(1)
			}
		}
		s.answer(e, r, nil)
		return
	}
	k := s.socks[e.Sid]
	if k == nil {
		s.c.unknownSid.Add(1)
		s.answer(e, -int64(syscall.EBADF), nil)
		return
	}
	var r int64
	var payload []byte
	switch e.Op {
	case netabi.ReqBind:
		r = s.bind(k, e.Data)
	case netabi.ReqListen:
		r = s.listen(k, e.Args[0])
	case netabi.ReqConnect:
		r = s.connect(k, e.Data)
		if r == -int64(syscall.EINPROGRESS) {
			r = 0 // under way: poll reports the outcome
		} else if r < 0 && e.Req == 0 {
			s.fail(k, syscall.Errno(-r)) // a stream connect: the program learns it as SO_ERROR
		}
	case netabi.ReqSetsockopt:
		r = -int64(s.setsockopt(k, e.Args[0], e.Args[1], e.Data))
	case netabi.ReqGetsockopt:
		var errno syscall.Errno
		payload, errno = s.getsockopt(k, e.Args[0], e.Args[1], e.Args[2])
		r = -int64(errno)
	case netabi.ReqShutdown:
		r = s.shutdown(k, e.Args[0])
	default:
		s.c.badEvents.Add(1)
		r = -int64(syscall.EINVAL)
	}
	s.answer(e, r, payload)
}

// answer replies to a round trip, or counts an asynchronous request's failure.
func (s *service) answer(e netabi.Event, r int64, payload []byte) {
	if e.Req != 0 {
		s.reply(e.Req, r, payload)
		return
	}
	if r < 0 {
		s.c.asyncErrors.Add(1)
	}
}

// reply answers a request. ESRCH (the caller was interrupted) is not an error of the stack.
func (s *service) reply(req uint32, r int64, payload []byte) {
	s.c.replies.Add(1)
	if err := s.k.Reply(req, r, payload); err != nil {
		s.c.replyErrors.Add(1)
	}
}

// errResult is a reply's result for a tcpip error: 0 or -errno.
func errResult(err tcpip.Error) int64 { return -int64(errnoOf(err)) }

// socket creates the endpoint for ReqSocket (e.Sid is the new socket; the program's call has
// returned). A failure becomes the socket's state: request sets StErr.
func (s *service) socket(e netabi.Event) int64 {
	if _, ok := s.socks[e.Sid]; ok {
		s.c.badEvents.Add(1) // the kernel reused a live Sid: refuse
		return -int64(syscall.EINVAL)
	}
	typ, proto := e.Args[0]&sockTypeMsk, e.Args[1]
	var tp tcpip.TransportProtocolNumber
	switch {
	case typ == sockStream && (proto == 0 || proto == ipprotoTCP):
		tp = tcp.ProtocolNumber
	case typ == sockDgram && (proto == 0 || proto == ipprotoUDP):
		tp = udp.ProtocolNumber
	case typ == sockStream || typ == sockDgram:
		return -int64(syscall.EPROTONOSUPPORT)
	default:
		return -int64(syscall.ESOCKTNOSUPPORT)
	}
	wq := new(waiter.Queue)
	ep, err := s.st.NewEndpoint(tp, ipv4.ProtocolNumber, wq)
	if err != nil {
		return errResult(err)
	}
	k := s.newSocket(e.Sid, tp == udp.ProtocolNumber, ep, wq)
	if k.dgram {
		s.setState(k, netabi.StTxOpen, 0, 0) // a datagram socket takes data at once
	}
	return 0
}

func (s *service) bind(k *socket, sa []byte) int64 {
	fa, errno := decodeSockaddr(sa, true)
	if errno != 0 {
		return -int64(errno)
	}
	if err := k.ep.Bind(fa); err != nil {
		return errResult(err)
	}
	s.setAddr(k, true, false) // with the port tcpip chose for port 0
	return 0
}

func (s *service) listen(k *socket, backlog uint64) int64 {
	if k.dgram {
		return -int64(syscall.EOPNOTSUPP)
	}
	n := int(int32(backlog)) // the program's int
	if n < 0 || n > somaxconn {
		n = somaxconn // as Linux: a negative backlog is the maximum
	}
	if err := k.ep.Listen(n); err != nil {
		return errResult(err)
	}
	k.listening = true
	s.setAddr(k, true, false)
	s.accept(k) // connections may already wait (listen on a socket that listened)
	return 0
}

// setAddr records k's local and (peer) remote address in the kernel, which answers
// getsockname and getpeername itself.
func (s *service) setAddr(k *socket, local, peer bool) {
	var lb, pb [sockaddrInSize]byte
	var l, p []byte
	if local {
		if fa, err := k.ep.GetLocalAddress(); err == nil {
			l = encodeSockaddr(lb[:], fa)
			k.named = true
		}
	}
	if peer {
		if fa, err := k.ep.GetRemoteAddress(); err == nil {
			p = encodeSockaddr(pb[:], fa)
		}
	}
	if l == nil && p == nil {
		return
	}
	if err := s.k.SetAddr(k.sid, l, p); err != nil {
		s.c.kErrors.Add(1)
	}
}

// connect starts a connection. Stream: -EINPROGRESS, and poll reports the outcome with
// OpSetAddr and OpState; dgram: sets the default peer at once.
func (s *service) connect(k *socket, sa []byte) int64 {
	if len(sa) >= 2 && sa[0] == afUnspec && sa[1] == 0 && k.dgram {
		return errResult(k.ep.Disconnect()) // AF_UNSPEC dissolves a datagram association
	}
	fa, errno := decodeSockaddr(sa, false)
	if errno != 0 {
		return -int64(errno)
	}
	fa = remoteAddr(fa)
	err := k.ep.Connect(fa)
	switch err.(type) {
	case nil:
		s.setAddr(k, true, true)
		if !k.dgram {
			s.setState(k, netabi.StConnected|netabi.StTxOpen, 0, 0)
		}
		return 0
	case *tcpip.ErrConnectStarted:
		k.connecting = true
		s.markDirty(k) // in case tcpip decided before the wait entry could see it
		return -int64(syscall.EINPROGRESS)
	}
	return errResult(err)
}

// pendingConn is a connection taken from tcpip's accept queue for which the kernel's queue
// had no room yet.
type pendingConn struct {
	ep          tcpip.Endpoint
	wq          *waiter.Queue
	local, peer tcpip.FullAddress
}

// accept moves the connections tcpip has established on listener k to the kernel's accept
// queue (OpAccepted), so that the program's accept4 never waits for the stack. It stops when
// tcpip has none (its waiter brings the service back) or the kernel's queue is full (then
// EvRxSpace does). Each new socket is connected and writable before accept4 can return it.
func (s *service) accept(k *socket) {
	for !k.dead && k.listening && !k.acceptWait {
		if k.pend == nil {
			var peer tcpip.FullAddress
			ep, wq, err := k.ep.Accept(&peer)
			if err != nil {
				return // ErrWouldBlock: none waiting
			}
			local, _ := ep.GetLocalAddress()
			k.pend = &pendingConn{ep: ep, wq: wq, local: local, peer: peer}
		}
		p := k.pend
		var lb, pb [sockaddrInSize]byte
		sid, err := s.k.Accepted(k.sid, encodeSockaddr(lb[:], p.local), encodeSockaddr(pb[:], p.peer))
		if err == syscall.EAGAIN {
			k.acceptWait = true
			return
		}
		k.pend = nil
		if err != nil {
			// No socket slot (ENFILE, ENOBUFS) or the listener is gone: reset the connection,
			// as Linux drops one its accept queue cannot hold.
			s.c.acceptDrops.Add(1)
			p.ep.Abort()
			continue
		}
		if _, ok := s.socks[sid]; ok {
			s.c.badEvents.Add(1) // the kernel handed out a live Sid: cannot happen
			p.ep.Abort()
			continue
		}
		nk := s.newSocket(sid, false, p.ep, p.wq)
		nk.named = true
		nk.state = netabi.StConnected | netabi.StTxOpen // as OpAccepted made it
		s.c.accepted.Add(1)
		s.poll(nk) // data or a FIN may have come with the connection
	}
}

// shutdown carries out shutdown(2). Events come in order, so data the program wrote before is
// in the send ring now: SHUT_WR drains it into the endpoint first, and if the endpoint cannot
// take it all yet the FIN waits in tx until it has (the reply does not wait, as on Linux).
func (s *service) shutdown(k *socket, how uint64) int64 {
	var f tcpip.ShutdownFlags
	switch how {
	case shutRd:
		f = tcpip.ShutdownRead
	case shutWr:
		f = tcpip.ShutdownWrite
	case shutRdwr:
		f = tcpip.ShutdownRead | tcpip.ShutdownWrite
	default:
		return -int64(syscall.EINVAL)
	}
	if f&tcpip.ShutdownWrite != 0 && k.flows() && !k.dgram {
		s.tx(k)
		if k.txHeld {
			k.shutWr = true
			f &^= tcpip.ShutdownWrite
			if f == 0 {
				return 0
			}
		}
	}
	return errResult(k.ep.Shutdown(f))
}
