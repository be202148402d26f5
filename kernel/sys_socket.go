// The socket system calls (net/socket.c): argument checks here, the protocol in the stack.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/netabi"
	"gmpos/sched"
)

// Each call checks its arguments as Linux does — a bad fd is EBADF, a non-socket ENOTSOCK, a
// bad pointer EFAULT, a bad length EINVAL — before anything reaches the stack. Calls that need
// the protocol (socket, bind, listen, connect, accept4, getsockname, getpeername, most
// socket options, shutdown) are round trips to the stack (net_svc.go: netRequestStart); the
// data calls work on the socket's rings (fd_socket.go). A call that would block on a blocking
// socket waits for the socket's readiness and runs again (wait.go, waitFile).

// Protocols (linux/in.h) and the size of struct sockaddr_in.
const (
	ipprotoTCP    = 6
	ipprotoUDP    = 17
	sockaddrInLen = 16
)

// sockFD returns the socket behind fd: EBADF, or ENOTSOCK for another kind of file.
func sockFD(fd int32) (*socket, *file, int, int64) {
	f, fi := fdFile(fd)
	if f == nil {
		return nil, nil, -1, -EBADF
	}
	if f.kind != kindSocket {
		return nil, nil, -1, -ENOTSOCK
	}
	return sockOf(f), f, fi, 0
}

// Limits of socket(2)'s arguments (linux/socket.h AF_MAX, linux/net.h SOCK_MAX,
// linux/in.h IPPROTO_MAX).
const (
	afMax      = 46
	sockMax    = 11
	ipprotoMax = 263
)

// sockCreateCheck is socket(2)'s argument checks in Linux's order (__sys_socket,
// __sock_create, inet_create): the flags in type, the family's range, the type's range, the
// family, the protocol's range, then the type and the protocol. 0: an AF_INET stream (TCP) or
// datagram (UDP) socket can be made. Every family but AF_INET is EAFNOSUPPORT — for AF_INET6
// that makes Go's net use IPv4 alone (ipStackCapabilities) — and so is AF_INET while no stack
// is attached.
func sockCreateCheck(domain, typ, proto int32) int64 {
	if typ&^(0xf|sockNonblock|sockCloexec) != 0 {
		return -EINVAL
	}
	if domain < 0 || domain >= afMax {
		return -EAFNOSUPPORT
	}
	if typ&0xf >= sockMax {
		return -EINVAL
	}
	if domain != afInet || !netsvc.attached {
		return -EAFNOSUPPORT
	}
	if proto < 0 || proto >= ipprotoMax {
		return -EINVAL
	}
	switch typ & 0xf {
	case sockStream:
		if proto != 0 && proto != ipprotoTCP {
			return -EPROTONOSUPPORT
		}
	case sockDgram:
		if proto != 0 && proto != ipprotoUDP {
			return -EPROTONOSUPPORT
		}
	default:
		return -ESOCKTNOSUPPORT
	}
	return 0
}

// sysSocket creates a socket: AF_INET stream (TCP) or datagram (UDP). The stack makes its
// endpoint asynchronously (Go calls socket with RawSyscall: the caller keeps its P, and on
// GOMAXPROCS=1 the stack could not run to answer a round trip).
func sysSocket(t *Thread, gp sched.GID, cpu int, domain, typ, proto int32) int64 {
	if e := sockCreateCheck(domain, typ, proto); e != 0 {
		return e
	}
	s, e := sockAlloc(uint8(typ & 0xf))
	if s == nil {
		return e
	}
	fd := openFile(kindSocket, oRdwr|uint32(typ)&(sockNonblock|sockCloexec), uint64(s.slot()))
	if fd < 0 {
		sockFreeSlot(s)
		return fd
	}
	ev := netAsync(netabi.ReqSocket, s)
	if ev == nil {
		closeFD(int32(fd))
		return -ENOBUFS
	}
	_, fi := fdFile(int32(fd))
	s.file = int32(fi)
	ev.args[0], ev.args[1] = uint64(typ&0xf), uint64(proto)
	return fd
}

