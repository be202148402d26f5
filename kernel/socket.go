// Sockets: the kernel's half of a socket — its slot, its state and its two data rings.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"unsafe"

	"gmpos/kernel/mm"
	"gmpos/kernel/netabi"
)

// A socket the program opens is two things (kernel/netabi/doc.go): a tcpip endpoint in the
// network stack, which runs as goroutines of the program, and this kernel object, which the
// program's fd refers to. The kernel object holds what read, write and epoll need without
// asking the stack — the receive ring (filled by the stack, OpPush), the send ring (drained by
// the stack, OpPull) and the readiness bits the stack sets (OpState) — so that those calls never
// wait for a round trip. Linux keeps the same split between struct socket (the file side) and
// struct sock (the protocol side): net/socket.c, include/net/sock.h.
//
// A slot's life: free → open (socket, or reserved by accept4 until the stack answers) →
// closing (the program closed its last fd; the stack drains the send ring and closes the
// endpoint) → free (OpRelease). The generation in a Sid changes each time a slot is taken, so
// the stack can never reach a later socket through a stale Sid.
//
// Protected by the BKL.

// Socket types (include/linux/net.h) and the flags socket(2) and accept4(2) accept in type.
const (
	sockStream   = 1
	sockDgram    = 2
	sockNonblock = oNonblock
	sockCloexec  = oCloexec
	afUnspec     = 0
	afInet       = 2
	afInet6      = 10
)

// sockState is a slot's place in its life.
type sockState uint8

const (
	sockFree    sockState = iota
	sockOpen              // the program's fd refers to it (or accept4 reserved it)
	sockClosing           // the program closed it; the stack has not released it yet
)

// ringPages is how many frames one direction's ring spans.
const ringPages = netabi.RingSize / mm.PageSize

// sockRing is a byte ring over frames: head is where the reader is, tail where the writer
// is; both only grow (their difference is the fill, at most RingSize). The frames are reached
// through the direct map; they need not be contiguous.
type sockRing struct {
	pages      [ringPages]uintptr // physical addresses
	head, tail uint64
}

// socket is one slot of the socket table.
type socket struct {
	state sockState
	typ   uint8  // sockStream or sockDgram
	gen   uint32 // generation, part of the Sid
	file  int32  // the open file referring to it, -1 while closing or reserved

	st  uint32 // netabi St* bits, as the stack last set them
	err int32  // pending error (SO_ERROR), set with StErr, taken by getsockopt

	listening   bool // listen succeeded
	connecting  bool // a stream connect answered EINPROGRESS and has not ended yet
	connectWait bool // a blocking connect waits for it to end
	peerSet     bool // dgram: connect named a default destination
	shutRd      bool // the program shut the socket for reading
	shutWr      bool // ... for writing (the stack passes it on after the data)
	rxWanted    bool // the stack found the receive ring full: EvRxSpace when there is room
	txWanted    bool // stream: a send or poll found the send ring full: epollOut when Pull makes room
	txQueued    bool // an EvTxReady is queued and not yet taken by the stack
	rxShut      bool // SHUT_RD: Push is refused

	// Addresses as the stack set them (OpSetAddr): sockaddr_in bytes, length 0 for none.
	local, peer       [sockaddrInLen]byte
	localLen, peerLen uint8

	// The accept queue (OpAccepted, accept4): a listener's connections the program has not
	// taken yet, linked through their acceptNext (slot+1, 0 ends the list).
	acceptHead, acceptTail int16
	acceptNext             int16
	acceptN, backlog       int32

	rx, tx sockRing
}

// sockets is the socket table. BKL.
var sockets [netabi.MaxSockets]socket

// sid is the socket's id for the stack.
func (s *socket) sid() uint32 { return s.gen<<netabi.SidSlotBits | uint32(s.slot()) }

// slot is the socket's index in the table.
func (s *socket) slot() int {
	return int((uintptr(unsafe.Pointer(s)) - uintptr(unsafe.Pointer(&sockets[0]))) / unsafe.Sizeof(socket{}))
}

// sockBySid returns the socket a Sid names, or nil if the slot is free or was taken again since.
func sockBySid(sid uint32) *socket {
	slot := int(sid & (1<<netabi.SidSlotBits - 1))
	if slot >= len(sockets) {
		return nil
	}
	s := &sockets[slot]
	if s.state == sockFree || s.gen != sid>>netabi.SidSlotBits {
		return nil
	}
	return s
}

// sockAlloc takes a free slot and its rings' frames. nil: no slot (ENFILE) or no memory.
func sockAlloc(typ uint8) (*socket, int64) {
	for i := range sockets {
		s := &sockets[i]
		if s.state != sockFree {
			continue
		}
		gen := (s.gen + 1) & (1<<(32-netabi.SidSlotBits) - 1)
		if gen == 0 {
			gen = 1
		}
		*s = socket{state: sockOpen, typ: typ, gen: gen, file: -1}
		if !s.rx.alloc() || !s.tx.alloc() {
			s.rx.free()
			s.tx.free()
			*s = socket{gen: gen}
			return nil, -ENOBUFS
		}
		netStats[netabi.NetSockets]++
		return s, 0
	}
	return nil, -ENFILE
}

