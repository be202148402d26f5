// Hosted tests: the service over a fake kernel, one stack over loopback or two over a wire.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"gmpos/kernel/netabi"
)

// node is one stack with its fake kernel.
type node struct {
	k *fakeKernel
	s *service
}

// newNode starts a stack over a fake kernel; nic (may be nil) is its wire.
func newNode(t testing.TB, cfg netabi.Config, nic *os.File) *node {
	k := newFakeKernel()
	var port framePort
	if nic != nil {
		port = filePort{nic}
	}
	s, err := start(k, cfg, port)
	if err != nil {
		t.Fatal(err)
	}
	n := &node{k: k, s: s}
	t.Cleanup(func() {
		k.stop()
		<-s.done
		s.st.RemoveNIC(nicEther) // closes the NIC file: link endpoints stop their own way
		s.st.Close()
		s.st.Wait()
		if v := k.violations(); len(v) > 0 {
			t.Errorf("kernel protocol violations: %q", v)
		}
	})
	return n
}

// loopNode is a stack with loopback only (no NIC), as with ENODEV.
func loopNode(t testing.TB) *node { return newNode(t, netabi.Config{}, nil) }

// wire joins two stacks, 10.0.0.1/24 and 10.0.0.2/24, through a SOCK_SEQPACKET socketpair:
// one frame per read and write, non-blocking, pollable — what the NIC file is.
func wire(t testing.TB) (*node, *node) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skip("no socketpair:", err)
	}
	for _, fd := range fds {
		syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF, 1<<20)
	}
	cfg := func(i byte) netabi.Config {
		return netabi.Config{
			MAC: [6]byte{0x52, 0x54, 0, 0x12, 0x34, i}, MTU: 1500, Flags: netabi.CfgNIC | netabi.CfgStatic,
			Addr: [4]byte{10, 0, 0, i}, PrefixLen: 24, Gateway: [4]byte{10, 0, 0, 254},
		}
	}
	a := newNode(t, cfg(1), os.NewFile(uintptr(fds[0]), "wire-a"))
	b := newNode(t, cfg(2), os.NewFile(uintptr(fds[1]), "wire-b"))
	return a, b
}

func sa(ip [4]byte, port uint16) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint16(b, afInet)
	binary.BigEndian.PutUint16(b[2:], port)
	copy(b[4:], ip[:])
	return b
}

var (
	localhost = [4]byte{127, 0, 0, 1}
	anyAddr   = [4]byte{}
)

func port(sa []byte) uint16 { return binary.BigEndian.Uint16(sa[2:]) }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// listener opens a listening TCP socket on ip:0 and returns it with its port.
func listener(t testing.TB, k *fakeKernel, ip [4]byte) (uint32, uint16) {
	t.Helper()
	l, err := k.socket(sockStream)
	must(t, err)
	must(t, k.setsockopt(l, solSocket, soReuseadr, []byte{1, 0, 0, 0}))
	must(t, k.bind(l, sa(ip, 0)))
	must(t, k.listen(l, 128))
	name, err := k.sockname(l, false)
	must(t, err)
	if port(name) == 0 {
		t.Fatalf("listener has port 0: %x", name)
	}
	return l, port(name)
}

// readAll reads until EOF.
func readAll(k *fakeKernel, sid uint32) ([]byte, error) {
	var out []byte
	for {
		b, err := k.recv(sid, 1<<16)
		if err != nil || len(b) == 0 {
			return out, err
		}
		out = append(out, b...)
	}
}

// echoTest: the client sends size random bytes and half-closes; the server echoes everything
// and closes; the client checks every byte and sees EOF.
func echoTest(t *testing.T, srv, cli *node, srvIP [4]byte, size int) {
	l, p := listener(t, srv.k, anyAddr)
	done := make(chan error, 1)
	go func() {
		c, _, err := srv.k.accept(l)
		if err != nil {
			done <- err
			return
		}
		for {
			b, err := srv.k.recv(c, 1<<15)
			if err != nil {
				done <- err
				return
			}
			if len(b) == 0 {
				break
			}
			if err := srv.k.send(c, b); err != nil {
				done <- err
				return
			}
		}
		srv.k.close(c)
		done <- srv.k.waitReleased(c)
	}()

	c, err := cli.k.socket(sockStream)
	must(t, err)
	must(t, cli.k.setsockopt(c, ipprotoTCP, tcpNodelay, []byte{1, 0, 0, 0}))
	must(t, cli.k.connect(c, sa(srvIP, p)))
	peer, err := cli.k.sockname(c, true)
	must(t, err)
	if !bytes.Equal(peer, sa(srvIP, p)) {
		t.Fatalf("getpeername = %x, want %x", peer, sa(srvIP, p))
	}
	data := make([]byte, size)
	rand.New(rand.NewSource(1)).Read(data)
	sent := make(chan error, 1)
	go func() {
		for off := 0; off < len(data); {
			n := min(len(data)-off, 1+rand.Intn(100000))
			if err := cli.k.send(c, data[off:off+n]); err != nil {
				sent <- err
				return
			}
			off += n
		}
		sent <- cli.k.shutdown(c, shutWr)
	}()
	got, err := readAll(cli.k, c)
	must(t, err)
	must(t, <-sent)
	must(t, <-done)
	if !bytes.Equal(got, data) {
		i := 0
		for i < len(got) && i < len(data) && got[i] == data[i] {
			i++
		}
		t.Fatalf("echo: got %d bytes, want %d; first difference at %d", len(got), len(data), i)
	}
	cli.k.close(c)
	must(t, cli.k.waitReleased(c))
	srv.k.close(l)
	must(t, srv.k.waitReleased(l))
}