// sysSocketpair (__sys_socketpair) checks the flags, writes the two fds it reserved to sv, and
// then creates the first socket; AF_INET has no socketpair (sock_no_socketpair: EOPNOTSUPP),
// and there is no other family yet. The fds are never reserved here, so sv is only checked.
func sysSocketpair(domain, typ, proto int32, sv uintptr) int64 {
	if typ&^(0xf|sockNonblock|sockCloexec) != 0 {
		return -EINVAL
	}
	if !userRange(sv, 8, true) {
		return -EFAULT
	}
	if e := sockCreateCheck(domain, typ, proto); e != 0 {
		return e
	}
	return -EOPNOTSUPP
}

// sockaddrStorage is sizeof(struct sockaddr_storage): the longest address a call takes.
const sockaddrStorage = 128

// sockaddrCopy checks a sockaddr the program passes in as move_addr_to_kernel does, whatever
// the socket: the length is an int of at most sockaddrStorage (EINVAL) and every byte of it
// must be readable (EFAULT). It returns the length.
func sockaddrCopy(addr, alen uintptr) (uintptr, int64) {
	n := int32(alen)
	if n < 0 || n > sockaddrStorage {
		return 0, -EINVAL
	}
	if n > 0 && !userRange(addr, uintptr(n), false) {
		return 0, -EFAULT
	}
	return uintptr(n), 0
}

// sockaddrFamily is the family of a copied sockaddr of at least 2 bytes.
func sockaddrFamily(addr uintptr) uint16 {
	b := userBytes(addr, 2)
	return uint16(b[0]) | uint16(b[1])<<8
}

// sockaddrIn reads a copied sockaddr of n bytes as the AF_INET protocols do (inet_bind,
// tcp_v4_connect, ip4_datagram_connect, udp_sendmsg): shorter than a sockaddr_in is EINVAL,
// before the family is looked at. It returns the family as given and the address in sa, with
// the family set to AF_INET for the stack (AF_UNSPEC is AF_INET to bind and udp_sendmsg).
func sockaddrIn(addr, n uintptr, sa *[sockaddrInLen]byte) (uint16, int64) {
	if n < sockaddrInLen {
		return 0, -EINVAL
	}
	copy(sa[:], userBytes(addr, sockaddrInLen))
	fam := uint16(sa[0]) | uint16(sa[1])<<8
	sa[0], sa[1] = afInet, 0
	return fam, 0
}

// sockRequest starts a round trip about socket s carrying the sockaddr or value at p, n.
func sockRequest(t *Thread, gp sched.GID, cpu int, op uint16, s *socket, p, n uintptr) (*netRequest, *netEvent, int64) {
	if n > netabi.MaxData {
		return nil, nil, -EINVAL
	}
	r, ev := netRequestStart(t, gp, cpu, op, s)
	if r == nil {
		return nil, nil, -ENOBUFS
	}
	if n > 0 {
		copy(ev.data[:n], userBytes(p, n))
		ev.n = uint32(n)
	}
	return r, ev, 0
}

// sysBind: the fd (sockfd_lookup_light), the address (move_addr_to_kernel), then inet_bind's
// checks; AF_UNSPEC is taken for AF_INET with INADDR_ANY only (__inet_bind).
func sysBind(t *Thread, gp sched.GID, cpu int, fd int32, addr, alen uintptr) int64 {
	s, _, _, e := sockFD(fd)
	if s == nil {
		return e
	}
	n, e := sockaddrCopy(addr, alen)
	if e != 0 {
		return e
	}
	var sa [sockaddrInLen]byte
	fam, e := sockaddrIn(addr, n, &sa)
	if e != 0 {
		return e
	}
	if fam != afInet && (fam != afUnspec || le32(sa[4:]) != 0) {
		return -EAFNOSUPPORT
	}
	_, _, e = sockRequest(t, gp, cpu, netabi.ReqBind, s, ptrOf(&sa[0]), sockaddrInLen)
	return e
}

func sysListen(t *Thread, gp sched.GID, cpu int, fd int32, backlog int32) int64 {
	s, _, _, e := sockFD(fd)
	if s == nil {
		return e
	}
	if s.typ != sockStream {
		return -EOPNOTSUPP
	}
	s.backlog = min(max(backlog, 1), maxBacklog)
	_, ev, e := sockRequest(t, gp, cpu, netabi.ReqListen, s, 0, 0)
	if ev != nil {
		ev.args[0] = uint64(s.backlog)
	}
	return e
}

// maxBacklog bounds a listener's accept queue (Linux: net.core.somaxconn, 4096 since 5.4; the
// socket table is smaller here).
const maxBacklog = 128

