// netlink prints the interfaces as Go's net package sees them (NETLINK_ROUTE underneath) and
// checks them against -want: "user" (QEMU user networking: lo and eth0 with -mac, 127.0.0.1/8
// and 10.0.2.15/24), "none" (no NIC: lo alone) or "host" (a Linux host: lo with 127.0.0.1/8
// among the rest). Then it checks raw netlink sockets against what Linux does with bad input.
// It prints "ok NAME" per check, "netlink done" at the end, and exits 1 at the first failure
// (tests/netlink_test.go).
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

var (
	want = flag.String("want", "host", "the interfaces to expect: user, none or host")
	mac  = flag.String("mac", "52:54:00:12:34:56", "eth0's MAC address (-want=user)")
)

func main() {
	flag.Parse()
	check("interfaces", interfaces)
	check("by_name_index", byNameIndex)
	check("netlinkrib", netlinkRIB)
	check("socket_errors", socketErrors)
	check("bind_getsockname", bindGetsockname)
	check("send_errors", sendErrors)
	check("unknown_type", unknownType)
	check("getlink", getLink)
	check("ack", ack)
	check("malformed_length", malformedLength)
	check("truncated_read", truncatedRead)
	check("peek", peek)
	check("busy_dump", busyDump)
	check("read_write", readWrite)
	check("epoll", epoll)
	check("blocking_read", blockingRead)
	check("overrun", overrun)
	check("sockopt_stat", sockoptStat)
	fmt.Println("netlink done")
}

func check(name string, f func() error) {
	if err := f(); err != nil {
		fmt.Printf("FAIL %s: %v\n", name, err)
		os.Exit(1)
	}
	fmt.Println("ok", name)
}

// describe is one line per interface, as the test compares them.
func describe(ifi net.Interface) string {
	return fmt.Sprintf("iface %d %s mtu %d hw %s flags %s", ifi.Index, ifi.Name, ifi.MTU, ifi.HardwareAddr, ifi.Flags)
}

func interfaces() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return err
	}
	var got []string
	for _, ifi := range ifs {
		fmt.Println(describe(ifi))
		got = append(got, describe(ifi))
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return err
	}
	var gotAddrs []string
	for _, a := range addrs {
		fmt.Println("addr", a)
		gotAddrs = append(gotAddrs, a.String())
	}
	lo := "iface 1 lo mtu 65536 hw  flags up|loopback|running"
	var wantIfs, wantAddrs []string
	switch *want {
	case "user":
		wantIfs = []string{lo, "iface 2 eth0 mtu 1500 hw " + *mac + " flags up|broadcast|multicast|running"}
		wantAddrs = []string{"127.0.0.1/8", "10.0.2.15/24"}
	case "none":
		wantIfs, wantAddrs = []string{lo}, []string{"127.0.0.1/8"}
	default: // the host: lo and 127.0.0.1/8 are there, among others
		sort.Strings(gotAddrs)
		if len(got) == 0 || !strings.HasPrefix(got[0], "iface 1 lo ") || sort.SearchStrings(gotAddrs, "127.0.0.1/8") == len(gotAddrs) {
			return fmt.Errorf("no lo with 127.0.0.1/8 first: %q %q", got, gotAddrs)
		}
		return nil
	}
	if strings.Join(got, "\n") != strings.Join(wantIfs, "\n") {
		return fmt.Errorf("interfaces:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantIfs, "\n"))
	}
	if strings.Join(gotAddrs, " ") != strings.Join(wantAddrs, " ") {
		return fmt.Errorf("addresses %q, want %q", gotAddrs, wantAddrs)
	}
	return nil
}

