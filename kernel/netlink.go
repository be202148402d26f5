// Netlink sockets: NETLINK_ROUTE, answered by the kernel itself — the table, the queues, the interfaces.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/kernel/rtnetlink"

// A netlink socket talks to the kernel, not to the network: the program sends requests and
// reads the answers (netlink(7)). gmpos has NETLINK_ROUTE, and in it what Go's
// net.Interfaces, net.InterfaceAddrs and net.InterfaceByName/Index use: dumps of the links and
// of their addresses (syscall.NetlinkRIB), and RTM_GETLINK for one link. The network stack
// plays no part: the interfaces are the kernel's own — lo, and eth0 when there is a NIC — and
// their addresses are those ipconfig.go decided at boot.
//
// The answer to a request is made during the sendto that carries it, in trap context, into
// the socket's receive queue: a fixed buffer of datagrams, nothing allocated. A dump goes
// there one part (datagram) at a time, as in Linux's af_netlink.c: the first part as the dump
// starts, each next one when a read has taken the one before and the queue is at most half
// full; NLMSG_DONE comes last, alone. A reader whose buffer is too small for a datagram gets
// its start and MSG_TRUNC, and loses the rest, as on Linux. What does not fit the queue is
// dropped and the next read says ENOBUFS (netlink_overrun). The encoding and the decoding of
// requests are package rtnetlink's, whose doc.go lists what is answered and how.
//
// Left out: datagrams between programs' sockets (a destination port other than 0, the kernel,
// is ECONNREFUSED), multicast groups (a socket may join them; nothing is ever sent to them:
// the interfaces never change after boot), NETLINK_GET_STRICT_CHK (ENOPROTOOPT, as before
// Linux 4.20), SO_RCVBUF/SO_SNDBUF (accepted; the sizes stay nlRcvbuf and nlSndbuf; the other
// SOL_SOCKET options Linux has for every socket are ENOPROTOOPT), readv/writev as one message
// (sys_fd.go reads or writes each iovec on its own: recvmsg and sendmsg gather and scatter),
// other netlink families (EPROTONOSUPPORT), IPv6 addresses (there is no IPv6).
//
// Protected by the BKL.

// Netlink's numbers (include/linux/socket.h, net.h, uapi/linux/netlink.h).
const (
	afNetlink     = 16
	sockRaw       = 3
	netlinkRoute  = 0  // the one protocol there is
	maxLinks      = 32 // MAX_LINKS: a protocol at or beyond it is EPROTONOSUPPORT
	sockaddrNlLen = 12 // struct sockaddr_nl: family, pad, nl_pid, nl_groups
	solNetlink    = 270
	netlinkCapAck = 10 // NETLINK_CAP_ACK: errors without a copy of the request
	netlinkExtAck = 11 // NETLINK_EXT_ACK: gmpos's errors carry no extended information
)

const (
	nlMaxSockets = 8     // netlink sockets open at once: Go's net opens one at a time
	nlRcvbuf     = 8192  // each socket's receive queue (its SO_RCVBUF)
	nlSndbuf     = 16384 // its SO_SNDBUF: a request may be nlSndbuf-32 bytes (netlink_sendmsg)
	nlGoodSize   = 3776  // NLMSG_GOODSIZE with 4 KiB pages: the size of a dump's part
	nlRecHdr     = 4     // a queued datagram's header: its length
	nlFirstPort  = -4097 // autobind's port ids once the process id is taken (Linux: random below it)
)

// nlSock is one netlink socket.
type nlSock struct {
	used    bool
	bound   bool // has a port id (bind, or autobind on connect or the first send)
	capAck  bool // NETLINK_CAP_ACK
	extAck  bool // NETLINK_EXT_ACK
	dumping bool // a dump is under way (netlink's cb_running)
	typ     uint8
	dumpOp  rtnetlink.Op
	file    int32  // the open file referring to it
	portid  uint32 // nl_pid: the answers' nlmsg_pid
	groups  uint32 // nl_groups as bind set them
	dstPid  uint32 // connect's destination (0: the kernel)
	dstMask uint32 // connect's destination group, as a mask (getpeername)
	err     int32  // pending error (ENOBUFS), taken by the next read or SO_ERROR
	dumpSeq uint32 // the dump request's nlmsg_seq
	dumpAt  int    // the dump's cursor (rtnetlink.DumpPart)

	// The receive queue: datagrams one after another, each a 4-byte length and the bytes,
	// padded to 4. n bytes are in use.
	n int
	q [nlRcvbuf]byte
}

