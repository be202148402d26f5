// gmpos_net: the kernel's side of the private interface to the network stack.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/netabi"
	"gmpos/sched"
)

// The stack (gmpos/kernel/netstack, goroutines of the program) attaches once at start-up and
// from then on serves the program's socket calls (kernel/netabi/doc.go). Three things live here:
//
//   - the event queue: what the stack must do next, in order — a request (a socket call of the
//     program, whose thread is parked until the Reply), data waiting in a send ring, room in a
//     receive ring, a closed socket. The service file is readable while it is not empty.
//   - the requests: one per thread at most (a thread makes one system call at a time), kept in
//     netReqs[gp] with an id the Reply must name.
//   - gmpos_net itself.
//
// All of it is protected by the BKL.

// netEvent is one queued event (netabi's record, before encoding).
type netEvent struct {
	kind, op uint16
	sid, req uint32
	n        uint32 // bytes of data used
	args     [4]uint64
	data     [netabi.MaxData]byte
}

// netEvQueueLen bounds the queue: at most one request per thread, and per socket at most one
// EvTxReady, one EvRxSpace and one EvClosed (each is queued only if not already waiting).
const netEvQueueLen = MaxThreads + 3*netabi.MaxSockets

// netRequest is a socket call waiting for the stack's reply.
type netRequest struct {
	id     uint32 // 0: none; else seq<<12 | gp
	op     uint16
	sid    uint32 // the socket the call is about
	out    uintptr
	outLen uintptr // socklen_t* of out (0: none)
	cap    uint32  // room at out (from *outLen when the call was made)
}

// netReplyTimeout bounds a round trip: a stack that does not answer makes the call fail with
// ETIMEDOUT (and a log line) instead of hanging the thread.
const netReplyTimeout = 10_000_000_000

var (
	netEvq struct {
		ev         [netEvQueueLen]netEvent
		head, tail uint32 // tail-head events queued
	}
	netReqs   [MaxThreads]netRequest
	netReqSeq uint32
	netsvc    struct {
		attached bool
		file     int32 // the service file
	}
	netStats [netabi.NumNetStats]uint64 // gmpos_info(InfoNetStats); BKL

	// idleHaltsUnlocked counts the idle halts taken without the BKL (wake_unlocked.go
	// idleUnlocked) while the last BKL holder saw network waiters; netStat adds it in.
	idleHaltsUnlocked atomic.Uint64
)

// netStat is counter i as readers see it: netStats[i], plus for idle_halts the halts counted
// without the BKL. BKL held.
func netStat(i int) uint64 {
	v := netStats[i]
	if i == netabi.NetIdleHalts {
		v += idleHaltsUnlocked.Load()
	}
	return v
}

// netQueue appends an event; false if the queue is full (it cannot be: see netEvQueueLen).
func netQueue(kind, op uint16, sid, req uint32) *netEvent {
	if netEvq.tail-netEvq.head >= netEvQueueLen {
		klogOnce(&netQueueFull, "network event queue full")
		return nil
	}
	e := &netEvq.ev[netEvq.tail%netEvQueueLen]
	*e = netEvent{kind: kind, op: op, sid: sid, req: req}
	wasEmpty := netEvq.tail == netEvq.head
	netEvq.tail++
	if wasEmpty && netsvc.attached {
		fileNotify(int(netsvc.file), epollIn, currentCPU())
	}
	return e
}

var netQueueFull bool

