// The socket system calls: bad input to socket, bind, connect, listen, accept4, getsockname,
// getpeername, setsockopt, getsockopt, shutdown, sendto, recvfrom, sendmsg, recvmsg, and readv
// and writev on sockets and other files.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/binary"
	"fmt"
	"syscall"

	// On gmpos the network stack runs as goroutines of the program, started before main in any
	// program that imports net (the runner links it in); without it every socket call fails.
	_ "net"
)

// Every socket here is AF_INET over the loopback interface, with an ephemeral port (the host's
// own services stay untouched), non-blocking unless a case says otherwise. Data a case needs on
// the other side is waited for (readable, with a bound) before the case runs: on gmpos the
// stack moves it asynchronously.

const (
	sysReadv       = 19
	sysWritev      = 20
	sysSocket      = 41
	sysConnect     = 42
	sysAccept      = 43
	sysSendto      = 44
	sysRecvfrom    = 45
	sysSendmsg     = 46
	sysRecvmsg     = 47
	sysShutdown    = 48
	sysBind        = 49
	sysListen      = 50
	sysGetsockname = 51
	sysGetpeername = 52
	sysSocketpair  = 53
	sysSetsockopt  = 54
	sysGetsockopt  = 55
	sysAccept4     = 288
)

const (
	afUnspec, afUnix, afInet, afInet6 = 0, 1, 2, 10
	sockStream, sockDgram             = 1, 2
	sockNonblock, sockCloexec         = 0o4000, 0o2000000
	ipprotoTCP, ipprotoUDP            = 6, 17

	msgOOB, msgPeek, msgTrunc, msgDontwait = 0x1, 0x2, 0x20, 0x40
	msgWaitall, msgNosignal, msgCmsgCompat = 0x100, 0x4000, 0x80000000

	solSocket, solIP, solTCP                        = 1, 0, 6
	soReuseaddr, soType, soError, soBroadcast       = 2, 3, 4, 6
	soSndbuf, soRcvbuf, soKeepalive, soLinger       = 7, 8, 9, 13
	soAcceptconn, soProtocol, soDomain              = 30, 38, 39
	tcpNodelay, tcpMaxseg                           = 1, 2
	tcpKeepidle, tcpKeepintvl, tcpKeepcnt           = 4, 5, 6
	ipTOS, ipTTL                                    = 1, 2
	ipMulticastIf, ipMulticastTTL                   = 32, 33
	ipMulticastLoop, ipAddMembership                = 34, 35
	shutRd, shutWr, shutRdwr                        = 0, 1, 2
	epollCtlAddS, epollCtlDelS, epollInS, epollOutS = 1, 2, 0x1, 0x4
)

var (
	loopback = [4]byte{127, 0, 0, 1}
	anyAddr  = [4]byte{}
	testNet  = [4]byte{192, 0, 2, 1} // TEST-NET-1: never a local address
	waitEp   uintptr                 // an epoll instance for waiting on one socket at a time
	lfd      uintptr                 // a TCP listener on 127.0.0.1
	lport    uint16
)

// sockaddr builds a struct sockaddr_in (16 bytes) in an argument slot.
func sockaddr(family uint16, port uint16, ip [4]byte) uintptr {
	a := slot()
	binary.LittleEndian.PutUint16(mem[a-base:], family)
	binary.BigEndian.PutUint16(mem[a-base+2:], port)
	copy(mem[a-base+4:], ip[:])
	return a
}

func sin(port uint16, ip [4]byte) uintptr { return sockaddr(afInet, port, ip) }

// sockaddrAt writes a struct sockaddr_in at a, for buffers that straddle into the hole.
func sockaddrAt(a uintptr, n int, port uint16, ip [4]byte) uintptr {
	var b [16]byte
	binary.LittleEndian.PutUint16(b[:], afInet)
	binary.BigEndian.PutUint16(b[2:], port)
	copy(b[4:], ip[:])
	copy(mem[a-base:a-base+uintptr(n)], b[:n])
	return a
}

func newSock(typ uintptr) uintptr {
	return mustFD(sys(sysSocket, afInet, typ|sockNonblock|sockCloexec, 0))
}

func closeAll(fds ...uintptr) {
	for _, fd := range fds {
		sys(sysClose, fd)
	}
}

// portOf is the port a socket is bound to.
func portOf(fd uintptr) uint16 {
	a, l := slot(), slot()
	put32(l, 16)
	if _, e := sys(sysGetsockname, fd, a, l); e != 0 {
		fail("getsockname: " + ename(e))
	}
	return binary.BigEndian.Uint16(mem[a-base+2:])
}

// boundSock is a socket bound to 127.0.0.1 and an ephemeral port.
func boundSock(typ uintptr) (uintptr, uint16) {
	fd := newSock(typ)
	if _, e := sys(sysBind, fd, sin(0, loopback), 16); e != 0 {
		fail("bind: " + ename(e))
	}
	return fd, portOf(fd)
}

// newListener is a TCP listener on 127.0.0.1.
func newListener() (uintptr, uint16) {
	fd, port := boundSock(sockStream)
	if _, e := sys(sysListen, fd, 8); e != 0 {
		fail("listen: " + ename(e))
	}
	return fd, port
}

// waitFor waits up to 5 s for fd to report one of events; false if it never did.
func waitFor(fd uintptr, events uint32) bool {
	ev := slot()
	put32(ev, events)
	put64(ev+4, uint64(fd))
	if _, e := sys(sysEpollCtl, waitEp, epollCtlAddS, fd, ev); e != 0 {
		fail("epoll_ctl: " + ename(e))
	}
	defer sys(sysEpollCtl, waitEp, epollCtlDelS, fd, 0)
	out := at(pgBuf, 3072)
	for i := 0; i < 50; i++ {
		r, e := sys(sysEpollPwait, waitEp, out, 1, 100, 0, 8)
		if e == 0 && r == 1 {
			return true
		}
	}
	return false
}

func mustWait(fd uintptr, events uint32, what string) {
	if !waitFor(fd, events) {
		fail("waiting for " + what)
	}
}

// connectTo starts a non-blocking connect to 127.0.0.1:port.
func connectTo(fd uintptr, port uint16) {
	_, e := sys(sysConnect, fd, sin(port, loopback), 16)
	if e != 0 && e != syscall.EINPROGRESS {
		fail("connect: " + ename(e))
	}
}

// pending connects a new client to listener l and waits until the connection can be accepted.
func pending(l uintptr, port uint16) uintptr {
	c := newSock(sockStream)
	connectTo(c, port)
	mustWait(l, epollInS, "a connection to accept")
	return c
}

// tcpPair returns a connected pair: the client and the server side.
func tcpPair() (uintptr, uintptr) {
	c := pending(lfd, lport)
	s := mustFD(sys(sysAccept4, lfd, 0, 0, sockNonblock|sockCloexec))
	mustWait(c, epollOutS, "the connection")
	return c, s
}

// udpPair returns two UDP sockets on 127.0.0.1, each connected to the other.
func udpPair() (uintptr, uintptr) {
	a, pa := boundSock(sockDgram)
	b, pb := boundSock(sockDgram)
	if _, e := sys(sysConnect, a, sin(pb, loopback), 16); e != 0 {
		fail("connect udp: " + ename(e))
	}
	if _, e := sys(sysConnect, b, sin(pa, loopback), 16); e != 0 {
		fail("connect udp: " + ename(e))
	}
	return a, b
}

// dataBuf returns the n-byte message "0123456789..." in the read-only-for-cases area of pgStr.
func dataBuf(n int) uintptr {
	a := at(pgStr, 2048)
	for i := 0; i < n; i++ {
		mem[a-base+uintptr(i)] = byte('0' + i%10)
	}
	return a
}

// send sends n bytes on fd (MSG_NOSIGNAL), and fails the program if it cannot.
func send(fd uintptr, n int) {
	if r, e := sys(sysSendto, fd, dataBuf(n), uintptr(n), msgNosignal, 0, 0); e != 0 || int(r) != n {
		fail(fmt.Sprintf("send: %d %s", r, ename(e)))
	}
}

// drainSock reads whatever fd holds.
func drainSock(fd uintptr) {
	for i := 0; i < 100; i++ {
		if _, e := sys(sysRecvfrom, fd, at(pgBuf, 2048), 1024, msgDontwait, 0, 0); e != 0 {
			return
		}
	}
}

// addrOf describes the sockaddr a call wrote: its length, family, address and whether a port
// is set (ports are ephemeral, so only that).
func addrOf(a, l uintptr) string {
	n := get32(l)
	if n < 8 {
		return fmt.Sprintf("len=%d", n)
	}
	b := mem[a-base:]
	port := "port=0"
	if b[2] != 0 || b[3] != 0 {
		port = "port>0"
	}
	return fmt.Sprintf("len=%d fam=%d %d.%d.%d.%d %s", n, binary.LittleEndian.Uint16(b), b[4], b[5], b[6], b[7], port)
}

// nameOut reports a getsockname-style call: the errno, or the address it wrote.
func nameOut(a, l uintptr) func(uintptr, syscall.Errno) string {
	return func(_ uintptr, e syscall.Errno) string {
		if e != 0 {
			return ename(e)
		}
		return "ok " + addrOf(a, l)
	}
}

// lenOut reports only the length a call wrote to *l.
func lenOut(l uintptr) func(uintptr, syscall.Errno) string {
	return func(_ uintptr, e syscall.Errno) string {
		if e != 0 {
			return ename(e)
		}
		return fmt.Sprintf("ok len=%d", int32(get32(l)))
	}
}

func socketCases() {
	waitEp = mustFD(sys(sysEpollCreate1, epollCloexec))
	lfd, lport = newListener()

	s := func(d, t, p uintptr) string { return fdOut(sys(sysSocket, d, t, p)) }
	p("socket/INET,STREAM", s(afInet, sockStream, 0))
	p("socket/INET,DGRAM", s(afInet, sockDgram, 0))
	p("socket/INET,STREAM,TCP", s(afInet, sockStream, ipprotoTCP))
	p("socket/INET,DGRAM,UDP", s(afInet, sockDgram, ipprotoUDP))
	p("socket/INET,STREAM|NONBLOCK|CLOEXEC", s(afInet, sockStream|sockNonblock|sockCloexec, 0))
	if fd, e := sys(sysSocket, afInet, sockDgram|sockNonblock|sockCloexec, 0); e != 0 {
		p("socket/NONBLOCK|CLOEXEC,then-F_GETFL", ename(e))
		p("socket/NONBLOCK|CLOEXEC,then-F_GETFD", ename(e))
	} else {
		p("socket/NONBLOCK|CLOEXEC,then-F_GETFL", num(sys(sysFcntl, fd, fGetfl)))
		p("socket/NONBLOCK|CLOEXEC,then-F_GETFD", num(sys(sysFcntl, fd, fGetfd)))
		sys(sysClose, fd)
	}
	if fd, e := sys(sysSocket, afInet, sockStream, 0); e != 0 {
		p("socket/STREAM,then-F_GETFL", ename(e))
	} else {
		p("socket/STREAM,then-F_GETFL", num(sys(sysFcntl, fd, fGetfl)))
		sys(sysClose, fd)
	}
	p("socket/domain=1<<32|INET", s(hi|afInet, sockStream, 0))
	p("socket/type=1<<32|STREAM", s(afInet, hi|sockStream, 0))
	p("socket/proto=1<<32|TCP", s(afInet, sockStream, hi|ipprotoTCP))
	p("socket/domain=-1", s(neg1, sockStream, 0))
	p("socket/domain=99", s(99, sockStream, 0))
	p("socket/domain=AF_UNSPEC", s(afUnspec, sockStream, 0))
	p("socket/domain=INET6,STREAM", s(afInet6, sockStream, 0))
	p("socket/domain=INET6,DGRAM", s(afInet6, sockDgram, 0))
	p("socket/domain=99,type=11", s(99, 11, 0))
	p("socket/domain=UNIX,type=11", s(afUnix, 11, 0))
	p("socket/domain=INET6,type=11", s(afInet6, 11, 0))
	p("socket/domain=-1,type=STREAM|0x10", s(neg1, sockStream|0x10, 0))
	p("socket/domain=INET6,type=STREAM|O_APPEND", s(afInet6, sockStream|oAppend, 0))
	p("socket/type=0", s(afInet, 0, 0))
	p("socket/type=4(RDM)", s(afInet, 4, 0))
	p("socket/type=7", s(afInet, 7, 0))
	p("socket/type=11", s(afInet, 11, 0))
	p("socket/type=15", s(afInet, 15, 0))
	p("socket/type=STREAM|0x10", s(afInet, sockStream|0x10, 0))
	p("socket/type=STREAM|O_APPEND", s(afInet, sockStream|oAppend, 0))
	p("socket/type=-1", s(afInet, neg1, 0))
	p("socket/type=0,flags=NONBLOCK", s(afInet, sockNonblock, 0))
	p("socket/STREAM,proto=UDP", s(afInet, sockStream, ipprotoUDP))
	p("socket/DGRAM,proto=TCP", s(afInet, sockDgram, ipprotoTCP))
	p("socket/STREAM,proto=99", s(afInet, sockStream, 99))
	p("socket/DGRAM,proto=99", s(afInet, sockDgram, 99))
	p("socket/STREAM,proto=-1", s(afInet, sockStream, neg1))
	p("socket/STREAM,proto=263(IPPROTO_MAX)", s(afInet, sockStream, 263))
	p("socket/DGRAM,proto=1<<16", s(afInet, sockDgram, 1<<16))
	p("socket/type=11,proto=-1", s(afInet, 11, neg1))
	p("socket/type=0,proto=-1", s(afInet, 0, neg1))

	// socketpair reserves the two fds and writes them out before it creates a socket; AF_INET
	// has no socketpair (EOPNOTSUPP).
	sp := func(d, t, pr, sv uintptr) string { return num(sys(sysSocketpair, d, t, pr, sv)) }
	p("socketpair/INET,STREAM", sp(afInet, sockStream, 0, obuf()))
	p("socketpair/INET,DGRAM", sp(afInet, sockDgram, 0, obuf()))
	p("socketpair/type=STREAM|0x10", sp(afInet, sockStream|0x10, 0, obuf()))
	p("socketpair/sv=NULL", sp(afInet, sockStream, 0, 0))
	p("socketpair/sv=read-only", sp(afInet, sockStream, 0, at(pgRO, 0)))
	p("socketpair/sv=straddles-hole", sp(afInet, sockStream, 0, edge(4)))
	p("socketpair/sv=NULL,type=bad-flags", sp(afInet, sockStream|0x10, 0, 0))
	p("socketpair/domain=99", sp(99, sockStream, 0, obuf()))
	p("socketpair/type=11", sp(afInet, 11, 0, obuf()))
	p("socketpair/STREAM,proto=UDP", sp(afInet, sockStream, ipprotoUDP, obuf()))
}