// sysConnect starts a connection. A stream connect never waits for the stack: it answers
// EINPROGRESS (non-blocking) or waits for the outcome (blocking), which the stack reports as
// state (StConnected, or StErr); a second connect while it is under way is EALREADY, and the
// blocking one's second run returns how it ended. A datagram connect is a round trip: the stack
// binds the socket and records its addresses before answering.
//
// The checks are Linux's, in its order: the fd (EBADF), the address (move_addr_to_kernel), the
// socket (ENOTSOCK), the address's family field (inet_stream_connect, inet_dgram_connect), the
// socket's state, then the address as AF_INET (tcp_v4_connect, ip4_datagram_connect). AF_UNSPEC,
// which on Linux dissolves the association, is not supported.
func sysConnect(t *Thread, gp sched.GID, cpu int, fd int32, addr, alen uintptr) int64 {
	f, fi := fdFile(fd)
	if f == nil {
		return -EBADF
	}
	if f.kind == kindSocket && sockOf(f).connectWait {
		return sockConnectWait(t, gp, cpu, sockOf(f), fi) // a blocking connect's second run
	}
	n, e := sockaddrCopy(addr, alen)
	if e != 0 {
		return e
	}
	if f.kind != kindSocket {
		return -ENOTSOCK
	}
	s := sockOf(f)
	if n < 2 {
		return -EINVAL
	}
	if sockaddrFamily(addr) == afUnspec {
		return -EAFNOSUPPORT
	}
	if s.typ == sockStream && s.connecting {
		return sockConnectWait(t, gp, cpu, s, fi)
	}
	if s.typ == sockStream && (s.st&netabi.StConnected != 0 || s.listening) {
		return -EISCONN
	}
	var sa [sockaddrInLen]byte
	fam, e := sockaddrIn(addr, n, &sa)
	if e != 0 {
		return e
	}
	if fam != afInet {
		return -EAFNOSUPPORT
	}
	if s.typ == sockDgram {
		_, _, e = sockRequest(t, gp, cpu, netabi.ReqConnect, s, ptrOf(&sa[0]), sockaddrInLen)
		return e
	}
	ev := netAsync(netabi.ReqConnect, s)
	if ev == nil {
		return -ENOBUFS
	}
	copy(ev.data[:sockaddrInLen], sa[:])
	ev.n = sockaddrInLen
	s.connecting = true
	if f.flags&oNonblock == 0 {
		s.connectWait = true
		waitFileEvent(t, gp, cpu, fi, epollOut|epollErr|epollHup)
		return 0
	}
	return -EINPROGRESS
}

// sockConnectWait is connect on a stream socket whose connect is under way: how it ended (as
// __inet_stream_connect reports it to the first connect after a non-blocking one: 0 or the
// error), or EALREADY, or (blocking) another wait for it to end.
func sockConnectWait(t *Thread, gp sched.GID, cpu int, s *socket, fi int) int64 {
	wait := s.connectWait
	s.connectWait = false
	if s.err != 0 {
		s.connecting = false
		return sockRecvErr(s)
	}
	if s.st&netabi.StConnected != 0 {
		s.connecting = false // the first connect to see it succeed says 0, later ones EISCONN
		return 0
	}
	if wait {
		s.connectWait = true
		waitFileEvent(t, gp, cpu, fi, epollOut|epollErr|epollHup)
		return 0
	}
	return -EALREADY
}

// sysAccept4 takes a connection from the listener's accept queue, which the stack fills
// (OpAccepted): no round trip. An empty queue is EAGAIN, or, blocking, a wait for the listener
// to become readable. The checks are Linux's, in its order (__sys_accept4, do_accept,
// inet_csk_accept): the fd, the flags, the socket, the protocol (UDP has no accept), the state;
// the peer's address is copied out only once there is a connection (move_addr_to_user). A
// connection whose address cannot be copied out stays queued (Linux drops it).
func sysAccept4(t *Thread, gp sched.GID, cpu int, fd int32, addr, alenp uintptr, flags int32) int64 {
	f, fi := fdFile(fd)
	if f == nil {
		return -EBADF
	}
	if flags&^(sockNonblock|sockCloexec) != 0 {
		return -EINVAL
	}
	if f.kind != kindSocket {
		return -ENOTSOCK
	}
	s := sockOf(f)
	if s.typ == sockDgram {
		return -EOPNOTSUPP
	}
	if !s.listening {
		return -EINVAL
	}
	if s.acceptN == 0 {
		if f.flags&oNonblock != 0 {
			return -EAGAIN
		}
		waitFileEvent(t, gp, cpu, fi, epollIn|epollErr|epollHup)
		return 0
	}
	c := &sockets[s.acceptHead-1]
	if addr != 0 {
		if e := sockPutAddr(addr, alenp, c.peer[:c.peerLen]); e != 0 {
			return e
		}
	}
	nfd := openFile(kindSocket, oRdwr|uint32(flags), uint64(c.slot()))
	if nfd < 0 {
		return nfd
	}
	s.acceptPop()
	_, nfi := fdFile(int32(nfd))
	c.file = int32(nfi)
	if s.rxWanted {
		s.rxWanted = false
		netQueue(netabi.EvRxSpace, 0, s.sid(), 0) // room in the queue again
	}
	return nfd
}

