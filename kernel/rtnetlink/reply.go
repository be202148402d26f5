// Writing the kernel's answers: errors and acks, links, addresses, dumps.
// SPDX-License-Identifier: BSD-3-Clause

package rtnetlink

// Link is one network interface as the kernel reports it.
type Link struct {
	Index     int32
	Name      IfName // IFLA_IFNAME, and the address's IFA_LABEL
	Type      uint16 // ifi_type: ArphrdLoopback, ArphrdEther
	Flags     uint32 // ifi_flags: Iff* bits
	MTU       uint32
	OperState uint8   // IFLA_OPERSTATE: IfOperUnknown, IfOperUp
	HWAddr    [6]byte // IFLA_ADDRESS (zero for lo, which Go reports as no address)
	HWBcast   [6]byte // IFLA_BROADCAST

	// The interface's IPv4 address, if HasAddr: RTM_NEWADDR.
	HasAddr   bool
	Addr      [4]byte
	Prefix    uint8
	Scope     uint8 // ifa_scope: RtScopeHost for lo, RtScopeGlobal otherwise
	HasBcast  bool  // lo's address has no broadcast address; eth0's has
	Broadcast [4]byte
}

// IfName is an interface name as the kernel keeps it, NUL-padded (IFNAMSIZ): an array, not a
// string, so that a Link holds no pointer — the kernel fills Links in trap context, where a
// pointer store into them would be a write barrier (kernel/doc.go, Contexts).
type IfName [ifNameSize]byte

// MakeIfName returns name as an IfName, cut to IFNAMSIZ-1 bytes.
func MakeIfName(name string) (n IfName) {
	copy(n[:len(n)-1], name)
	return n
}

// Bytes is the name without its NUL padding.
func (n *IfName) Bytes() []byte {
	for i, c := range n {
		if c == 0 {
			return n[:i]
		}
	}
	return n[:]
}

// Each Put function writes one message at the start of b and returns its length (a multiple
// of 4: nlmsg_len plus padding), or 0, writing nothing that counts, if it does not fit.

// PutError writes the NLMSG_ERROR answering request msg (a whole message, at least a header)
// with -errno, or an ack for errno 0, to port pid. An error carries a copy of the request's
// payload unless capped (NETLINK_CAP_ACK); an ack never does, and says so (NLM_F_CAPPED).
func PutError(b []byte, msg []byte, errno int32, pid uint32, capped bool) int {
	if len(msg) < HdrLen {
		return 0
	}
	h := header(msg)
	flags := uint16(0)
	copyPayload := errno != 0 && !capped
	if !copyPayload {
		flags = FCapped
	}
	w := writer{b: b}
	w.header(TypeError, flags, h.Seq, pid)
	w.u32(uint32(-errno))
	w.bytes(msg[:HdrLen])
	if copyPayload {
		w.bytes(msg[HdrLen:])
		w.pad()
	}
	return w.end()
}

// PutDone writes the NLMSG_DONE that ends a dump: its payload is the dump's result, 0 or a
// negative errno (netlink_dump_done's dump_done_errno).
func PutDone(b []byte, seq, pid uint32, result int32) int {
	w := writer{b: b}
	w.header(TypeDone, FMulti, seq, pid)
	w.u32(uint32(result))
	return w.end()
}

// PutLink writes RTM_NEWLINK describing l: struct ifinfomsg and the attributes Linux's
// rtnl_fill_ifinfo writes first, in its order, without the statistics, queues and
// driver-specific ones.
func PutLink(b []byte, l *Link, seq, pid uint32, flags uint16) int {
	w := writer{b: b}
	w.header(RtmNewlink, flags, seq, pid)
	w.u8(0) // ifi_family: AF_UNSPEC
	w.u8(0)
	w.u16(l.Type)
	w.u32(uint32(l.Index))
	w.u32(l.Flags)
	w.u32(0) // ifi_change
	w.attrString(IflaIfname, l.Name.Bytes())
	w.attrU32(IflaTxqlen, defaultTxQueueLn)
	w.attrU8(IflaOperstate, l.OperState)
	w.attrU8(IflaLinkmode, 0)
	w.attrU32(IflaMTU, l.MTU)
	w.attrU32(IflaNumTxQueues, 1)
	w.attrU32(IflaNumRxQueues, 1)
	w.attrU8(IflaCarrier, 1)
	w.attr(IflaAddress, l.HWAddr[:])
	w.attr(IflaBroadcast, l.HWBcast[:])
	return w.end()
}