func byNameIndex() error {
	lo, err := net.InterfaceByName("lo")
	if err != nil || lo.Index != 1 || lo.Flags&net.FlagLoopback == 0 {
		return fmt.Errorf("InterfaceByName(lo): %v, %v", lo, err)
	}
	loAddrs, err := lo.Addrs()
	if err != nil || len(loAddrs) == 0 || loAddrs[0].String() != "127.0.0.1/8" {
		return fmt.Errorf("lo.Addrs(): %v, %v", loAddrs, err)
	}
	if _, err := net.InterfaceByName("nosuch0"); err == nil {
		return errors.New("InterfaceByName(nosuch0) found something")
	}
	switch *want {
	case "user":
		eth, err := net.InterfaceByName("eth0")
		if err != nil || eth.Index != 2 || eth.HardwareAddr.String() != *mac {
			return fmt.Errorf("InterfaceByName(eth0): %v, %v", eth, err)
		}
		eth, err = net.InterfaceByIndex(2)
		if err != nil || eth.Name != "eth0" {
			return fmt.Errorf("InterfaceByIndex(2): %v, %v", eth, err)
		}
		a, err := eth.Addrs()
		if err != nil || len(a) != 1 || a[0].String() != "10.0.2.15/24" {
			return fmt.Errorf("eth0.Addrs(): %v, %v", a, err)
		}
	case "none":
		if ifi, err := net.InterfaceByIndex(2); err == nil {
			return fmt.Errorf("InterfaceByIndex(2) without a NIC: %v", ifi)
		}
		if ifi, err := net.InterfaceByName("eth0"); err == nil {
			return fmt.Errorf("InterfaceByName(eth0) without a NIC: %v", ifi)
		}
	}
	return nil
}

// netlinkRIB calls the function net uses, for both tables.
func netlinkRIB() error {
	for _, typ := range []int{syscall.RTM_GETLINK, syscall.RTM_GETADDR} {
		tab, err := syscall.NetlinkRIB(typ, syscall.AF_UNSPEC)
		if err != nil {
			return fmt.Errorf("NetlinkRIB(%d): %v", typ, err)
		}
		msgs, err := syscall.ParseNetlinkMessage(tab)
		if err != nil || len(msgs) < 2 || msgs[len(msgs)-1].Header.Type != syscall.NLMSG_DONE {
			return fmt.Errorf("NetlinkRIB(%d): %d messages, %v", typ, len(msgs), err)
		}
	}
	return nil
}

// Raw netlink: requests, sockets, system calls.

const (
	nlmFRequest = 0x1
	nlmFAck     = 0x4
	nlmFDump    = 0x300
	nlmFCapped  = 0x100
)

func request(typ, flags uint16, seq uint32, payload []byte) []byte {
	b := make([]byte, 16+len(payload))
	binary.LittleEndian.PutUint32(b[0:], uint32(len(b)))
	binary.LittleEndian.PutUint16(b[4:], typ)
	binary.LittleEndian.PutUint16(b[6:], flags)
	binary.LittleEndian.PutUint32(b[8:], seq)
	copy(b[16:], payload)
	return b
}

// ifinfo is struct ifinfomsg for link index.
func ifinfo(index int32) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b[4:], uint32(index))
	return b
}

func sys(nr uintptr, a ...uintptr) (uintptr, syscall.Errno) {
	a = append(a, make([]uintptr, 6-len(a))...)
	r, _, e := syscall.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	return r, e
}

func ptr[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }

// open makes a bound NETLINK_ROUTE socket; nonblocking unless blocking.
func open(blocking bool) (int, uint32, error) {
	typ := syscall.SOCK_RAW | syscall.SOCK_CLOEXEC
	if !blocking {
		typ |= syscall.SOCK_NONBLOCK
	}
	s, err := syscall.Socket(syscall.AF_NETLINK, typ, syscall.NETLINK_ROUTE)
	if err != nil {
		return -1, 0, err
	}
	if err := syscall.Bind(s, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		syscall.Close(s)
		return -1, 0, err
	}
	sa, err := syscall.Getsockname(s)
	if err != nil {
		syscall.Close(s)
		return -1, 0, err
	}
	return s, sa.(*syscall.SockaddrNetlink).Pid, nil
}