// sysSockName is getsockname (peer false) and getpeername (peer true), answered from the
// addresses the stack recorded (OpSetAddr): Go calls both with RawSyscall.
func sysSockName(t *Thread, gp sched.GID, cpu int, fd int32, addr, alenp uintptr, peer bool) int64 {
	s, _, _, e := sockFD(fd)
	if s == nil {
		return e
	}
	sa := s.local[:s.localLen]
	if peer {
		if s.peerLen == 0 {
			return -ENOTCONN
		}
		sa = s.peer[:s.peerLen]
	} else if s.localLen == 0 {
		var any = [sockaddrInLen]byte{0: afInet} // unbound: 0.0.0.0 port 0
		sa = any[:]
	}
	return sockPutAddr(addr, alenp, sa)
}

// sysSetsockopt checks the option as Linux does and passes it on without waiting: Go sets
// several options on every socket it makes, and each round trip would cost a context switch or
// two. The checks: the length is an int (negative: EINVAL); then exactly the bytes Linux reads
// before it looks at the option (netabi.SockoptSpan: EINVAL or ENOPROTOOPT before reading,
// EFAULT if they cannot be read); then the option and its value (netabi.CheckSockopt).
func sysSetsockopt(t *Thread, gp sched.GID, cpu int, fd int32, level, name int32, val, optlen uintptr) int64 {
	s, _, _, e := sockFD(fd)
	if s == nil {
		return e
	}
	if int32(optlen) < 0 {
		return -EINVAL
	}
	span, errno := netabi.SockoptSpan(level, name, int32(optlen), s.typ == sockDgram)
	if errno != 0 {
		return -int64(errno)
	}
	n := uintptr(span) // ≤ MaxData
	if n > 0 && !userRange(val, n, false) {
		return -EFAULT
	}
	if e := netabi.CheckSockopt(level, name, userBytes(val, n), s.typ == sockDgram); e != 0 {
		return -int64(e)
	}
	ev := netAsync(netabi.ReqSetsockopt, s)
	if ev == nil {
		return -ENOBUFS
	}
	ev.args[0], ev.args[1] = uint64(level), uint64(name)
	copy(ev.data[:n], userBytes(val, n))
	ev.n = uint32(n)
	return 0
}

// sysGetsockopt: SO_ERROR, SO_TYPE, SO_DOMAIN, SO_PROTOCOL and SO_ACCEPTCONN are the kernel's;
// the rest are the stack's. A level neither TCP nor UDP knows goes to ip_getsockopt on Linux,
// which knows only SOL_IP: EOPNOTSUPP, before optlen is read.
func sysGetsockopt(t *Thread, gp sched.GID, cpu int, fd int32, level, name int32, val, lenp uintptr) int64 {
	s, _, _, e := sockFD(fd)
	if s == nil {
		return e
	}
	switch {
	case level == netabi.SolSocket, level == netabi.IPProtoIP:
	case level == netabi.IPProtoTCP && s.typ == sockStream, level == netabi.SolUDP && s.typ == sockDgram:
	default:
		return -EOPNOTSUPP
	}
	if !userRange(lenp, 4, true) {
		return -EFAULT
	}
	room := load32(lenp)
	if int32(room) < 0 {
		return -EINVAL
	}
	if level == netabi.SolSocket {
		v, local := int64(0), true
		switch name {
		case netabi.SoError:
			v = int64(s.err)
			s.err = 0
			s.st &^= netabi.StErr
		case netabi.SoType:
			v = int64(s.typ)
		case netabi.SoDomain:
			v = afInet
		case netabi.SoProtocol:
			v = ipprotoTCP
			if s.typ == sockDgram {
				v = ipprotoUDP
			}
		case netabi.SoAcceptcon:
			if s.listening {
				v = 1
			}
		default:
			local = false
		}
		if local {
			c := min(uintptr(room), 4)
			if c > 0 && !userRange(val, c, true) {
				return -EFAULT
			}
			var b [4]byte
			le32put(b[:], uint32(v))
			copyOut(val, b[:c])
			store32(lenp, uint32(c))
			return 0
		}
	}
	r, ev, e := sockRequest(t, gp, cpu, netabi.ReqGetsockopt, s, 0, 0)
	if r != nil {
		ev.args[0], ev.args[1], ev.args[2] = uint64(level), uint64(name), uint64(room)
		r.out, r.outLen, r.cap = val, lenp, room
	}
	return e
}