func bindCases() {
	b := func(fd, addr, n uintptr) string { return num(sys(sysBind, fd, addr, n)) }
	fresh := func(typ uintptr, f func(fd uintptr) string) string {
		fd := newSock(typ)
		defer sys(sysClose, fd)
		return f(fd)
	}
	tcp := func(addr, n uintptr) string {
		return fresh(sockStream, func(fd uintptr) string { return b(fd, addr, n) })
	}
	p("bind/fd=-1", b(neg1, sin(0, loopback), 16))
	p("bind/fd=unused", b(unusedFD, sin(0, loopback), 16))
	p("bind/fd=closed", b(closedFD(), sin(0, loopback), 16))
	p("bind/fd=eventfd", b(efd, sin(0, loopback), 16))
	p("bind/fd=-1,addr=NULL", b(neg1, 0, 16))
	p("bind/fd=eventfd,addr=NULL", b(efd, 0, 16))
	p("bind/fd=eventfd,len=-1", b(efd, sin(0, loopback), neg1))
	p("bind/addr=NULL", tcp(0, 16))
	p("bind/addr=NULL,len=0", tcp(0, 0))
	p("bind/addr=unmapped", tcp(unmapped, 16))
	p("bind/addr=kernel", tcp(kernel, 16))
	p("bind/addr=straddles-hole", tcp(sockaddrAt(edge(8), 8, 0, loopback), 16))
	p("bind/addr=read-only", tcp(at(pgRO, 512), 16))
	p("bind/len=-1", tcp(sin(0, loopback), neg1))
	p("bind/len=129", tcp(sin(0, loopback), 129))
	p("bind/len=128", tcp(sin(0, loopback), 128))
	p("bind/len=1<<32|16", tcp(sin(0, loopback), hi|16))
	p("bind/len=15", tcp(sin(0, loopback), 15))
	p("bind/len=1", tcp(sin(0, loopback), 1))
	p("bind/len=0", tcp(sin(0, loopback), 0))
	p("bind/INET6,len=8", tcp(sockaddr(afInet6, 0, anyAddr), 8))
	p("bind/INET6,len=28", tcp(sockaddr(afInet6, 0, anyAddr), 28))
	p("bind/UNIX,len=16", tcp(sockaddr(afUnix, 0, anyAddr), 16))
	p("bind/UNSPEC,INADDR_ANY", tcp(sockaddr(afUnspec, 0, anyAddr), 16))
	p("bind/UNSPEC,loopback", tcp(sockaddr(afUnspec, 0, loopback), 16))
	p("bind/loopback", tcp(sin(0, loopback), 16))
	p("bind/INADDR_ANY", tcp(sin(0, anyAddr), 16))
	p("bind/non-local", tcp(sin(0, testNet), 16))
	p("bind/port-in-use", tcp(sin(lport, loopback), 16))
	p("bind/udp,loopback", fresh(sockDgram, func(fd uintptr) string { return b(fd, sin(0, loopback), 16) }))
	p("bind/udp,INET6,len=28", fresh(sockDgram, func(fd uintptr) string { return b(fd, sockaddr(afInet6, 0, anyAddr), 28) }))
	p("bind/udp,len=8", fresh(sockDgram, func(fd uintptr) string { return b(fd, sin(0, loopback), 8) }))
	p("bind/twice", fresh(sockStream, func(fd uintptr) string {
		b(fd, sin(0, loopback), 16)
		return b(fd, sin(0, loopback), 16)
	}))
	p("bind/listener", b(lfd, sin(0, loopback), 16))
	p("bind/fd=1<<32|socket", fresh(sockStream, func(fd uintptr) string { return b(hi|fd, sin(0, loopback), 16) }))
}

func connectCases() {
	c := func(fd, addr, n uintptr) string { return num(sys(sysConnect, fd, addr, n)) }
	fresh := func(typ uintptr, addr, n uintptr) string {
		fd := newSock(typ)
		defer sys(sysClose, fd)
		return c(fd, addr, n)
	}
	p("connect/fd=-1", c(neg1, sin(lport, loopback), 16))
	p("connect/fd=unused", c(unusedFD, sin(lport, loopback), 16))
	p("connect/fd=eventfd", c(efd, sin(lport, loopback), 16))
	p("connect/fd=eventfd,addr=NULL", c(efd, 0, 16))
	p("connect/addr=NULL", fresh(sockStream, 0, 16))
	p("connect/addr=NULL,len=0", fresh(sockStream, 0, 0))
	p("connect/addr=unmapped", fresh(sockStream, unmapped, 16))
	p("connect/addr=kernel", fresh(sockStream, kernel, 16))
	p("connect/addr=straddles-hole", fresh(sockStream, sockaddrAt(edge(8), 8, lport, loopback), 16))
	p("connect/len=-1", fresh(sockStream, sin(lport, loopback), neg1))
	p("connect/len=129", fresh(sockStream, sin(lport, loopback), 129))
	p("connect/len=1", fresh(sockStream, sin(lport, loopback), 1))
	p("connect/len=8", fresh(sockStream, sin(lport, loopback), 8))
	p("connect/INET6,len=8", fresh(sockStream, sockaddr(afInet6, lport, anyAddr), 8))
	p("connect/INET6,len=28", fresh(sockStream, sockaddr(afInet6, lport, anyAddr), 28))
	p("connect/UNIX,len=16", fresh(sockStream, sockaddr(afUnix, lport, anyAddr), 16))
	p("connect/UNSPEC,unconnected", fresh(sockStream, sockaddr(afUnspec, 0, anyAddr), 16))
	p("connect/listener", c(lfd, sin(lport, loopback), 16))
	p("connect/listener,len=1", c(lfd, sin(lport, loopback), 1))
	p("connect/listener,INET6,len=28", c(lfd, sockaddr(afInet6, lport, anyAddr), 28))
	p("connect/listener,addr=unmapped", c(lfd, unmapped, 16))
	cl, sv := tcpPair()
	p("connect/connected", c(cl, sin(lport, loopback), 16))
	p("connect/connected,len=8", c(cl, sin(lport, loopback), 8))
	p("connect/accepted", c(sv, sin(lport, loopback), 16))
	closeAll(cl, sv)

	// A blocking connect to a port nobody listens on: refused.
	closedPortFD, closedPort := boundSock(sockStream)
	bl := mustFD(sys(sysSocket, afInet, sockStream|sockCloexec, 0))
	p("connect/blocking,refused", c(bl, sin(closedPort, loopback), 16))
	p("connect/blocking,refused,SO_ERROR-after", sockoptInt(bl, solSocket, soError))
	closeAll(bl, closedPortFD)
	bl = mustFD(sys(sysSocket, afInet, sockStream|sockCloexec, 0))
	p("connect/blocking,listener", c(bl, sin(lport, loopback), 16))
	p("connect/blocking,again", c(bl, sin(lport, loopback), 16))
	// The connection waits in the listener's queue (on gmpos, once the stack has queued it).
	mustWait(lfd, epollInS, "the blocking connection")
	closeAll(bl, mustFD(sys(sysAccept4, lfd, 0, 0, sockCloexec)))

	p("connect/udp", fresh(sockDgram, sin(lport, loopback), 16))
	p("connect/udp,len=8", fresh(sockDgram, sin(lport, loopback), 8))
	p("connect/udp,INET6,len=28", fresh(sockDgram, sockaddr(afInet6, lport, anyAddr), 28))
	p("connect/udp,addr=unmapped", fresh(sockDgram, unmapped, 16))
	p("connect/udp,len=-1", fresh(sockDgram, sin(lport, loopback), neg1))
	p("connect/udp,len=1<<32|16", fresh(sockDgram, sin(lport, loopback), hi|16))
	u1, u2 := udpPair()
	p("connect/udp,again", c(u1, sin(lport, loopback), 16))
	closeAll(u1, u2)
}

func listenCases() {
	l := func(fd, backlog uintptr) string { return num(sys(sysListen, fd, backlog)) }
	fresh := func(typ, backlog uintptr) string {
		fd := newSock(typ)
		defer sys(sysClose, fd)
		return l(fd, backlog)
	}
	p("listen/fd=-1", l(neg1, 8))
	p("listen/fd=unused", l(unusedFD, 8))
	p("listen/fd=eventfd", l(efd, 8))
	p("listen/udp", fresh(sockDgram, 8))
	p("listen/unbound", fresh(sockStream, 8))
	p("listen/backlog=0", fresh(sockStream, 0))
	p("listen/backlog=-1", fresh(sockStream, neg1))
	p("listen/backlog=1<<32|1", fresh(sockStream, hi|1))
	p("listen/backlog=1<<20", fresh(sockStream, 1<<20))
	p("listen/again", l(lfd, 8))
	p("listen/fd=1<<32|listener", l(hi|lfd, 8))
	cl, sv := tcpPair()
	p("listen/connected", l(cl, 8))
	p("listen/accepted", l(sv, 8))
	closeAll(cl, sv)
}