// acceptPush appends socket c to listener l's accept queue.
func (l *socket) acceptPush(c *socket) {
	c.acceptNext = 0
	if l.acceptTail == 0 {
		l.acceptHead = int16(c.slot() + 1)
	} else {
		sockets[l.acceptTail-1].acceptNext = int16(c.slot() + 1)
	}
	l.acceptTail = int16(c.slot() + 1)
	l.acceptN++
}

// acceptPop takes the oldest connection off listener l's accept queue; nil if it is empty.
func (l *socket) acceptPop() *socket {
	if l.acceptHead == 0 {
		return nil
	}
	c := &sockets[l.acceptHead-1]
	l.acceptHead = c.acceptNext
	if l.acceptHead == 0 {
		l.acceptTail = 0
	}
	c.acceptNext = 0
	l.acceptN--
	return c
}

// sockFreeSlot gives the rings' frames back and frees the slot (its generation stays).
func sockFreeSlot(s *socket) {
	s.rx.free()
	s.tx.free()
	gen := s.gen
	*s = socket{gen: gen}
	netStats[netabi.NetSockets]--
}

func (r *sockRing) alloc() bool {
	for i := range r.pages {
		pa, ok := mm.AllocFrame()
		if !ok {
			return false
		}
		r.pages[i] = pa
	}
	return true
}

func (r *sockRing) free() {
	for i, pa := range r.pages {
		if pa != 0 {
			mm.FreeFrame(pa)
			r.pages[i] = 0
		}
	}
	r.head, r.tail = 0, 0
}

func (r *sockRing) used() uint64  { return r.tail - r.head }
func (r *sockRing) space() uint64 { return netabi.RingSize - r.used() }

// chunk is the contiguous kernel memory at ring offset off (mod RingSize): its address and how
// many bytes remain in its page.
func (r *sockRing) chunk(off uint64) (uintptr, uint64) {
	o := off % netabi.RingSize
	page, in := o/mm.PageSize, o%mm.PageSize
	return mm.PhysToVirt(r.pages[page]) + uintptr(in), mm.PageSize - in
}

// write copies n bytes from p (kernel or checked user memory) at the tail. The caller made
// sure they fit.
func (r *sockRing) write(p uintptr, n uint64) {
	r.writeAt(r.tail, p, n)
	r.tail += n
}

// writeAt copies n bytes from p (kernel or checked user memory) to ring offset off, which the
// caller made sure is free; the tail stays.
func (r *sockRing) writeAt(off uint64, p uintptr, n uint64) {
	for n > 0 {
		dst, room := r.chunk(off)
		c := min(room, n)
		copy(userBytes(dst, uintptr(c)), userBytes(p, uintptr(c)))
		p += uintptr(c)
		off += c
		n -= c
	}
}

// readAt copies n bytes starting at ring offset off to p; the ring is unchanged.
func (r *sockRing) readAt(off uint64, p uintptr, n uint64) {
	for n > 0 {
		src, room := r.chunk(off)
		c := min(room, n)
		copy(userBytes(p, uintptr(c)), userBytes(src, uintptr(c)))
		p += uintptr(c)
		off += c
		n -= c
	}
}

// Datagrams are records in the ring: a header, then the data. The header's address is where
// the datagram came from (receive ring) or goes to (send ring; length 0: the connected peer).
const (
	dgramHdr     = 32 // u32 data length, u32 address length, the sockaddr (≤ 24 bytes)
	dgramAddrMax = 24
	maxDgram     = netabi.RingSize - dgramHdr
)

// putDgram appends one datagram record of n bytes at p (kernel or checked user memory); false
// if it does not fit.
func (r *sockRing) putDgram(p, n uintptr, addr, alen uintptr) bool {
	u := oneBuf(p, n)
	return r.putDgramIO(&u, n, addr, alen) >= 0
}

// putDgramIO appends one datagram record of the first n bytes of u: the data first, then the
// header, then the tail moves, so that a record is in the ring whole or not at all. It returns
// the datagram's length, -EAGAIN if it does not fit, -EFAULT if the data cannot be read.
func (r *sockRing) putDgramIO(u *userIO, n uintptr, addr, alen uintptr) int64 {
	if uint64(n)+dgramHdr > r.space() || alen > dgramAddrMax {
		return -EAGAIN
	}
	w, ok := u.toRing(r, r.tail+dgramHdr, n)
	if !ok {
		return -EFAULT
	}
	var h [dgramHdr]byte
	le32put(h[0:], uint32(w))
	le32put(h[4:], uint32(alen))
	if alen > 0 {
		copy(h[8:8+alen], userBytes(addr, alen))
	}
	r.write(ptrOf(&h[0]), dgramHdr)
	r.tail += uint64(w)
	return int64(w)
}

// peekDgram reads the header of the first datagram: its length and address (into h).
func (r *sockRing) peekDgram(h *[dgramHdr]byte) (n, alen uint32, ok bool) {
	if r.used() < dgramHdr {
		return 0, 0, false
	}
	r.readAt(r.head, ptrOf(&h[0]), dgramHdr)
	n, alen = le32(h[0:]), le32(h[4:])
	if uint64(n)+dgramHdr > r.used() || alen > dgramAddrMax {
		return 0, 0, false // cannot happen: only putDgram writes records
	}
	return n, alen, true
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le32put(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