// sysShutdown shuts one or both directions: the kernel refuses further writes (EPIPE) or
// reports end of stream at once; the stack sends the FIN after the data already written
// (events are ordered), without the program waiting for it.
func sysShutdown(t *Thread, gp sched.GID, cpu int, fd int32, how int32) int64 {
	s, _, _, e := sockFD(fd)
	if s == nil {
		return e
	}
	if how < 0 || how > 2 {
		return -EINVAL
	}
	if s.typ == sockStream && s.st&netabi.StConnected == 0 && !s.listening {
		return -ENOTCONN
	}
	if how != 1 {
		s.shutRd, s.rxShut = true, true
	}
	if how != 0 {
		s.shutWr = true
	}
	if s.typ == sockDgram && !s.peerSet {
		// inet_shutdown: an unconnected socket (TCP_CLOSE) is marked shut all the same, and
		// the call says ENOTCONN; the stack has no association to shut.
		sockNotify(s, epollIn|epollOut|epollRdhup, cpu)
		return -ENOTCONN
	}
	ev := netAsync(netabi.ReqShutdown, s)
	if ev == nil {
		return -ENOBUFS
	}
	ev.args[0] = uint64(how)
	sockNotify(s, epollIn|epollOut|epollRdhup, cpu)
	return 0
}

// sysSendto is write with flags and, for datagrams, a destination. An address is checked
// whatever the socket (move_addr_to_kernel); a stream socket then ignores it, as TCP does.
//
// The buffer's range is checked first, before the fd (import_ubuf), as recvfrom's is.
func sysSendto(t *Thread, gp sched.GID, cpu int, fd int32, buf, n uintptr, flags uint32, addr, alen uintptr) int64 {
	n = min(n, maxRWCount)
	if !accessOK(buf, n) {
		return -EFAULT
	}
	s, f, fi, e := sockFD(fd)
	if s == nil {
		return e
	}
	if addr != 0 {
		if alen, e = sockaddrCopy(addr, alen); e != 0 {
			return e
		}
	}
	u := oneBuf(buf, n)
	return sockSendMsg(t, gp, cpu, s, f, fi, &u, n, flags, addr, alen, 0, 0)
}

// sockSendMsg is the protocol's part of sendto and sendmsg, once the fd, the address (a copied
// sockaddr of alen bytes at addr, or none) and the data u (n bytes) are checked: udp_sendmsg's
// checks, or a stream's state; then the control data (ctl, ctlLen: copied and readable), which
// must be well-formed and is otherwise ignored; then the data. A send that finds no room waits
// unless the socket or the call says not to.
func sockSendMsg(t *Thread, gp sched.GID, cpu int, s *socket, f *file, fi int, u *userIO, n uintptr, flags uint32, addr, alen, ctl, ctlLen uintptr) int64 {
	var sa [sockaddrInLen]byte
	if s.typ == sockDgram {
		if e := udpSendCheck(n, flags, addr, alen, &sa); e != 0 {
			return e
		}
		if addr == 0 && !s.peerSet {
			return -EDESTADDRREQ
		}
	} else if e := sockSendable(s); e != 0 && e != -EAGAIN {
		return sockPipe(t, gp, cpu, s, flags, e)
	}
	if !cmsgOK(ctl, ctlLen) {
		return -EINVAL
	}
	if addr != 0 && s.typ == sockDgram {
		addr, alen = ptrOf(&sa[0]), sockaddrInLen
	} else {
		addr, alen = 0, 0
	}
	r := sockSend(s, u, n, addr, alen)
	if r == -EAGAIN && f.flags&oNonblock == 0 && flags&msgDontwait == 0 {
		waitFileEvent(t, gp, cpu, fi, epollOut|epollErr|epollHup)
	}
	return sockPipe(t, gp, cpu, s, flags, r)
}

