// A fake kernel for the hosted tests: socket table, rings, event queue and a program side.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"gmpos/kernel/netabi"
)

// fakeKernel plays the kernel side of netabi the way the real kernel is specified to: Sids
// with generations, 64 KiB rings, EvTxReady when data waits and StTxOpen is set, EvRxSpace
// after the program reads from a ring a Push found full (or accepts from a full queue), round
// trips parked until their reply, asynchronous requests (socket, setsockopt, shutdown, a
// stream connect) queued without waiting, accept queues and addresses kept by the kernel.
// The program side (socket, bind, ..., recv, close) is what the program's system calls do;
// each may block, with a timeout so that a lost wake-up fails the test instead of hanging it.
//
// Everything is protected by mu; cond is broadcast on every change.
type fakeKernel struct {
	mu      sync.Mutex
	cond    *sync.Cond
	events  [][netabi.EventSize]byte
	stopped bool
	nextReq uint32
	replies map[uint32]*fakeReply
	socks   map[uint32]*fsock
	slots   [netabi.MaxSockets]uint32 // generation per slot
	used    [netabi.MaxSockets]bool
	bad     []string // protocol violations by the stack
	timeout time.Duration
}

type fakeReply struct {
	done    bool
	result  int64
	payload []byte
}

type fdgram struct {
	data []byte
	addr []byte // sockaddr; nil: the connected peer (tx side)
}

type fsock struct {
	sid        uint32
	dgram      bool
	rx, tx     []byte   // stream rings
	rxd, txd   []fdgram // dgram rings
	rxBytes    int
	txBytes    int
	state      uint32
	errno      syscall.Errno
	rxFull     bool // a Push found the ring full: EvRxSpace on the next read
	txNotified bool // an EvTxReady is queued and not fetched yet
	shutRd     bool
	closed     bool // the program closed it (EvClosed queued)
	released   bool

	local, peer []byte   // OpSetAddr
	backlog     int      // listener: the accept queue's bound
	acceptq     []*fsock // listener: connections the program has not accepted
	acceptFull  bool     // an Accepted found the queue full: EvRxSpace on the next accept
}

func newFakeKernel() *fakeKernel {
	k := &fakeKernel{replies: make(map[uint32]*fakeReply), socks: make(map[uint32]*fsock), timeout: 20 * time.Second}
	k.cond = sync.NewCond(&k.mu)
	return k
}

var errStopped = errors.New("fake kernel stopped")

// --- the kernel side, called by the stack ---

func (k *fakeKernel) Events(next func() []byte, put func([]byte)) error {
	for {
		buf := next()
		n, err := k.events1(buf)
		if err != nil {
			return err
		}
		put(buf[:n*netabi.EventSize])
	}
}

// events1 waits for events and moves up to a buffer's worth.
func (k *fakeKernel) events1(buf []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for len(k.events) == 0 && !k.stopped {
		k.cond.Wait()
	}
	if k.stopped {
		return 0, errStopped
	}
	n := 0
	for n < len(buf)/netabi.EventSize && n < len(k.events) {
		copy(buf[n*netabi.EventSize:], k.events[n][:])
		if e, _ := netabi.DecodeEvent(k.events[n][:]); e.Kind == netabi.EvTxReady {
			if s := k.socks[e.Sid]; s != nil {
				s.txNotified = false // fetched: the next write queues another (as the kernel's txQueued)
			}
		}
		n++
	}
	k.events = k.events[n:]
	return n, nil
}

func (k *fakeKernel) violation(format string, a ...any) {
	k.bad = append(k.bad, fmt.Sprintf(format, a...))
}

// live returns the socket the stack may still name; a closed or unknown one is a violation
// unless allowClosed (Pull after EvClosed is allowed until Release).
func (k *fakeKernel) live(sid uint32, op string, allowClosed bool) *fsock {
	s := k.socks[sid]
	if s == nil || s.released || (s.closed && !allowClosed) {
		k.violation("%s on dead sid %#x", op, sid)
		return nil
	}
	return s
}