func TestTCPEchoLoopback(t *testing.T) {
	n := loopNode(t)
	echoTest(t, n, n, localhost, 1<<20)
	st := n.s.stats()
	t.Logf("%+v", st)
	if st.PushBytes < 2<<20 || st.PullBytes < 2<<20 {
		t.Errorf("pushed %d, pulled %d bytes: want ≥ 2 MiB each", st.PushBytes, st.PullBytes)
	}
	waitSockets(t, n, 0)
}

func TestTCPEchoWire(t *testing.T) {
	a, b := wire(t)
	echoTest(t, a, b, [4]byte{10, 0, 0, 1}, 1<<20)
	sa, sb := a.s.stats(), b.s.stats()
	t.Logf("a: %+v", sa)
	t.Logf("b: %+v", sb)
	if sa.FramesIn == 0 || sb.FramesOut == 0 || sa.BytesIn < 1<<20 {
		t.Errorf("frames did not cross the wire")
	}
	if sa.TCPChecksumErrors+sb.TCPChecksumErrors+sa.IPMalformed+sb.IPMalformed != 0 {
		t.Errorf("checksum or malformed errors")
	}
}

// waitSockets waits until the stack's open socket count is n (closing is asynchronous).
func waitSockets(t *testing.T, nd *node, n uint64) {
	t.Helper()
	for i := 0; i < 200 && nd.s.c.sockets.Load() != n; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if got := nd.s.c.sockets.Load(); got != n {
		t.Errorf("%d sockets open, want %d", got, n)
	}
}

func TestConnectionRefused(t *testing.T) {
	n := loopNode(t)
	c, err := n.k.socket(sockStream)
	must(t, err)
	if err := n.k.connect(c, sa(localhost, 9)); err != syscall.ECONNREFUSED {
		t.Fatalf("connect = %v, want ECONNREFUSED", err)
	}
	if st := n.k.stateOf(c); st&(netabi.StErr|netabi.StHup) != netabi.StErr|netabi.StHup {
		t.Errorf("state %#x: want StErr|StHup", st)
	}
	n.k.close(c)
	must(t, n.k.waitReleased(c))
}

func TestConnectionRefusedWire(t *testing.T) {
	a, b := wire(t)
	_ = a
	c, err := b.k.socket(sockStream)
	must(t, err)
	if err := b.k.connect(c, sa([4]byte{10, 0, 0, 1}, 9)); err != syscall.ECONNREFUSED {
		t.Fatalf("connect = %v, want ECONNREFUSED", err)
	}
	// tcpip counts the reset after handing it to the link: b may see it first.
	for i := 0; i < 100 && a.s.stats().TCPResetsSent == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if a.s.stats().TCPResetsSent == 0 {
		t.Errorf("no reset sent")
	}
}

func TestAddrInUse(t *testing.T) {
	n := loopNode(t)
	l, p := listener(t, n.k, localhost)
	_ = l
	s, err := n.k.socket(sockStream)
	must(t, err)
	if err := n.k.bind(s, sa(localhost, p)); err != syscall.EADDRINUSE {
		t.Fatalf("bind = %v, want EADDRINUSE", err)
	}
	if err := n.k.bind(s, sa([4]byte{192, 0, 2, 1}, 0)); err != syscall.EADDRNOTAVAIL {
		t.Fatalf("bind to a foreign address = %v, want EADDRNOTAVAIL", err)
	}
}