// sysGmposNet is gmpos_net(op, a1..a5).
func sysGmposNet(t *Thread, gp sched.GID, cpu int, a [6]uint64) int64 {
	op := a[0]
	if op != netabi.OpConfig && op != netabi.OpAttach && !netsvc.attached {
		return -EPERM
	}
	switch op {
	case netabi.OpConfig:
		return netConfig(uintptr(a[1]), uintptr(a[2]))
	case netabi.OpAttach:
		if netsvc.attached {
			return -EBUSY
		}
		fd := openFile(kindNetSvc, oRdwr|oNonblock|oCloexec, 0)
		if fd >= 0 {
			_, fi := fdFile(int32(fd))
			netsvc.file, netsvc.attached = int32(fi), true
			if netEvq.tail != netEvq.head {
				fileNotify(fi, epollIn, cpu)
			}
		}
		return fd
	case netabi.OpOpenNIC:
		if a[1] != 0 || !nic.present {
			return -ENODEV
		}
		if nic.file >= 0 {
			return -EBUSY
		}
		fd := openFile(kindNIC, oRdwr|oNonblock|oCloexec, 0)
		if fd >= 0 {
			_, fi := fdFile(int32(fd))
			nic.file = int32(fi)
			// A new file starts nicIRQ's invariant afresh (nic.go): nobody has been told of
			// what the ring holds, and the interrupt is on, whatever the last file left —
			// it may have closed with the interrupt off, or an interrupt came while no file
			// was open. The new reader may then wait in epoll before its first read: the
			// file polls readable while frames wait (nicFile.poll), and the next frame
			// interrupts.
			nic.notified = false
			nic.dev.EnableRxInterrupts()
		}
		return fd
	case netabi.OpEvents:
		return netEvents(uintptr(a[1]), uintptr(a[2]))
	case netabi.OpReply:
		return netReply(uint32(a[1]), int64(a[2]), uintptr(a[3]), uintptr(a[4]), cpu)
	case netabi.OpPush:
		return netPush(uint32(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), uintptr(a[5]), cpu)
	case netabi.OpPull:
		return netPull(uint32(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), cpu)
	case netabi.OpState:
		return netState(uint32(a[1]), uint32(a[2]), uint32(a[3]), int32(a[4]), cpu)
	case netabi.OpSetAddr:
		return netSetAddr(uint32(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), uintptr(a[5]))
	case netabi.OpAccepted:
		return netAccepted(uint32(a[1]), uintptr(a[2]), cpu)
	case netabi.OpNICRecv:
		return nicRecvFrames(uintptr(a[1]), uintptr(a[2]))
	case netabi.OpNICSend:
		return nicSendFrames(uintptr(a[1]), uintptr(a[2]))
	case netabi.OpRelease:
		s := sockBySid(uint32(a[1]))
		if s == nil || s.state != sockClosing {
			return -EBADF
		}
		sockFreeSlot(s)
		return 0
	}
	return -EINVAL
}

// netSetAddr records socket sid's local and peer addresses (netabi.OpSetAddr).
func netSetAddr(sid uint32, l, llen, p, plen uintptr) int64 {
	s := sockBySid(sid)
	if s == nil {
		return -EBADF
	}
	if llen > sockaddrInLen || plen > sockaddrInLen {
		return -EINVAL
	}
	if llen > 0 && !userRange(l, llen, false) || plen > 0 && !userRange(p, plen, false) {
		return -EFAULT
	}
	if llen > 0 {
		copy(s.local[:], userBytes(l, llen))
		s.localLen = uint8(llen)
	}
	if plen > 0 {
		copy(s.peer[:], userBytes(p, plen))
		s.peerLen = uint8(plen)
	}
	return 0
}

// netAccepted queues a connection the stack accepted on listener lsid (netabi.OpAccepted)
// and returns the new socket's Sid.
func netAccepted(lsid uint32, abuf uintptr, cpu int) int64 {
	l := sockBySid(lsid)
	if l == nil || !l.listening || l.state != sockOpen {
		return -EBADF
	}
	if !userRange(abuf, 2*netabi.AddrBufSize, false) {
		return -EFAULT
	}
	llen, plen := uintptr(load32(abuf)), uintptr(load32(abuf+netabi.AddrBufSize))
	if llen > sockaddrInLen || plen > sockaddrInLen {
		return -EINVAL
	}
	if l.acceptN >= l.backlog {
		l.rxWanted = true
		return -EAGAIN
	}
	c, e := sockAlloc(sockStream)
	if c == nil {
		return e
	}
	netSetAddr(c.sid(), abuf+4, llen, abuf+netabi.AddrBufSize+4, plen)
	c.st = netabi.StConnected | netabi.StTxOpen // established: tcpip accepted it
	l.acceptPush(c)
	if l.acceptN == 1 {
		sockNotify(l, epollIn, cpu)
	}
	return int64(c.sid())
}

// netAsync queues a request the program does not wait for (Req 0).
func netAsync(op uint16, s *socket) *netEvent {
	e := netQueue(netabi.EvRequest, op, s.sid(), 0)
	if e != nil {
		netStats[netabi.NetRequests]++
	}
	return e
}