func acceptCases() {
	a4 := func(fd, addr, alen, flags uintptr) string { return fdOut(sys(sysAccept4, fd, addr, alen, flags)) }
	al := slot()
	put32(al, 16)
	p("accept4/fd=-1", a4(neg1, 0, 0, 0))
	p("accept4/fd=-1,flags=1", a4(neg1, 0, 0, 1))
	p("accept4/fd=unused", a4(unusedFD, 0, 0, 0))
	p("accept4/fd=eventfd", a4(efd, 0, 0, 0))
	p("accept4/fd=eventfd,flags=1", a4(efd, 0, 0, 1))
	p("accept4/flags=1", a4(lfd, 0, 0, 1))
	p("accept4/flags=O_APPEND", a4(lfd, 0, 0, oAppend))
	p("accept4/flags=-1", a4(lfd, 0, 0, neg1))
	p("accept4/flags=1<<32|NONBLOCK", a4(lfd, 0, 0, hi|sockNonblock))
	p("accept4/empty", a4(lfd, 0, 0, 0))
	p("accept4/empty,addr", a4(lfd, obuf(), al, 0))
	p("accept4/empty,addrlen=NULL", a4(lfd, obuf(), 0, 0))
	p("accept4/empty,addrlen=unmapped", a4(lfd, obuf(), unmapped, 0))
	neg := slot()
	put32(neg, 0xffffffff)
	p("accept4/empty,addrlen=-1", a4(lfd, obuf(), neg, 0))
	tcp := newSock(sockStream)
	p("accept4/unconnected", a4(tcp, 0, 0, 0))
	p("accept4/unconnected,flags=1", a4(tcp, 0, 0, 1))
	udp := newSock(sockDgram)
	p("accept4/udp", a4(udp, 0, 0, 0))
	p("accept4/udp,addrlen=unmapped", a4(udp, obuf(), unmapped, 0))
	p("accept/fd=-1", fdOut(sys(sysAccept, neg1, 0, 0)))
	p("accept/fd=eventfd", fdOut(sys(sysAccept, efd, 0, 0)))
	p("accept/udp", fdOut(sys(sysAccept, udp, 0, 0)))
	p("accept/unconnected", fdOut(sys(sysAccept, tcp, 0, 0)))
	p("accept/empty", fdOut(sys(sysAccept, lfd, 0, 0)))
	closeAll(tcp, udp)

	// With a connection waiting: what is written to addr and *addrlen.
	withPending := func(f func() string) string {
		c := pending(lfd, lport)
		defer sys(sysClose, c)
		r := f()
		// Whatever the case left in the queue (Linux drops a connection whose address could
		// not be copied out; gmpos may keep it) goes now.
		for {
			fd, e := sys(sysAccept4, lfd, 0, 0, 0)
			if e != 0 {
				break
			}
			sys(sysClose, fd)
		}
		return r
	}
	withAddr := func(room uint32, addr uintptr) func() string {
		return func() string {
			l := slot()
			put32(l, room)
			fd, e := sys(sysAccept4, lfd, addr, l, sockNonblock)
			if e != 0 {
				return ename(e)
			}
			sys(sysClose, fd)
			if addr == 0 || addr >= kernel {
				return fmt.Sprintf("=fd len=%d", int32(get32(l)))
			}
			return "=fd " + addrOf(addr, l)
		}
	}
	p("accept4/pending", withPending(func() string { return a4(lfd, 0, 0, 0) }))
	p("accept4/pending,addr,len=16", withPending(withAddr(16, obuf())))
	p("accept4/pending,addr,len=128", withPending(withAddr(128, obuf())))
	p("accept4/pending,addr,len=4", withPending(withAddr(4, obuf())))
	p("accept4/pending,addr,len=0", withPending(withAddr(0, obuf())))
	p("accept4/pending,addr=NULL,len=16", withPending(withAddr(16, 0)))
	p("accept4/pending,addr,len=-1", withPending(withAddr(0xffffffff, obuf())))
	p("accept4/pending,addr=read-only", withPending(withAddr(16, at(pgRO, 0))))
	p("accept4/pending,addr=kernel", withPending(withAddr(16, kernel)))
	p("accept4/pending,addrlen=NULL", withPending(func() string { return a4(lfd, obuf(), 0, 0) }))
	p("accept4/pending,addrlen=read-only", withPending(func() string { return a4(lfd, obuf(), at(pgRO, 0), 0) }))
	p("accept4/pending,addr=NULL,addrlen=unmapped", withPending(func() string { return a4(lfd, 0, unmapped, 0) }))
	p("accept4/pending,NONBLOCK|CLOEXEC,then-F_GETFL,F_GETFD", withPending(func() string {
		fd, e := sys(sysAccept4, lfd, 0, 0, sockNonblock|sockCloexec)
		if e != 0 {
			return ename(e)
		}
		defer sys(sysClose, fd)
		return num(sys(sysFcntl, fd, fGetfl)) + "," + num(sys(sysFcntl, fd, fGetfd))
	}))
	p("accept4/pending,flags=0,then-F_GETFL,F_GETFD", withPending(func() string {
		fd, e := sys(sysAccept4, lfd, 0, 0, 0)
		if e != 0 {
			return ename(e)
		}
		defer sys(sysClose, fd)
		return num(sys(sysFcntl, fd, fGetfl)) + "," + num(sys(sysFcntl, fd, fGetfd))
	}))
	p("accept/pending", withPending(func() string { return fdOut(sys(sysAccept, lfd, 0, 0)) }))
}

func sockNameCases() {
	names := func(call uintptr, pre string) {
		a, l := obuf(), slot()
		g := func(fd, addr, lp uintptr) string { return nameOut(addr, lp)(sys(call, fd, addr, lp)) }
		withLen := func(n uint32) uintptr { put32(l, n); return l }
		p(pre+"/fd=-1", g(neg1, a, withLen(16)))
		p(pre+"/fd=unused", g(unusedFD, a, withLen(16)))
		p(pre+"/fd=eventfd", g(efd, a, withLen(16)))
		p(pre+"/fd=eventfd,len=NULL", g(efd, a, 0))
		u := newSock(sockStream)
		p(pre+"/unbound", g(u, a, withLen(16)))
		p(pre+"/unbound,len=NULL", g(u, a, 0))
		p(pre+"/unbound,len=-1", g(u, a, withLen(0xffffffff)))
		p(pre+"/unbound,addr=NULL", g(u, 0, withLen(16)))
		sys(sysClose, u)
		ud := newSock(sockDgram)
		p(pre+"/udp,unbound", g(ud, a, withLen(16)))
		sys(sysClose, ud)
		p(pre+"/listener", g(lfd, a, withLen(16)))
		c, s := tcpPair()
		p(pre+"/connected", g(c, a, withLen(16)))
		p(pre+"/accepted", g(s, a, withLen(16)))
		p(pre+"/len=128", g(c, a, withLen(128)))
		p(pre+"/len=1<<31-1", g(c, a, withLen(0x7fffffff)))
		put32(l, 4)
		clear(mem[a-base : a-base+16])
		r, e := sys(call, c, a, l)
		if e != 0 {
			p(pre+"/len=4", ename(e))
		} else {
			// The first 4 bytes: the family, and a port that differs from run to run.
			p(pre+"/len=4", fmt.Sprintf("=%d len=%d family=% x rest=% x", r, get32(l), mem[a-base:a-base+2], mem[a-base+4:a-base+8]))
		}
		p(pre+"/len=0", lenOut(l)(sys(call, c, a, withLen(0))))
		p(pre+"/len=0,addr=NULL", lenOut(l)(sys(call, c, 0, withLen(0))))
		p(pre+"/len=-1", g(c, a, withLen(0xffffffff)))
		p(pre+"/len=NULL", g(c, a, 0))
		p(pre+"/len=unmapped", g(c, a, unmapped))
		p(pre+"/len=kernel", g(c, a, kernel))
		p(pre+"/len=read-only", g(c, a, at(pgRO, 0)))
		p(pre+"/len=straddles-hole", g(c, a, edge(2)))
		p(pre+"/addr=NULL", g(c, 0, withLen(16)))
		p(pre+"/addr=unmapped", g(c, unmapped, withLen(16)))
		p(pre+"/addr=read-only", g(c, at(pgRO, 0), withLen(16)))
		p(pre+"/addr=straddles-hole", g(c, edge(8), withLen(16)))
		p(pre+"/addr=straddles-hole,len=8", lenOut(l)(sys(call, c, edge(8), withLen(8))))
		p(pre+"/fd=1<<32|socket", g(hi|c, a, withLen(16)))
		closeAll(c, s)
		u1, u2 := udpPair()
		p(pre+"/udp,connected", g(u1, a, withLen(16)))
		closeAll(u1, u2)
	}
	names(sysGetsockname, "getsockname")
	names(sysGetpeername, "getpeername")
}

// sockoptInt reads an int option and reports its value.
func sockoptInt(fd, level, name uintptr) string {
	v, l := obuf(), slot()
	put32(l, 4)
	if _, e := sys(sysGetsockopt, fd, level, name, v, l); e != 0 {
		return ename(e)
	}
	return fmt.Sprintf("ok len=%d v=%d", get32(l), int32(get32(v)))
}