// PutAddr writes RTM_NEWADDR for l's IPv4 address, as inet_fill_ifaddr does: struct
// ifaddrmsg, then IFA_ADDRESS and IFA_LOCAL (the same address: not point-to-point),
// IFA_BROADCAST if any, IFA_LABEL, IFA_FLAGS and IFA_CACHEINFO (permanent: lifetimes
// INFINITY_LIFE_TIME; created and updated at boot, time 0).
func PutAddr(b []byte, l *Link, seq, pid uint32, flags uint16) int {
	w := writer{b: b}
	w.header(RtmNewaddr, flags, seq, pid)
	w.u8(afInet)
	w.u8(l.Prefix)
	w.u8(IfaFPermanent) // ifa_flags: the low 8 bits of IFA_FLAGS
	w.u8(l.Scope)
	w.u32(uint32(l.Index))
	w.attr(IfaAddress, l.Addr[:])
	w.attr(IfaLocal, l.Addr[:])
	if l.HasBcast {
		w.attr(IfaBroadcast, l.Broadcast[:])
	}
	w.attrString(IfaLabel, l.Name.Bytes())
	w.attrU32(IfaFlags, IfaFPermanent)
	ci := [16]byte{0: 0xff, 1: 0xff, 2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff}
	w.attr(IfaCacheinfo, ci[:]) // ifa_prefered, ifa_valid, cstamp, tstamp
	return w.end()
}

// DumpPart writes the next part of a dump (OpDumpLinks or OpDumpAddrs) into b, starting at
// entry cursor (an index into links), as one datagram: the entries that fit, each with
// NLM_F_MULTI. When no entry is left it writes NLMSG_DONE instead, and done is true: so the
// DONE always comes in a datagram of its own after the last entries (RTNL_FLAG_DUMP_SPLIT_NLM_DONE).
// An entry too big for an empty b ends the dump with DONE carrying -EMSGSIZE, as Linux's
// netlink_dump does when the dump function fails. next is the cursor for the following part.
// If b cannot hold even the DONE (20 bytes), nothing is written: n is 0 and done false.
func DumpPart(b []byte, op Op, links []Link, cursor int, seq, pid uint32) (n, next int, done bool) {
	for next = max(cursor, 0); next < len(links); next++ {
		l := &links[next]
		m := 0
		switch op {
		case OpDumpLinks:
			m = PutLink(b[n:], l, seq, pid, FMulti)
		case OpDumpAddrs:
			if !l.HasAddr {
				continue
			}
			m = PutAddr(b[n:], l, seq, pid, FMulti)
		default:
			continue
		}
		if m == 0 {
			if n > 0 {
				return n, next, false
			}
			return endDump(b, cursor, len(links), seq, pid, -EMSGSIZE)
		}
		n += m
	}
	if n > 0 {
		return n, next, false
	}
	return endDump(b, cursor, next, seq, pid, 0)
}

// endDump ends a dump with DONE, unless even that does not fit b: then nothing changes.
func endDump(b []byte, cursor, end int, seq, pid uint32, result int32) (int, int, bool) {
	if n := PutDone(b, seq, pid, result); n > 0 {
		return n, end, true
	}
	return 0, cursor, false
}

// writer writes one message into b; bad records that something did not fit.
type writer struct {
	b   []byte
	n   int
	bad bool
}

func (w *writer) bytes(p []byte) {
	if w.bad || len(p) > len(w.b)-w.n {
		w.bad = true
		return
	}
	w.n += copy(w.b[w.n:], p)
}

func (w *writer) u8(v uint8) { w.bytes([]byte{v}) }

func (w *writer) u16(v uint16) { w.bytes([]byte{byte(v), byte(v >> 8)}) }

func (w *writer) u32(v uint32) { w.bytes([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}) }

// pad zero-fills up to the next multiple of 4.
func (w *writer) pad() {
	var z [alignTo]byte
	w.bytes(z[:int(align(uint32(w.n)))-w.n])
}

// header starts the message; end fills in its length.
func (w *writer) header(typ, flags uint16, seq, pid uint32) {
	w.u32(0) // nlmsg_len, set by end
	w.u16(typ)
	w.u16(flags)
	w.u32(seq)
	w.u32(pid)
}

// end finishes the message: nlmsg_len is its length, padding included (nlmsg_end), as every
// message here ends on an attribute or struct that is padded already.
func (w *writer) end() int {
	w.pad()
	if w.bad || w.n < HdrLen {
		return 0
	}
	n := uint32(w.n)
	w.b[0], w.b[1], w.b[2], w.b[3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	return w.n
}

// attr writes a struct nlattr: nla_len (header and value, unpadded), nla_type, the value,
// zero padding.
func (w *writer) attr(typ uint16, v []byte) {
	w.u16(uint16(4 + len(v)))
	w.u16(typ)
	w.bytes(v)
	w.pad()
}

// attrString writes a NUL-terminated string attribute (nla_put_string).
func (w *writer) attrString(typ uint16, s []byte) {
	w.u16(uint16(4 + len(s) + 1))
	w.u16(typ)
	if w.bad || len(s)+1 > len(w.b)-w.n {
		w.bad = true
		return
	}
	w.n += copy(w.b[w.n:], s)
	w.b[w.n] = 0
	w.n++
	w.pad()
}

func (w *writer) attrU8(typ uint16, v uint8) { w.attr(typ, []byte{v}) }

func (w *writer) attrU32(typ uint16, v uint32) {
	w.attr(typ, []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)})
}