// netEvents copies up to max queued events to buf as records.
func netEvents(buf, max uintptr) int64 {
	if max == 0 {
		return 0
	}
	if !userArray(buf, max, netabi.EventSize, true) {
		return -EFAULT
	}
	n := uintptr(0)
	for ; n < max && netEvq.head != netEvq.tail; n++ {
		e := &netEvq.ev[netEvq.head%netEvQueueLen]
		netEvq.head++
		r := buf + n*netabi.EventSize
		zeroUser(r, netabi.EventSize)
		store16(r+netabi.EvOffKind, e.kind)
		store16(r+netabi.EvOffOp, e.op)
		store32(r+netabi.EvOffSid, e.sid)
		store32(r+netabi.EvOffReq, e.req)
		store32(r+netabi.EvOffLen, e.n)
		for i, v := range e.args {
			store64(r+netabi.EvOffArgs+8*uintptr(i), v)
		}
		copyOut(r+netabi.EvOffData, e.data[:e.n])
		if e.kind == netabi.EvTxReady {
			if s := sockBySid(e.sid); s != nil {
				s.txQueued = false
			}
		}
	}
	return int64(n)
}

// netRequestStart queues a request for the socket call thread gp is making and parks gp until
// the reply (netReply), the deadline (netRequestTimeout) or a signal (netRequestAbandon).
// It returns the event so that the caller can fill in args and data.
func netRequestStart(t *Thread, gp sched.GID, cpu int, op uint16, s *socket) (*netRequest, *netEvent) {
	netReqSeq++
	id := netReqSeq<<12 | uint32(gp)
	e := netQueue(netabi.EvRequest, op, s.sid(), id)
	if e == nil {
		return nil, nil
	}
	r := &netReqs[gp]
	*r = netRequest{id: id, op: op, sid: s.sid()}
	netStats[netabi.NetRequests]++
	block(t, gp, cpu, waitNet, nanotime()+netReplyTimeout)
	return r, e
}

// netReply completes request id with result and payload [p, p+n) (netabi.OpReply).
func netReply(id uint32, result int64, p, n uintptr, cpu int) int64 {
	gp := sched.GID(id & (1<<12 - 1))
	r := &netReqs[gp]
	if id == 0 || r.id != id || threads[gp].wait != waitNet || !blocked(gp) {
		return -ESRCH
	}
	if n > 0 && !userRange(p, n, false) {
		return -EFAULT
	}
	if result > 0 || result < -netabi.MaxErrno {
		return -EINVAL // a socket call's result is 0 or -errno; the kernel makes fds itself
	}
	// The payload moves through a kernel buffer: once in the sleeper's address space (below),
	// the stack's page is no longer what a fault there would be answered from (mm_unlocked.go
	// kernelUserFault asks the sleeper's space), and an madvise may drop it meanwhile.
	c := min(n, uintptr(r.cap), uintptr(len(netReplyBuf)))
	copy(netReplyBuf[:c], userBytes(p, c))
	old := enterProc(gp) // the sleeper's fds and memory (proc.go)
	result = netFinish(r, result, c, n)
	leaveProc(old)
	r.id = 0
	netStats[netabi.NetReadyStack]++
	wakeThread(gp, result, cpu)
	return 0
}

// netReplyBuf holds a reply's payload (netReply) while it is copied to the caller: a sockaddr
// or an option value, never longer; the length reported is the payload's whole one. BKL.
var netReplyBuf [256]byte

// netFinish does the kernel's part of a completed request and returns the system call's result;
// the payload, n bytes long, is its first c bytes in netReplyBuf.
func netFinish(r *netRequest, result int64, c, n uintptr) int64 {
	s := sockBySid(r.sid)
	switch r.op {
	case netabi.ReqConnect: // a datagram connect (a stream connect is asynchronous)
		if s != nil && result == 0 {
			s.peerSet = true
		}
	case netabi.ReqListen:
		if s != nil && result == 0 {
			s.listening = true
		}
	case netabi.ReqGetsockopt:
		if result == 0 && !netCopyAddr(r, c, n) {
			result = -EFAULT
		}
	}
	return result
}