func setsockoptCases() {
	tcp, udp := newSock(sockStream), newSock(sockDgram)
	defer closeAll(tcp, udp)
	val := func(v uint32) uintptr { a := slot(); put32(a, v); return a }
	ss := func(fd, level, name, v, n uintptr) string { return num(sys(sysSetsockopt, fd, level, name, v, n)) }
	one := val(1)
	p("setsockopt/fd=-1", ss(neg1, solSocket, soReuseaddr, one, 4))
	p("setsockopt/fd=unused", ss(unusedFD, solSocket, soReuseaddr, one, 4))
	p("setsockopt/fd=eventfd", ss(efd, solSocket, soReuseaddr, one, 4))
	p("setsockopt/fd=eventfd,len=-1", ss(efd, solSocket, soReuseaddr, one, neg1))
	p("setsockopt/fd=eventfd,val=NULL", ss(efd, solSocket, soReuseaddr, 0, 4))

	// SOL_SOCKET (sk_setsockopt): every option but SO_BINDTODEVICE reads an int first.
	p("setsockopt/SO_REUSEADDR", ss(tcp, solSocket, soReuseaddr, one, 4))
	p("setsockopt/SO_REUSEADDR,len=0", ss(tcp, solSocket, soReuseaddr, one, 0))
	p("setsockopt/SO_REUSEADDR,len=3", ss(tcp, solSocket, soReuseaddr, one, 3))
	p("setsockopt/SO_REUSEADDR,len=-1", ss(tcp, solSocket, soReuseaddr, one, neg1))
	p("setsockopt/SO_REUSEADDR,len=8", ss(tcp, solSocket, soReuseaddr, one, 8))
	p("setsockopt/SO_REUSEADDR,len=4096", ss(tcp, solSocket, soReuseaddr, one, 4096))
	p("setsockopt/SO_REUSEADDR,len=1<<32|4", ss(tcp, solSocket, soReuseaddr, one, hi|4))
	p("setsockopt/SO_REUSEADDR,val=NULL", ss(tcp, solSocket, soReuseaddr, 0, 4))
	p("setsockopt/SO_REUSEADDR,val=NULL,len=0", ss(tcp, solSocket, soReuseaddr, 0, 0))
	p("setsockopt/SO_REUSEADDR,val=unmapped", ss(tcp, solSocket, soReuseaddr, unmapped, 4))
	p("setsockopt/SO_REUSEADDR,val=kernel", ss(tcp, solSocket, soReuseaddr, kernel, 4))
	p("setsockopt/SO_REUSEADDR,val=read-only", ss(tcp, solSocket, soReuseaddr, at(pgRO, 0), 4))
	put32(edge(4), 1)
	p("setsockopt/SO_REUSEADDR,val=straddles-hole,len=8", ss(tcp, solSocket, soReuseaddr, edge(4), 8))
	p("setsockopt/SO_REUSEADDR,val=straddles-hole,len=4", ss(tcp, solSocket, soReuseaddr, edge(2), 4))
	p("setsockopt/SO_REUSEADDR,then-get", sockoptInt(tcp, solSocket, soReuseaddr))
	p("setsockopt/SO_KEEPALIVE", ss(tcp, solSocket, soKeepalive, one, 4))
	p("setsockopt/SO_BROADCAST,udp", ss(udp, solSocket, soBroadcast, one, 4))
	p("setsockopt/SO_SNDBUF=0", ss(tcp, solSocket, soSndbuf, val(0), 4))
	p("setsockopt/SO_RCVBUF=-1", ss(tcp, solSocket, soRcvbuf, val(0xffffffff), 4))
	linger := slot() // struct linger {0, 0}
	p("setsockopt/SO_LINGER", ss(tcp, solSocket, soLinger, linger, 8))
	p("setsockopt/SO_LINGER,len=4", ss(tcp, solSocket, soLinger, linger, 4))
	p("setsockopt/SO_LINGER,len=2", ss(tcp, solSocket, soLinger, linger, 2))
	p("setsockopt/SO_LINGER,val=straddles-hole", ss(tcp, solSocket, soLinger, edge(4), 8))
	p("setsockopt/SO_TYPE(read-only)", ss(tcp, solSocket, soType, one, 4))
	p("setsockopt/SO_ERROR(read-only)", ss(tcp, solSocket, soError, one, 4))
	p("setsockopt/SOL_SOCKET,name=9999", ss(tcp, solSocket, 9999, one, 4))
	p("setsockopt/SOL_SOCKET,name=9999,len=0", ss(tcp, solSocket, 9999, one, 0))
	p("setsockopt/SOL_SOCKET,name=9999,val=NULL", ss(tcp, solSocket, 9999, 0, 4))
	p("setsockopt/SOL_SOCKET,name=-1", ss(tcp, solSocket, neg1, one, 4))
	p("setsockopt/level=1<<32|SOL_SOCKET", ss(tcp, hi|solSocket, soReuseaddr, one, 4))
	p("setsockopt/name=1<<32|SO_REUSEADDR", ss(tcp, solSocket, hi|soReuseaddr, one, 4))

	// Unknown levels: TCP hands them to IP, which knows only SOL_IP.
	p("setsockopt/level=9999", ss(tcp, 9999, 1, one, 4))
	p("setsockopt/level=-1", ss(tcp, neg1, 1, one, 4))
	p("setsockopt/level=SOL_IPV6", ss(tcp, 41, 1, one, 4))
	p("setsockopt/udp,level=9999", ss(udp, 9999, 1, one, 4))

	// SOL_TCP (do_tcp_setsockopt): an int, then the option; on UDP, IP says ENOPROTOOPT.
	p("setsockopt/TCP_NODELAY", ss(tcp, solTCP, tcpNodelay, one, 4))
	p("setsockopt/TCP_NODELAY,len=0", ss(tcp, solTCP, tcpNodelay, one, 0))
	p("setsockopt/TCP_NODELAY,len=2", ss(tcp, solTCP, tcpNodelay, one, 2))
	p("setsockopt/TCP_NODELAY,len=-1", ss(tcp, solTCP, tcpNodelay, one, neg1))
	p("setsockopt/TCP_NODELAY,val=NULL", ss(tcp, solTCP, tcpNodelay, 0, 4))
	p("setsockopt/TCP_NODELAY,val=straddles-hole,len=8", ss(tcp, solTCP, tcpNodelay, edge(4), 8))
	p("setsockopt/TCP_NODELAY,then-get", sockoptInt(tcp, solTCP, tcpNodelay))
	p("setsockopt/TCP_NODELAY,udp", ss(udp, solTCP, tcpNodelay, one, 4))
	p("setsockopt/TCP_NODELAY,udp,len=0", ss(udp, solTCP, tcpNodelay, one, 0))
	p("setsockopt/SOL_TCP,name=9999", ss(tcp, solTCP, 9999, one, 4))
	p("setsockopt/SOL_TCP,name=9999,len=0", ss(tcp, solTCP, 9999, one, 0))
	p("setsockopt/SOL_TCP,name=9999,val=NULL", ss(tcp, solTCP, 9999, 0, 4))
	for _, c := range []struct {
		name string
		opt  uintptr
		v    int32
	}{
		{"TCP_MAXSEG=0", tcpMaxseg, 0}, {"TCP_MAXSEG=87", tcpMaxseg, 87}, {"TCP_MAXSEG=88", tcpMaxseg, 88},
		{"TCP_MAXSEG=32767", tcpMaxseg, 32767}, {"TCP_MAXSEG=32768", tcpMaxseg, 32768},
		{"TCP_MAXSEG=65535", tcpMaxseg, 65535}, {"TCP_MAXSEG=-1", tcpMaxseg, -1},
		{"TCP_KEEPIDLE=0", tcpKeepidle, 0}, {"TCP_KEEPIDLE=1", tcpKeepidle, 1},
		{"TCP_KEEPIDLE=32767", tcpKeepidle, 32767}, {"TCP_KEEPIDLE=32768", tcpKeepidle, 32768},
		{"TCP_KEEPIDLE=-1", tcpKeepidle, -1},
		{"TCP_KEEPINTVL=0", tcpKeepintvl, 0}, {"TCP_KEEPINTVL=32767", tcpKeepintvl, 32767},
		{"TCP_KEEPINTVL=32768", tcpKeepintvl, 32768},
		{"TCP_KEEPCNT=0", tcpKeepcnt, 0}, {"TCP_KEEPCNT=1", tcpKeepcnt, 1}, {"TCP_KEEPCNT=127", tcpKeepcnt, 127},
		{"TCP_KEEPCNT=128", tcpKeepcnt, 128},
	} {
		p("setsockopt/"+c.name, ss(tcp, solTCP, c.opt, val(uint32(c.v)), 4))
	}
	p("setsockopt/TCP_KEEPIDLE=60,then-get", func() string {
		ss(tcp, solTCP, tcpKeepidle, val(60), 4)
		return sockoptInt(tcp, solTCP, tcpKeepidle)
	}())

	// SOL_IP (do_ip_setsockopt): the int options take 1 to 4 bytes, or none (0).
	byteVal := func(v byte) uintptr { a := slot(); mem[a-base] = v; return a }
	for _, c := range []struct {
		name     string
		fd       uintptr
		opt, v   uintptr
		n        uintptr
		byteSize bool
	}{
		{"IP_TOS", tcp, ipTOS, 0x10, 4, false}, {"IP_TOS,len=0", tcp, ipTOS, 0x10, 0, false},
		{"IP_TOS,len=1", tcp, ipTOS, 0x10, 1, true}, {"IP_TOS,udp", udp, ipTOS, 0x10, 4, false},
		{"IP_TTL=0", tcp, ipTTL, 0, 4, false}, {"IP_TTL=1", tcp, ipTTL, 1, 4, false},
		{"IP_TTL=255", tcp, ipTTL, 255, 4, false}, {"IP_TTL=256", tcp, ipTTL, 256, 4, false},
		{"IP_TTL=-1", tcp, ipTTL, 0xffffffff, 4, false}, {"IP_TTL=-2", tcp, ipTTL, 0xfffffffe, 4, false},
		{"IP_TTL,len=0", tcp, ipTTL, 64, 0, false}, {"IP_TTL,len=1,0", tcp, ipTTL, 0, 1, true},
		{"IP_TTL,len=1,200", tcp, ipTTL, 200, 1, true}, {"IP_TTL,len=2,200", tcp, ipTTL, 200, 2, true},
		{"IP_TTL,udp", udp, ipTTL, 32, 4, false},
		{"IP_MULTICAST_TTL,tcp", tcp, ipMulticastTTL, 1, 4, false},
		{"IP_MULTICAST_TTL,udp", udp, ipMulticastTTL, 1, 4, false},
		{"IP_MULTICAST_TTL=-1,udp", udp, ipMulticastTTL, 0xffffffff, 4, false},
		{"IP_MULTICAST_TTL=256,udp", udp, ipMulticastTTL, 256, 4, false},
		{"IP_MULTICAST_TTL,len=0,udp", udp, ipMulticastTTL, 1, 0, false},
		{"IP_MULTICAST_LOOP,udp", udp, ipMulticastLoop, 1, 4, false},
		{"IP_MULTICAST_LOOP,len=0,udp", udp, ipMulticastLoop, 1, 0, false},
		{"IP_MULTICAST_IF,INADDR_ANY,udp", udp, ipMulticastIf, 0, 4, false},
		{"IP_MULTICAST_IF,len=2,udp", udp, ipMulticastIf, 0, 2, false},
		{"IP_MULTICAST_IF,tcp", tcp, ipMulticastIf, 0, 4, false},
		{"IP_ADD_MEMBERSHIP,len=4,udp", udp, ipAddMembership, 0, 4, false},
		{"IP_ADD_MEMBERSHIP,tcp", tcp, ipAddMembership, 0, 8, false},
		{"SOL_IP,name=9999", tcp, 9999, 1, 4, false},
		{"SOL_IP,name=9999,len=0", tcp, 9999, 1, 0, false},
	} {
		v := val(uint32(c.v))
		if c.byteSize {
			v = byteVal(byte(c.v))
		}
		p("setsockopt/"+c.name, ss(c.fd, solIP, c.opt, v, c.n))
	}
	p("setsockopt/IP_TOS,val=NULL", ss(tcp, solIP, ipTOS, 0, 4))
	p("setsockopt/IP_TOS,val=NULL,len=0", ss(tcp, solIP, ipTOS, 0, 0))
	p("setsockopt/IP_TTL,val=straddles-hole,len=2", ss(tcp, solIP, ipTTL, edge(1), 2))
	put32(edge(4), 64)
	p("setsockopt/IP_TTL,val=straddles-hole,len=8", ss(tcp, solIP, ipTTL, edge(4), 8))
	p("setsockopt/IP_TTL=100,then-get", func() string {
		ss(tcp, solIP, ipTTL, val(100), 4)
		return sockoptInt(tcp, solIP, ipTTL)
	}())
}