func TestEOFAfterPeerClose(t *testing.T) {
	n := loopNode(t)
	l, p := listener(t, n.k, localhost)
	c, err := n.k.socket(sockStream)
	must(t, err)
	must(t, n.k.connect(c, sa(localhost, p)))
	s, peer, err := n.k.accept(l)
	must(t, err)
	name, err := n.k.sockname(c, false)
	must(t, err)
	if !bytes.Equal(peer, name) {
		t.Errorf("accept peer %x, client name %x", peer, name)
	}
	must(t, n.k.send(s, []byte("hello")))
	n.k.close(s)
	must(t, n.k.waitReleased(s))
	got, err := readAll(n.k, c)
	must(t, err)
	if string(got) != "hello" {
		t.Fatalf("read %q, want hello then EOF", got)
	}
	if st := n.k.stateOf(c); st&netabi.StRxEOF == 0 || st&netabi.StErr != 0 {
		t.Errorf("state %#x: want StRxEOF without StErr", st)
	}
}

func TestUDPEcho(t *testing.T) {
	n := loopNode(t)
	a, err := n.k.socket(sockDgram)
	must(t, err)
	must(t, n.k.bind(a, sa(localhost, 0)))
	an, err := n.k.sockname(a, false)
	must(t, err)
	b, err := n.k.socket(sockDgram)
	must(t, err)
	must(t, n.k.bind(b, sa(localhost, 0)))
	bn, err := n.k.sockname(b, false)
	must(t, err)

	for i := range 50 {
		msg := bytes.Repeat([]byte{byte(i)}, 1+i*100)
		must(t, n.k.sendto(b, msg, an))
		got, from, err := n.k.recvfrom(a)
		must(t, err)
		if !bytes.Equal(got, msg) || !bytes.Equal(from, bn) {
			t.Fatalf("a got %d bytes from %x, want %d from %x", len(got), from, len(msg), bn)
		}
		must(t, n.k.sendto(a, got, from)) // echo to the source
		back, from, err := n.k.recvfrom(b)
		must(t, err)
		if !bytes.Equal(back, msg) || !bytes.Equal(from, an) {
			t.Fatalf("b got %d bytes from %x", len(back), from)
		}
	}
	// Connected: the address buffer's length 0 means the peer.
	must(t, n.k.connect(b, an))
	must(t, n.k.sendto(b, []byte("connected"), nil))
	got, from, err := n.k.recvfrom(a)
	must(t, err)
	if string(got) != "connected" || !bytes.Equal(from, bn) {
		t.Fatalf("connected send: %q from %x", got, from)
	}
	v, err := n.k.getsockopt(a, solSocket, soType, 4)
	must(t, err)
	if binary.LittleEndian.Uint32(v) != sockDgram {
		t.Errorf("SO_TYPE = %x", v)
	}
}

func TestUDPWire(t *testing.T) {
	a, b := wire(t)
	sa1 := sa([4]byte{10, 0, 0, 1}, 5353)
	x, err := a.k.socket(sockDgram)
	must(t, err)
	must(t, a.k.bind(x, sa(anyAddr, 5353)))
	y, err := b.k.socket(sockDgram)
	must(t, err)
	must(t, b.k.sendto(y, []byte("ping"), sa1))
	got, from, err := a.k.recvfrom(x)
	must(t, err)
	if string(got) != "ping" || !bytes.Equal(from[4:8], []byte{10, 0, 0, 2}) {
		t.Fatalf("got %q from %x", got, from)
	}
}

func TestAcceptWouldBlock(t *testing.T) {
	n := loopNode(t)
	l, p := listener(t, n.k, localhost)
	if _, _, err := n.k.acceptOnce(l); err != syscall.EAGAIN {
		t.Fatalf("accept on an empty queue = %v, want EAGAIN", err)
	}
	c, err := n.k.socket(sockStream)
	must(t, err)
	must(t, n.k.connect(c, sa(localhost, p)))
	// Connected: the stack must put the connection on the kernel's queue without a request.
	s, peer, err := n.k.accept(l)
	must(t, err)
	if cn, _ := n.k.sockname(c, false); !bytes.Equal(peer, cn) {
		t.Errorf("accepted peer %x, client's name %x", peer, cn)
	}
	if _, _, err := n.k.acceptOnce(l); err != syscall.EAGAIN {
		t.Fatalf("second accept = %v, want EAGAIN", err)
	}
	if st := n.k.stateOf(s); st&(netabi.StConnected|netabi.StTxOpen) != netabi.StConnected|netabi.StTxOpen {
		t.Errorf("accepted socket state %#x", st)
	}
}