// send sends b to the kernel and wants all of it taken.
func send(s int, b []byte) error {
	r, e := sys(syscall.SYS_SENDTO, uintptr(s), ptr(&b[0]), uintptr(len(b)), 0, 0, 0)
	if e != 0 || int(r) != len(b) {
		return fmt.Errorf("sendto: %d, %v", r, e)
	}
	return nil
}

// recv reads one datagram into a buffer of n bytes with recvmsg.
func recv(s int, n int, flags int) (data []byte, r int, rflags int, err error) {
	b := make([]byte, n)
	r, _, rflags, _, err = syscall.Recvmsg(s, b, nil, flags)
	if err != nil {
		return nil, 0, 0, err
	}
	return b[:min(r, n)], r, rflags, nil
}

// answer reads one whole datagram and parses it.
func answer(s int) ([]syscall.NetlinkMessage, error) {
	b, _, _, err := recv(s, 1<<16, 0)
	if err != nil {
		return nil, err
	}
	return syscall.ParseNetlinkMessage(b)
}

// wantError reads an NLMSG_ERROR for request req (sent with seq) on port pid with error -e
// (0: an ack), and checks the copy of the request in it.
func wantError(s int, pid uint32, req []byte, e syscall.Errno) error {
	msgs, err := answer(s)
	if err != nil {
		return err
	}
	if len(msgs) != 1 || msgs[0].Header.Type != syscall.NLMSG_ERROR {
		return fmt.Errorf("%d messages, first %+v; want one NLMSG_ERROR", len(msgs), msgs[0].Header)
	}
	m := msgs[0]
	seq := binary.LittleEndian.Uint32(req[8:])
	if m.Header.Seq != seq || m.Header.Pid != pid {
		return fmt.Errorf("error header %+v, want seq %d pid %d", m.Header, seq, pid)
	}
	if got := -int32(binary.LittleEndian.Uint32(m.Data)); got != int32(e) {
		return fmt.Errorf("error %d (%v), want %d (%v)", got, syscall.Errno(got), e, e)
	}
	copied := m.Data[4:]
	if e == 0 {
		if m.Header.Flags != nlmFCapped || !bytes.Equal(copied, req[:16]) {
			return fmt.Errorf("ack: flags %#x, copy %x", m.Header.Flags, copied)
		}
		return nil
	}
	if !bytes.Equal(copied[:len(req)], req) {
		return fmt.Errorf("the error's copy of the request is %x, want %x", copied, req)
	}
	return nil
}

// wantNothing checks that no answer is queued.
func wantNothing(s int) error {
	if b, _, _, err := recv(s, 1<<16, 0); err != syscall.EAGAIN {
		return fmt.Errorf("an answer (%d bytes, %v), want none", len(b), err)
	}
	return nil
}

func socketErrors() error {
	for _, c := range []struct {
		typ, proto int
		want       syscall.Errno
	}{
		{syscall.SOCK_STREAM, 0, syscall.ESOCKTNOSUPPORT},
		{syscall.SOCK_SEQPACKET, 0, syscall.ESOCKTNOSUPPORT},
		{12, 0, syscall.EINVAL},                          // beyond SOCK_MAX
		{syscall.SOCK_RAW | 0x100000, 0, syscall.EINVAL}, // an unknown flag
		{syscall.SOCK_RAW, 32, syscall.EPROTONOSUPPORT},  // beyond MAX_LINKS
		{syscall.SOCK_RAW, -1, syscall.EPROTONOSUPPORT},
		{syscall.SOCK_RAW, 1, syscall.EPROTONOSUPPORT}, // NETLINK_UNUSED: no such family
	} {
		r, e := sys(syscall.SYS_SOCKET, syscall.AF_NETLINK, uintptr(c.typ), uintptr(c.proto))
		if e != c.want {
			if e == 0 {
				syscall.Close(int(r))
			}
			return fmt.Errorf("socket(AF_NETLINK, %#x, %d): %v, want %v", c.typ, c.proto, e, c.want)
		}
	}
	s, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM, syscall.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("SOCK_DGRAM: %v", err)
	}
	syscall.Close(s)
	return nil
}

