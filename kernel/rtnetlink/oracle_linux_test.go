// The host's Linux as the oracle: the same requests to a real NETLINK_ROUTE socket and here.
// SPDX-License-Identifier: BSD-3-Clause

package rtnetlink

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// answer is what the kernel (kernel/netlink.go nlRoute, nlRecv) does with request req on a
// socket with port id pid: the datagrams a reader then receives, in order, reading until
// nothing is left. Parts of a dump are made when the one before has been read, as on Linux.
func answer(req []byte, links []Link, pid uint32) [][]byte {
	var q [][]byte
	put := func(b []byte, n int) {
		if n > 0 {
			q = append(q, b[:n])
		}
	}
	dumping, op, seq, cursor := false, OpNone, uint32(0), 0
	more := func() {
		if dumping {
			b := make([]byte, 3776)
			var n int
			var done bool
			n, cursor, done = DumpPart(b, op, links, cursor, seq, pid)
			put(b, n)
			dumping = !done
		}
	}
	for b := req; ; {
		r, rest, ok := Next(b, links)
		if !ok {
			break
		}
		b = rest
		errno := r.Errno
		switch r.Op {
		case OpDumpLinks, OpDumpAddrs:
			if !dumping {
				dumping, op, seq, cursor = true, r.Op, r.Hdr.Seq, 0
				more()
				continue // a dump that started is not acknowledged
			}
			errno = 16 // EBUSY: one dump at a time
		case OpGetLink:
			out := make([]byte, 4096)
			put(out, PutLink(out, &links[r.Link], r.Hdr.Seq, pid, 0))
		}
		if errno != 0 || r.Ack {
			out := make([]byte, 4096)
			put(out, PutError(out, r.Msg, errno, pid, false))
		}
	}
	var got [][]byte
	for len(q) > 0 {
		got = append(got, q[0])
		q = q[1:]
		more()
	}
	return got
}

