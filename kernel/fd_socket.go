// Sockets as files: read, write and readiness straight from the socket's rings.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/kernel/netabi"

// socketFile is the kind of a socket fd; priv is the socket's slot. None of its operations
// waits for the network stack: they move bytes between the program's buffer and the socket's
// rings and derive readiness from the rings and the bits the stack set (socket.go).
type socketFile struct{}

// sockOf is the socket behind an open socket file.
func sockOf(f *file) *socket { return &sockets[f.priv] }

// Message flags (include/linux/socket.h) that gmpos honours.
const (
	msgOob      = 0x1
	msgPeek     = 0x2
	msgTrunc    = 0x20
	msgDontwait = 0x40
	msgWaitall  = 0x100
	msgNosignal = 0x4000
)

// A read of nothing succeeds before the protocol is asked (sock_read_iter: "match SYS5
// behaviour"); a write of nothing goes to the protocol (sock_write_iter).
func (socketFile) read(f *file, buf, n uintptr) int64 {
	if n == 0 {
		return 0
	}
	u := oneBuf(buf, n)
	return sockRecv(sockOf(f), &u, n, sockNonblockFlag(f), 0, 0, nil)
}

// sockNonblockFlag is MSG_DONTWAIT for a non-blocking socket: a receive on it never waits,
// whatever its flags (____sys_recvmsg, sock_read_iter).
func sockNonblockFlag(f *file) uint32 {
	if f.flags&oNonblock != 0 {
		return msgDontwait
	}
	return 0
}

func (socketFile) write(f *file, buf, n uintptr) int64 {
	u := oneBuf(buf, n)
	return sockSend(sockOf(f), &u, n, 0, 0)
}

// sockRecv takes up to n bytes (stream) or one datagram (dgram) from the receive ring into the
// program's memory u (n: its total length, in the user half). When addr is not NULL the
// source's address (none for a stream) goes there and its length to *alenp, as recvfrom
// returns them; MSG_TRUNC goes to *oflags (if not nil) for a datagram longer than n. -EAGAIN
// when nothing is there yet (the caller decides whether to wait).
func sockRecv(s *socket, u *userIO, n uintptr, flags uint32, addr, alenp uintptr, oflags *uint32) int64 {
	if s.typ == sockDgram {
		var h [dgramHdr]byte
		dn, alen, ok := s.rx.peekDgram(&h)
		if !ok {
			// A pending error first; a socket shut for reading is at its end only for a
			// receive that would wait (__skb_wait_for_more_packets): a non-blocking one is
			// EAGAIN as ever.
			if s.err == 0 && s.shutRd && flags&msgDontwait == 0 {
				return sockEOF(addr, alenp)
			}
			return sockRecvErr(s)
		}
		c := min(uintptr(dn), n)
		if !u.ok(c, true) {
			return -EFAULT
		}
		if addr != 0 {
			if e := sockPutAddr(addr, alenp, h[8:8+alen]); e != 0 {
				return e
			}
		}
		if !u.fromRing(&s.rx, s.rx.head+dgramHdr, c) {
			return -EFAULT
		}
		if flags&msgPeek == 0 {
			s.rx.head += dgramHdr + uint64(dn)
			sockRxRoom(s)
		}
		if oflags != nil && c < uintptr(dn) {
			*oflags |= msgTrunc
		}
		if flags&msgTrunc != 0 {
			return int64(dn) // the real length, as MSG_TRUNC asks
		}
		return int64(c)
	}
	if flags&msgOob != 0 {
		// tcp_recvmsg: a listener is ENOTCONN; then tcp_recv_urg finds no urgent data to
		// read (gmpos's TCP never has any): EINVAL.
		if s.listening {
			return -ENOTCONN
		}
		return -EINVAL
	}
	used := s.rx.used()
	if used == 0 {
		if s.st&netabi.StRxEOF != 0 || s.shutRd {
			return sockEOF(addr, alenp) // end of stream
		}
		if s.st&netabi.StConnected == 0 && !s.connecting && s.st&netabi.StErr == 0 {
			return -ENOTCONN
		}
		return sockRecvErr(s)
	}
	c := uintptr(min(uint64(n), used))
	if !u.ok(c, true) {
		return -EFAULT
	}
	if addr != 0 {
		if e := sockPutAddr(addr, alenp, nil); e != 0 {
			return e
		}
	}
	if !u.fromRing(&s.rx, s.rx.head, c) {
		return -EFAULT
	}
	if flags&msgPeek == 0 {
		s.rx.head += uint64(c)
		sockRxRoom(s)
	}
	return int64(c)
}

// sockEOF is a receive of nothing that is no error (the end of the stream, or of a socket shut
// for reading): recvfrom and recvmsg still copy an address out, of no bytes (Linux copies one
// out whenever the receive did not fail).
func sockEOF(addr, alenp uintptr) int64 {
	if addr != 0 {
		return sockPutAddr(addr, alenp, nil)
	}
	return 0
}

// sockRecvErr is an empty receive's answer: a pending error (taken, as Linux's sock_error
// takes sk_err), or EAGAIN.
func sockRecvErr(s *socket) int64 {
	if s.err != 0 {
		e := s.err
		s.err = 0
		s.st &^= netabi.StErr
		return -int64(e)
	}
	return -EAGAIN
}