func bindGetsockname() error {
	s, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, syscall.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	var sa [16]byte
	l := uint32(len(sa))
	if _, e := sys(syscall.SYS_GETSOCKNAME, uintptr(s), ptr(&sa), ptr(&l)); e != 0 || l != 12 || sa[0] != syscall.AF_NETLINK || binary.LittleEndian.Uint32(sa[4:]) != 0 {
		return fmt.Errorf("getsockname unbound: %v, len %d, %x", e, l, sa)
	}
	nl := [12]byte{syscall.AF_NETLINK}
	inet := [12]byte{syscall.AF_INET}
	for _, c := range []struct {
		name string
		addr uintptr
		n    uintptr
		want syscall.Errno
	}{
		{"short", ptr(&nl), 8, syscall.EINVAL},
		{"empty", ptr(&nl), 0, syscall.EINVAL},
		{"too long", ptr(&nl), 200, syscall.EINVAL},
		{"AF_INET", ptr(&inet), 12, syscall.EINVAL},
		{"nil", 0, 12, syscall.EFAULT},
	} {
		if _, e := sys(syscall.SYS_BIND, uintptr(s), c.addr, c.n); e != c.want {
			return fmt.Errorf("bind %s: %v, want %v", c.name, e, c.want)
		}
	}
	if _, e := sys(syscall.SYS_BIND, uintptr(s), ptr(&nl), 12); e != 0 {
		return fmt.Errorf("bind: %v", e)
	}
	l = uint32(len(sa))
	sys(syscall.SYS_GETSOCKNAME, uintptr(s), ptr(&sa), ptr(&l))
	pid := binary.LittleEndian.Uint32(sa[4:])
	if pid != uint32(os.Getpid()) {
		return fmt.Errorf("the first socket's port id is %d, want the process id %d", pid, os.Getpid())
	}
	other := [12]byte{syscall.AF_NETLINK}
	binary.LittleEndian.PutUint32(other[4:], pid+1)
	if _, e := sys(syscall.SYS_BIND, uintptr(s), ptr(&other), 12); e != syscall.EINVAL {
		return fmt.Errorf("bind to another port once bound: %v, want EINVAL", e)
	}
	s2, pid2, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s2)
	if int32(pid2) > -4097 {
		return fmt.Errorf("a second socket's port id is %d, want at most -4097", int32(pid2))
	}
	s3, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW, syscall.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer syscall.Close(s3)
	if err := syscall.Bind(s3, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK, Pid: pid2}); err != syscall.EADDRINUSE {
		return fmt.Errorf("bind to a taken port: %v, want EADDRINUSE", err)
	}
	return nil
}