func getsockoptCases() {
	tcp, udp := newSock(sockStream), newSock(sockDgram)
	defer closeAll(tcp, udp)
	gs := func(fd, level, name uintptr, room uint32, v, l uintptr) string {
		if l != 0 && l < kernel && l != unmapped && l != at(pgRO, 0) {
			put32(l, room)
		}
		_, e := sys(sysGetsockopt, fd, level, name, v, l)
		if e != 0 {
			return ename(e)
		}
		n := int32(get32(l))
		if v == 0 || n <= 0 {
			return fmt.Sprintf("ok len=%d", n)
		}
		return fmt.Sprintf("ok len=%d v=% x", n, mem[v-base:v-base+uintptr(min(n, 8))])
	}
	g := func(fd, level, name uintptr) string { return gs(fd, level, name, 4, obuf(), slot()) }
	p("getsockopt/fd=-1", g(neg1, solSocket, soType))
	p("getsockopt/fd=unused", g(unusedFD, solSocket, soType))
	p("getsockopt/fd=eventfd", g(efd, solSocket, soType))
	p("getsockopt/fd=eventfd,len=NULL", gs(efd, solSocket, soType, 0, obuf(), 0))
	p("getsockopt/SO_TYPE", g(tcp, solSocket, soType))
	p("getsockopt/SO_TYPE,udp", g(udp, solSocket, soType))
	p("getsockopt/SO_DOMAIN", g(tcp, solSocket, soDomain))
	p("getsockopt/SO_PROTOCOL", g(tcp, solSocket, soProtocol))
	p("getsockopt/SO_PROTOCOL,udp", g(udp, solSocket, soProtocol))
	p("getsockopt/SO_ACCEPTCONN", g(tcp, solSocket, soAcceptconn))
	p("getsockopt/SO_ACCEPTCONN,listener", g(lfd, solSocket, soAcceptconn))
	p("getsockopt/SO_ERROR", g(tcp, solSocket, soError))
	p("getsockopt/SO_TYPE,len=2", gs(tcp, solSocket, soType, 2, obuf(), slot()))
	p("getsockopt/SO_TYPE,len=0", gs(tcp, solSocket, soType, 0, obuf(), slot()))
	p("getsockopt/SO_TYPE,len=8", gs(tcp, solSocket, soType, 8, obuf(), slot()))
	p("getsockopt/SO_TYPE,len=-1", gs(tcp, solSocket, soType, 0xffffffff, obuf(), slot()))
	p("getsockopt/SO_TYPE,len=NULL", gs(tcp, solSocket, soType, 0, obuf(), 0))
	p("getsockopt/SO_TYPE,len=unmapped", gs(tcp, solSocket, soType, 0, obuf(), unmapped))
	p("getsockopt/SO_TYPE,len=read-only", gs(tcp, solSocket, soType, 0, obuf(), at(pgRO, 0)))
	p("getsockopt/SO_TYPE,len=kernel", gs(tcp, solSocket, soType, 0, obuf(), kernel))
	p("getsockopt/SO_TYPE,val=NULL", gs(tcp, solSocket, soType, 4, 0, slot()))
	p("getsockopt/SO_TYPE,val=NULL,len=0", gs(tcp, solSocket, soType, 0, 0, slot()))
	p("getsockopt/SO_TYPE,val=read-only", gs(tcp, solSocket, soType, 4, at(pgRO, 0), slot()))
	p("getsockopt/SO_TYPE,val=straddles-hole", gs(tcp, solSocket, soType, 4, edge(2), slot()))
	p("getsockopt/SO_REUSEADDR", g(tcp, solSocket, soReuseaddr))
	p("getsockopt/SO_KEEPALIVE", g(tcp, solSocket, soKeepalive))
	p("getsockopt/SO_BROADCAST,udp", g(udp, solSocket, soBroadcast))
	p("getsockopt/SO_LINGER", gs(tcp, solSocket, soLinger, 8, obuf(), slot()))
	p("getsockopt/SO_LINGER,len=4", gs(tcp, solSocket, soLinger, 4, obuf(), slot()))
	rl := slot()
	put32(rl, 4)
	p("getsockopt/SO_RCVBUF,len", lenOut(rl)(sys(sysGetsockopt, tcp, solSocket, soRcvbuf, obuf(), rl)))
	p("getsockopt/SO_KEEPALIVE,len=-1", gs(tcp, solSocket, soKeepalive, 0xffffffff, obuf(), slot()))
	p("getsockopt/SO_KEEPALIVE,val=NULL", gs(tcp, solSocket, soKeepalive, 4, 0, slot()))
	p("getsockopt/SO_KEEPALIVE,len=NULL", gs(tcp, solSocket, soKeepalive, 4, obuf(), 0))
	p("getsockopt/SOL_SOCKET,name=9999", g(tcp, solSocket, 9999))
	p("getsockopt/SOL_SOCKET,name=9999,len=-1", gs(tcp, solSocket, 9999, 0xffffffff, obuf(), slot()))
	p("getsockopt/SOL_SOCKET,name=9999,len=NULL", gs(tcp, solSocket, 9999, 0, obuf(), 0))
	p("getsockopt/TCP_NODELAY", g(tcp, solTCP, tcpNodelay))
	p("getsockopt/TCP_NODELAY,len=-1", gs(tcp, solTCP, tcpNodelay, 0xffffffff, obuf(), slot()))
	p("getsockopt/TCP_NODELAY,len=2", gs(tcp, solTCP, tcpNodelay, 2, obuf(), slot()))
	p("getsockopt/TCP_NODELAY,len=NULL", gs(tcp, solTCP, tcpNodelay, 4, obuf(), 0))
	p("getsockopt/TCP_NODELAY,val=NULL", gs(tcp, solTCP, tcpNodelay, 4, 0, slot()))
	p("getsockopt/TCP_NODELAY,udp", g(udp, solTCP, tcpNodelay))
	p("getsockopt/TCP_KEEPIDLE", g(tcp, solTCP, tcpKeepidle))
	p("getsockopt/TCP_KEEPCNT", g(tcp, solTCP, tcpKeepcnt))
	p("getsockopt/SOL_TCP,name=9999", g(tcp, solTCP, 9999))
	p("getsockopt/IP_TTL", g(tcp, solIP, ipTTL))
	p("getsockopt/IP_TTL,udp", g(udp, solIP, ipTTL))
	p("getsockopt/IP_TOS", g(tcp, solIP, ipTOS))
	p("getsockopt/IP_TTL,len=-1", gs(tcp, solIP, ipTTL, 0xffffffff, obuf(), slot()))
	p("getsockopt/SOL_IP,name=9999", g(tcp, solIP, 9999))
	p("getsockopt/level=9999", g(tcp, 9999, 1))
	p("getsockopt/udp,level=9999", g(udp, 9999, 1))
	p("getsockopt/level=-1", g(tcp, neg1, 1))

	// SO_ERROR reports a failed connect once, then 0.
	bl := mustFD(sys(sysSocket, afInet, sockStream|sockCloexec, 0))
	cp, port := boundSock(sockStream)
	sys(sysConnect, bl, sin(port, loopback), 16)
	p("getsockopt/SO_ERROR,after-refused", sockoptInt(bl, solSocket, soError))
	closeAll(bl, cp)
	nb := newSock(sockStream)
	cp, port = boundSock(sockStream)
	connectTo(nb, port)
	waitFor(nb, epollOutS|0x8) // EPOLLERR
	p("getsockopt/SO_ERROR,nonblocking-refused", sockoptInt(nb, solSocket, soError))
	p("getsockopt/SO_ERROR,nonblocking-refused,again", sockoptInt(nb, solSocket, soError))
	closeAll(nb, cp)
}

func shutdownCases() {
	sh := func(fd, how uintptr) string { return num(sys(sysShutdown, fd, how)) }
	p("shutdown/fd=-1", sh(neg1, shutRdwr))
	p("shutdown/fd=unused", sh(unusedFD, shutRdwr))
	p("shutdown/fd=eventfd", sh(efd, shutRdwr))
	p("shutdown/fd=eventfd,how=3", sh(efd, 3))
	tcp := newSock(sockStream)
	p("shutdown/unconnected", sh(tcp, shutRdwr))
	p("shutdown/unconnected,how=-1", sh(tcp, neg1))
	p("shutdown/unconnected,how=3", sh(tcp, 3))
	sys(sysClose, tcp)
	udp, up := boundSock(sockDgram)
	p("shutdown/udp,unconnected", sh(udp, shutRdwr))
	// Linux marks the socket shut even though it answers ENOTCONN.
	p("shutdown/udp,unconnected,then-sendto", num(sys(sysSendto, udp, dataBuf(4), 4, msgNosignal, sin(up, loopback), 16)))
	p("shutdown/udp,unconnected,then-recv", num(sys(sysRecvfrom, udp, obuf(), 16, 0, 0, 0)))
	sys(sysClose, udp)
	u1, u2 := udpPair()
	p("shutdown/udp,connected,SHUT_WR", sh(u1, shutWr))
	p("shutdown/udp,connected,SHUT_WR,then-send", num(sys(sysSendto, u1, dataBuf(4), 4, msgNosignal, 0, 0)))
	p("shutdown/udp,connected,SHUT_RD", sh(u2, shutRd))
	p("shutdown/udp,connected,SHUT_RD,then-recv", num(sys(sysRecvfrom, u2, obuf(), 16, 0, 0, 0)))
	closeAll(u1, u2)
	l, _ := newListener()
	p("shutdown/listener,SHUT_WR", sh(l, shutWr))
	sys(sysClose, l)

	c, s := tcpPair()
	p("shutdown/connected,how=3", sh(c, 3))
	p("shutdown/connected,how=1<<32|SHUT_WR", sh(c, hi|shutWr))
	p("shutdown/connected,then-send", num(sys(sysSendto, c, dataBuf(4), 4, msgNosignal, 0, 0)))
	p("shutdown/connected,then-write", num(sys(sysWrite, c, dataBuf(4), 4)))
	p("shutdown/connected,peer-reads-EOF", func() string {
		if !waitFor(s, epollInS) {
			return "not-readable"
		}
		return num(sys(sysRecvfrom, s, obuf(), 16, 0, 0, 0))
	}())
	// At the end of the stream the address is still copied out (move_addr_to_user after 0).
	al := slot()
	put32(al, 16)
	p("shutdown/connected,EOF,recvfrom-addr", func() string {
		r, e := sys(sysRecvfrom, s, obuf(), 16, 0, obuf(), al)
		if e != 0 {
			return ename(e)
		}
		return fmt.Sprintf("=%d len=%d", r, get32(al))
	}())
	p("shutdown/connected,EOF,recvfrom-addrlen=unmapped", num(sys(sysRecvfrom, s, obuf(), 16, 0, obuf(), unmapped)))
	p("shutdown/connected,EOF,recvfrom-addrlen=NULL", num(sys(sysRecvfrom, s, obuf(), 16, 0, obuf(), 0)))
	p("shutdown/connected,EOF,recvfrom-addrlen=-1", func() string {
		put32(al, 0xffffffff)
		return num(sys(sysRecvfrom, s, obuf(), 16, 0, obuf(), al))
	}())
	p("shutdown/connected,EOF,recvmsg-namelen=-1", num(sys(sysRecvmsg, s, msghdr(obuf(), 0xffffffff, iovec([2]uint64{uint64(at(pgBuf, 2048)), 16}), 1, 0, 0), 0)))
	p("shutdown/connected,again", sh(c, shutWr))
	p("shutdown/connected,SHUT_RD", sh(s, shutRd))
	p("shutdown/connected,SHUT_RD,then-recv", num(sys(sysRecvfrom, s, obuf(), 16, 0, 0, 0)))
	p("shutdown/connected,SHUT_RDWR", sh(s, shutRdwr))
	closeAll(c, s)
}

func sendCases() {
	st := func(fd, buf, n, flags, addr, alen uintptr) string {
		return num(sys(sysSendto, fd, buf, n, flags, addr, alen))
	}
	d := dataBuf(5)
	p("sendto/fd=-1", st(neg1, d, 5, 0, 0, 0))
	p("sendto/fd=-1,buf=kernel", st(neg1, kernel, 5, 0, 0, 0))
	p("sendto/fd=-1,buf=NULL", st(neg1, 0, 5, 0, 0, 0))
	p("sendto/fd=unused", st(unusedFD, d, 5, 0, 0, 0))
	p("sendto/fd=eventfd", st(efd, d, 8, 0, 0, 0))
	p("sendto/fd=eventfd,addr=unmapped", st(efd, d, 8, 0, unmapped, 16))
	tcp := newSock(sockStream)
	p("sendto/unconnected", st(tcp, d, 5, msgNosignal, 0, 0))
	p("sendto/unconnected,len=0", st(tcp, d, 0, msgNosignal, 0, 0))
	p("sendto/unconnected,addr=unmapped", st(tcp, d, 5, msgNosignal, unmapped, 16))
	p("sendto/unconnected,addrlen=-1", st(tcp, d, 5, msgNosignal, sin(lport, loopback), neg1))
	p("write/socket,unconnected", num(sys(sysWrite, tcp, d, 5)))
	p("write/socket,unconnected,len=0", num(sys(sysWrite, tcp, d, 0)))
	p("read/socket,unconnected,len=0", num(sys(sysRead, tcp, d, 0)))
	sys(sysClose, tcp)
	p("sendto/listener", st(lfd, d, 5, msgNosignal, 0, 0))
	p("write/socket,listener", num(sys(sysWrite, lfd, d, 5)))

	c, s := tcpPair()
	p("sendto/connected", st(c, d, 5, 0, 0, 0))
	p("sendto/connected,len=0", st(c, d, 0, 0, 0, 0))
	p("sendto/connected,buf=NULL,len=0", st(c, 0, 0, 0, 0, 0))
	p("sendto/connected,buf=NULL", st(c, 0, 5, 0, 0, 0))
	p("sendto/connected,buf=unmapped", st(c, unmapped, 5, 0, 0, 0))
	p("sendto/connected,buf=kernel", st(c, kernel, 5, 0, 0, 0))
	p("sendto/connected,buf=PROT_NONE", st(c, at(pgNone, 0), 5, 0, 0, 0))
	p("sendto/connected,addr=unmapped", st(c, d, 5, 0, unmapped, 16))
	p("sendto/connected,addrlen=-1", st(c, d, 5, 0, sin(lport, loopback), neg1))
	p("sendto/connected,addrlen=129", st(c, d, 5, 0, sin(lport, loopback), 129))
	p("sendto/connected,addr=INET6", st(c, d, 5, 0, sockaddr(afInet6, lport, loopback), 28))
	p("sendto/connected,addr=NULL,addrlen=-1", st(c, d, 5, 0, 0, neg1))
	p("sendto/connected,MSG_DONTWAIT|MSG_NOSIGNAL", st(c, d, 5, msgDontwait|msgNosignal, 0, 0))
	p("sendto/connected,flags=0x80000000", st(c, d, 5, msgCmsgCompat, 0, 0))
	p("sendto/fd=1<<32|socket", st(hi|c, d, 5, 0, 0, 0))
	p("write/socket,connected", num(sys(sysWrite, c, d, 5)))
	closeAll(c, s)

	u, up := boundSock(sockDgram)
	peer := sin(up, loopback)
	x := newSock(sockDgram)
	p("sendto/udp,no-addr", st(x, d, 5, 0, 0, 0))
	p("sendto/udp,addr=NULL,addrlen=16", st(x, d, 5, 0, 0, 16))
	p("sendto/udp", st(x, d, 5, 0, peer, 16))
	p("sendto/udp,len=0", st(x, d, 0, 0, peer, 16))
	p("sendto/udp,addrlen=8", st(x, d, 5, 0, peer, 8))
	p("sendto/udp,addrlen=1", st(x, d, 5, 0, peer, 1))
	p("sendto/udp,addrlen=-1", st(x, d, 5, 0, peer, neg1))
	p("sendto/udp,addrlen=129", st(x, d, 5, 0, peer, 129))
	p("sendto/udp,addrlen=128", st(x, d, 5, 0, peer, 128))
	p("sendto/udp,addrlen=1<<32|16", st(x, d, 5, 0, peer, hi|16))
	p("sendto/udp,addr=unmapped", st(x, d, 5, 0, unmapped, 16))
	p("sendto/udp,addr=straddles-hole", st(x, d, 5, 0, sockaddrAt(edge(8), 8, up, loopback), 16))
	p("sendto/udp,INET6", st(x, d, 5, 0, sockaddr(afInet6, up, loopback), 28))
	p("sendto/udp,UNSPEC", st(x, d, 5, 0, sockaddr(afUnspec, up, loopback), 16))
	p("sendto/udp,port=0", st(x, d, 5, 0, sin(0, loopback), 16))
	p("sendto/udp,MSG_OOB", st(x, d, 5, msgOOB, peer, 16))
	p("sendto/udp,buf=NULL", st(x, 0, 5, 0, peer, 16))
	p("sendto/udp,buf=unmapped", st(x, unmapped, 5, 0, peer, 16))
	p("sendto/udp,buf=kernel", st(x, kernel, 5, 0, peer, 16))
	p("sendto/udp,len=65508", st(x, at(pgMM, 0), 65508, 0, peer, 16))
	p("sendto/udp,len=70000", st(x, at(pgMM, 0), 70000, 0, peer, 16))
	p("sendto/udp,len=1<<62", st(x, d, 1<<62, 0, peer, 16))
	p("write/udp,unconnected", num(sys(sysWrite, x, d, 5)))
	drainSock(u)
	closeAll(u, x)
}