// nlSocks are the netlink sockets; nlReq is the request being answered (a copy of the
// program's bytes: they cannot change under the decoder). BKL.
var (
	nlSocks [nlMaxSockets]nlSock
	nlReq   [nlSndbuf]byte
)

// nlOf is the netlink socket behind an open netlink file.
func nlOf(f *file) *nlSock { return &nlSocks[f.priv] }

// nlFD returns the netlink socket behind fd, or nil if fd is not one.
func nlFD(fd int32) (*nlSock, *file, int) {
	f, fi := fdFile(fd)
	if f == nil || f.kind != kindNetlink {
		return nil, nil, -1
	}
	return nlOf(f), f, fi
}

// nlCheckSocket checks socket(AF_NETLINK, typ, proto) as __sys_socket and netlink_create do.
func nlCheckSocket(typ, proto int32) int64 {
	if typ&^(0xf|sockNonblock|sockCloexec) != 0 || typ&0xf >= sockMax {
		return -EINVAL
	}
	if t := typ & 0xf; t != sockRaw && t != sockDgram {
		return -ESOCKTNOSUPPORT
	}
	if proto != netlinkRoute { // < 0, ≥ MAX_LINKS, or a family gmpos does not have
		return -EPROTONOSUPPORT
	}
	return 0
}

// nlSocket creates a NETLINK_ROUTE socket, unbound (port id 0 until bind or the first send).
func nlSocket(typ, proto int32) int64 {
	if e := nlCheckSocket(typ, proto); e != 0 {
		return e
	}
	for i := range nlSocks {
		s := &nlSocks[i]
		if s.used {
			continue
		}
		fd := openFile(kindNetlink, oRdwr|uint32(typ)&(sockNonblock|sockCloexec), uint64(i))
		if fd < 0 {
			return fd
		}
		_, fi := fdFile(int32(fd))
		s.used, s.typ, s.file, s.n = true, uint8(typ&0xf), int32(fi), 0
		return fd
	}
	return -ENFILE
}

// nlFree frees the socket when its last fd is closed; a dump under way ends with it.
func nlFree(s *nlSock) {
	s.used, s.bound, s.capAck, s.extAck, s.dumping = false, false, false, false, false
	s.portid, s.groups, s.dstPid, s.dstMask, s.err, s.n, s.file = 0, 0, 0, 0, 0, 0, -1
}

// nlPortTaken reports whether a socket other than s has port id p.
func nlPortTaken(s *nlSock, p uint32) bool {
	for i := range nlSocks {
		o := &nlSocks[i]
		if o != s && o.used && o.bound && o.portid == p {
			return true
		}
	}
	return false
}

// nlAutobind gives s a port id: the process id first, as Linux does (netlink_autobind), then
// -4097, -4098, ... (Linux picks those at random).
func nlAutobind(s *nlSock) {
	p := uint32(processID)
	for n := int32(nlFirstPort); nlPortTaken(s, p); n-- {
		p = uint32(n)
	}
	s.portid, s.bound = p, true
}

