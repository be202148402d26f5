// The socket system calls on netlink sockets (net/netlink/af_netlink.c).
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/sched"

// nlSyscall answers system call nr when it is socket(AF_NETLINK, ...) or a socket call on a
// netlink fd; ok is false for every other call, which dispatch then hands to sys_socket.go.
// Netlink sockets have calls of their own because they share nothing with the stack's
// sockets but the fd table.
func nlSyscall(t *Thread, gp sched.GID, cpu int, nr uint64, a [6]uint64) (r int64, ok bool) {
	switch int(nr) {
	case nrSocket:
		if int32(a[0]) != afNetlink {
			return 0, false
		}
		return nlSocket(int32(a[1]), int32(a[2])), true
	case nrSocketpair:
		if int32(a[0]) != afNetlink {
			return 0, false
		}
		if e := nlCheckSocket(int32(a[1]), int32(a[2])); e != 0 {
			return e, true
		}
		return -EOPNOTSUPP, true // sock_no_socketpair
	case nrBind, nrListen, nrConnect, nrAccept, nrAccept4, nrGetsockname, nrGetpeername,
		nrSetsockopt, nrGetsockopt, nrShutdown, nrSendto, nrRecvfrom, nrSendmsg, nrRecvmsg:
	default:
		return 0, false
	}
	s, f, fi := nlFD(int32(a[0]))
	if s == nil {
		return 0, false
	}
	switch int(nr) {
	case nrBind:
		r = nlBind(s, uintptr(a[1]), uintptr(a[2]))
	case nrConnect:
		r = nlConnect(s, uintptr(a[1]), uintptr(a[2]))
	case nrGetsockname, nrGetpeername:
		r = nlName(s, uintptr(a[1]), uintptr(a[2]), nr == nrGetpeername)
	case nrAccept4:
		if int32(a[3])&^(sockNonblock|sockCloexec) != 0 {
			return -EINVAL, true
		}
		r = -EOPNOTSUPP
	case nrListen, nrAccept, nrShutdown: // sock_no_listen, sock_no_accept, sock_no_shutdown
		r = -EOPNOTSUPP
	case nrSetsockopt:
		r = nlSetsockopt(s, int32(a[1]), int32(a[2]), uintptr(a[3]), uintptr(a[4]))
	case nrGetsockopt:
		r = nlGetsockopt(s, int32(a[1]), int32(a[2]), uintptr(a[3]), uintptr(a[4]))
	case nrSendto:
		r = nlSendto(s, uintptr(a[1]), uintptr(a[2]), uint32(a[3]), uintptr(a[4]), uintptr(a[5]), cpu)
	case nrSendmsg:
		r = nlSendmsg(s, uintptr(a[1]), uint32(a[2]), cpu)
	case nrRecvfrom:
		r = nlRecvfrom(s, uintptr(a[1]), uintptr(a[2]), uint32(a[3]), uintptr(a[4]), uintptr(a[5]))
		if r == -EAGAIN && f.flags&oNonblock == 0 && uint32(a[3])&msgDontwait == 0 {
			waitFileEvent(t, gp, cpu, fi, epollIn|epollErr|epollHup)
		}
	case nrRecvmsg:
		r = nlRecvmsg(s, uintptr(a[1]), uint32(a[2]))
		if r == -EAGAIN && f.flags&oNonblock == 0 && uint32(a[2])&msgDontwait == 0 {
			waitFileEvent(t, gp, cpu, fi, epollIn|epollErr|epollHup)
		}
	}
	return r, true
}

// nlAddrIn copies a sockaddr the program passes in (move_addr_to_kernel): EINVAL for a
// length beyond sockaddr_storage, EFAULT for a bad pointer; the first 12 bytes go to sa.
func nlAddrIn(addr, alen uintptr, sa *[sockaddrNlLen]byte) int64 {
	if int32(alen) < 0 || alen > 128 {
		return -EINVAL
	}
	if alen == 0 {
		return 0
	}
	if !userRange(addr, alen, false) {
		return -EFAULT
	}
	copy(sa[:], userBytes(addr, alen))
	return 0
}

// nlBind is netlink_bind: a sockaddr_nl naming port nl_pid (0: the kernel picks one) and the
// multicast groups to join. A bound socket keeps its port.
func nlBind(s *nlSock, addr, alen uintptr) int64 {
	var sa [sockaddrNlLen]byte
	if e := nlAddrIn(addr, alen, &sa); e != 0 {
		return e
	}
	if alen < sockaddrNlLen || uint16(sa[0])|uint16(sa[1])<<8 != afNetlink {
		return -EINVAL
	}
	pid := le32(sa[4:])
	if s.bound && pid != s.portid {
		return -EINVAL
	}
	if !s.bound {
		if pid == 0 {
			nlAutobind(s)
		} else if nlPortTaken(s, pid) {
			return -EADDRINUSE
		} else {
			s.portid, s.bound = pid, true
		}
	}
	s.groups = le32(sa[8:])
	return 0
}