// sockRxRoom tells the stack there is room again if it had found the ring full.
func sockRxRoom(s *socket) {
	if s.rxWanted && s.rx.space() > 0 {
		if netQueue(netabi.EvRxSpace, 0, s.sid(), 0) != nil {
			s.rxWanted = false
		}
	}
}

// sockPutAddr copies a sockaddr to a recvfrom-style address buffer as move_addr_to_user does:
// at most *alenp bytes (a negative *alenp is EINVAL), then the real length to *alenp; a bad
// pointer is EFAULT.
func sockPutAddr(addr, alenp uintptr, sa []byte) int64 {
	if !userRange(alenp, 4, true) {
		return -EFAULT
	}
	room := int32(load32(alenp))
	if room > int32(len(sa)) {
		room = int32(len(sa))
	}
	if room < 0 {
		return -EINVAL
	}
	if room > 0 {
		if !userRange(addr, uintptr(room), true) {
			return -EFAULT
		}
		copyOut(addr, sa[:room])
	}
	store32(alenp, uint32(len(sa)))
	return 0
}

// sockSend appends n bytes of the program's memory u (n: its total length, in the user half) to
// the send ring and tells the stack: a stream takes as many as fit, a datagram is one message
// (to addr, a kernel copy of its sockaddr_in, or to the connected peer when alen is 0). Bytes
// that cannot be read are EFAULT, and nothing is sent.
func sockSend(s *socket, u *userIO, n uintptr, addr, alen uintptr) int64 {
	if s.typ == sockDgram {
		if alen == 0 && !s.peerSet {
			return -EDESTADDRREQ
		}
		if s.shutWr {
			return -EPIPE
		}
		if n > maxDgram {
			return -EMSGSIZE
		}
		if !u.ok(n, false) {
			return -EFAULT
		}
		r := s.tx.putDgramIO(u, n, addr, alen)
		if r >= 0 {
			sockTxReady(s)
		}
		return r
	}
	if e := sockSendable(s); e != 0 {
		return e
	}
	if n == 0 {
		return 0
	}
	c := uintptr(min(uint64(n), s.tx.space()))
	if c < n {
		s.txWanted = true // a full ring (SOCK_NOSPACE): the sender will want to hear of room (netPull)
	}
	if c == 0 {
		return -EAGAIN
	}
	if !u.ok(c, false) {
		return -EFAULT
	}
	w, ok := u.toRing(&s.tx, s.tx.tail, c)
	if !ok {
		return -EFAULT
	}
	s.tx.tail += uint64(w)
	sockTxReady(s)
	return int64(w)
}

// sockSendable is a stream socket's state as a send sees it (tcp_sendmsg_locked): 0, or why
// nothing can be sent.
func sockSendable(s *socket) int64 {
	if s.shutWr {
		return -EPIPE
	}
	if s.err != 0 {
		return sockRecvErr(s)
	}
	if s.st&netabi.StHup != 0 {
		return -EPIPE
	}
	if s.st&netabi.StConnected == 0 {
		if s.connecting {
			return -EAGAIN
		}
		return -EPIPE // never connected, or listening: sk_stream_wait_connect
	}
	return 0
}

// poll derives the socket's readiness (Linux: tcp_poll, datagram_poll).
func (socketFile) poll(f *file) uint32 {
	s := sockOf(f)
	ev := uint32(0)
	if s.err != 0 {
		ev |= epollErr
	}
	if s.st&netabi.StHup != 0 {
		ev |= epollHup | epollIn | epollRdhup
	}
	if s.st&netabi.StRxEOF != 0 || s.shutRd {
		ev |= epollIn | epollRdhup
	}
	if s.typ == sockDgram {
		if s.rx.used() > 0 {
			ev |= epollIn
		}
		if sockTxRoom(s) {
			ev |= epollOut
		}
		return ev
	}
	if s.listening {
		if s.acceptN > 0 {
			ev |= epollIn
		}
		return ev
	}
	if s.rx.used() > 0 {
		ev |= epollIn
	}
	if s.st&netabi.StConnected != 0 && !s.shutWr {
		if sockTxRoom(s) {
			ev |= epollOut
		} else {
			s.txWanted = true // tcp_poll sets SOCK_NOSPACE: the caller may wait for epollOut
		}
	}
	if s.shutWr && s.st&netabi.StConnected != 0 {
		ev |= epollOut // Linux reports a shut-down writer as writable: the write fails at once
	}
	return ev
}

// sockTxRoom reports whether the send ring has room for a send (poll's epollOut): any byte for a
// stream, a full-sized frame's datagram for a datagram socket.
func sockTxRoom(s *socket) bool {
	if s.typ == sockDgram {
		return s.tx.space() > dgramHdr+1500
	}
	return s.tx.space() > 0
}

// stat: a socket is S_IFSOCK, mode 0777 (sock_alloc_file's inode).
func (socketFile) stat(f *file) fileStat {
	return fileStat{mode: sIFSOCK | 0o777, nlink: 1, blksize: 4096, ino: uint64(sockOf(f).sid())}
}

// release: the program has closed the socket's last fd.
func (socketFile) release(f *file) { sockClose(sockOf(f)) }

const sIFSOCK = 0o140000