func sendErrors() error {
	s, _, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	req := request(syscall.RTM_GETLINK, nlmFRequest|nlmFDump, 1, []byte{0})
	short := [12]byte{syscall.AF_NETLINK}
	inet := [12]byte{syscall.AF_INET}
	peer := [12]byte{syscall.AF_NETLINK, 0, 0, 0, 0x39, 0x30} // port 12345: nobody
	for _, c := range []struct {
		name      string
		buf, n    uintptr
		flags     uintptr
		addr, len uintptr
		want      syscall.Errno
	}{
		{"empty", ptr(&req[0]), 0, 0, 0, 0, syscall.ENODATA},
		{"MSG_OOB", ptr(&req[0]), uintptr(len(req)), syscall.MSG_OOB, 0, 0, syscall.EOPNOTSUPP},
		{"short address", ptr(&req[0]), uintptr(len(req)), 0, ptr(&short), 8, syscall.EINVAL},
		{"AF_INET address", ptr(&req[0]), uintptr(len(req)), 0, ptr(&inet), 12, syscall.EINVAL},
		{"no such port", ptr(&req[0]), uintptr(len(req)), 0, ptr(&peer), 12, syscall.ECONNREFUSED},
		{"bad buffer", 4096, uintptr(len(req)), 0, 0, 0, syscall.EFAULT},
		{"bad address", ptr(&req[0]), uintptr(len(req)), 0, 4096, 12, syscall.EFAULT},
	} {
		if _, e := sys(syscall.SYS_SENDTO, uintptr(s), c.buf, c.n, c.flags, c.addr, c.len); e != c.want {
			return fmt.Errorf("sendto %s: %v, want %v", c.name, e, c.want)
		}
	}
	if _, e := sys(syscall.SYS_LISTEN, uintptr(s), 1); e != syscall.EOPNOTSUPP {
		return fmt.Errorf("listen: %v, want EOPNOTSUPP", e)
	}
	return wantNothing(s)
}

func unknownType() error {
	s, pid, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	for _, req := range [][]byte{
		request(200, nlmFRequest, 7, []byte{0}),                                // no such type
		request(syscall.RTM_GETADDR, nlmFRequest, 8, []byte{0}),                // GETADDR without DUMP
		request(syscall.RTM_NEWADDR, nlmFRequest|nlmFAck, 9, make([]byte, 24)), // not answered EOPNOTSUPP by Linux: skipped natively
	} {
		typ := binary.LittleEndian.Uint16(req[4:])
		if typ == syscall.RTM_NEWADDR && *want == "host" {
			continue // Linux, for root, tries to add the address (EINVAL, or EPERM without CAP_NET_ADMIN)
		}
		if err := send(s, req); err != nil {
			return err
		}
		if err := wantError(s, pid, req, syscall.EOPNOTSUPP); err != nil {
			return fmt.Errorf("type %d: %v", typ, err)
		}
	}
	return wantNothing(s)
}

func getLink() error {
	s, pid, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	req := request(syscall.RTM_GETLINK, nlmFRequest|nlmFAck, 11, ifinfo(1))
	if err := send(s, req); err != nil {
		return err
	}
	msgs, err := answer(s)
	if err != nil || len(msgs) != 1 || msgs[0].Header.Type != syscall.RTM_NEWLINK || msgs[0].Header.Flags != 0 ||
		msgs[0].Header.Seq != 11 || msgs[0].Header.Pid != pid {
		return fmt.Errorf("RTM_GETLINK 1: %v %v", msgs, err)
	}
	attrs, err := syscall.ParseNetlinkRouteAttr(&msgs[0])
	if err != nil {
		return err
	}
	name := ""
	for _, a := range attrs {
		if a.Attr.Type == syscall.IFLA_IFNAME {
			name = string(a.Value)
		}
	}
	if name != "lo\x00" {
		return fmt.Errorf("link 1 is %q, want lo", name)
	}
	if err := wantError(s, pid, req, 0); err != nil {
		return fmt.Errorf("the ack after the link: %v", err)
	}
	for _, c := range []struct {
		req  []byte
		want syscall.Errno
	}{
		{request(syscall.RTM_GETLINK, nlmFRequest, 12, ifinfo(0x7fff0000)), syscall.ENODEV},
		{request(syscall.RTM_GETLINK, nlmFRequest, 13, []byte{0}), syscall.EINVAL},                     // no ifinfomsg
		{request(syscall.RTM_GETLINK, nlmFRequest, 14, ifinfo(0)), syscall.EINVAL},                     // no index, no name
		{request(syscall.RTM_GETLINK, nlmFRequest, 15, append(ifinfo(1), 4, 0, 3, 0)), syscall.ERANGE}, // empty IFLA_IFNAME
	} {
		if err := send(s, c.req); err != nil {
			return err
		}
		if err := wantError(s, pid, c.req, c.want); err != nil {
			return fmt.Errorf("seq %d: %v", binary.LittleEndian.Uint32(c.req[8:]), err)
		}
	}
	return wantNothing(s)
}