// epollOutCases: when an edge-triggered watcher of EPOLLOUT alone (as the Go runtime's
// netpoller watches every socket) gets an edge. A stream socket's comes when room is made in a
// send buffer a send (or poll) found full — tcp_poll and sk_stream_wait_memory set
// SOCK_NOSPACE, which tcp_check_space tests before it wakes anyone — not whenever data sent
// leaves the buffer: one event once connected, none after a small send the peer has received,
// one after filling the buffer and draining it. A datagram socket's comes whenever a sent
// packet's memory is freed (sock_wfree): one after a send the peer has received.
func epollOutCases() {
	ep := mustFD(sys(sysEpollCreate1, 0))
	watch := func(fd uintptr) {
		ev := slot()
		put32(ev, epollOut|epollET)
		put64(ev+4, uint64(fd))
		if _, e := sys(sysEpollCtl, ep, epollCtlAddS, fd, ev); e != 0 {
			fail("epoll_ctl: " + ename(e))
		}
	}
	wait := func(ms uintptr) string {
		r, e := sys(sysEpollPwait, ep, obuf(), 4, ms, 0, 8)
		if e != 0 {
			return ename(e)
		}
		return fmt.Sprintf("=%d", r)
	}
	// sent: 100 bytes from x, received and read at y.
	sent := func(x, y uintptr) {
		send(x, 100)
		mustWait(y, epollInS, "the data")
		drainSock(y)
	}
	c, s := tcpPair()
	watch(c)
	p("epoll_wait/EPOLLOUT|EPOLLET,stream,connected", wait(0))
	sent(c, s)
	p("epoll_wait/EPOLLOUT|EPOLLET,stream,after-send", wait(20))
	full := false
	for i := 0; i < 100000 && !full; i++ {
		_, e := sys(sysSendto, c, dataBuf(2048), 2048, msgDontwait|msgNosignal, 0, 0)
		switch e {
		case 0:
		case syscall.EAGAIN:
			full = true
		default:
			fail("filling the send buffer: " + ename(e))
		}
	}
	if !full {
		fail("the send buffer never filled")
	}
	got := "none in 5 s"
	for i := 0; i < 500; i++ {
		drainSock(s)
		if r := wait(10); r != "=0" {
			got = r
			break
		}
	}
	p("epoll_wait/EPOLLOUT|EPOLLET,stream,room-after-full", got)
	drainSock(s)
	closeAll(c, s)

	a, b := udpPair()
	watch(a)
	p("epoll_wait/EPOLLOUT|EPOLLET,dgram,new", wait(0))
	sent(a, b)
	p("epoll_wait/EPOLLOUT|EPOLLET,dgram,after-send", wait(20))
	closeAll(a, b, ep)
}

func recvCases() {
	rf := func(fd, buf, n, flags, addr, alen uintptr) string {
		return num(sys(sysRecvfrom, fd, buf, n, flags, addr, alen))
	}
	b := at(pgBuf, 2048)
	p("recvfrom/fd=-1", rf(neg1, b, 16, 0, 0, 0))
	p("recvfrom/fd=-1,buf=kernel", rf(neg1, kernel, 16, 0, 0, 0))
	p("recvfrom/fd=unused", rf(unusedFD, b, 16, 0, 0, 0))
	p("recvfrom/fd=eventfd", rf(efd, b, 16, 0, 0, 0))
	tcp := newSock(sockStream)
	p("recvfrom/unconnected", rf(tcp, b, 16, 0, 0, 0))
	p("read/socket,unconnected", num(sys(sysRead, tcp, b, 16)))
	sys(sysClose, tcp)
	p("recvfrom/listener", rf(lfd, b, 16, 0, 0, 0))
	p("recvfrom/listener,MSG_OOB", rf(lfd, b, 16, msgOOB, 0, 0))
	tcp = newSock(sockStream)
	p("recvfrom/unconnected,MSG_OOB", rf(tcp, b, 16, msgOOB, 0, 0))
	sys(sysClose, tcp)

	c, s := tcpPair()
	p("recvfrom/connected,empty", rf(s, b, 16, 0, 0, 0))
	p("recvfrom/connected,empty,MSG_OOB", rf(s, b, 16, msgOOB, 0, 0))
	p("recvfrom/connected,empty,buf=kernel", rf(s, kernel, 16, 0, 0, 0))
	p("recvfrom/connected,empty,buf=unmapped", rf(s, unmapped, 16, 0, 0, 0))
	p("read/socket,connected,empty", num(sys(sysRead, s, b, 16)))
	send(c, 5)
	mustWait(s, epollInS, "data")
	p("recvfrom/connected,MSG_PEEK", rf(s, b, 16, msgPeek, 0, 0))
	p("recvfrom/connected,buf=unmapped", rf(s, unmapped, 16, 0, 0, 0))
	p("recvfrom/connected,buf=read-only", rf(s, at(pgRO, 0), 16, 0, 0, 0))
	p("recvfrom/connected,len=0", rf(s, b, 0, 0, 0, 0))
	p("recvfrom/connected,len=2", rf(s, b, 2, 0, 0, 0))
	al := slot()
	put32(al, 16)
	p("recvfrom/connected,addr", func() string {
		r, e := sys(sysRecvfrom, s, b, 16, 0, obuf(), al)
		if e != 0 {
			return ename(e)
		}
		return fmt.Sprintf("=%d len=%d", r, get32(al))
	}())
	p("recvfrom/connected,addr,addrlen=NULL", rf(s, b, 16, 0, obuf(), 0))
	p("recvfrom/connected,empty-again", rf(s, b, 16, 0, 0, 0))
	send(c, 5)
	mustWait(s, epollInS, "data")
	p("read/socket,connected", num(sys(sysRead, s, b, 16)))
	p("recvfrom/connected,MSG_OOB", rf(s, b, 16, msgOOB, 0, 0))
	closeAll(c, s)

	u1, u2 := udpPair()
	p("recvfrom/udp,empty", rf(u2, b, 16, 0, 0, 0))
	p("recvfrom/udp,empty,MSG_OOB", rf(u2, b, 16, msgOOB, 0, 0))
	p("recvfrom/udp,empty,addrlen=unmapped", rf(u2, b, 16, 0, obuf(), unmapped))
	udpRecv := func(name string, buf, n, flags uintptr, addr uintptr, room uint32) {
		send(u1, 5)
		if !waitFor(u2, epollInS) {
			p(name, "not-readable")
			return
		}
		l := slot()
		put32(l, room)
		alen := l
		if addr == 0 {
			alen = 0
		}
		r, e := sys(sysRecvfrom, u2, buf, n, flags, addr, alen)
		switch {
		case e != 0:
			p(name, ename(e))
		case addr != 0:
			p(name, fmt.Sprintf("=%d %s", r, addrOf(addr, l)))
		default:
			p(name, num(r, 0))
		}
		drainSock(u2)
	}
	udpRecv("recvfrom/udp", b, 16, 0, 0, 0)
	udpRecv("recvfrom/udp,addr", b, 16, 0, obuf(), 16)
	udpRecv("recvfrom/udp,addr,len=4", b, 16, 0, obuf(), 4)
	udpRecv("recvfrom/udp,addr,len=0", b, 16, 0, obuf(), 0)
	udpRecv("recvfrom/udp,len=2", b, 2, 0, 0, 0)
	udpRecv("recvfrom/udp,len=2,MSG_TRUNC", b, 2, msgTrunc, 0, 0)
	udpRecv("recvfrom/udp,len=0", b, 0, 0, 0, 0)
	udpRecv("recvfrom/udp,MSG_PEEK", b, 16, msgPeek, 0, 0)
	udpRecv("recvfrom/udp,MSG_DONTWAIT|MSG_WAITALL", b, 16, msgDontwait|msgWaitall, 0, 0)
	udpRecv("recvfrom/udp,addr=read-only", b, 16, 0, at(pgRO, 0), 16)
	udpRecv("recvfrom/udp,addr,len=-1", b, 16, 0, obuf(), 0xffffffff)
	udpRecv("recvfrom/udp,buf=unmapped", unmapped, 16, 0, 0, 0)
	send(u1, 5)
	mustWait(u2, epollInS, "a datagram")
	p("recvfrom/udp,addr,addrlen=NULL", rf(u2, b, 16, 0, obuf(), 0))
	drainSock(u2)
	send(u1, 5)
	mustWait(u2, epollInS, "a datagram")
	p("recvfrom/udp,buf=NULL", rf(u2, 0, 16, 0, 0, 0))
	drainSock(u2)
	closeAll(u1, u2)
}

// msghdr builds a struct msghdr (56 bytes) in an argument slot.
func msghdr(name uintptr, namelen uint32, iov uintptr, iovlen uint64, control uintptr, controllen uint64) uintptr {
	m := slot()
	put64(m, uint64(name))
	put32(m+8, namelen)
	put64(m+16, uint64(iov))
	put64(m+24, iovlen)
	put64(m+32, uint64(control))
	put64(m+40, controllen)
	return m
}

// iovec builds an array of struct iovec in an argument slot (at most 4).
func iovec(parts ...[2]uint64) uintptr {
	a := slot()
	for i, x := range parts {
		put64(a+uintptr(16*i), x[0])
		put64(a+uintptr(16*i)+8, x[1])
	}
	return a
}

