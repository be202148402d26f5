// Tests of request decoding: Linux's answers as a table, small dump parts, no allocation, fuzzing.
// SPDX-License-Identifier: BSD-3-Clause

package rtnetlink

import (
	"bytes"
	"encoding/binary"
	"syscall"
	"testing"
)

// ifinfo is struct ifinfomsg asking for link index, followed by attributes.
func ifinfo(index int32, attrs ...[]byte) []byte {
	b := make([]byte, IfinfomsgLen)
	binary.LittleEndian.PutUint32(b[4:], uint32(index))
	for _, a := range attrs {
		b = append(b, a...)
	}
	return b
}

// nlattr builds an attribute whose nla_len is l (-1: the real length), padded.
func nlattr(typ uint16, l int, v string) []byte {
	if l < 0 {
		l = 4 + len(v)
	}
	b := []byte{byte(l), byte(l >> 8), byte(typ), byte(typ >> 8)}
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// nextCases are single requests and what Linux 6.18 does with each (observed with raw
// netlink sockets; see TestAgainstLinux for the live comparison).
var nextCases = []struct {
	name  string
	req   []byte
	ok    bool
	op    Op
	link  int
	errno int32
	ack   bool
}{
	{"go getlink dump", request(RtmGetlink, FRequest|FDump, 1, []byte{0}), true, OpDumpLinks, 0, 0, false},
	{"go getaddr dump", request(RtmGetaddr, FRequest|FDump, 1, []byte{0}), true, OpDumpAddrs, 0, 0, false},
	{"dump, one bit of NLM_F_DUMP", request(RtmGetaddr, FRequest|FMatch, 1, []byte{0}), true, OpDumpAddrs, 0, 0, false},
	{"dump with NLM_F_ACK (the kernel sends none)", request(RtmGetlink, FRequest|FDump|FAck, 1, []byte{0}), true, OpDumpLinks, 0, 0, true},
	{"dump, empty payload: ignored", request(RtmGetlink, FRequest|FDump|FAck, 1, nil), true, OpNone, 0, 0, true},
	{"unknown type", request(200, FRequest, 1, []byte{0}), true, OpNone, 0, EOPNOTSUPP, false},
	{"beyond RTM_MAX, empty", request(RtmMax+1, FRequest, 1, nil), true, OpNone, 0, EOPNOTSUPP, false},
	{"RTM_MAX, empty", request(RtmMax, FRequest, 1, nil), true, OpNone, 0, 0, false},
	{"newlink: read-only", request(RtmNewlink, FRequest|FAck, 1, ifinfo(0)), true, OpNone, 0, EOPNOTSUPP, true},
	{"getroute dump: no routes", request(26, FRequest|FDump, 1, []byte{0}), true, OpNone, 0, EOPNOTSUPP, false},
	{"getaddr, not a dump", request(RtmGetaddr, FRequest, 1, []byte{0}), true, OpNone, 0, EOPNOTSUPP, false},
	{"noop with ack", request(TypeNoop, FRequest|FAck, 1, nil), true, OpNone, 0, 0, true},
	{"control type, no ack", request(TypeOverrun, FRequest, 1, nil), true, OpNone, 0, 0, false},
	{"not a request", request(RtmGetlink, FAck, 1, []byte{0}), true, OpNone, 0, 0, true},
	{"getlink 1", request(RtmGetlink, FRequest, 1, ifinfo(1)), true, OpGetLink, 0, 0, false},
	{"getlink 2, ack", request(RtmGetlink, FRequest|FAck, 1, ifinfo(2)), true, OpGetLink, 1, 0, true},
	{"getlink 3", request(RtmGetlink, FRequest, 1, ifinfo(3)), true, OpNone, 0, ENODEV, false},
	{"getlink short", request(RtmGetlink, FRequest, 1, []byte{0}), true, OpNone, 0, EINVAL, false},
	{"getlink no index, no name", request(RtmGetlink, FRequest, 1, ifinfo(0)), true, OpNone, 0, EINVAL, false},
	{"getlink by name", request(RtmGetlink, FRequest, 1, ifinfo(0, nlattr(IflaIfname, -1, "eth0\x00"))), true, OpGetLink, 1, 0, false},
	{"getlink by name, no NUL", request(RtmGetlink, FRequest, 1, ifinfo(0, nlattr(IflaIfname, -1, "lo"))), true, OpGetLink, 0, 0, false},
	{"getlink by alt name", request(RtmGetlink, FRequest, 1, ifinfo(0, nlattr(IflaAltIfname, -1, "lo\x00"))), true, OpGetLink, 0, 0, false},
	{"getlink name, nested bit", request(RtmGetlink, FRequest, 1, ifinfo(0, nlattr(IflaIfname|0x8000, -1, "lo\x00"))), true, OpGetLink, 0, 0, false},
	{"getlink unknown name", request(RtmGetlink, FRequest, 1, ifinfo(0, nlattr(IflaIfname, -1, "abcdefghijklmno\x00"))), true, OpNone, 0, ENODEV, false},
	{"getlink name too long", request(RtmGetlink, FRequest, 1, ifinfo(1, nlattr(IflaIfname, -1, "abcdefghijklmnopqrst"))), true, OpNone, 0, ERANGE, false},
	{"getlink empty name", request(RtmGetlink, FRequest, 1, ifinfo(1, nlattr(IflaIfname, -1, ""))), true, OpNone, 0, ERANGE, false},
	{"getlink short ext mask", request(RtmGetlink, FRequest, 1, ifinfo(1, nlattr(IflaExtMask, -1, "\x01\x00"))), true, OpNone, 0, ERANGE, false},
	{"getlink ext mask", request(RtmGetlink, FRequest, 1, ifinfo(1, nlattr(IflaExtMask, -1, "\x01\x00\x00\x00"))), true, OpGetLink, 0, 0, false},
	{"getlink attr len 2: ignored", request(RtmGetlink, FRequest, 1, ifinfo(1, nlattr(IflaIfname, 2, ""))), true, OpGetLink, 0, 0, false},
	{"getlink attr too long: ignored", request(RtmGetlink, FRequest, 1, ifinfo(1, nlattr(IflaIfname, 200, ""))), true, OpGetLink, 0, 0, false},
	{"getlink attr type 0: ignored", request(RtmGetlink, FRequest, 1, ifinfo(1, nlattr(0, -1, "\x01\x00\x00\x00"))), true, OpGetLink, 0, 0, false},
	{"getlink trailing bytes", request(RtmGetlink, FRequest, 1, append(ifinfo(1), 0, 0)), true, OpGetLink, 0, 0, false},
	{"nlmsg_len past the data", func() []byte { b := request(RtmGetlink, FRequest|FDump, 1, []byte{0}); b[0] = 100; return b }(), false, 0, 0, 0, false},
	{"nlmsg_len below a header", func() []byte { b := request(RtmGetlink, FRequest|FDump, 1, []byte{0}); b[0] = 8; return b }(), false, 0, 0, 0, false},
	{"nlmsg_len huge", func() []byte { b := request(RtmGetlink, FRequest|FDump, 1, []byte{0}); b[3] = 0xff; return b }(), false, 0, 0, 0, false},
	{"shorter than a header", request(RtmGetlink, FRequest|FDump, 1, nil)[:10], false, 0, 0, 0, false},
}

func TestNext(t *testing.T) {
	links := testLinks()
	for _, c := range nextCases {
		r, rest, ok := Next(c.req, links)
		if ok != c.ok || r.Op != c.op || r.Link != c.link || r.Errno != c.errno || r.Ack != c.ack {
			t.Errorf("%s: ok %v op %d link %d errno %d ack %v, want ok %v op %d link %d errno %d ack %v",
				c.name, ok, r.Op, r.Link, r.Errno, r.Ack, c.ok, c.op, c.link, c.errno, c.ack)
		}
		if ok && (len(rest) != 0 || !bytes.Equal(r.Msg, c.req)) {
			t.Errorf("%s: %d bytes left over, message %d of %d bytes", c.name, len(rest), len(r.Msg), len(c.req))
		}
	}
}

// TestNextSequence: messages follow each other at NLMSG_ALIGN'd offsets; the padding of the
// last may be missing.
func TestNextSequence(t *testing.T) {
	a := request(RtmGetlink, FRequest|FDump, 1, []byte{0}) // 17 bytes, padded to 20
	b := request(200, FRequest, 2, []byte{0})
	req := append(append(append([]byte{}, a...), 0, 0, 0), b...)
	links := testLinks()
	r1, rest, ok1 := Next(req, links)
	r2, rest, ok2 := Next(rest, links)
	_, _, ok3 := Next(rest, links)
	if !ok1 || !ok2 || ok3 || r1.Op != OpDumpLinks || r2.Errno != EOPNOTSUPP || r2.Hdr.Seq != 2 {
		t.Errorf("got %v %+v, %v %+v, %v", ok1, r1.Hdr, ok2, r2.Hdr, ok3)
	}
	// Without the padding, Linux skips 20 bytes and finds 14: not a message.
	r1, rest, ok1 = Next(append(append([]byte{}, a...), b...), links)
	if _, _, ok := Next(rest, links); !ok1 || ok || len(rest) != 14 {
		t.Errorf("unpadded: %v, then %d bytes", ok1, len(rest))
	}
}

// TestDumpParts: a dump in parts too small for all entries goes on where it stopped; an entry
// bigger than a whole part ends it with -EMSGSIZE; a part too small even for DONE writes nothing.
func TestDumpParts(t *testing.T) {
	links := testLinks()
	b := make([]byte, 4096)
	one := PutLink(b, &links[1], 42, 777, FMulti)
	parts := dumpAll(t, OpDumpLinks, links, one) // room for one link per part
	if len(parts) != 3 {
		t.Fatalf("%d parts, want 3 (lo, eth0, DONE)", len(parts))
	}
	for i, p := range parts {
		msgs, err := syscall.ParseNetlinkMessage(p)
		want := []uint16{RtmNewlink, RtmNewlink, TypeDone}[i]
		if err != nil || len(msgs) != 1 || msgs[0].Header.Type != want {
			t.Errorf("part %d: %d messages (%v), want one of type %d", i, len(msgs), err, want)
		}
	}
	n, next, done := DumpPart(b[:40], OpDumpLinks, links, 0, 42, 777)
	msgs, _ := syscall.ParseNetlinkMessage(b[:n])
	if !done || next != len(links) || len(msgs) != 1 || msgs[0].Header.Type != TypeDone ||
		int32(binary.LittleEndian.Uint32(msgs[0].Data)) != -EMSGSIZE {
		t.Errorf("entry too big: n %d next %d done %v", n, next, done)
	}
	if n, next, done := DumpPart(b[:19], OpDumpAddrs, links, 1, 42, 777); n != 0 || next != 1 || done {
		t.Errorf("no room: n %d next %d done %v", n, next, done)
	}
	// Without addresses the address dump is DONE alone.
	links[0].HasAddr, links[1].HasAddr = false, false
	if parts := dumpAll(t, OpDumpAddrs, links, 3776); len(parts) != 1 || len(parts[0]) != 20 {
		t.Errorf("no addresses: %d parts", len(parts))
	}
}

// TestNoAlloc: the kernel calls these in trap context, where nothing may be allocated.
func TestNoAlloc(t *testing.T) {
	links := testLinks()
	reqs := [][]byte{
		request(RtmGetlink, FRequest|FDump, 1, []byte{0}),
		request(RtmGetlink, FRequest|FAck, 1, ifinfo(0, nlattr(IflaIfname, -1, "eth0\x00"))),
		request(200, FRequest, 1, []byte{0}),
	}
	b := make([]byte, 4096)
	allocs := testing.AllocsPerRun(100, func() {
		for _, q := range reqs {
			r, _, _ := Next(q, links)
			PutError(b, r.Msg, r.Errno, 5, false)
			PutLink(b, &links[r.Link], 1, 5, 0)
		}
		for cursor, done := 0, false; !done; {
			_, cursor, done = DumpPart(b, OpDumpAddrs, links, cursor, 1, 5)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run, want 0", allocs)
	}
}

// FuzzNext: whatever a program sends, decoding ends, never panics, moves forward, and every
// answer the kernel would write from it is a well-formed netlink message.
func FuzzNext(f *testing.F) {
	for _, c := range nextCases {
		f.Add(c.req)
	}
	f.Add(append(request(TypeNoop, FRequest|FAck, 1, nil), request(RtmGetlink, FRequest, 2, ifinfo(2))...))
	links := testLinks()
	out := make([]byte, 1<<16)
	f.Fuzz(func(t *testing.T, b []byte) {
		for n := 0; ; n++ {
			r, rest, ok := Next(b, links)
			if !ok {
				return
			}
			if len(rest) >= len(b) || len(r.Msg) < HdrLen || int(r.Hdr.Len) != len(r.Msg) {
				t.Fatalf("no progress: %d bytes, then %d; message %d of nlmsg_len %d", len(b), len(rest), len(r.Msg), r.Hdr.Len)
			}
			if r.Op != OpNone && r.Errno != 0 || r.Op == OpGetLink && (r.Link < 0 || r.Link >= len(links)) {
				t.Fatalf("op %d link %d errno %d", r.Op, r.Link, r.Errno)
			}
			var m int
			switch {
			case r.Op == OpGetLink:
				m = PutLink(out, &links[r.Link], r.Hdr.Seq, 9, 0)
			case r.Errno != 0 || r.Ack:
				m = PutError(out, r.Msg, r.Errno, 9, false)
			}
			if m > 0 {
				msgs, err := syscall.ParseNetlinkMessage(out[:m])
				if err != nil || len(msgs) != 1 || msgs[0].Header.Seq != r.Hdr.Seq {
					t.Fatalf("answer does not parse: %v", err)
				}
			}
			b = rest
		}
	})
}
