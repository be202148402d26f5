// Netlink sockets as files: sending a request, reading the answers, readiness.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// netlinkFile is the kind of a netlink socket's fd; priv is its slot in nlSocks. read is
// recv without flags or address, write is send to the connected destination (the kernel).
type netlinkFile struct{}

func (netlinkFile) read(f *file, buf, n uintptr) int64 {
	s := nlOf(f)
	d, e := nlRecvBegin(s, 0)
	if d == nil {
		return e
	}
	c := min(uintptr(len(d)), n)
	if c > 0 && !userRange(buf, c, true) {
		return -EFAULT
	}
	copyOut(buf, d[:c])
	nlRecvEnd(s, 0)
	return int64(c)
}

func (netlinkFile) write(f *file, buf, n uintptr) int64 {
	s := nlOf(f)
	dst, e := nlSendCheck(s, n, 0, nil, 0)
	if e != 0 {
		return e
	}
	if !userRange(buf, n, false) {
		return -EFAULT
	}
	copy(nlReq[:n], userBytes(buf, n))
	return nlDeliver(s, n, dst, currentCPU())
}

// poll: readable while a datagram or an error is queued; always writable (requests are
// answered during the send).
func (netlinkFile) poll(f *file) uint32 {
	s := nlOf(f)
	ev := uint32(epollOut)
	if s.n > 0 {
		ev |= epollIn
	}
	if s.err != 0 {
		ev |= epollErr
	}
	return ev
}

// stat: a socket, as socketFile's.
func (netlinkFile) stat(f *file) fileStat {
	return fileStat{mode: sIFSOCK | 0o777, nlink: 1, blksize: 4096, ino: 0x10000 + f.priv}
}

func (netlinkFile) release(f *file) { nlFree(nlOf(f)) }

// nlSendCheck checks a send of n bytes (still in the program's memory) with flags to sa
// (namelen bytes of a sockaddr_nl; none: the connected destination), as netlink_sendmsg does,
// and binds the socket if it is not yet. It returns the destination port.
func nlSendCheck(s *nlSock, n uintptr, flags uint32, sa *[sockaddrNlLen]byte, namelen uintptr) (uint32, int64) {
	if flags&msgOob != 0 {
		return 0, -EOPNOTSUPP
	}
	if n == 0 {
		return 0, -ENODATA // "Zero length message leads to an empty skb"
	}
	dst := s.dstPid
	if namelen > 0 {
		if namelen < sockaddrNlLen || uint16(sa[0])|uint16(sa[1])<<8 != afNetlink {
			return 0, -EINVAL
		}
		dst = le32(sa[4:]) // nl_groups (a multicast copy) reaches nobody: see netlink.go
	}
	if !s.bound {
		nlAutobind(s)
	}
	if n > nlSndbuf-32 {
		return 0, -EMSGSIZE
	}
	return dst, 0
}

// nlDeliver hands the request in nlReq[:n] to its destination: the kernel answers it now
// (nlRoute). Another socket is not a destination gmpos has (Linux's "no such port").
func nlDeliver(s *nlSock, n uintptr, dst uint32, cpu int) int64 {
	if dst != 0 {
		return -ECONNREFUSED
	}
	before := s.n
	nlRoute(s, nlReq[:n])
	if s.n != before || s.err != 0 {
		fileNotify(int(s.file), epollIn|epollErr, cpu)
	}
	return int64(n)
}

// nlRecvBegin returns the datagram a read takes, or nil and the read's error: a pending
// error (taken, as sock_error takes it), EOPNOTSUPP for MSG_OOB, EAGAIN when the queue is
// empty (the caller decides whether to wait).
func nlRecvBegin(s *nlSock, flags uint32) ([]byte, int64) {
	if flags&msgOob != 0 {
		return nil, -EOPNOTSUPP
	}
	if s.err != 0 {
		e := s.err
		s.err = 0
		return nil, -int64(e)
	}
	if d := s.head(); d != nil {
		return d, 0
	}
	return nil, -EAGAIN
}

// nlRecvEnd finishes a read that copied out the head datagram: it is gone (unless MSG_PEEK),
// and a dump under way makes its next part (netlink_recvmsg).
func nlRecvEnd(s *nlSock, flags uint32) {
	if flags&msgPeek == 0 {
		s.pop()
	}
	if nlDumpMore(s) {
		fileNotify(int(s.file), epollIn, currentCPU())
	}
}