func (k *fakeKernel) Reply(req uint32, result int64, payload []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	r := k.replies[req]
	if r == nil || r.done {
		return syscall.ESRCH
	}
	r.done, r.result, r.payload = true, result, append([]byte(nil), payload...)
	k.cond.Broadcast()
	return nil
}

func (k *fakeKernel) Push(sid uint32, data, addr []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.live(sid, "push", true)
	if s == nil {
		return 0, syscall.EBADF
	}
	if s.shutRd || s.closed {
		return 0, syscall.EPIPE
	}
	defer k.cond.Broadcast()
	if s.dgram {
		if len(addr) != sockaddrInSize {
			k.violation("push dgram with %d-byte address", len(addr))
		}
		if s.rxBytes+len(data) > netabi.RingSize {
			s.rxFull = true
			return 0, syscall.EAGAIN
		}
		s.rxd = append(s.rxd, fdgram{append([]byte(nil), data...), append([]byte(nil), addr...)})
		s.rxBytes += len(data)
		return len(data), nil
	}
	n := min(len(data), netabi.RingSize-len(s.rx))
	s.rx = append(s.rx, data[:n]...)
	if n < len(data) {
		s.rxFull = true
	}
	return n, nil
}

func (k *fakeKernel) Pull(sid uint32, buf, addr []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.live(sid, "pull", true)
	if s == nil {
		return 0, syscall.EBADF
	}
	defer k.cond.Broadcast()
	if s.dgram {
		if len(addr) < netabi.AddrBufSize {
			k.violation("pull dgram with %d-byte address buffer", len(addr))
			return 0, syscall.EINVAL
		}
		if len(s.txd) == 0 {
			return 0, nil
		}
		d := s.txd[0]
		s.txd = s.txd[1:]
		s.txBytes -= len(d.data)
		binary.LittleEndian.PutUint32(addr, uint32(len(d.addr)))
		copy(addr[4:], d.addr)
		return copy(buf, d.data), nil
	}
	n := copy(buf, s.tx)
	s.tx = s.tx[n:]
	return n, nil
}

func (k *fakeKernel) State(sid uint32, set, clr uint32, errno syscall.Errno) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.live(sid, "state", true)
	if s == nil {
		return syscall.EBADF
	}
	s.state = (s.state | set) &^ clr
	if set&netabi.StErr != 0 {
		s.errno = errno
	}
	if set&netabi.StTxOpen != 0 {
		k.txReadyLocked(s)
	}
	k.cond.Broadcast()
	return nil
}

func (k *fakeKernel) Release(sid uint32) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.socks[sid]
	if s == nil || s.released || !s.closed {
		k.violation("release of sid %#x not closed by the program", sid)
		return syscall.EBADF
	}
	s.released = true
	k.used[sid&(1<<netabi.SidSlotBits-1)] = false
	delete(k.socks, sid)
	k.cond.Broadcast()
	return nil
}

func (k *fakeKernel) SetAddr(sid uint32, local, peer []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.live(sid, "setaddr", false)
	if s == nil {
		return syscall.EBADF
	}
	if len(local) > sockaddrInSize || len(peer) > sockaddrInSize {
		k.violation("setaddr with %d/%d-byte addresses", len(local), len(peer))
		return syscall.EINVAL
	}
	if len(local) > 0 {
		s.local = append([]byte(nil), local...)
	}
	if len(peer) > 0 {
		s.peer = append([]byte(nil), peer...)
	}
	k.cond.Broadcast()
	return nil
}

func (k *fakeKernel) Accepted(lsid uint32, local, peer []byte) (uint32, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	l := k.socks[lsid]
	if l != nil && l.closed && !l.released {
		return 0, syscall.EBADF // the program closed it; EvClosed is on its way: not a violation
	}
	l = k.live(lsid, "accepted", false)
	if l == nil {
		return 0, syscall.EBADF
	}
	if l.backlog == 0 {
		k.violation("accepted on sid %#x, which is not listening", lsid)
		return 0, syscall.EBADF
	}
	if len(l.acceptq) >= l.backlog {
		l.acceptFull = true
		return 0, syscall.EAGAIN
	}
	c, err := k.newSidLocked(false)
	if err != nil {
		return 0, err
	}
	c.local, c.peer = append([]byte(nil), local...), append([]byte(nil), peer...)
	c.state = netabi.StConnected | netabi.StTxOpen
	l.acceptq = append(l.acceptq, c)
	k.cond.Broadcast()
	return c.sid, nil
}