func ack() error {
	s, pid, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	noop := request(syscall.NLMSG_NOOP, nlmFRequest|nlmFAck, 21, nil)
	if err := send(s, noop); err != nil {
		return err
	}
	if err := wantError(s, pid, noop, 0); err != nil {
		return err
	}
	// Two messages in one send: each is answered, in order.
	unknown := request(200, nlmFRequest, 22, []byte{0, 0, 0, 0})
	if err := send(s, append(append([]byte{}, noop...), unknown...)); err != nil {
		return err
	}
	if err := wantError(s, pid, noop, 0); err != nil {
		return err
	}
	if err := wantError(s, pid, unknown, syscall.EOPNOTSUPP); err != nil {
		return err
	}
	// A control message without NLM_F_ACK, and a dump with an empty payload, say nothing.
	if err := send(s, request(syscall.NLMSG_NOOP, nlmFRequest, 23, nil)); err != nil {
		return err
	}
	if err := send(s, request(syscall.RTM_GETLINK, nlmFRequest|nlmFDump, 24, nil)); err != nil {
		return err
	}
	return wantNothing(s)
}

func malformedLength() error {
	s, _, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	for _, mutate := range []func(b []byte) []byte{
		func(b []byte) []byte { b[0] = 100; return b },        // nlmsg_len beyond the data
		func(b []byte) []byte { b[0] = 8; return b },          // below a header
		func(b []byte) []byte { b[3] = 0xff; return b },       // huge
		func(b []byte) []byte { return b[:10] },               // shorter than a header
		func(b []byte) []byte { b[0], b[1] = 0, 0; return b }, // zero
	} {
		b := mutate(request(syscall.RTM_GETLINK, nlmFRequest|nlmFAck|nlmFDump, 31, []byte{0}))
		if err := send(s, b); err != nil { // taken whole, answered by silence (netlink_rcv_skb)
			return err
		}
	}
	return wantNothing(s)
}

// truncatedRead reads a dump's first part with a 16-byte buffer: the start of it, MSG_TRUNC,
// the rest lost; the dump goes on with DONE in the next datagram.
func truncatedRead() error {
	s, pid, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	if err := send(s, request(syscall.RTM_GETLINK, nlmFRequest|nlmFDump, 41, []byte{0})); err != nil {
		return err
	}
	b, r, rflags, err := recv(s, 16, 0)
	if err != nil || r != 16 || rflags&syscall.MSG_TRUNC == 0 || binary.LittleEndian.Uint16(b[4:]) != syscall.RTM_NEWLINK {
		return fmt.Errorf("16-byte read: %d bytes, flags %#x, %x, %v", r, rflags, b, err)
	}
	// The links that were in the truncated part are lost; the dump goes on after them (a
	// host may have more links than fit one part) and ends with DONE alone.
	for done := false; !done; {
		msgs, err := answer(s)
		if err != nil {
			return fmt.Errorf("after the truncated part: %v", err)
		}
		for _, m := range msgs {
			if m.Header.Pid != pid || m.Header.Seq != 41 {
				return fmt.Errorf("after the truncated part: header %+v", m.Header)
			}
			if m.Header.Type == syscall.RTM_NEWLINK && binary.LittleEndian.Uint32(m.Data[4:]) == 1 {
				return errors.New("lo, in the truncated part, came again")
			}
			if done = m.Header.Type == syscall.NLMSG_DONE; done && len(msgs) != 1 {
				return fmt.Errorf("DONE with %d other messages in its datagram", len(msgs)-1)
			}
		}
	}
	// recvfrom with MSG_TRUNC returns the datagram's whole length.
	if err := send(s, request(syscall.RTM_GETADDR, nlmFRequest|nlmFDump, 42, []byte{0})); err != nil {
		return err
	}
	var buf [8]byte
	r2, e := sys(syscall.SYS_RECVFROM, uintptr(s), ptr(&buf), 8, syscall.MSG_TRUNC, 0, 0)
	if e != 0 || r2 <= 8 || binary.LittleEndian.Uint32(buf[:]) > uint32(r2) {
		return fmt.Errorf("recvfrom(MSG_TRUNC): %d, %v, %x", r2, e, buf)
	}
	if _, err := answer(s); err != nil { // DONE
		return err
	}
	return wantNothing(s)
}