// netCopyAddr copies a reply's payload (its first c bytes in netReplyBuf, at most the room the
// caller gave; n long in all) to the caller's buffer as Linux copies a sockaddr or an option
// value out (move_addr_to_user, copy_to_sockptr), and the full length to *outLen. false: either
// could not be written (EFAULT).
func netCopyAddr(r *netRequest, c, n uintptr) bool {
	if r.outLen == 0 {
		return true
	}
	if c > 0 {
		if !userRange(r.out, c, true) {
			return false
		}
		copy(userBytes(r.out, c), netReplyBuf[:c])
	}
	if !userRange(r.outLen, 4, true) {
		return false
	}
	store32(r.outLen, uint32(n))
	return true
}

// netRequestEnd forgets gp's request when its wait ends other than by a reply (its
// deadline). unblock calls it.
func netRequestEnd(gp sched.GID) {
	r := &netReqs[gp]
	if r.id == 0 {
		return
	}
	r.id = 0
}

// netRequestTimeout ends a request the stack did not answer in time.
func netRequestTimeout(gp sched.GID, cpu int) {
	klogOnce(&netSlowStack, "network stack did not answer a socket call within 10 s: ETIMEDOUT")
	wakeThread(gp, -ETIMEDOUT, cpu)
}

var netSlowStack bool

// netPush appends data from the stack to socket sid's receive ring (netabi.OpPush).
func netPush(sid uint32, p, n, addr, alen uintptr, cpu int) int64 {
	s := sockBySid(sid)
	if s == nil {
		return -EBADF
	}
	if s.rxShut || s.state == sockClosing {
		return -EPIPE
	}
	if n > 0 && !userRange(p, n, false) || alen > 0 && !userRange(addr, alen, false) {
		return -EFAULT
	}
	var took uint64
	if s.typ == sockDgram {
		if n > maxDgram || alen > dgramAddrMax {
			return -EMSGSIZE
		}
		if !s.rx.putDgram(p, n, addr, alen) {
			s.rxWanted = true
			return -EAGAIN
		}
		took = uint64(n)
	} else {
		took = min(uint64(n), s.rx.space())
		s.rx.write(p, took)
		if took < uint64(n) {
			s.rxWanted = true
		}
	}
	if took > 0 || n == 0 {
		sockNotify(s, epollIn, cpu)
	}
	return int64(took)
}

// netPull takes data from socket sid's send ring for the stack (netabi.OpPull).
func netPull(sid uint32, p, n, abuf uintptr, cpu int) int64 {
	s := sockBySid(sid)
	if s == nil {
		return -EBADF
	}
	if n > 0 && !userRange(p, n, true) {
		return -EFAULT
	}
	head := s.tx.head
	var took uint64
	if s.typ == sockDgram {
		if !userRange(abuf, netabi.AddrBufSize, true) {
			return -EFAULT
		}
		var h [dgramHdr]byte
		dn, alen, ok := s.tx.peekDgram(&h)
		if !ok {
			return 0
		}
		c := min(uint64(dn), uint64(n))
		s.tx.readAt(s.tx.head+dgramHdr, p, c)
		s.tx.head += dgramHdr + uint64(dn)
		store32(abuf, alen)
		copyOut(abuf+4, h[8:8+alen])
		took = c
	} else {
		took = min(uint64(n), s.tx.used())
		s.tx.readAt(s.tx.head, p, took)
		s.tx.head += took
	}
	sockTxRoomMade(s, head, cpu)
	return int64(took)
}

// sockTxRoomMade tells the socket's writers of room that a Pull made in the send ring (its head
// was at head before), if there is room for a send now. A stream socket's writers hear of it
// only when a send or poll found the ring full since the last time (txWanted), as Linux's TCP
// wakes them: tcp_poll and a send that must wait for memory (sk_stream_wait_memory) set
// SOCK_NOSPACE, and tcp_check_space calls the write-space callback only while it is set. Told
// on every Pull instead, the Go runtime's netpoller, which watches every socket for EPOLLOUT
// edge-triggered, woke up once per reply a server sent, to find no goroutine waiting to write
// (README, Benchmarks). A datagram socket's are told on every Pull, as Linux's UDP wakes them
// whenever a sent packet's memory is freed (sock_wfree, sock_def_write_space).
func sockTxRoomMade(s *socket, head uint64, cpu int) {
	if s.tx.head == head || !sockTxRoom(s) || s.typ == sockStream && !s.txWanted {
		return
	}
	s.txWanted = false
	sockNotify(s, epollOut, cpu)
}