// TestAcceptQueueFull: with the kernel's queue full the stack holds the next connection and
// offers it again after EvRxSpace; connections nobody accepted are closed with the listener.
func TestAcceptQueueFull(t *testing.T) {
	n := loopNode(t)
	l, err := n.k.socket(sockStream)
	must(t, err)
	must(t, n.k.bind(l, sa(localhost, 0)))
	must(t, n.k.listen(l, 2))
	ln, _ := n.k.sockname(l, false)
	var clients []uint32
	for range 5 {
		c, err := n.k.socket(sockStream)
		must(t, err)
		must(t, n.k.connect(c, ln))
		clients = append(clients, c)
	}
	n.k.mu.Lock()
	err = n.k.waitLocked("a full queue", func() bool { return n.k.socks[l].acceptFull })
	queued := len(n.k.socks[l].acceptq)
	n.k.mu.Unlock()
	must(t, err)
	if queued != 2 {
		t.Fatalf("%d connections queued with backlog 2", queued)
	}
	for i := range 4 {
		s, _, err := n.k.accept(l)
		must(t, err)
		must(t, n.k.send(s, []byte{byte(i)}))
		n.k.close(s)
	}
	n.k.mu.Lock()
	err = n.k.waitLocked("the fifth queued", func() bool { return len(n.k.socks[l].acceptq) == 1 })
	n.k.mu.Unlock()
	must(t, err)
	n.k.close(l) // the fifth, queued and never accepted, goes with it
	must(t, n.k.waitReleased(l))
	for _, c := range clients {
		n.k.close(c)
	}
	waitSockets(t, n, 0)
	if st := n.s.stats(); st.Accepted != 5 || st.AcceptDrops != 0 {
		t.Errorf("accepted %d, dropped %d: want 5, 0", st.Accepted, st.AcceptDrops)
	}
}

// TestShutdownWrite: data written before shutdown(SHUT_WR) arrives before the FIN, and the
// other direction stays open.
func TestShutdownWrite(t *testing.T) {
	n := loopNode(t)
	l, p := listener(t, n.k, localhost)
	c, err := n.k.socket(sockStream)
	must(t, err)
	must(t, n.k.connect(c, sa(localhost, p)))
	s, _, err := n.k.accept(l)
	must(t, err)
	data := bytes.Repeat([]byte("0123456789abcdef"), 40000) // 640 KB: more than one ring
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := n.k.send(c, data); err != nil {
			t.Error(err)
		}
		if err := n.k.shutdown(c, shutWr); err != nil {
			t.Error(err)
		}
	}()
	got, err := readAll(n.k, s)
	must(t, err)
	wg.Wait()
	if !bytes.Equal(got, data) {
		t.Fatalf("got %d bytes, want %d", len(got), len(data))
	}
	must(t, n.k.send(s, []byte("reply")))
	must(t, n.k.shutdown(s, shutWr))
	back, err := readAll(n.k, c)
	must(t, err)
	if string(back) != "reply" {
		t.Fatalf("half-closed socket read %q", back)
	}
}