// sockPipe passes a send's result through, raising SIGPIPE in the sender when a stream socket
// answered EPIPE and the call did not say MSG_NOSIGNAL (Linux's sk_stream_error).
func sockPipe(t *Thread, gp sched.GID, cpu int, s *socket, flags uint32, r int64) int64 {
	if r == -EPIPE && s.typ == sockStream && flags&msgNosignal == 0 {
		postSignal(t, gp, sigPIPE, cpu)
	}
	return r
}

// cmsgOK walks control data as for_each_cmsghdr does and reports whether every header is
// CMSG_OK: at least a struct cmsghdr (16 bytes), and no longer than what is left. Linux refuses
// (EINVAL) control data that is not; gmpos carries out no control message, and ignores
// well-formed ones.
func cmsgOK(ctl, n uintptr) bool {
	for off := uintptr(0); n-off >= 16; {
		l := uintptr(load64(ctl + off))
		if l < 16 || l > n-off {
			return false
		}
		off += (l + 7) &^ 7
		if off > n {
			break
		}
	}
	return true
}

// udpSendCheck is udp_sendmsg's checks before it looks at the data: the length, MSG_OOB, then
// the destination if there is one (a copied sockaddr of alen bytes at addr): short or port 0 is
// EINVAL, a family but AF_INET or AF_UNSPEC is EAFNOSUPPORT. The destination goes to sa.
func udpSendCheck(n uintptr, flags uint32, addr, alen uintptr, sa *[sockaddrInLen]byte) int64 {
	if n > 0xffff {
		return -EMSGSIZE
	}
	if flags&msgOob != 0 {
		return -EOPNOTSUPP
	}
	if addr == 0 {
		return 0
	}
	fam, e := sockaddrIn(addr, alen, sa)
	if e != 0 {
		return e
	}
	if fam != afInet && fam != afUnspec {
		return -EAFNOSUPPORT
	}
	if sa[2] == 0 && sa[3] == 0 {
		return -EINVAL
	}
	return 0
}

// sysRecvfrom is read with flags and the source's address.
func sysRecvfrom(t *Thread, gp sched.GID, cpu int, fd int32, buf, n uintptr, flags uint32, addr, alenp uintptr) int64 {
	n = min(n, maxRWCount)
	if !accessOK(buf, n) {
		return -EFAULT
	}
	s, f, fi, e := sockFD(fd)
	if s == nil {
		return e
	}
	u := oneBuf(buf, n)
	return sockRecvMsg(t, gp, cpu, s, f, fi, &u, n, flags, addr, alenp, nil)
}

// sockRecvMsg is sockRecv for recvfrom, recvmsg and readv: a receive that finds nothing waits
// unless the socket or the call says not to.
func sockRecvMsg(t *Thread, gp sched.GID, cpu int, s *socket, f *file, fi int, u *userIO, n uintptr, flags uint32, addr, alenp uintptr, oflags *uint32) int64 {
	r := sockRecv(s, u, n, flags|sockNonblockFlag(f), addr, alenp, oflags)
	if r == -EAGAIN && f.flags&oNonblock == 0 && flags&msgDontwait == 0 {
		waitFileEvent(t, gp, cpu, fi, epollIn|epollErr|epollHup)
	}
	return r
}

// struct msghdr (include/linux/socket.h) on a 64-bit architecture, and the limits on it.
const (
	msgName       = 0
	msgNamelen    = 8
	msgIov        = 16
	msgIovlen     = 24
	msgControl    = 32
	msgControllen = 40
	msgFlags      = 48
	msghdrSize    = 56
	iovMax        = 1024      // UIO_MAXIOV
	optmemMax     = 128 << 10 // net.core.optmem_max: the most control data sock_kmalloc takes
	msgCmsgCompat = 0x80000000
)