// nlLinks fills in the interfaces: lo always, eth0 when there is a NIC, with the address
// ipconfig.go decided (none with ip=off). They never change after boot.
func nlLinks(l *[2]rtnetlink.Link) []rtnetlink.Link {
	l[0] = rtnetlink.Link{Index: 1, Name: rtnetlink.MakeIfName("lo"), Type: rtnetlink.ArphrdLoopback, MTU: 65536,
		Flags:     rtnetlink.IffUp | rtnetlink.IffLoopback | rtnetlink.IffRunning | rtnetlink.IffLowerUp,
		OperState: rtnetlink.IfOperUnknown, HasAddr: true, Addr: [4]byte{127, 0, 0, 1}, Prefix: 8, Scope: rtnetlink.RtScopeHost}
	if !nic.present {
		return l[:1]
	}
	l[1] = rtnetlink.Link{Index: 2, Name: rtnetlink.MakeIfName("eth0"), Type: rtnetlink.ArphrdEther, MTU: 1500,
		Flags:     rtnetlink.IffUp | rtnetlink.IffBroadcast | rtnetlink.IffRunning | rtnetlink.IffMulticast | rtnetlink.IffLowerUp,
		OperState: rtnetlink.IfOperUp, HWAddr: nic.mac, HWBcast: [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}
	if ipcfg.static {
		e := &l[1]
		e.HasAddr, e.Addr, e.Prefix, e.Scope = true, ipcfg.addr, ipcfg.prefix, rtnetlink.RtScopeGlobal
		if e.Prefix < 31 { // no broadcast address on /31 and /32 (RFC 3021)
			host := ^uint32(0) >> e.Prefix
			e.HasBcast = true
			for i := range e.Broadcast {
				e.Broadcast[i] = e.Addr[i] | byte(host>>(24-8*i))
			}
		}
	}
	return l[:2]
}

// room is where the next datagram's bytes go; nil if the queue is full.
func (s *nlSock) room() []byte {
	if s.n+nlRecHdr >= len(s.q) {
		return nil
	}
	return s.q[s.n+nlRecHdr:]
}

// push queues the n bytes written at room() as a datagram; n == 0 (the message did not fit)
// is an overrun: the datagram is lost, and the next read says ENOBUFS.
func (s *nlSock) push(n int) {
	if n == 0 {
		s.err = ENOBUFS
		return
	}
	le32put(s.q[s.n:], uint32(n))
	s.n += nlRecHdr + (n+3)&^3
}

// head is the first queued datagram, nil if there is none.
func (s *nlSock) head() []byte {
	if s.n == 0 {
		return nil
	}
	return s.q[nlRecHdr : nlRecHdr+int(le32(s.q[:]))]
}

// pop drops the first queued datagram.
func (s *nlSock) pop() {
	l := nlRecHdr + (int(le32(s.q[:]))+3)&^3
	copy(s.q[:], s.q[l:s.n])
	s.n -= l
}

// nlRoute answers a request of the program's (nlReq[:n]) message by message, as Linux's
// netlink_rcv_skb does: errors and acks, a link, or the start of a dump.
func nlRoute(s *nlSock, req []byte) {
	var tab [2]rtnetlink.Link
	links := nlLinks(&tab)
	for b := req; ; {
		r, rest, ok := rtnetlink.Next(b, links)
		if !ok {
			return
		}
		b = rest
		errno := r.Errno
		switch r.Op {
		case rtnetlink.OpDumpLinks, rtnetlink.OpDumpAddrs:
			if s.dumping {
				errno = EBUSY // one dump at a time (netlink_dump_start)
				break
			}
			s.dumping, s.dumpOp, s.dumpSeq, s.dumpAt = true, r.Op, r.Hdr.Seq, 0
			if nlDumpMore(s) {
				continue // a dump that started is not acknowledged, even with NLM_F_ACK
			}
			errno = ENOBUFS // the queue is too full to start: the dump goes on as it drains
		case rtnetlink.OpGetLink:
			s.push(rtnetlink.PutLink(s.room(), &links[r.Link], r.Hdr.Seq, s.portid, 0))
		}
		if errno != 0 || r.Ack {
			s.push(rtnetlink.PutError(s.room(), r.Msg, errno, s.portid, s.capAck))
		}
	}
}

// nlDumpMore queues the next part of the dump under way, if there is one and the queue is at
// most half full (netlink_recvmsg's condition for calling netlink_dump). true if it did.
func nlDumpMore(s *nlSock) bool {
	if !s.dumping || s.n > nlRcvbuf/2 {
		return false
	}
	var tab [2]rtnetlink.Link
	room := s.room()
	room = room[:min(len(room), nlGoodSize)]
	n, next, done := rtnetlink.DumpPart(room, s.dumpOp, nlLinks(&tab), s.dumpAt, s.dumpSeq, s.portid)
	if n == 0 {
		return false
	}
	s.push(n)
	s.dumpAt, s.dumping = next, !done
	return true
}
