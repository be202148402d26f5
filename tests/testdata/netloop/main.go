// netloop exercises sockets inside the guest, over the loopback interface: a TCP echo of 1 MiB,
// a UDP echo, name lookup of localhost, and the errors Linux gives (connection refused, address
// in use, end of stream after the peer closed, EPIPE with SIGPIPE, a connect timeout). It prints "ok NAME" per check
// and exits 1 at the first failure (tests/net_test.go).
package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	check("tcp_echo", tcpEcho)
	check("udp_echo", udpEcho)
	check("lookup_localhost", lookup)
	check("refused", refused)
	check("addrinuse", addrInUse)
	check("eof_after_close", eofAfterClose)
	check("epipe_sigpipe", epipeSigpipe)
	check("connect_timeout", connectTimeout)
	check("ipv6_unsupported", ipv6)
	check("stack_errno_range", stackErrno)
	fmt.Println("netloop done")
}

func check(name string, f func() error) {
	if err := f(); err != nil {
		fmt.Printf("FAIL %s: %v\n", name, err)
		os.Exit(1)
	}
	fmt.Println("ok", name)
}

func tcpEcho() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		io.Copy(c, c)
		c.Close()
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return err
	}
	defer c.Close()
	data := make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(data)
	go func() { c.Write(data); c.(*net.TCPConn).CloseWrite() }()
	got, err := io.ReadAll(c)
	if err != nil {
		return err
	}
	if sha256.Sum256(got) != sha256.Sum256(data) {
		return fmt.Errorf("echo of %d bytes came back as %d different bytes", len(data), len(got))
	}
	return nil
}

func udpEcho() error {
	srv, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer srv.Close()
	go func() {
		b := make([]byte, 2048)
		for {
			n, a, err := srv.ReadFrom(b)
			if err != nil {
				return
			}
			srv.WriteTo(bytes.ToUpper(b[:n]), a)
		}
	}()
	c, err := net.Dial("udp", srv.LocalAddr().String())
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	for i := 0; i < 10; i++ {
		msg := fmt.Sprintf("datagram %d", i)
		if _, err := c.Write([]byte(msg)); err != nil {
			return err
		}
		b := make([]byte, 64)
		n, err := c.Read(b)
		if err != nil {
			return err
		}
		if string(b[:n]) != string(bytes.ToUpper([]byte(msg))) {
			return fmt.Errorf("got %q for %q", b[:n], msg)
		}
	}
	return nil
}

func lookup() error {
	addrs, err := net.LookupHost("localhost")
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if a == "127.0.0.1" {
			return nil
		}
	}
	return fmt.Errorf("localhost is %v", addrs)
}

func refused() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = net.Dial("tcp", addr)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("dial a closed port: %v, want ECONNREFUSED", err)
	}
	return nil
}

func addrInUse() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	_, err = net.Listen("tcp", ln.Addr().String())
	if !errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("second listen: %v, want EADDRINUSE", err)
	}
	return nil
}

func eofAfterClose() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("bye"))
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return err
	}
	defer c.Close()
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "bye" {
		return fmt.Errorf("read %q, %v", b, err)
	}
	n, err := c.Read(make([]byte, 8))
	if n != 0 || err != io.EOF {
		return fmt.Errorf("read after the peer closed: %d, %v; want 0, EOF", n, err)
	}
	return nil
}

// epipeSigpipe writes to a stream socket after shutting down its sending side: EPIPE and a
// SIGPIPE for write and send, none with send(MSG_NOSIGNAL) (Linux's sk_stream_error).
func epipeSigpipe() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			io.Copy(io.Discard, c)
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return err
	}
	defer c.Close()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		return err
	}
	var werr, serr, nerr error
	raw.Control(func(fd uintptr) {
		syscall.Shutdown(int(fd), syscall.SHUT_WR)
		_, werr = syscall.Write(int(fd), []byte("x"))
	})
	got := func() bool {
		select {
		case <-sigs:
			return true
		case <-time.After(2 * time.Second):
			return false
		}
	}
	if w := got(); werr != syscall.EPIPE || !w {
		return fmt.Errorf("write after SHUT_WR: %v, SIGPIPE %v; want EPIPE and a SIGPIPE", werr, w)
	}
	raw.Control(func(fd uintptr) { serr = syscall.Sendto(int(fd), []byte("x"), 0, nil) })
	if s := got(); serr != syscall.EPIPE || !s {
		return fmt.Errorf("send: %v, SIGPIPE %v; want EPIPE and a SIGPIPE", serr, s)
	}
	raw.Control(func(fd uintptr) { nerr = syscall.Sendto(int(fd), []byte("x"), syscall.MSG_NOSIGNAL, nil) })
	select {
	case <-sigs:
		return fmt.Errorf("send(MSG_NOSIGNAL) raised SIGPIPE")
	case <-time.After(200 * time.Millisecond):
	}
	if nerr != syscall.EPIPE {
		return fmt.Errorf("send(MSG_NOSIGNAL): %v, want EPIPE", nerr)
	}
	return nil
}

// connectTimeout dials an address on QEMU's user network that nothing answers (no ARP reply),
// or, with -net none, that no route leads to, with a short timeout.
func connectTimeout() error {
	t0 := time.Now()
	_, err := net.DialTimeout("tcp", "10.0.2.99:80", 300*time.Millisecond)
	var ne net.Error
	if err == nil {
		return errors.New("connected to 10.0.2.99")
	}
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH) {
		if d := time.Since(t0); d > 5*time.Second {
			return fmt.Errorf("timeout took %v", d)
		}
		return nil
	}
	return fmt.Errorf("dial: %v, want a timeout", err)
}

func ipv6() error {
	_, err := syscall.Socket(syscall.AF_INET6, syscall.SOCK_STREAM, 0)
	if err != syscall.EAFNOSUPPORT {
		return fmt.Errorf("socket(AF_INET6): %v, want EAFNOSUPPORT", err)
	}
	return nil
}

// stackErrno: gmpos_net is the stack's call, but the kernel trusts no caller of it. A socket
// error it passes on to the program must be an errno Linux has (at most EHWPOISON, 133): no
// Linux call returns -4095, which Go's syscall package reads as a successful result.
func stackErrno() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	const nrGmposNet, opState, stErr = 0x6d71, 8, 32
	for _, e := range []uintptr{134, 4095} {
		if _, _, en := syscall.RawSyscall6(nrGmposNet, opState, uintptr(st.Ino), stErr, 0, e, 0); en != syscall.EINVAL {
			return fmt.Errorf("gmpos_net(OpState, StErr, error %d): %v, want EINVAL", e, en)
		}
	}
	if _, _, en := syscall.RawSyscall6(nrGmposNet, opState, uintptr(st.Ino), stErr, 0, uintptr(syscall.ECONNREFUSED), 0); en != 0 {
		return fmt.Errorf("gmpos_net(OpState, StErr, ECONNREFUSED): %v", en)
	}
	if _, err := syscall.Read(fd, make([]byte, 8)); err != syscall.ECONNREFUSED {
		return fmt.Errorf("read after the stack set ECONNREFUSED: %v", err)
	}
	return nil
}