// linuxAnswer sends req on a fresh NETLINK_ROUTE socket of the host and reads every answer.
func linuxAnswer(t *testing.T, req []byte) ([][]byte, uint32) {
	t.Helper()
	s, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, syscall.NETLINK_ROUTE)
	if err != nil {
		t.Skipf("no netlink on this host: %v", err)
	}
	defer syscall.Close(s)
	if err := syscall.Bind(s, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Sendto(s, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	for {
		b := make([]byte, 1<<16)
		n, _, err := syscall.Recvfrom(s, b, 0)
		if err == syscall.EAGAIN {
			return got, sa.(*syscall.SockaddrNetlink).Pid
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b[:n])
	}
}

// shape describes datagrams by their messages: type, flags and seq, and for NLMSG_ERROR the
// whole message; runs of RTM_NEWLINK or RTM_NEWADDR are one entry, and so are runs of
// datagrams alike (the host has other interfaces, in more parts, and IPv6 addresses; their
// contents are compared in TestLinuxLo).
//
// With errorsOnly, datagrams of entries alone are left out: how many parts the host's
// interfaces take does not matter, where the errors and DONE come does.
func shape(t *testing.T, dgrams [][]byte, errorsOnly bool) string {
	t.Helper()
	var s []string
	for _, d := range dgrams {
		msgs, err := syscall.ParseNetlinkMessage(d)
		if err != nil {
			t.Fatalf("%v:\n%s", err, hex.Dump(d))
		}
		var part []string
		for _, m := range msgs {
			e := fmt.Sprintf("type %d flags %#x seq %d", m.Header.Type, m.Header.Flags, m.Header.Seq)
			switch m.Header.Type {
			case TypeError:
				e += " " + hex.EncodeToString(d[:m.Header.Len])
			case TypeDone:
				e += " " + hex.EncodeToString(m.Data)
			}
			if len(part) == 0 || part[len(part)-1] != e {
				part = append(part, e)
			}
		}
		if errorsOnly && len(part) == 1 && (msgs[0].Header.Type == RtmNewlink || msgs[0].Header.Type == RtmNewaddr) {
			continue
		}
		if e := strings.Join(part, ", "); len(s) == 0 || s[len(s)-1] != e {
			s = append(s, e)
		}
	}
	return strings.Join(s, "\n")
}

// TestAgainstLinux sends each request of nextCases (and a few sequences) to the host's
// kernel and compares what comes back with what gmpos's kernel would send, for the requests
// whose answer does not depend on the interfaces beyond lo (index 1, named "lo") and for
// which gmpos and Linux are meant to agree (not the read-only and the missing types).
func TestAgainstLinux(t *testing.T) {
	skip := map[string]bool{
		"newlink: read-only":       true, // Linux, for root, tries to make a link (ENODEV here)
		"getroute dump: no routes": true, // Linux has routes
		"getlink 2, ack":           true, // the host's link 2 is not gmpos's eth0
		"getlink 3":                true,
		"getlink by name":          true, // eth0
	}
	cases := map[string][]byte{}
	for _, c := range nextCases {
		if !skip[c.name] {
			cases[c.name] = c.req
		}
	}
	a := request(RtmGetlink, FRequest|FDump, 1, []byte{0, 0, 0, 0})
	cases["two dumps: EBUSY"] = append(append([]byte{}, a...), request(RtmGetaddr, FRequest|FDump, 2, []byte{0})...)
	cases["ack, error"] = append(request(TypeNoop, FRequest|FAck, 3, nil), request(200, FRequest, 4, []byte{0})...)
	cases["unpadded: the second is lost"] = append(request(RtmGetlink, FRequest|FAck, 5, []byte{0}), request(200, FRequest, 6, []byte{0})...)
	cases["getlink 1 with ack"] = request(RtmGetlink, FRequest|FAck, 7, ifinfo(1))
	links := testLinks()
	for name, req := range cases {
		lin, pid := linuxAnswer(t, req)
		ours := answer(req, links, pid)
		errorsOnly := name == "two dumps: EBUSY"
		if l, o := shape(t, lin, errorsOnly), shape(t, ours, errorsOnly); l != o {
			t.Errorf("%s:\nLinux:\n%s\ngmpos:\n%s", name, l, o)
		}
	}
}

// TestLinuxLo compares lo's RTM_NEWLINK and RTM_NEWADDR with the host's: every attribute
// gmpos writes, Linux writes with the same value; the address is the same bytes apart from
// the time stamps.
func TestLinuxLo(t *testing.T) {
	links := testLinks()
	lo := &links[0]
	for _, op := range []Op{OpDumpLinks, OpDumpAddrs} {
		typ, req := uint16(RtmNewlink), request(RtmGetlink, FRequest|FDump, 1, []byte{0})
		if op == OpDumpAddrs {
			typ, req = RtmNewaddr, request(RtmGetaddr, FRequest|FDump, 1, []byte{0})
		}
		lin, pid := linuxAnswer(t, req)
		var host []byte
		for _, d := range lin {
			msgs, _ := syscall.ParseNetlinkMessage(d)
			for _, m := range msgs {
				// lo: index 1; for addresses, AF_INET.
				if m.Header.Type == typ && binary.LittleEndian.Uint32(m.Data[4:]) == 1 && (op == OpDumpLinks || m.Data[0] == afInet) {
					host = rawMessage(m)
				}
			}
		}
		if host == nil {
			t.Skipf("the host has no lo (index 1) with an IPv4 address")
		}
		b := make([]byte, 4096)
		if op == OpDumpAddrs {
			n := PutAddr(b, lo, 1, pid, FMulti)
			ours := b[:n]
			if len(host) != len(ours) || !bytes.Equal(host[:n-8], ours[:n-8]) {
				t.Errorf("lo's address:\n%s\nLinux:\n%s", hex.Dump(ours), hex.Dump(host))
			}
			continue
		}
		n := PutLink(b, lo, 1, pid, FMulti)
		if !bytes.Equal(b[4:HdrLen+IfinfomsgLen], host[4:HdrLen+IfinfomsgLen]) {
			t.Errorf("lo's header and ifinfomsg:\n%s\nLinux:\n%s", hex.Dump(b[:32]), hex.Dump(host[:32]))
		}
		hostAttrs := attrs(host[HdrLen+IfinfomsgLen:])
		for typ, v := range attrs(b[HdrLen+IfinfomsgLen : n]) {
			if hv, ok := hostAttrs[typ]; !ok || !bytes.Equal(hv, v) {
				t.Errorf("lo's attribute %d: %x, Linux %x (present: %v)", typ, v, hv, ok)
			}
		}
	}
}

// rawMessage rebuilds a parsed message's bytes.
func rawMessage(m syscall.NetlinkMessage) []byte {
	b := make([]byte, HdrLen, HdrLen+len(m.Data))
	binary.LittleEndian.PutUint32(b[0:], m.Header.Len)
	binary.LittleEndian.PutUint16(b[4:], m.Header.Type)
	binary.LittleEndian.PutUint16(b[6:], m.Header.Flags)
	binary.LittleEndian.PutUint32(b[8:], m.Header.Seq)
	binary.LittleEndian.PutUint32(b[12:], m.Header.Pid)
	return append(b, m.Data...)
}

// attrs maps attribute types to values.
func attrs(b []byte) map[uint16][]byte {
	m := map[uint16][]byte{}
	for len(b) >= 4 {
		l := int(binary.LittleEndian.Uint16(b))
		if l < 4 || l > len(b) {
			break
		}
		m[binary.LittleEndian.Uint16(b[2:])] = b[4:l]
		b = b[min(int(align(uint32(l))), len(b)):]
	}
	return m
}