// msgHdr is a struct msghdr as __copy_msghdr reads it: the name (NULL, or a sockaddr of
// namelen bytes), the iovecs, the control data.
type msgHdr struct {
	name, namelen, iov, iovlen, ctl, ctlLen uintptr
}

// msghdrRead reads and checks the msghdr at msg (readable) as copy_msghdr_from_user does: a
// negative namelen is EINVAL, a longer one than sockaddr_storage is cut to it, a name of 0
// bytes is none; more than UIO_MAXIOV iovecs is EMSGSIZE; then the iovecs (iovImport), whose
// total is returned. send: the name is copied in too (move_addr_to_kernel: EFAULT).
func msghdrRead(msg uintptr, m *msgHdr, send bool) int64 {
	m.name, m.namelen = uintptr(load64(msg+msgName)), uintptr(load32(msg+msgNamelen))
	m.iov, m.iovlen = uintptr(load64(msg+msgIov)), uintptr(load64(msg+msgIovlen))
	m.ctl, m.ctlLen = uintptr(load64(msg+msgControl)), uintptr(load64(msg+msgControllen))
	if m.name == 0 {
		m.namelen = 0
	}
	if int32(m.namelen) < 0 {
		return -EINVAL
	}
	m.namelen = min(m.namelen, sockaddrStorage)
	if m.namelen == 0 {
		m.name = 0
	}
	if send && m.name != 0 && !userRange(m.name, m.namelen, false) {
		return -EFAULT
	}
	if m.iovlen > iovMax {
		return -EMSGSIZE
	}
	return iovImport(m.iov, m.iovlen)
}

// sysSendmsg (__sys_sendmsg, ___sys_sendmsg): the flags, the fd, the msghdr and what it points
// to, the control data's size (ENOBUFS) and memory (EFAULT), then the protocol (sockSendMsg).
// A datagram is one message gathered from all the iovecs; a stream takes what fits.
func sysSendmsg(t *Thread, gp sched.GID, cpu int, fd int32, msg uintptr, flags uint32) int64 {
	if flags&msgCmsgCompat != 0 {
		return -EINVAL
	}
	s, f, fi, e := sockFD(fd)
	if s == nil {
		return e
	}
	if !userRange(msg, msghdrSize, false) {
		return -EFAULT
	}
	var m msgHdr
	total := msghdrRead(msg, &m, true)
	if total < 0 {
		return total
	}
	if m.ctlLen > 0x7fffffff || m.ctlLen >= optmemMax {
		return -ENOBUFS
	}
	if m.ctlLen > 0 && !userRange(m.ctl, m.ctlLen, false) {
		return -EFAULT
	}
	u := iovIO(m.iov, m.iovlen)
	return sockSendMsg(t, gp, cpu, s, f, fi, &u, uintptr(total), flags, m.name, m.namelen, m.ctl, m.ctlLen)
}

// sysRecvmsg (__sys_recvmsg, ___sys_recvmsg): the flags, the fd, the msghdr (read: it is
// written only once there is a message) and its iovecs, then the receive into all of them; the
// source's address goes to msg_name with its length to msg_namelen, MSG_TRUNC to msg_flags for
// a datagram longer than the iovecs, and msg_controllen becomes 0 (no control messages).
func sysRecvmsg(t *Thread, gp sched.GID, cpu int, fd int32, msg uintptr, flags uint32) int64 {
	if flags&msgCmsgCompat != 0 {
		return -EINVAL
	}
	s, f, fi, e := sockFD(fd)
	if s == nil {
		return e
	}
	if !userRange(msg, msghdrSize, false) {
		return -EFAULT
	}
	var m msgHdr
	total := msghdrRead(msg, &m, false)
	if total < 0 {
		return total
	}
	// The address goes to msg_name as given, even with a msg_namelen of 0 (then only its
	// length is written); msghdrRead has made a name of 0 bytes none.
	m.name = uintptr(load64(msg + msgName))
	alenp := uintptr(0)
	if m.name != 0 {
		alenp = msg + msgNamelen
	}
	u := iovIO(m.iov, m.iovlen)
	var oflags uint32
	r := sockRecvMsg(t, gp, cpu, s, f, fi, &u, uintptr(total), flags, m.name, alenp, &oflags)
	if r >= 0 {
		if !userRange(msg+msgControllen, 12, true) {
			return -EFAULT
		}
		store32(msg+msgFlags, oflags)
		store64(msg+msgControllen, 0)
	}
	return r
}