func TestSockopts(t *testing.T) {
	n := loopNode(t)
	c, err := n.k.socket(sockStream)
	must(t, err)
	one := []byte{1, 0, 0, 0}
	for _, o := range [][2]int{
		{solSocket, soReuseadr}, {solSocket, soReuseprt}, {solSocket, soKeepaliv}, {solSocket, soBroadcst},
		{ipprotoTCP, tcpNodelay}, {ipprotoTCP, tcpKeepidle}, {ipprotoTCP, tcpKeepintvl}, {ipprotoTCP, tcpKeepcnt},
		{ipprotoIP, ipTTL},
	} {
		if err := n.k.setsockopt(c, o[0], o[1], one); err != nil {
			t.Errorf("setsockopt(%d, %d) = %v", o[0], o[1], err)
			continue
		}
		v, err := n.k.getsockopt(c, o[0], o[1], 4)
		if err != nil || !bytes.Equal(v, one) {
			t.Errorf("getsockopt(%d, %d) = %x, %v; want 1", o[0], o[1], v, err)
		}
	}
	must(t, n.k.setsockopt(c, ipprotoTCP, tcpKeepidle, []byte{15, 0, 0, 0}))
	if v, _ := n.k.getsockopt(c, ipprotoTCP, tcpKeepidle, 4); !bytes.Equal(v, []byte{15, 0, 0, 0}) {
		t.Errorf("TCP_KEEPIDLE = %x", v)
	}
	must(t, n.k.setsockopt(c, ipprotoIP, ipTOS, []byte{0x10, 0, 0, 0}))
	if v, _ := n.k.getsockopt(c, ipprotoIP, ipTOS, 4); !bytes.Equal(v, []byte{0x10, 0, 0, 0}) {
		t.Errorf("IP_TOS = %x", v)
	}
	must(t, n.k.setsockopt(c, solSocket, soLinger, []byte{1, 0, 0, 0, 5, 0, 0, 0}))
	if v, _ := n.k.getsockopt(c, solSocket, soLinger, 8); !bytes.Equal(v, []byte{1, 0, 0, 0, 5, 0, 0, 0}) {
		t.Errorf("SO_LINGER = %x", v)
	}
	must(t, n.k.setsockopt(c, solSocket, soRcvbuf, []byte{0, 0, 1, 0}))
	for _, bad := range []struct {
		level, name int
		v           []byte
		want        syscall.Errno
	}{
		{solSocket, 12345, one, syscall.ENOPROTOOPT},
		{ipprotoTCP, 999, one, syscall.ENOPROTOOPT},
		{41, 26, one, syscall.ENOPROTOOPT}, // IPV6_V6ONLY: no IPv6 here
		{solSocket, soReuseadr, []byte{1}, syscall.EINVAL},
		{ipprotoTCP, tcpKeepcnt, []byte{0, 0, 0, 0}, syscall.EINVAL},
	} {
		if err := n.k.setsockopt(c, bad.level, bad.name, bad.v); err != bad.want {
			t.Errorf("setsockopt(%d, %d, %x) = %v, want %v", bad.level, bad.name, bad.v, err, bad.want)
		}
	}
	if st := n.s.stats(); st.AsyncErrors != 0 {
		t.Errorf("%d asynchronous requests failed in the stack", st.AsyncErrors)
	}
	if _, err := n.k.getsockopt(c, solSocket, 12345, 4); err != syscall.ENOPROTOOPT {
		t.Errorf("unknown getsockopt = %v", err)
	}
	if _, err := n.k.sockname(c, true); err != syscall.ENOTCONN {
		t.Errorf("getpeername unconnected = %v, want ENOTCONN", err)
	}
	// Bad addresses.
	short := sa(localhost, 80)[:8]
	if err := n.k.bind(c, short); err != syscall.EINVAL {
		t.Errorf("bind short = %v, want EINVAL", err)
	}
	inet6 := sa(localhost, 80)
	inet6[0] = 10
	if err := n.k.connect(c, inet6); err != syscall.EAFNOSUPPORT {
		t.Errorf("connect AF_INET6 = %v, want EAFNOSUPPORT", err)
	}
	if err := n.k.connect(c, sa([4]byte{192, 0, 2, 1}, 80)); err != syscall.ENETUNREACH {
		t.Errorf("connect without a route = %v, want ENETUNREACH", err)
	}
	if _, err := n.k.socket(3); err != syscall.ESOCKTNOSUPPORT {
		t.Errorf("SOCK_RAW = %v", err)
	}
	if err := n.k.shutdown(c, 7); err != syscall.EINVAL {
		t.Errorf("shutdown(7) = %v", err)
	}
}

// TestManyConnections opens and closes connections so that slots and generations are reused.
func TestManyConnections(t *testing.T) {
	n := loopNode(t)
	l, p := listener(t, n.k, localhost)
	for i := range 300 {
		c, err := n.k.socket(sockStream)
		must(t, err)
		must(t, n.k.connect(c, sa(localhost, p)))
		s, _, err := n.k.accept(l)
		must(t, err)
		msg := []byte{byte(i), byte(i >> 8)}
		must(t, n.k.send(c, msg))
		got, err := n.k.recv(s, 2)
		if err != nil {
			fc, fs := n.k.socks[c], n.k.socks[s]
			t.Logf("c %+v\ns %+v", *fc, *fs)
			t.Fatalf("%d: c %#x %#x s %#x %#x: %v", i, c, n.k.stateOf(c), s, n.k.stateOf(s), err)
		}
		if !bytes.Equal(got, msg) {
			t.Fatalf("%d: got %x", i, got)
		}
		n.k.close(c)
		n.k.close(s)
		must(t, n.k.waitReleased(c))
		must(t, n.k.waitReleased(s))
	}
	n.k.close(l)
	must(t, n.k.waitReleased(l))
	waitSockets(t, n, 0)
	t.Logf("%+v", n.s.stats())
}

// TestInitNoop: the test binary ran init on Linux, where gmpos_net is ENOSYS.
func TestInitNoop(t *testing.T) {
	if Started() {
		t.Fatal("init started a stack on the host")
	}
	if Stats() != (Counters{}) {
		t.Fatal("Stats not zero on the host")
	}
}