// --- kernel internals ---

func (k *fakeKernel) queueLocked(e netabi.Event) {
	var rec [netabi.EventSize]byte
	netabi.EncodeEvent(rec[:], e)
	k.events = append(k.events, rec)
	k.cond.Broadcast()
}

// txReadyLocked queues EvTxReady when the stack takes data (StTxOpen), data waits and no
// EvTxReady is queued unfetched — the kernel's rule (kernel/net_svc.go sockTxReady).
func (k *fakeKernel) txReadyLocked(s *fsock) {
	if s.state&netabi.StTxOpen == 0 || s.closed || (len(s.tx) == 0 && len(s.txd) == 0) || s.txNotified {
		return
	}
	s.txNotified = true
	k.queueLocked(netabi.Event{Kind: netabi.EvTxReady, Sid: s.sid})
}

func (k *fakeKernel) stop() {
	k.mu.Lock()
	k.stopped = true
	k.cond.Broadcast()
	k.mu.Unlock()
}

// waitLocked waits on cond until ok() or the timeout.
func (k *fakeKernel) waitLocked(what string, ok func() bool) error {
	deadline := time.Now().Add(k.timeout)
	t := time.AfterFunc(k.timeout, func() { k.mu.Lock(); k.cond.Broadcast(); k.mu.Unlock() })
	defer t.Stop()
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timeout waiting for %s", what)
		}
		k.cond.Wait()
	}
	return nil
}

// --- the program side: what the program's system calls do ---

// request is a round trip: queue the EvRequest, park until the reply.
func (k *fakeKernel) request(op uint16, sid uint32, args [4]uint64, data []byte) (int64, []byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.nextReq++
	req := k.nextReq
	r := &fakeReply{}
	k.replies[req] = r
	defer delete(k.replies, req)
	k.queueLocked(netabi.Event{Kind: netabi.EvRequest, Op: op, Sid: sid, Req: req, Args: args, Data: data})
	if err := k.waitLocked(fmt.Sprintf("reply to op %d", op), func() bool { return r.done }); err != nil {
		return 0, nil, err
	}
	return r.result, r.payload, nil
}

// async queues a request nobody waits for (Req 0).
func (k *fakeKernel) async(op uint16, sid uint32, args [4]uint64, data []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.queueLocked(netabi.Event{Kind: netabi.EvRequest, Op: op, Sid: sid, Args: args, Data: data})
}

func errnoErr(r int64) error {
	if r < 0 {
		return syscall.Errno(-r)
	}
	return nil
}

// newSidLocked takes a free slot with its next generation.
func (k *fakeKernel) newSidLocked(dgram bool) (*fsock, error) {
	for i := 1; i < netabi.MaxSockets; i++ {
		if !k.used[i] {
			k.used[i] = true
			k.slots[i]++
			s := &fsock{sid: k.slots[i]<<netabi.SidSlotBits | uint32(i), dgram: dgram}
			k.socks[s.sid] = s
			return s, nil
		}
	}
	return nil, syscall.ENFILE
}

// socket is socket(2): the kernel checks the type, makes the socket and returns at once; the
// stack makes the endpoint when it gets to the request.
func (k *fakeKernel) socket(typ int) (uint32, error) {
	if typ != sockStream && typ != sockDgram {
		return 0, syscall.ESOCKTNOSUPPORT
	}
	k.mu.Lock()
	s, err := k.newSidLocked(typ == sockDgram)
	k.mu.Unlock()
	if err != nil {
		return 0, err
	}
	k.async(netabi.ReqSocket, s.sid, [4]uint64{uint64(typ)}, nil)
	return s.sid, nil
}

func (k *fakeKernel) simple(op uint16, sid uint32, args [4]uint64, data []byte) error {
	r, _, err := k.request(op, sid, args, data)
	if err != nil {
		return err
	}
	return errnoErr(r)
}