func peek() error {
	s, _, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	if err := send(s, request(syscall.RTM_GETADDR, nlmFRequest|nlmFDump, 51, []byte{0})); err != nil {
		return err
	}
	p, _, _, err := recv(s, 1<<16, syscall.MSG_PEEK)
	if err != nil {
		return err
	}
	b, _, _, err := recv(s, 1<<16, 0)
	if err != nil || !bytes.Equal(p, b) {
		return fmt.Errorf("read after peek: %d bytes (%v), peeked %d", len(b), err, len(p))
	}
	// recvfrom's source is the kernel: AF_NETLINK, port 0.
	var from [16]byte
	fl := uint32(len(from))
	var one [1 << 12]byte
	if _, e := sys(syscall.SYS_RECVFROM, uintptr(s), ptr(&one), uintptr(len(one)), 0, ptr(&from), ptr(&fl)); e != 0 ||
		fl != 12 || from != [16]byte{syscall.AF_NETLINK} {
		return fmt.Errorf("recvfrom's source: %v, %d bytes, %x", e, fl, from)
	}
	return wantNothing(s)
}

// busyDump: a second dump while one is under way is EBUSY; the first goes on.
func busyDump() error {
	s, pid, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	first := request(syscall.RTM_GETLINK, nlmFRequest|nlmFDump, 61, []byte{0, 0, 0, 0})
	second := request(syscall.RTM_GETADDR, nlmFRequest|nlmFDump, 62, []byte{0})
	if err := send(s, append(first, second...)); err != nil {
		return err
	}
	var types []string
	for {
		msgs, err := answer(s)
		if err == syscall.EAGAIN {
			break
		}
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if m.Header.Pid != pid {
				return fmt.Errorf("pid %d, want %d", m.Header.Pid, pid)
			}
			t := fmt.Sprintf("%d/%d", m.Header.Type, m.Header.Seq)
			if m.Header.Type == syscall.NLMSG_ERROR {
				t += fmt.Sprintf("/%d", -int32(binary.LittleEndian.Uint32(m.Data)))
			}
			if len(types) == 0 || types[len(types)-1] != t {
				types = append(types, t)
			}
		}
	}
	if got := strings.Join(types, " "); !strings.HasPrefix(got, "16/61 2/62/16 ") || !strings.HasSuffix(got, " 3/61") {
		return fmt.Errorf("answers %s; want links, EBUSY for seq 62, then DONE", got)
	}
	return nil
}

// readWrite: write(2) sends to the kernel, read(2) takes one datagram.
func readWrite() error {
	s, _, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	if _, err := syscall.Write(s, request(syscall.RTM_GETADDR, nlmFRequest|nlmFDump, 71, []byte{0})); err != nil {
		return err
	}
	n := 0
	for {
		b := make([]byte, 1<<16)
		r, err := syscall.Read(s, b)
		if err == syscall.EAGAIN {
			break
		}
		if err != nil {
			return err
		}
		msgs, err := syscall.ParseNetlinkMessage(b[:r])
		if err != nil {
			return err
		}
		n += len(msgs)
	}
	if n < 2 {
		return fmt.Errorf("%d messages, want an address and DONE", n)
	}
	return nil
}