func sendmsgCases() {
	sm := func(fd, msg, flags uintptr) string { return num(sys(sysSendmsg, fd, msg, flags)) }
	d := dataBuf(8)
	one := func() uintptr { return iovec([2]uint64{uint64(d), 5}) }
	u, up := boundSock(sockDgram)
	peer := func() uintptr { return sin(up, loopback) }
	x := newSock(sockDgram)
	ok := msghdr(peer(), 16, one(), 1, 0, 0)
	p("sendmsg/fd=-1,msg=NULL", sm(neg1, 0, 0))
	p("sendmsg/fd=unused", sm(unusedFD, ok, 0))
	p("sendmsg/fd=eventfd,msg=NULL", sm(efd, 0, 0))
	p("sendmsg/fd=-1,flags=MSG_CMSG_COMPAT", sm(neg1, 0, msgCmsgCompat))
	p("sendmsg/udp", sm(x, msghdr(peer(), 16, one(), 1, 0, 0), 0))
	p("sendmsg/udp,flags=MSG_CMSG_COMPAT", sm(x, msghdr(peer(), 16, one(), 1, 0, 0), msgCmsgCompat))
	p("sendmsg/udp,msg=NULL", sm(x, 0, 0))
	p("sendmsg/udp,msg=unmapped", sm(x, unmapped, 0))
	p("sendmsg/udp,msg=kernel", sm(x, kernel, 0))
	p("sendmsg/udp,msg=straddles-hole", sm(x, edge(32), 0))
	p("sendmsg/udp,msg=read-only(zero)", sm(x, at(pgRO, 512), 0))
	p("sendmsg/udp,no-name", sm(x, msghdr(0, 16, one(), 1, 0, 0), 0))
	p("sendmsg/udp,iovlen=0", sm(x, msghdr(peer(), 16, 0, 0, 0, 0), 0))
	p("sendmsg/udp,iovlen=1024,iov=NULL", sm(x, msghdr(peer(), 16, 0, 1024, 0, 0), 0))
	p("sendmsg/udp,iovlen=1025", sm(x, msghdr(peer(), 16, one(), 1025, 0, 0), 0))
	p("sendmsg/udp,iovlen=1<<32|1", sm(x, msghdr(peer(), 16, one(), 1<<32|1, 0, 0), 0))
	p("sendmsg/udp,iovlen=-1", sm(x, msghdr(peer(), 16, one(), ^uint64(0), 0, 0), 0))
	p("sendmsg/udp,iov=unmapped", sm(x, msghdr(peer(), 16, unmapped, 1, 0, 0), 0))
	p("sendmsg/udp,iov=straddles-hole", sm(x, msghdr(peer(), 16, edge(8), 1, 0, 0), 0))
	p("sendmsg/udp,iov.len=-1", sm(x, msghdr(peer(), 16, iovec([2]uint64{uint64(d), ^uint64(0)}), 1, 0, 0), 0))
	p("sendmsg/udp,iov[1].len=-1", sm(x, msghdr(peer(), 16, iovec([2]uint64{uint64(d), 5}, [2]uint64{uint64(d), ^uint64(0)}), 2, 0, 0), 0))
	p("sendmsg/udp,iov.base=kernel", sm(x, msghdr(peer(), 16, iovec([2]uint64{uint64(kernel), 5}), 1, 0, 0), 0))
	p("sendmsg/udp,iov[1].base=kernel", sm(x, msghdr(peer(), 16, iovec([2]uint64{uint64(d), 5}, [2]uint64{uint64(kernel), 5}), 2, 0, 0), 0))
	p("sendmsg/udp,iov.base=unmapped", sm(x, msghdr(peer(), 16, iovec([2]uint64{uint64(unmapped), 5}), 1, 0, 0), 0))
	p("sendmsg/udp,namelen=-1", sm(x, msghdr(peer(), 0xffffffff, one(), 1, 0, 0), 0))
	p("sendmsg/udp,namelen=-1,name=NULL", sm(x, msghdr(0, 0xffffffff, one(), 1, 0, 0), 0))
	p("sendmsg/udp,namelen=8", sm(x, msghdr(peer(), 8, one(), 1, 0, 0), 0))
	p("sendmsg/udp,namelen=0", sm(x, msghdr(peer(), 0, one(), 1, 0, 0), 0))
	p("sendmsg/udp,namelen=200", sm(x, msghdr(peer(), 200, one(), 1, 0, 0), 0))
	p("sendmsg/udp,name=unmapped", sm(x, msghdr(unmapped, 16, one(), 1, 0, 0), 0))
	p("sendmsg/udp,name=INET6", sm(x, msghdr(sockaddr(afInet6, up, loopback), 28, one(), 1, 0, 0), 0))
	p("sendmsg/udp,controllen=1<<31", sm(x, msghdr(peer(), 16, one(), 1, obuf(), 1<<31), 0))
	p("sendmsg/udp,control=unmapped", sm(x, msghdr(peer(), 16, one(), 1, unmapped, 16), 0))
	p("sendmsg/udp,control=NULL,controllen=16", sm(x, msghdr(peer(), 16, one(), 1, 0, 16), 0))
	p("sendmsg/udp,control=zeros,controllen=16", sm(x, msghdr(peer(), 16, one(), 1, obuf(), 16), 0))
	p("sendmsg/udp,control=zeros,controllen=8", sm(x, msghdr(peer(), 16, one(), 1, obuf(), 8), 0))
	p("sendmsg/udp,MSG_OOB", sm(x, msghdr(peer(), 16, one(), 1, 0, 0), msgOOB))
	p("sendmsg/udp,iov-total=70000", sm(x, msghdr(peer(), 16, iovec([2]uint64{uint64(at(pgMM, 0)), 35000}, [2]uint64{uint64(at(pgMM, 0)), 35000}), 2, 0, 0), 0))
	// A receiver of its own: on gmpos the datagrams above may still be on their way to u.
	u2, up2 := boundSock(sockDgram)
	p("sendmsg/udp,2-iovecs,then-recv", func() string {
		r, e := sys(sysSendmsg, x, msghdr(sin(up2, loopback), 16, iovec([2]uint64{uint64(d), 3}, [2]uint64{uint64(d), 0}, [2]uint64{uint64(d) + 3, 4}), 3, 0, 0), 0)
		if e != 0 {
			return ename(e)
		}
		if !waitFor(u2, epollInS) {
			return "not-readable"
		}
		b := obuf()
		n, e := sys(sysRecvfrom, u2, b, 64, 0, 0, 0)
		if e != 0 {
			return fmt.Sprintf("=%d recv:%s", r, ename(e))
		}
		return fmt.Sprintf("=%d recv=%d %q", r, n, mem[b-base:b-base+n])
	}())
	closeAll(u, u2, x)

	c, s := tcpPair()
	p("sendmsg/tcp", sm(c, msghdr(0, 0, one(), 1, 0, 0), 0))
	p("sendmsg/tcp,name=unmapped", sm(c, msghdr(unmapped, 16, one(), 1, 0, 0), 0))
	p("sendmsg/tcp,namelen=-1", sm(c, msghdr(peer(), 0xffffffff, one(), 1, 0, 0), 0))
	p("sendmsg/tcp,2-iovecs", sm(c, msghdr(0, 0, iovec([2]uint64{uint64(d), 3}, [2]uint64{uint64(d) + 3, 4}), 2, 0, 0), 0))
	p("sendmsg/tcp,iov[1].base=unmapped", sm(c, msghdr(0, 0, iovec([2]uint64{uint64(d), 3}, [2]uint64{uint64(unmapped), 4}), 2, 0, 0), 0))
	p("sendmsg/tcp,iov[1].len=-1", sm(c, msghdr(0, 0, iovec([2]uint64{uint64(d), 3}, [2]uint64{uint64(d), ^uint64(0)}), 2, 0, 0), 0))
	p("sendmsg/tcp,control=unmapped", sm(c, msghdr(0, 0, one(), 1, unmapped, 16), 0))
	p("sendmsg/tcp,controllen=1<<31", sm(c, msghdr(0, 0, one(), 1, obuf(), 1<<31), 0))
	closeAll(c, s)
	tcp := newSock(sockStream)
	p("sendmsg/tcp,unconnected", sm(tcp, msghdr(0, 0, one(), 1, 0, 0), msgNosignal))
	sys(sysClose, tcp)
}

func recvmsgCases() {
	rm := func(fd, msg, flags uintptr) string { return num(sys(sysRecvmsg, fd, msg, flags)) }
	b := at(pgBuf, 2048)
	one := func() uintptr { return iovec([2]uint64{uint64(b), 16}) }
	u1, u2 := udpPair()
	p("recvmsg/fd=-1,msg=NULL", rm(neg1, 0, 0))
	p("recvmsg/fd=unused", rm(unusedFD, msghdr(0, 0, one(), 1, 0, 0), 0))
	p("recvmsg/fd=eventfd,msg=NULL", rm(efd, 0, 0))
	p("recvmsg/fd=-1,flags=MSG_CMSG_COMPAT", rm(neg1, 0, msgCmsgCompat))
	p("recvmsg/empty", rm(u2, msghdr(0, 0, one(), 1, 0, 0), 0))
	p("recvmsg/empty,flags=MSG_CMSG_COMPAT", rm(u2, msghdr(0, 0, one(), 1, 0, 0), msgCmsgCompat))
	p("recvmsg/msg=NULL", rm(u2, 0, 0))
	p("recvmsg/msg=unmapped", rm(u2, unmapped, 0))
	p("recvmsg/msg=kernel", rm(u2, kernel, 0))
	p("recvmsg/msg=read-only,empty", rm(u2, at(pgRO, 512), 0))
	p("recvmsg/msg=straddles-hole", rm(u2, edge(32), 0))
	p("recvmsg/empty,iovlen=1025", rm(u2, msghdr(0, 0, one(), 1025, 0, 0), 0))
	p("recvmsg/empty,iovlen=1024,iov=NULL", rm(u2, msghdr(0, 0, 0, 1024, 0, 0), 0))
	p("recvmsg/empty,iov=unmapped", rm(u2, msghdr(0, 0, unmapped, 1, 0, 0), 0))
	p("recvmsg/empty,iov.len=-1", rm(u2, msghdr(0, 0, iovec([2]uint64{uint64(b), ^uint64(0)}), 1, 0, 0), 0))
	p("recvmsg/empty,iov[1].len=-1", rm(u2, msghdr(0, 0, iovec([2]uint64{uint64(b), 8}, [2]uint64{uint64(b), ^uint64(0)}), 2, 0, 0), 0))
	p("recvmsg/empty,iov.base=kernel", rm(u2, msghdr(0, 0, iovec([2]uint64{uint64(kernel), 16}), 1, 0, 0), 0))
	p("recvmsg/empty,namelen=-1", rm(u2, msghdr(obuf(), 0xffffffff, one(), 1, 0, 0), 0))
	p("recvmsg/empty,name=unmapped", rm(u2, msghdr(unmapped, 16, one(), 1, 0, 0), 0))
	p("recvmsg/empty,control=unmapped", rm(u2, msghdr(0, 0, one(), 1, unmapped, 64), 0))

	// With a datagram waiting: what comes back in the msghdr.
	withDgram := func(name string, mk func() uintptr, flags uintptr, show func(m uintptr, r uintptr) string) {
		send(u1, 5)
		if !waitFor(u2, epollInS) {
			p(name, "not-readable")
			return
		}
		m := mk()
		r, e := sys(sysRecvmsg, u2, m, flags)
		if e != 0 {
			p(name, ename(e))
		} else {
			p(name, show(m, r))
		}
		drainSock(u2)
	}
	hdr := func(m, r uintptr) string {
		return fmt.Sprintf("=%d namelen=%d controllen=%d flags=%#x", r, int32(get32(m+8)), get64(m+40), get32(m+48))
	}
	withDgram("recvmsg/udp", func() uintptr { return msghdr(0, 0, one(), 1, 0, 0) }, 0, hdr)
	withDgram("recvmsg/udp,name", func() uintptr { return msghdr(obuf(), 16, one(), 1, 0, 0) }, 0, func(m, r uintptr) string {
		return hdr(m, r) + " " + addrOf(get64u(m), m+8)
	})
	withDgram("recvmsg/udp,namelen=200", func() uintptr { return msghdr(obuf(), 200, one(), 1, 0, 0) }, 0, hdr)
	withDgram("recvmsg/udp,namelen=4", func() uintptr { return msghdr(obuf(), 4, one(), 1, 0, 0) }, 0, hdr)
	withDgram("recvmsg/udp,short-iov", func() uintptr { return msghdr(0, 0, iovec([2]uint64{uint64(b), 2}), 1, 0, 0) }, 0, hdr)
	withDgram("recvmsg/udp,short-iov,MSG_TRUNC", func() uintptr { return msghdr(0, 0, iovec([2]uint64{uint64(b), 2}), 1, 0, 0) }, msgTrunc, hdr)
	withDgram("recvmsg/udp,2-iovecs", func() uintptr {
		clear(mem[b-base : b-base+64])
		return msghdr(0, 0, iovec([2]uint64{uint64(b), 2}, [2]uint64{uint64(b) + 32, 16}), 2, 0, 0)
	}, 0, func(m, r uintptr) string {
		return hdr(m, r) + fmt.Sprintf(" %q %q", mem[b-base:b-base+2], mem[b-base+32:b-base+35])
	})
	withDgram("recvmsg/udp,control=zeros", func() uintptr { return msghdr(0, 0, one(), 1, obuf(), 64) }, 0, hdr)
	withDgram("recvmsg/udp,msg-read-only", func() uintptr { return at(pgRO, 512) }, 0, func(_, r uintptr) string { return num(r, 0) })
	withDgram("recvmsg/udp,MSG_PEEK", func() uintptr { return msghdr(0, 0, one(), 1, 0, 0) }, msgPeek, hdr)
	closeAll(u1, u2)

	c, s := tcpPair()
	p("recvmsg/tcp,empty", rm(s, msghdr(0, 0, one(), 1, 0, 0), 0))
	send(c, 5)
	mustWait(s, epollInS, "data")
	p("recvmsg/tcp,iov.len=-1", rm(s, msghdr(0, 0, iovec([2]uint64{uint64(b), ^uint64(0)}), 1, 0, 0), 0))
	p("recvmsg/tcp,iov[1].base=kernel", rm(s, msghdr(0, 0, iovec([2]uint64{uint64(b), 2}, [2]uint64{uint64(kernel), 8}), 2, 0, 0), 0))
	p("recvmsg/tcp,2-iovecs", func() string {
		m := msghdr(obuf(), 16, iovec([2]uint64{uint64(b), 2}, [2]uint64{uint64(b) + 32, 16}), 2, 0, 0)
		r, e := sys(sysRecvmsg, s, m, 0)
		if e != 0 {
			return ename(e)
		}
		return hdr(m, r)
	}())
	closeAll(c, s)
	tcp := newSock(sockStream)
	p("recvmsg/tcp,unconnected", rm(tcp, msghdr(0, 0, one(), 1, 0, 0), 0))
	sys(sysClose, tcp)
}