func (k *fakeKernel) bind(sid uint32, sa []byte) error {
	return k.simple(netabi.ReqBind, sid, [4]uint64{}, sa)
}

func (k *fakeKernel) listen(sid uint32, backlog int) error {
	err := k.simple(netabi.ReqListen, sid, [4]uint64{uint64(backlog)}, nil)
	if err == nil {
		k.mu.Lock()
		k.socks[sid].backlog = max(backlog, 1)
		k.mu.Unlock()
	}
	return err
}

// connect is a blocking connect. Stream: the request is asynchronous, then the program waits
// for the stack's verdict (StConnected, or StErr with SO_ERROR); dgram: a round trip.
func (k *fakeKernel) connect(sid uint32, sa []byte) error {
	k.mu.Lock()
	s := k.socks[sid]
	k.mu.Unlock()
	if s.dgram {
		return k.simple(netabi.ReqConnect, sid, [4]uint64{}, sa)
	}
	if len(sa) < 2 || binary.LittleEndian.Uint16(sa) != afInet {
		return syscall.EAFNOSUPPORT // the kernel's check (sockaddrIn)
	}
	k.async(netabi.ReqConnect, sid, [4]uint64{}, sa)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.waitLocked("connect", func() bool { return s.state&(netabi.StConnected|netabi.StErr) != 0 }); err != nil {
		return err
	}
	if s.state&netabi.StErr != 0 {
		e := s.errno
		s.errno = 0 // taken, as SO_ERROR is
		return e
	}
	if len(s.local) == 0 || len(s.peer) == 0 {
		k.violation("sid %#x connected without its addresses", sid)
	}
	return nil
}

// acceptOnce is a non-blocking accept4: the first connection on the kernel's queue.
func (k *fakeKernel) acceptOnce(lsid uint32) (uint32, []byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	l := k.socks[lsid]
	if len(l.acceptq) == 0 {
		return 0, nil, syscall.EAGAIN
	}
	c := l.acceptq[0]
	l.acceptq = l.acceptq[1:]
	if l.acceptFull {
		l.acceptFull = false
		k.queueLocked(netabi.Event{Kind: netabi.EvRxSpace, Sid: lsid})
	}
	return c.sid, c.peer, nil
}

// accept is a blocking accept4: wait for the queue not to be empty.
func (k *fakeKernel) accept(lsid uint32) (uint32, []byte, error) {
	for {
		sid, peer, err := k.acceptOnce(lsid)
		if err != syscall.EAGAIN {
			return sid, peer, err
		}
		k.mu.Lock()
		s := k.socks[lsid]
		err = k.waitLocked("acceptable", func() bool { return len(s.acceptq) > 0 || s.state&netabi.StErr != 0 })
		k.mu.Unlock()
		if err != nil {
			return 0, nil, err
		}
	}
}

// send is a blocking write of all of b (stream).
func (k *fakeKernel) send(sid uint32, b []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.socks[sid]
	for len(b) > 0 {
		if err := k.waitLocked("send room", func() bool {
			return len(s.tx) < netabi.RingSize || s.state&netabi.StErr != 0
		}); err != nil {
			return err
		}
		if s.state&netabi.StErr != 0 {
			return s.errno
		}
		n := min(len(b), netabi.RingSize-len(s.tx))
		s.tx = append(s.tx, b[:n]...)
		b = b[n:]
		k.txReadyLocked(s)
	}
	return nil
}

// sendto queues one datagram (addr nil: the connected peer).
func (k *fakeKernel) sendto(sid uint32, b, addr []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.socks[sid]
	if err := k.waitLocked("sendto room", func() bool { return s.txBytes+len(b) <= netabi.RingSize }); err != nil {
		return err
	}
	s.txd = append(s.txd, fdgram{append([]byte(nil), b...), append([]byte(nil), addr...)})
	s.txBytes += len(b)
	k.txReadyLocked(s)
	return nil
}