// nlConnect is netlink_connect: the destination of sends without an address. AF_UNSPEC
// disconnects.
func nlConnect(s *nlSock, addr, alen uintptr) int64 {
	var sa [sockaddrNlLen]byte
	if e := nlAddrIn(addr, alen, &sa); e != 0 {
		return e
	}
	if alen < 2 {
		return -EINVAL
	}
	switch uint16(sa[0]) | uint16(sa[1])<<8 {
	case 0: // AF_UNSPEC
		s.dstPid, s.dstMask = 0, 0
		return 0
	case afNetlink:
	default:
		return -EINVAL
	}
	if alen < sockaddrNlLen {
		return -EINVAL
	}
	if !s.bound {
		nlAutobind(s)
	}
	g := le32(sa[8:])
	s.dstPid, s.dstMask = le32(sa[4:]), g&-g // the lowest group: ffs(nl_groups)
	return 0
}

// nlName is getsockname (the socket's port and groups) and getpeername (connect's
// destination; the kernel, port 0, when not connected).
func nlName(s *nlSock, addr, alenp uintptr, peer bool) int64 {
	sa := [sockaddrNlLen]byte{0: afNetlink}
	if peer {
		le32put(sa[4:], s.dstPid)
		le32put(sa[8:], s.dstMask)
	} else {
		le32put(sa[4:], s.portid)
		le32put(sa[8:], s.groups)
	}
	return sockPutAddr(addr, alenp, sa[:])
}

// nlSendto sends the request at buf, n bytes, to the kernel (or to addr; see nlSendCheck).
func nlSendto(s *nlSock, buf, n uintptr, flags uint32, addr, alen uintptr, cpu int) int64 {
	if !accessOK(buf, n) {
		return -EFAULT
	}
	var sa [sockaddrNlLen]byte
	if addr == 0 {
		alen = 0
	} else if e := nlAddrIn(addr, alen, &sa); e != 0 {
		return e
	}
	dst, e := nlSendCheck(s, n, flags, &sa, alen)
	if e != 0 {
		return e
	}
	if !userRange(buf, n, false) {
		return -EFAULT
	}
	copy(nlReq[:n], userBytes(buf, n))
	return nlDeliver(s, n, dst, cpu)
}

// nlSendmsg sends one request gathered from all the iovecs, as one message (Linux copies
// the whole iov_iter into one skb). Control messages are ignored.
func nlSendmsg(s *nlSock, msg uintptr, flags uint32, cpu int) int64 {
	if !userRange(msg, msghdrSize, false) {
		return -EFAULT
	}
	name, nlen := uintptr(load64(msg+msgName)), uintptr(load32(msg+msgNamelen))
	iov, iovlen := uintptr(load64(msg+msgIov)), uintptr(load64(msg+msgIovlen))
	if name == 0 {
		nlen = 0
	}
	if int32(nlen) < 0 {
		return -EINVAL
	}
	nlen = min(nlen, 128) // __copy_msghdr clamps msg_namelen to sockaddr_storage
	if iovlen > iovMax {
		return -EMSGSIZE
	}
	if !userArray(iov, iovlen, 16, false) {
		return -EFAULT
	}
	var sa [sockaddrNlLen]byte
	if e := nlAddrIn(name, nlen, &sa); e != 0 {
		return e
	}
	total := uintptr(0)
	for i := uintptr(0); i < iovlen; i++ {
		base, l := uintptr(load64(iov+16*i)), uintptr(load64(iov+16*i+8))
		if int64(l) < 0 {
			return -EINVAL
		}
		if !accessOK(base, l) {
			return -EFAULT
		}
		total += min(l, maxRWCount-total) // import_iovec caps the total at MAX_RW_COUNT
	}
	dst, e := nlSendCheck(s, total, flags, &sa, nlen)
	if e != 0 {
		return e
	}
	at := uintptr(0)
	for i := uintptr(0); i < iovlen && at < total; i++ {
		base, l := uintptr(load64(iov+16*i)), min(uintptr(load64(iov+16*i+8)), total-at)
		if l > 0 && !userRange(base, l, false) {
			return -EFAULT
		}
		copy(nlReq[at:at+l], userBytes(base, l))
		at += l
	}
	return nlDeliver(s, total, dst, cpu)
}

// nlRecvfrom reads one datagram into buf: at most n bytes of it, the rest lost (MSG_TRUNC in
// flags returns its whole length); its source to addr.
func nlRecvfrom(s *nlSock, buf, n uintptr, flags uint32, addr, alenp uintptr) int64 {
	d, e := nlRecvBegin(s, flags)
	if d == nil {
		return e
	}
	c := min(uintptr(len(d)), n)
	if c > 0 && !userRange(buf, c, true) {
		return -EFAULT
	}
	from := [sockaddrNlLen]byte{0: afNetlink} // every answer comes from the kernel: port 0
	if addr != 0 {
		if e := sockPutAddr(addr, alenp, from[:]); e != 0 {
			return e
		}
	}
	copyOut(buf, d[:c])
	nlRecvEnd(s, flags)
	if flags&msgTrunc != 0 {
		return int64(len(d))
	}
	return int64(c)
}