func get64u(a uintptr) uintptr { return uintptr(get64(a)) }

// readv and writev (fs/read_write.c): the fd and its access mode first, then the iovec array
// (import_iovec: the count, the array's memory, each length, each buffer's range), and only
// then the file; a datagram is one message however many iovecs it spans.
func iovCases() {
	rv := func(fd, iov, n uintptr) string { return num(sys(sysReadv, fd, iov, n)) }
	wv := func(fd, iov, n uintptr) string { return num(sys(sysWritev, fd, iov, n)) }
	b := at(pgBuf, 2048)
	one := func() uintptr { return iovec([2]uint64{uint64(b), 8}) }
	p("readv/fd=-1", rv(neg1, one(), 1))
	p("readv/fd=-1,iovcnt=0", rv(neg1, one(), 0))
	p("readv/fd=-1,iovcnt=1025", rv(neg1, one(), 1025))
	p("readv/fd=-1,iov=NULL", rv(neg1, 0, 1))
	p("readv/fd=2(write-only),iovcnt=0", rv(2, one(), 0))
	p("readv/fd=2(write-only),iovcnt=1025", rv(2, one(), 1025))
	p("readv/epoll,iovcnt=0", rv(epfd, one(), 0))
	p("readv/epoll", rv(epfd, one(), 1))
	p("writev/fd=-1", wv(neg1, one(), 1))
	p("writev/fd=-1,iovcnt=1025", wv(neg1, one(), 1025))
	p("writev/fd=0(read-only),iovcnt=0", wv(0, one(), 0))
	p("writev/fd=0(read-only),iov=NULL", wv(0, 0, 1))
	p("writev/epoll,iovcnt=0", wv(epfd, one(), 0))

	p("readv/eventfd,iovcnt=0", rv(efd, one(), 0))
	p("readv/eventfd,iovcnt=0,iov=NULL", rv(efd, 0, 0))
	p("readv/eventfd,iovcnt=1025", rv(efd, one(), 1025))
	p("readv/eventfd,iovcnt=-1", rv(efd, one(), neg1))
	p("readv/eventfd,iovcnt=1<<32|1", rv(efd, one(), hi|1))
	p("readv/eventfd,iov=NULL", rv(efd, 0, 1))
	p("readv/eventfd,iov=unmapped", rv(efd, unmapped, 1))
	p("readv/eventfd,iov=straddles-hole", rv(efd, edge(8), 1))
	p("readv/eventfd,iov.len=-1", rv(efd, iovec([2]uint64{uint64(b), ^uint64(0)}), 1))
	p("readv/eventfd,iov[1].len=-1", rv(efd, iovec([2]uint64{uint64(b), 8}, [2]uint64{uint64(b), ^uint64(0)}), 2))
	p("readv/eventfd,iov.base=kernel", rv(efd, iovec([2]uint64{uint64(kernel), 8}), 1))
	p("readv/eventfd,iov[1].base=kernel", rv(efd, iovec([2]uint64{uint64(b), 8}, [2]uint64{uint64(kernel), 8}), 2))
	p("readv/eventfd,empty", rv(efd, one(), 1))
	p("readv/eventfd,len=0", rv(efd, iovec([2]uint64{uint64(b), 0}), 1))
	p("readv/eventfd,len=4", rv(efd, iovec([2]uint64{uint64(b), 4}), 1))
	efdAdd(efd, 7)
	p("readv/eventfd,4+4", func() string {
		clear(mem[b-base : b-base+64])
		r, e := sys(sysReadv, efd, iovec([2]uint64{uint64(b), 4}, [2]uint64{uint64(b) + 32, 4}), 2)
		if e != 0 {
			return ename(e)
		}
		return fmt.Sprintf("=%d v=%d", r, uint64(get32(b))|uint64(get32(b+32))<<32)
	}())
	drain(efd)
	efdAdd(efd, 2)
	p("readv/eventfd,0+8", rv(efd, iovec([2]uint64{uint64(b), 0}, [2]uint64{uint64(b), 8}), 2))
	drain(efd)
	w := slot()
	put64(w, 3)
	p("writev/eventfd,4+4", func() string {
		r, e := sys(sysWritev, efd, iovec([2]uint64{uint64(w), 4}, [2]uint64{uint64(w) + 4, 4}), 2)
		if e != 0 {
			return ename(e)
		}
		return fmt.Sprintf("=%d %s", r, evRead(efd, 8))
	}())
	drain(efd)
	p("writev/eventfd,0+8", wv(efd, iovec([2]uint64{uint64(w), 0}, [2]uint64{uint64(w), 8}), 2))
	drain(efd)
	p("writev/eventfd,iovcnt=1025", wv(efd, one(), 1025))
	p("writev/eventfd,iov=NULL", wv(efd, 0, 1))
	p("writev/eventfd,iov[1].len=-1", wv(efd, iovec([2]uint64{uint64(w), 8}, [2]uint64{uint64(w), ^uint64(0)}), 2))
	p("writev/eventfd,iov[1].base=kernel", wv(efd, iovec([2]uint64{uint64(w), 8}, [2]uint64{uint64(kernel), 8}), 2))
	p("writev/eventfd,iov.base=unmapped", wv(efd, iovec([2]uint64{uint64(unmapped), 8}), 1))
	drain(efd)

	tcp := newSock(sockStream)
	p("readv/socket,unconnected", rv(tcp, one(), 1))
	p("writev/socket,unconnected", wv(tcp, one(), 1))
	p("readv/socket,iovcnt=1025", rv(tcp, one(), 1025))
	p("writev/socket,iov=NULL", wv(tcp, 0, 1))
	p("writev/socket,iov.len=-1", wv(tcp, iovec([2]uint64{uint64(b), ^uint64(0)}), 1))
	sys(sysClose, tcp)
	c, s := tcpPair()
	d := dataBuf(8)
	p("readv/socket,empty", rv(s, one(), 1))
	p("writev/socket,2-iovecs", wv(c, iovec([2]uint64{uint64(d), 3}, [2]uint64{uint64(d) + 3, 4}), 2))
	p("writev/socket,iov[1].len=-1", wv(c, iovec([2]uint64{uint64(d), 3}, [2]uint64{uint64(d), ^uint64(0)}), 2))
	p("writev/socket,iov[1].base=kernel", wv(c, iovec([2]uint64{uint64(d), 3}, [2]uint64{uint64(kernel), 4}), 2))
	mustWait(s, epollInS, "data")
	p("readv/socket,iov[1].len=-1", rv(s, iovec([2]uint64{uint64(b), 3}, [2]uint64{uint64(b), ^uint64(0)}), 2))
	p("readv/socket,iov[1].base=kernel", rv(s, iovec([2]uint64{uint64(b), 3}, [2]uint64{uint64(kernel), 4}), 2))
	p("readv/socket,2-iovecs", func() string {
		clear(mem[b-base : b-base+64])
		r, e := sys(sysReadv, s, iovec([2]uint64{uint64(b), 3}, [2]uint64{uint64(b) + 32, 16}), 2)
		if e != 0 {
			return ename(e)
		}
		return fmt.Sprintf("=%d %q %q", r, mem[b-base:b-base+3], mem[b-base+32:b-base+36])
	}())
	closeAll(c, s)

	u1, u2 := udpPair()
	p("writev/udp,2-iovecs,then-recv", func() string {
		r, e := sys(sysWritev, u1, iovec([2]uint64{uint64(d), 3}, [2]uint64{uint64(d) + 3, 4}), 2)
		if e != 0 {
			return ename(e)
		}
		if !waitFor(u2, epollInS) {
			return "not-readable"
		}
		n, e := sys(sysRecvfrom, u2, b, 64, 0, 0, 0)
		if e != 0 {
			return fmt.Sprintf("=%d recv:%s", r, ename(e))
		}
		return fmt.Sprintf("=%d recv=%d %q", r, n, mem[b-base:b-base+n])
	}())
	drainSock(u2)
	p("readv/udp,2-iovecs", func() string {
		send(u1, 7)
		if !waitFor(u2, epollInS) {
			return "not-readable"
		}
		clear(mem[b-base : b-base+64])
		r, e := sys(sysReadv, u2, iovec([2]uint64{uint64(b), 3}, [2]uint64{uint64(b) + 32, 16}), 2)
		if e != 0 {
			return ename(e)
		}
		return fmt.Sprintf("=%d %q %q", r, mem[b-base:b-base+3], mem[b-base+32:b-base+36])
	}())
	drainSock(u2)
	// The first iovec is the iovec array itself: the datagram's first 32 bytes overwrite it, the
	// second iovec with an address no one may write. Linux has copied the iovecs in before it
	// moves a byte, so the rest goes where the second iovec said at the start.
	p("readv/udp,iovecs-overwrite-themselves", func() string {
		a := slot()
		put64(a, uint64(a))
		put64(a+8, 32)
		put64(a+16, uint64(b))
		put64(a+24, 16)
		msg := at(pgStr, 2048)
		for i := 0; i < 40; i++ {
			mem[msg-base+uintptr(i)] = byte('a' + i%26)
		}
		put64(msg+16, uint64(kernel)+0x7fff_0000_0000) // the last terabytes: nothing maps there
		put64(msg+24, 16)
		if r, e := sys(sysSendto, u1, msg, 40, 0, 0, 0); e != 0 || r != 40 {
			return "send:" + num(r, e)
		}
		if !waitFor(u2, epollInS) {
			return "not-readable"
		}
		clear(mem[b-base : b-base+16])
		r, e := sys(sysReadv, u2, a, 2)
		if e != 0 {
			return ename(e)
		}
		return fmt.Sprintf("=%d %q", r, mem[b-base:b-base+8])
	}())
	drainSock(u2)
	p("readv/udp,empty", rv(u2, one(), 1))
	p("writev/udp,iovcnt=0", wv(u1, one(), 0))
	drainSock(u2)
	closeAll(u1, u2)
}