// recv is a blocking read of up to n bytes; 0 bytes and nil is EOF.
func (k *fakeKernel) recv(sid uint32, n int) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.socks[sid]
	if err := k.waitLocked("recv", func() bool { return len(s.rx) > 0 || s.state&(netabi.StRxEOF|netabi.StErr) != 0 }); err != nil {
		return nil, err
	}
	if len(s.rx) == 0 {
		if s.state&netabi.StErr != 0 && s.errno != 0 {
			e := s.errno
			s.errno = 0 // reported once, like SO_ERROR
			return nil, e
		}
		return nil, nil
	}
	n = min(n, len(s.rx))
	b := append([]byte(nil), s.rx[:n]...)
	s.rx = s.rx[n:]
	k.rxReadLocked(s)
	return b, nil
}

func (k *fakeKernel) rxReadLocked(s *fsock) {
	if s.rxFull {
		s.rxFull = false
		k.queueLocked(netabi.Event{Kind: netabi.EvRxSpace, Sid: s.sid})
	}
}

// recvfrom is a blocking read of one datagram and its source.
func (k *fakeKernel) recvfrom(sid uint32) ([]byte, []byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.socks[sid]
	if err := k.waitLocked("recvfrom", func() bool { return len(s.rxd) > 0 }); err != nil {
		return nil, nil, err
	}
	d := s.rxd[0]
	s.rxd = s.rxd[1:]
	s.rxBytes -= len(d.data)
	k.rxReadLocked(s)
	return d.data, d.addr, nil
}

func (k *fakeKernel) shutdown(sid uint32, how int) error {
	if how < shutRd || how > shutRdwr {
		return syscall.EINVAL // the kernel's check
	}
	if how == shutRd || how == shutRdwr {
		k.mu.Lock()
		k.socks[sid].shutRd = true
		k.mu.Unlock()
	}
	k.async(netabi.ReqShutdown, sid, [4]uint64{uint64(how)}, nil)
	return nil
}

// setsockopt checks the option as the kernel does and queues it.
func (k *fakeKernel) setsockopt(sid uint32, level, name int, v []byte) error {
	k.mu.Lock()
	dgram := k.socks[sid].dgram
	k.mu.Unlock()
	if e := netabi.CheckSockopt(int32(level), int32(name), v, dgram); e != 0 {
		return syscall.Errno(e)
	}
	k.async(netabi.ReqSetsockopt, sid, [4]uint64{uint64(level), uint64(name)}, v)
	return nil
}

func (k *fakeKernel) getsockopt(sid uint32, level, name, optlen int) ([]byte, error) {
	r, p, err := k.request(netabi.ReqGetsockopt, sid, [4]uint64{uint64(level), uint64(name), uint64(optlen)}, nil)
	if err != nil {
		return nil, err
	}
	return p, errnoErr(r)
}

// sockname is getsockname (peer false) or getpeername: the kernel answers from OpSetAddr.
// An unbound socket is 0.0.0.0:0; a socket without a peer is ENOTCONN.
func (k *fakeKernel) sockname(sid uint32, peer bool) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.socks[sid]
	if peer {
		if len(s.peer) == 0 {
			return nil, syscall.ENOTCONN
		}
		return append([]byte(nil), s.peer...), nil
	}
	if len(s.local) == 0 {
		return sa(anyAddr, 0), nil
	}
	return append([]byte(nil), s.local...), nil
}

// close is close(2): the program forgets the socket, the stack gets EvClosed; connections on
// a listener's queue that the program never accepted are closed with it.
func (k *fakeKernel) close(sid uint32) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closeLocked(k.socks[sid])
}

func (k *fakeKernel) closeLocked(s *fsock) {
	for _, c := range s.acceptq {
		k.closeLocked(c)
	}
	s.acceptq = nil
	s.closed = true
	k.queueLocked(netabi.Event{Kind: netabi.EvClosed, Sid: s.sid})
}

// waitReleased waits until the stack released sid.
func (k *fakeKernel) waitReleased(sid uint32) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.waitLocked("release", func() bool { return k.socks[sid] == nil })
}

func (k *fakeKernel) stateOf(sid uint32) uint32 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.socks[sid].state
}

func (k *fakeKernel) violations() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.bad...)
}