func epoll() error {
	s, _, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	defer syscall.Close(ep)
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, s, &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(s)}); err != nil {
		return err
	}
	ev := make([]syscall.EpollEvent, 4)
	if n, err := syscall.EpollWait(ep, ev, 0); n != 0 || err != nil {
		return fmt.Errorf("ready before a request: %d, %v", n, err)
	}
	if err := send(s, request(syscall.RTM_GETLINK, nlmFRequest|nlmFDump, 81, []byte{0})); err != nil {
		return err
	}
	if n, err := syscall.EpollWait(ep, ev, 0); n != 1 || err != nil || ev[0].Fd != int32(s) || ev[0].Events&syscall.EPOLLIN == 0 {
		return fmt.Errorf("after a request: %d, %v, %+v", n, err, ev[0])
	}
	return nil
}

// blockingRead: a blocking read waits until another thread's request is answered.
func blockingRead() error {
	s, _, err := open(true)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	got := make(chan error, 1)
	go func() {
		b := make([]byte, 1<<16)
		n, _, err := syscall.Recvfrom(s, b, 0)
		if err == nil && n < 16 {
			err = fmt.Errorf("%d bytes", n)
		}
		got <- err
	}()
	time.Sleep(100 * time.Millisecond) // let the reader block first (not required: either order works)
	if err := send(s, request(syscall.NLMSG_NOOP, nlmFRequest|nlmFAck, 91, nil)); err != nil {
		return err
	}
	select {
	case err := <-got:
		return err
	case <-time.After(30 * time.Second): // a hang guard, not a performance check
		return errors.New("the blocked read was never woken")
	}
}

// overrun: acks nobody reads fill the queue; then the next read says ENOBUFS, once, and the
// acks that fitted follow.
func overrun() error {
	s, _, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	noop := request(syscall.NLMSG_NOOP, nlmFRequest|nlmFAck, 99, nil)
	for i := 0; i < 10000; i++ {
		if err := send(s, noop); err != nil {
			return err
		}
	}
	if _, _, _, err := recv(s, 1<<16, 0); err != syscall.ENOBUFS {
		return fmt.Errorf("first read after the overrun: %v, want ENOBUFS", err)
	}
	n := 0
	for {
		_, _, _, err := recv(s, 1<<16, 0)
		if err == syscall.EAGAIN {
			break
		}
		if err != nil {
			return fmt.Errorf("after %d acks: %v", n, err)
		}
		n++
	}
	if n == 0 || n >= 10000 {
		return fmt.Errorf("%d acks after the overrun", n)
	}
	return nil
}

func sockoptStat() error {
	s, _, err := open(false)
	if err != nil {
		return err
	}
	defer syscall.Close(s)
	for _, c := range []struct{ name, want int }{
		{syscall.SO_TYPE, syscall.SOCK_RAW}, {syscall.SO_DOMAIN, syscall.AF_NETLINK}, {syscall.SO_PROTOCOL, syscall.NETLINK_ROUTE}, {syscall.SO_ERROR, 0},
	} {
		if v, err := syscall.GetsockoptInt(s, syscall.SOL_SOCKET, c.name); err != nil || v != c.want {
			return fmt.Errorf("getsockopt(%d): %d, %v; want %d", c.name, v, err, c.want)
		}
	}
	if err := syscall.SetsockoptInt(s, 270, 10 /* SOL_NETLINK, NETLINK_CAP_ACK */, 1); err != nil {
		return fmt.Errorf("NETLINK_CAP_ACK: %v", err)
	}
	if err := syscall.SetsockoptInt(s, 270, 999, 1); err != syscall.ENOPROTOOPT {
		return fmt.Errorf("unknown SOL_NETLINK option: %v, want ENOPROTOOPT", err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(s, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return fmt.Errorf("fstat: mode %o, %v", st.Mode, err)
	}
	return nil
}