// nlRecvmsg reads one datagram across the iovecs; msg_flags says MSG_TRUNC if it did not
// fit; the source goes to msg_name; there are no control messages.
func nlRecvmsg(s *nlSock, msg uintptr, flags uint32) int64 {
	if !userRange(msg, msghdrSize, true) {
		return -EFAULT
	}
	name := uintptr(load64(msg + msgName))
	iov, iovlen := uintptr(load64(msg+msgIov)), uintptr(load64(msg+msgIovlen))
	if iovlen > iovMax {
		return -EMSGSIZE
	}
	if !userArray(iov, iovlen, 16, false) {
		return -EFAULT
	}
	d, e := nlRecvBegin(s, flags)
	if d == nil {
		return e
	}
	from := [sockaddrNlLen]byte{0: afNetlink}
	if name != 0 {
		if e := sockPutAddr(name, msg+msgNamelen, from[:]); e != 0 {
			return e
		}
	}
	// Each iovec is loaded once, checked, and copied to: another thread may rewrite the
	// array meanwhile. A bad piece fails the call; the datagram stays queued.
	at := uintptr(0)
	for i := uintptr(0); i < iovlen && at < uintptr(len(d)); i++ {
		base, l := uintptr(load64(iov+16*i)), min(uintptr(load64(iov+16*i+8)), uintptr(len(d))-at)
		if l > 0 && !userRange(base, l, true) {
			return -EFAULT
		}
		copyOut(base, d[at:at+l])
		at += l
	}
	mflags := uint32(0)
	if at < uintptr(len(d)) {
		mflags = msgTrunc
	}
	store64(msg+msgControllen, 0)
	store32(msg+msgFlags, mflags)
	r := int64(at)
	if flags&msgTrunc != 0 {
		r = int64(len(d))
	}
	nlRecvEnd(s, flags)
	return r
}

// nlSetsockopt: NETLINK_CAP_ACK and NETLINK_EXT_ACK, and the buffer sizes (accepted, kept).
func nlSetsockopt(s *nlSock, level, name int32, val, n uintptr) int64 {
	if int32(n) < 0 {
		return -EINVAL
	}
	if level != solSocket && level != solNetlink {
		return -ENOPROTOOPT
	}
	if level == solSocket && n < 4 {
		return -EINVAL // sk_setsockopt: every option gmpos knows is an int
	}
	v := uint32(0)
	if n >= 4 {
		if !userRange(val, 4, false) {
			return -EFAULT
		}
		v = load32(val)
	}
	switch {
	case level == solSocket && (name == soSndbuf || name == soRcvbuf || name == soSndbufForce || name == soRcvbufForce):
	case level == solNetlink && name == netlinkCapAck:
		s.capAck = v != 0
	case level == solNetlink && name == netlinkExtAck:
		s.extAck = v != 0
	default:
		return -ENOPROTOOPT
	}
	return 0
}

// nlGetsockopt: the socket's type, domain, protocol, pending error, buffer sizes, and the
// netlink flags nlSetsockopt sets.
func nlGetsockopt(s *nlSock, level, name int32, val, lenp uintptr) int64 {
	if !userRange(lenp, 4, true) {
		return -EFAULT
	}
	room := int32(load32(lenp))
	if room < 0 {
		return -EINVAL
	}
	v := uint32(0)
	switch {
	case level == solSocket && name == soType:
		v = uint32(s.typ)
	case level == solSocket && name == soDomain:
		v = afNetlink
	case level == solSocket && name == soProtocol:
		v = netlinkRoute
	case level == solSocket && name == soError:
		v, s.err = uint32(s.err), 0
	case level == solSocket && name == soRcvbuf:
		v = nlRcvbuf
	case level == solSocket && name == soSndbuf:
		v = nlSndbuf
	case level == solNetlink && (name == netlinkCapAck || name == netlinkExtAck):
		if room < 4 {
			return -EINVAL // netlink_getsockopt wants a whole int
		}
		if name == netlinkCapAck && s.capAck || name == netlinkExtAck && s.extAck {
			v = 1
		}
	default:
		return -ENOPROTOOPT
	}
	c := min(uintptr(room), 4) // sk_getsockopt copies what fits
	if c > 0 && !userRange(val, c, true) {
		return -EFAULT
	}
	var b [4]byte
	le32put(b[:], v)
	copyOut(val, b[:c])
	store32(lenp, uint32(c))
	return 0
}

// Socket options (asm-generic/socket.h).
const (
	solSocket     = 1
	soType        = 3
	soError       = 4
	soSndbuf      = 7
	soRcvbuf      = 8
	soSndbufForce = 32
	soRcvbufForce = 33
	soProtocol    = 38
	soDomain      = 39
)