// netState sets socket sid's readiness bits as the stack sees them (netabi.OpState).
func netState(sid uint32, set, clr uint32, err int32, cpu int) int64 {
	s := sockBySid(sid)
	if s == nil {
		return -EBADF
	}
	if set&clr != 0 || (set|clr)&^uint32(netabi.StConnected|netabi.StAcceptable|netabi.StRxEOF|netabi.StHup|netabi.StTxOpen|netabi.StErr) != 0 {
		return -EINVAL
	}
	if set&netabi.StErr != 0 {
		if err <= 0 || err > netabi.MaxErrno {
			return -EINVAL // the program would get it from a read: an errno Linux has
		}
		s.err = err
	}
	if clr&netabi.StErr != 0 {
		s.err = 0
	}
	old := s.st
	s.st = (s.st | set) &^ clr
	if s.st&netabi.StTxOpen != 0 && old&netabi.StTxOpen == 0 {
		sockTxReady(s)
	}
	sockNotify(s, epollIn|epollOut|epollErr|epollHup|epollRdhup, cpu)
	return 0
}

// sockTxReady queues EvTxReady if the stack takes data and some (or a shutdown) waits.
func sockTxReady(s *socket) {
	if s.txQueued || s.st&netabi.StTxOpen == 0 || s.tx.used() == 0 {
		return
	}
	if netQueue(netabi.EvTxReady, 0, s.sid(), 0) != nil {
		s.txQueued = true
	}
}

// sockNotify tells the socket's file's watchers that its readiness may have changed.
func sockNotify(s *socket, events uint32, cpu int) {
	if s.file >= 0 {
		fileNotify(int(s.file), events, cpu)
	}
}

// sockClose hands a socket the program no longer refers to over to the stack, which drains
// its send ring, closes the endpoint and releases the slot (EvClosed, OpRelease).
func sockClose(s *socket) {
	s.file = -1
	if s.state == sockClosing {
		return
	}
	for c := s.acceptPop(); c != nil; c = s.acceptPop() {
		sockClose(c) // connections nobody accepted: reset by the stack as it closes them
	}
	s.state = sockClosing
	if !netsvc.attached || netQueue(netabi.EvClosed, 0, s.sid(), 0) == nil {
		sockFreeSlot(s)
	}
}

// netConfig fills the stack's configuration (netabi.OpConfig): the NIC and the addresses.
func netConfig(buf, n uintptr) int64 {
	if n < netabi.ConfigSize || !userRange(buf, netabi.ConfigSize, true) {
		return -EFAULT
	}
	zeroUser(buf, netabi.ConfigSize)
	flags := uint32(0)
	if nic.present {
		flags |= netabi.CfgNIC
		copyOut(buf+netabi.CfgOffMAC, nic.mac[:])
		store16(buf+netabi.CfgOffMTU, 1500)
	}
	if ipcfg.static {
		flags |= netabi.CfgStatic
		copyOut(buf+netabi.CfgOffAddr, ipcfg.addr[:])
		store8(buf+netabi.CfgOffPrefix, ipcfg.prefix)
		copyOut(buf+netabi.CfgOffGateway, ipcfg.gateway[:])
		copyOut(buf+netabi.CfgOffDNS, ipcfg.dns[:])
	}
	store32(buf+netabi.CfgOffFlags, flags)
	if !nic.present {
		return -ENODEV
	}
	return 0
}

// netSvcFile is the service file's kind: readable while events are queued.
type netSvcFile struct{}

func (netSvcFile) read(f *file, buf, n uintptr) int64  { return -EINVAL }
func (netSvcFile) write(f *file, buf, n uintptr) int64 { return -EINVAL }
func (netSvcFile) poll(f *file) uint32 {
	if netEvq.tail != netEvq.head {
		return epollIn
	}
	return 0
}
func (netSvcFile) stat(f *file) fileStat { return fileStat{mode: 0o600, nlink: 1, blksize: 4096} }

// release: the stack has gone (it closed the service file, or the program is exiting).
func (netSvcFile) release(f *file) { netsvc.attached = false }
