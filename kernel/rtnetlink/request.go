// Decoding the program's requests: what the kernel must do for each message.
// SPDX-License-Identifier: BSD-3-Clause

package rtnetlink

// Op is what a request asks the kernel to do beyond answering it with an error or an ack.
type Op uint8

const (
	OpNone      Op = iota // nothing: answer with Errno, or an ack if asked
	OpDumpLinks           // start a dump of the links (RTM_GETLINK, NLM_F_DUMP)
	OpDumpAddrs           // start a dump of the addresses (RTM_GETADDR, NLM_F_DUMP)
	OpGetLink             // answer RTM_NEWLINK for links[Request.Link] (RTM_GETLINK)
)

// Request is one message of a request, decoded.
type Request struct {
	Hdr   Header
	Msg   []byte // the whole message, Hdr.Len bytes: an error answer copies its payload
	Op    Op
	Link  int   // OpGetLink: the index in links of the link asked for
	Errno int32 // non-zero: answer NLMSG_ERROR with -Errno (Op is OpNone)
	Ack   bool  // NLM_F_ACK: after doing Op, answer success with an ack (not after a dump)
}

// Next decodes the first message of b, a request the program sent, against the interface
// table links. rest is what follows the message (its padding skipped). ok is false when b
// holds no further message: too short for a header, or a header whose nlmsg_len is shorter
// than a header or runs past b — Linux then drops the rest of the request without a word.
// Can be called with any bytes at all (FuzzNext).
func Next(b []byte, links []Link) (r Request, rest []byte, ok bool) {
	if len(b) < HdrLen {
		return r, nil, false
	}
	h := header(b)
	if h.Len < HdrLen || uint64(h.Len) > uint64(len(b)) {
		return r, nil, false
	}
	r.Hdr, r.Msg = h, b[:h.Len]
	rest = b[min(align(h.Len), uint64(len(b))):]
	r.Ack = h.Flags&FAck != 0
	if h.Flags&FRequest == 0 || h.Type < MinType {
		return r, rest, true // not for the kernel, or a control message: at most an ack
	}
	r.Op, r.Link, r.Errno = route(h, r.Msg[HdrLen:], links)
	return r, rest, true
}

// route is rtnetlink_rcv_msg: the request's type and flags choose the handler.
func route(h Header, payload []byte, links []Link) (Op, int, int32) {
	if h.Type > RtmMax {
		return OpNone, 0, EOPNOTSUPP
	}
	if len(payload) < rtgenmsgLen {
		return OpNone, 0, 0 // "All the messages must have at least 1 byte length"
	}
	if (h.Type-RtmBase)&3 != kindGet {
		return OpNone, 0, EOPNOTSUPP // read-only: no NEW, DEL or SET
	}
	if h.Flags&FDump != 0 {
		switch h.Type {
		case RtmGetlink:
			return OpDumpLinks, 0, 0
		case RtmGetaddr:
			return OpDumpAddrs, 0, 0
		}
		return OpNone, 0, EOPNOTSUPP
	}
	if h.Type == RtmGetlink {
		i, errno := getLink(payload, links)
		if errno != 0 {
			return OpNone, 0, errno
		}
		return OpGetLink, i, 0
	}
	return OpNone, 0, EOPNOTSUPP // RTM_GETADDR has no single-address form for IPv4
}

// getLink is rtnl_getlink: which link an RTM_GETLINK without NLM_F_DUMP names. payload
// starts with struct ifinfomsg; attributes follow it.
func getLink(payload []byte, links []Link) (int, int32) {
	if len(payload) < IfinfomsgLen {
		return 0, EINVAL // "Invalid header for get link"
	}
	var name, alt []byte
	hasName, hasAlt := false, false
	// nlmsg_parse_deprecated: attributes until one is malformed (the rest is ignored), each
	// checked against ifla_policy; the last of a type wins.
	for a := payload[IfinfomsgLen:]; len(a) >= 4; {
		l := le16(a)
		if l < 4 || int(l) > len(a) {
			break
		}
		v := a[4:l]
		switch le16(a[2:]) & nlaTypeMask {
		case IflaIfname:
			if !policyString(v, ifNameSize-1) {
				return 0, ERANGE
			}
			name, hasName = v, true
		case IflaAltIfname:
			if !policyString(v, altIfNameSize-1) {
				return 0, ERANGE
			}
			alt, hasAlt = v, true
		case IflaExtMask:
			if len(v) < 4 {
				return 0, ERANGE
			}
		}
		a = a[min(align(uint32(l)), uint64(len(a))):]
	}
	if index := int32(le32(payload[4:])); index > 0 {
		for i := range links {
			if links[i].Index == index {
				return i, 0
			}
		}
		return 0, ENODEV
	}
	switch {
	case hasName:
		// rtnl_dev_get: IFLA_IFNAME first; a name is its bytes up to the first NUL.
	case hasAlt:
		name = alt
	default:
		return 0, EINVAL
	}
	for i, c := range name {
		if c == 0 {
			name = name[:i]
			break
		}
	}
	for i := range links {
		if string(name) == string(links[i].Name.Bytes()) {
			return i, 0
		}
	}
	return 0, ENODEV
}

// policyString is NLA_STRING's check with a maximum length: not empty, and at most max bytes
// before an optional final NUL.
func policyString(v []byte, max int) bool {
	n := len(v)
	if n < 1 {
		return false
	}
	if v[n-1] == 0 {
		n--
	}
	return n <= max
}
