// Guest: sysfuzz's sockets: live ones to aim the socket calls at, and the structs those calls take.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	// The network stack runs as goroutines of the program, started before main in a program
	// that imports net (the runner links it in): without it every socket call fails at once.
	_ "net"
)

// The socket calls need sockets to act on, or they all stop at EBADF and ENOTSOCK. The fuzzer
// opens its own at start — a TCP listener on 127.0.0.1, a connected TCP pair, a bound UDP socket
// and one connected to it, all non-blocking — and keeps them in created like its eventfds: a
// kSock argument mostly picks one of them, a call may close, shut or damage them, and every
// upkeepEvery calls a worker opens a new set for any of them gone. The sockets the calls
// themselves make (socket, accept4) are booked too and closed as a worker's owned fds are.
//
// Every socket is non-blocking and stays so: the filter refuses calls that would make a blocking
// one (socket and socketpair without SOCK_NONBLOCK, accept and accept4 without it on a socket that
// may listen), as it refuses blocking eventfds, F_SETFL without O_NONBLOCK and FIONBIO.
//
// The machine must have no NIC (-net none): with one, a connect or sendto to a random address
// would leave the guest through QEMU's user networking and reach the host's network. Without
// it the stack serves loopback only, and every other address is unreachable.
//
// The stack's own fds — the gmpos_net service file and the Go runtime's netpoller fds it made —
// are open before main, and setup finds them by fstat (protected, as the console and the
// runtime's fds are: never closed, dup2'ed over, read, or changed).

// More kinds of the fds in created (after fdEventfd, fdEpoll).
const (
	fdTCP    = 3 // a TCP socket: unconnected, connecting or connected
	fdListen = 4 // a TCP socket that listens
	fdUDP    = 5
	fdPipe   = 6 // either end of a non-blocking pipe (pipe2 in after)
)

// sockMask picks any socket kind in createdFD.
const sockMask = 1<<fdTCP | 1<<fdListen | 1<<fdUDP

// More argument kinds.
const (
	kSock     argKind = iota + kConst + 1 // a socket the fuzzer has, mostly
	kSockaddr                             // a prepared sockaddr, mostly
	kSocklen                              // an address length
	kLenp                                 // a pointer to a prepared int length, mostly
	kOptval                               // a pointer to a prepared option value, mostly
	kIov                                  // a pointer to a prepared iovec array, mostly
	kMsg                                  // a pointer to a prepared msghdr, mostly
	kListener                             // a listening socket, mostly
)

// Linux's socket constants.
const (
	afInet, afInet6, afUnspec = 2, 10, 0
	sockStream, sockDgram     = 1, 2
	sockNonblock, sockCloexec = syscall.O_NONBLOCK, syscall.O_CLOEXEC
	msgCmsgCompat             = 0x80000000
	eventSize                 = 128 // netabi.EventSize
	addrBufSize               = 32  // netabi.AddrBufSize

	nrSocket, nrConnect, nrAccept, nrSendto, nrRecvfrom, nrSendmsg = 41, 42, 43, 44, 45, 46
	nrShutdown, nrBind, nrListen, nrGetsockname, nrGetpeername     = 48, 49, 50, 51, 52
	nrSocketpair, nrSetsockopt, nrGetsockopt, nrAccept4            = 53, 54, 55, 288
	nrDup                                                          = 32
)

// The prepared structs of the socket calls, in the worker's arena slot after the others. The
// kernel may write over them (a buffer at offOut runs to the end of the slot): prepare writes
// them again before every call.
const (
	offIov   = 2048        // 8 struct iovec
	iovN     = 8           //
	offMsg   = 2176        // struct msghdr (56 bytes)
	offName  = 2240        // room for an address the kernel writes (128 bytes)
	offSa    = 2368        // the prepared sockaddrs, saSize bytes each
	saSize   = 32          //
	saN      = 11          //
	offLenp  = offSa + 352 // an int length
	offOpt   = offLenp + 8 // an option value (16 bytes)
	offCtl   = offOpt + 16 // control data (64 bytes)
	offSlotE = offCtl + 64 // end of the prepared structs
)

var (
	sockDomains  = []uint64{afInet, afInet, afInet, afInet, afInet, afInet, afInet6, 1, afUnspec, neg(-1), 99, 1<<32 | afInet, 46, 16}
	sockTypes    = []uint64{1 | sockNonblock, 1 | sockNonblock, 1 | sockNonblock, 1 | sockNonblock, 2 | sockNonblock, 2 | sockNonblock, 2 | sockNonblock, 1 | sockNonblock | sockCloexec, 2 | sockNonblock | sockCloexec, 1, 2, sockNonblock, 3 | sockNonblock, 5 | sockNonblock, 11 | sockNonblock, 0x10 | 1, neg(-1), 1<<32 | 1 | sockNonblock}
	sockProtos   = []uint64{0, 0, 0, 0, 0, 6, 17, neg(-1), 263, 255, 1<<32 | 6}
	backlogs     = []uint64{0, 1, 8, 128, 4096, neg(-1), 1<<32 | 1, 1 << 20}
	acceptFlags  = []uint64{sockNonblock, sockNonblock, sockNonblock | sockCloexec, 0, sockCloexec, 1, neg(-1), 1<<32 | sockNonblock}
	optLevels    = []uint64{1, 1, 1, 1, 0, 0, 0, 6, 6, 6, 17, 41, neg(-1), 9999, 1<<32 | 1}
	optNames     = []uint64{1, 1, 2, 2, 3, 4, 4, 5, 6, 7, 8, 9, 13, 15, 30, 32, 33, 34, 35, 36, 38, 39, 25, 9999, neg(-1), 1<<32 | 2}
	optLens      = []uint64{4, 4, 4, 0, 1, 2, 3, 8, 12, 16, 80, 81, 4096, neg(-1), 1<<32 | 4}
	shutHows     = []uint64{0, 1, 2, 3, neg(-1), 1<<32 | 1}
	msgFlagVals  = []uint64{0, 0, 0, syscall.MSG_DONTWAIT, syscall.MSG_PEEK, syscall.MSG_TRUNC, syscall.MSG_OOB, syscall.MSG_WAITALL, syscall.MSG_NOSIGNAL, msgCmsgCompat, syscall.MSG_PEEK | syscall.MSG_TRUNC, syscall.MSG_ERRQUEUE, neg(-1), 1 << 32}
	iovCounts    = []uint64{0, 1, 1, 2, 3, 4, 8, 9, 1024, 1025, neg(-1), 1<<32 | 1}
	socklens     = []uint64{16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 0, 1, 2, 8, 15, 28, 128, 129, neg(-1), 1<<32 | 16}
	lenpVals     = []uint64{16, 16, 128, 4, 0, 2, 0xffffffff, 0x7fffffff}
	ctlLens      = []uint64{0, 0, 0, 8, 16, 64, 4096, 1 << 20, 1 << 31, neg(-1)}
	optIntValues = []uint64{0, 1, 1, 2, 64, 87, 88, 127, 128, 255, 256, 32767, 32768, 65535, 0xffffffff, 0x80000000}
)

// socketSpecs are the socket calls (kernel/sys_socket.go) and readv and writev, for specs.
var socketSpecs = []spec{
	{nr: nrSocket, name: "socket", weight: 6, args: []argKind{kConst, kConst, kConst}, consts: [6][]uint64{0: sockDomains, 1: sockTypes, 2: sockProtos}},
	{nr: nrSocketpair, name: "socketpair", weight: 1, args: []argKind{kConst, kConst, kConst, kPtr}, consts: [6][]uint64{0: sockDomains, 1: sockTypes, 2: sockProtos}},
	{nr: nrBind, name: "bind", weight: 4, args: []argKind{kSock, kSockaddr, kSocklen}},
	{nr: nrListen, name: "listen", weight: 3, args: []argKind{kSock, kConst}, consts: [6][]uint64{1: backlogs}},
	// accept and accept4 mostly on a listener; connect mostly from a socket of the fuzzer's own
	// calls, which may be unconnected.
	{nr: nrConnect, name: "connect", weight: 5, args: []argKind{kSock, kSockaddr, kSocklen}},
	{nr: nrAccept, name: "accept", weight: 2, args: []argKind{kListener, kNull, kLenp}},
	{nr: nrAccept4, name: "accept4", weight: 5, args: []argKind{kListener, kNull, kLenp, kConst}, consts: [6][]uint64{3: acceptFlags}},
	{nr: nrGetsockname, name: "getsockname", weight: 3, args: []argKind{kSock, kPtr, kLenp}},
	{nr: nrGetpeername, name: "getpeername", weight: 3, args: []argKind{kSock, kPtr, kLenp}},
	{nr: nrSetsockopt, name: "setsockopt", weight: 6, args: []argKind{kSock, kConst, kConst, kOptval, kConst}, consts: [6][]uint64{1: optLevels, 2: optNames, 4: optLens}},
	{nr: nrGetsockopt, name: "getsockopt", weight: 5, args: []argKind{kSock, kConst, kConst, kOptval, kLenp}, consts: [6][]uint64{1: optLevels, 2: optNames}},
	{nr: nrShutdown, name: "shutdown", weight: 2, args: []argKind{kSock, kConst}, consts: [6][]uint64{1: shutHows}},
	{nr: nrSendto, name: "sendto", weight: 8, args: []argKind{kSock, kPtr, kLen, kConst, kSockaddr, kSocklen}, consts: [6][]uint64{3: msgFlagVals}},
	{nr: nrRecvfrom, name: "recvfrom", weight: 8, args: []argKind{kSock, kPtr, kLen, kConst, kNull, kLenp}, consts: [6][]uint64{3: msgFlagVals}},
	{nr: nrSendmsg, name: "sendmsg", weight: 6, args: []argKind{kSock, kMsg, kConst}, consts: [6][]uint64{2: msgFlagVals}},
	{nr: nrRecvmsg, name: "recvmsg", weight: 6, args: []argKind{kSock, kMsg, kConst}, consts: [6][]uint64{2: msgFlagVals}},
	{nr: nrReadv, name: "readv", weight: 5, args: []argKind{kSock, kIov, kConst}, consts: [6][]uint64{2: iovCounts}},
	{nr: nrWritev, name: "writev", weight: 5, args: []argKind{kSock, kIov, kConst}, consts: [6][]uint64{2: iovCounts}},
}

// The fixtures' ports, for the prepared sockaddrs (0 until they exist).
var listenPort, udpPort atomic.Uint32

// fixtures are the fuzzer's own sockets, by kind, as setup or the last upkeep opened them.
type fixtures struct {
	mu  sync.Mutex
	fds []fixture
}

type fixture struct {
	fd   uintptr
	kind uint32
}

var fix fixtures

// upkeepEvery is how often a worker checks the fixtures and opens a new set for any gone.
const upkeepEvery = 1024

// sys6 makes a system call that may wait for the stack (a round trip: bind, listen, a datagram
// connect, getsockopt): Syscall6 lets the runtime give the P to the stack's goroutines meanwhile.
func sys6(nr uintptr, a ...uintptr) (uintptr, syscall.Errno) {
	var x [6]uintptr
	copy(x[:], a)
	r, _, e := syscall.Syscall6(nr, x[0], x[1], x[2], x[3], x[4], x[5])
	return r, e
}

// sockaddrIn writes a struct sockaddr_in to b.
func sockaddrIn(b []byte, family uint16, ip [4]byte, port uint16) {
	clear(b[:16])
	binary.LittleEndian.PutUint16(b, family)
	binary.BigEndian.PutUint16(b[2:], port)
	copy(b[4:8], ip[:])
}

var loopback = [4]byte{127, 0, 0, 1}

// newSocket opens a non-blocking socket of type typ bound to 127.0.0.1 (port 0: any), or
// returns an error.
func newSocket(typ uintptr) (uintptr, uint16, error) {
	fd, e := sys6(nrSocket, afInet, typ|sockNonblock|sockCloexec, 0)
	if e != 0 {
		return 0, 0, fmt.Errorf("socket: %v", e)
	}
	var sa [16]byte
	sockaddrIn(sa[:], afInet, loopback, 0)
	if _, e := sys6(nrBind, fd, uintptrOf(&sa[0]), 16); e != 0 {
		sys6(nrClose, fd)
		return 0, 0, fmt.Errorf("bind: %v", e)
	}
	var l [4]byte
	binary.LittleEndian.PutUint32(l[:], 16)
	if _, e := sys6(nrGetsockname, fd, uintptrOf(&sa[0]), uintptrOf(&l[0])); e != 0 {
		sys6(nrClose, fd)
		return 0, 0, fmt.Errorf("getsockname: %v", e)
	}
	return fd, binary.BigEndian.Uint16(sa[2:]), nil
}

// openFixtures opens whichever fixtures are missing (all of them at setup) and books them;
// errors are returned for setup to report (upkeep only counts them).
func (f *fuzzer) openFixtures() error {
	fix.mu.Lock()
	defer fix.mu.Unlock()
	have := map[uint32]int{}
	live := fix.fds[:0]
	for _, x := range fix.fds {
		if k := f.created[x.fd].Load(); k == x.kind || x.kind == fdListen && k == fdTCP {
			have[x.kind]++
			live = append(live, x)
		}
	}
	fix.fds = live
	add := func(fd uintptr, kind uint32) {
		f.book(uint64(fd), kind)
		fix.fds = append(fix.fds, fixture{fd, kind})
	}
	if have[fdListen] == 0 {
		fd, port, err := newSocket(sockStream)
		if err != nil {
			return err
		}
		if _, e := sys6(nrListen, fd, 64); e != 0 {
			sys6(nrClose, fd)
			return fmt.Errorf("listen: %v", e)
		}
		listenPort.Store(uint32(port))
		add(fd, fdListen)
		have[fdListen]++
	}
	if have[fdTCP] < 2 {
		if err := f.openPair(add); err != nil {
			return err
		}
	}
	if have[fdUDP] < 2 {
		a, pa, err := newSocket(sockDgram)
		if err != nil {
			return err
		}
		b, _, err := newSocket(sockDgram)
		if err != nil {
			sys6(nrClose, a)
			return err
		}
		var sa [16]byte
		sockaddrIn(sa[:], afInet, loopback, pa)
		if _, e := sys6(nrConnect, b, uintptrOf(&sa[0]), 16); e != 0 {
			sys6(nrClose, a)
			sys6(nrClose, b)
			return fmt.Errorf("connect udp: %v", e)
		}
		udpPort.Store(uint32(pa))
		add(a, fdUDP)
		add(b, fdUDP)
	}
	return nil
}

// openPair connects a new TCP socket to a listener of its own and accepts it: a connected pair.
func (f *fuzzer) openPair(add func(uintptr, uint32)) error {
	l, port, err := newSocket(sockStream)
	if err != nil {
		return err
	}
	defer sys6(nrClose, l)
	if _, e := sys6(nrListen, l, 1); e != 0 {
		return fmt.Errorf("listen: %v", e)
	}
	c, e := sys6(nrSocket, afInet, sockStream|sockNonblock|sockCloexec, 0)
	if e != 0 {
		return fmt.Errorf("socket: %v", e)
	}
	var st0 syscall.Stat_t
	syscall.Fstat(int(l), &st0)
	lino := st0.Ino
	syscall.Fstat(int(c), &st0)
	cino := st0.Ino
	var sa [16]byte
	sockaddrIn(sa[:], afInet, loopback, port)
	if _, e := sys6(nrConnect, c, uintptrOf(&sa[0]), 16); e != 0 && e != syscall.EINPROGRESS {
		sys6(nrClose, c)
		return fmt.Errorf("connect: %v", e)
	}
	for i := 0; i < 2000; i++ { // up to 2 s for the stack to queue the connection
		s, e := sys6(nrAccept4, l, 0, 0, sockNonblock|sockCloexec)
		if e == 0 {
			add(c, fdTCP)
			add(s, fdTCP)
			return nil
		}
		if e != syscall.EAGAIN {
			break
		}
		sys6(nrNanosleep, uintptrOf(&shortSleep[0]), 0)
	}
	// What became of the two (other workers may have closed or replaced their fds meanwhile).
	var st [2]syscall.Stat_t
	e1, e2 := syscall.Fstat(int(l), &st[0]), syscall.Fstat(int(c), &st[1])
	var v [4]byte
	vl := [4]byte{4}
	_, e3 := sys6(nrGetsockopt, c, 1, 4, uintptrOf(&v[0]), uintptrOf(&vl[0])) // SO_ERROR
	sys6(nrClose, c)
	return fmt.Errorf("the connection to the fixtures' own listener never came (listener %d: ino %#x %v, was %#x; client %d: ino %#x %v, was %#x; SO_ERROR %d %v)",
		l, st[0].Ino, e1, lino, c, st[1].Ino, e2, cino, binary.LittleEndian.Uint32(v[:]), e3)
}

// shortSleep is a struct timespec of 1 ms.
var shortSleep = func() (b [16]byte) {
	binary.LittleEndian.PutUint64(b[8:], 1_000_000)
	return
}()

// upkeep opens a new fixture for any a call has closed. It runs outside the generated calls and
// draws nothing, so the calls stay those of the seed.
func (w *worker) upkeep() {
	if err := w.f.openFixtures(); err != nil {
		if w.f.upkeepErrs.Add(1) == 1 {
			w.f.upkeepErr.Store(err.Error())
		}
	}
}

// netSetup checks that the stack runs and that there is no NIC, names the stack's fds among
// the protected ones, and opens the fixtures.
func (f *fuzzer) netSetup() {
	var cfg [64]byte
	_, _, e := syscall.RawSyscall(nrGmposNet, 1, uintptrOf(&cfg[0]), 64) // OpConfig
	switch {
	case e == 0 || binary.LittleEndian.Uint32(cfg[:])&1 != 0: // CfgNIC
		fmt.Println("sysfuzz: the machine has a NIC: a socket call to a random address would reach the host's network through QEMU. Run with -net none.")
		os.Exit(2)
	case e != syscall.ENODEV:
		fmt.Printf("sysfuzz: gmpos_net(OpConfig): %v (not gmpos?)\n", e)
		os.Exit(2)
	}
	// What fstat says of them: the service file, epoll and eventfd are all anonymous (mode
	// 0600); the NIC file, which -net none leaves out, would be a character device.
	var what []string
	for fd := 3; fd < len(f.protected); fd++ {
		var st syscall.Stat_t
		if !f.protected[fd] || syscall.Fstat(fd, &st) != nil {
			continue
		}
		kind := "anon" // the gmpos_net service file, the runtime's epoll or eventfd
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFCHR:
			kind = "chr"
		case syscall.S_IFSOCK:
			kind = "socket"
		case syscall.S_IFREG:
			kind = "file"
		}
		what = append(what, fmt.Sprintf("%d:%s", fd, kind))
	}
	if err := f.openFixtures(); err != nil {
		fmt.Printf("sysfuzz: cannot open the sockets to fuzz with (is the network stack running?): %v\n", err)
		os.Exit(2)
	}
	var fx []string
	for _, x := range fix.fds {
		fx = append(fx, fmt.Sprintf("%d:%s", x.fd, map[uint32]string{fdTCP: "tcp", fdListen: "listener", fdUDP: "udp"}[x.kind]))
	}
	fmt.Printf("sysfuzz: protected fds before main [%s]; sockets [%s], listener port %d, udp port %d\n",
		strings.Join(what, " "), strings.Join(fx, " "), listenPort.Load(), udpPort.Load())
}

// prepareNet writes the socket calls' prepared structs: the sockaddrs, and what gen drew for
// this call (the iovecs, the msghdr, a length, an option value).
func (w *worker) prepareNet() {
	b := arena[w.id][:]
	sa := func(i int) []byte { return b[offSa+i*saSize : offSa+(i+1)*saSize] }
	lp, up := uint16(listenPort.Load()), uint16(udpPort.Load())
	sockaddrIn(sa(0), afInet, loopback, lp)
	sockaddrIn(sa(1), afInet, loopback, up)
	sockaddrIn(sa(2), afInet, loopback, 0)
	sockaddrIn(sa(3), afInet, [4]byte{}, 0)
	sockaddrIn(sa(4), afInet, loopback, 1) // nobody listens there
	sockaddrIn(sa(5), afInet6, [4]byte{}, lp)
	sockaddrIn(sa(6), afUnspec, loopback, up)
	sockaddrIn(sa(7), afUnspec, [4]byte{}, 0)
	sockaddrIn(sa(8), afInet, [4]byte{10, 0, 2, 2}, 80) // unreachable without a NIC
	sockaddrIn(sa(9), afInet, [4]byte{255, 255, 255, 255}, up)
	sockaddrIn(sa(10), afInet, [4]byte{224, 0, 0, 1}, up)
	for i := 0; i < iovN; i++ {
		binary.LittleEndian.PutUint64(b[offIov+16*i:], w.iov[i][0])
		binary.LittleEndian.PutUint64(b[offIov+16*i+8:], w.iov[i][1])
	}
	for i, v := range w.msg {
		binary.LittleEndian.PutUint64(b[offMsg+8*i:], v)
	}
	clear(b[offName : offName+128])
	binary.LittleEndian.PutUint64(b[offLenp:], w.lenp)
	binary.LittleEndian.PutUint64(b[offOpt:], w.opt)
	binary.LittleEndian.PutUint64(b[offOpt+8:], 0)
	clear(b[offCtl : offCtl+64])
}

// netValue draws an argument of the socket kinds; false if k is not one of them.
func (w *worker) netValue(r *rng, k argKind) (uint64, bool) {
	slot := uint64(w.slot)
	switch k {
	case kSock:
		if r.intn(4) == 0 {
			return w.value(r, kFD, nil), true
		}
		return w.createdFD(r, sockMask), true
	case kListener:
		switch r.intn(4) {
		case 0:
			return w.value(r, kFD, nil), true
		case 1:
			return w.createdFD(r, sockMask), true
		}
		return w.createdFD(r, 1<<fdListen), true
	case kSockaddr:
		if r.intn(4) == 0 {
			return w.value(r, kNull, nil), true
		}
		// Mostly the listener's and the UDP socket's addresses, which connect and send reach.
		i := r.pick([]uint64{0, 0, 0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10})
		return slot + offSa + i*saSize, true
	case kSocklen:
		return r.pick(socklens), true
	case kLenp:
		w.lenp = r.pick(lenpVals)
		if r.intn(4) == 0 {
			return w.pointer(r), true
		}
		return slot + offLenp, true
	case kOptval:
		w.opt = r.pick(optIntValues)
		if r.intn(4) == 0 {
			return w.pointer(r), true
		}
		return slot + offOpt, true
	case kIov:
		w.drawIov(r)
		if r.intn(4) == 0 {
			return w.pointer(r), true
		}
		return slot + offIov, true
	case kMsg:
		w.drawIov(r)
		name := r.pick([]uint64{0, slot + offName, slot + offSa, slot + offSa + saSize, slot + offSa + 5*saSize})
		if r.intn(5) == 0 {
			name = w.pointer(r)
		}
		iov := slot + offIov
		if r.intn(5) == 0 {
			iov = w.pointer(r)
		}
		ctl := r.pick([]uint64{0, 0, slot + offCtl})
		if r.intn(5) == 0 {
			ctl = w.pointer(r)
		}
		w.msg = [7]uint64{name, r.pick(socklens), iov, r.pick(iovCounts), ctl, r.pick(ctlLens), r.pick(msgFlagVals)}
		if r.intn(4) == 0 {
			return w.pointer(r), true
		}
		return slot + offMsg, true
	}
	return 0, false
}

// Values for gmpos_net's OpState: the St bits (netabi), and errors.
var (
	stBits  = []uint64{0, 1, 4, 8, 16, 32, 1 | 16, 4 | 8, 32 | 8, 1 | 4 | 8 | 16, 2, 64, 63, neg(-1)}
	stErrs  = []uint64{0, 104, 111, 32, 110, 1, 4095, 4096, neg(-1)}
	addrLen = []uint64{0, 0, 16, 16, 8, 24, 28, 32, neg(-1)}
)

// netArgs redraws gmpos_net's arguments after the op (a[0]): half the time the Sid (a1) of one
// of the fuzzer's sockets, so that the ops reach live sockets as a hostile stack's would; data
// and address buffers and the state bits where the op takes them.
func (w *worker) netArgs(r *rng, a *[6]uint64) {
	if r.intn(2) == 0 {
		fd := w.createdFD(r, sockMask)
		a[1] = w.f.sids[fd%uint64(len(w.f.sids))].Load()
		if r.intn(8) == 0 {
			a[1] += 1 << 12 // the same slot, another generation: stale
		}
	}
	switch a[0] {
	case 6, 7: // OpPush (a2/a3 data, a4/a5 source), OpPull (a2/a3 buffer, a4 address buffer)
		a[2] = w.pointer(r)
		if r.intn(2) == 0 {
			a[2] = uint64(w.slot) + offOut
		}
		a[3] = uint64(r.intn(3000))
		if r.intn(4) == 0 {
			a[3] = w.value(r, kLen, nil)
		}
		a[4] = uint64(w.slot) + offSa + uint64(r.intn(saN))*saSize
		if r.intn(4) == 0 {
			a[4] = w.pointer(r)
		}
		a[5] = r.pick(addrLen)
	case 8: // OpState: set, clear, the error
		a[2], a[3], a[4] = r.pick(stBits), r.pick(stBits), r.pick(stErrs)
	case 10: // OpSetAddr: local, peer
		a[2] = uint64(w.slot) + offSa + uint64(r.intn(saN))*saSize
		a[3] = r.pick(addrLen)
		a[4] = uint64(w.slot) + offSa + uint64(r.intn(saN))*saSize
		a[5] = r.pick(addrLen)
	}
}

// drawIov draws the prepared iovecs: buffers of every kind, lengths of every kind.
func (w *worker) drawIov(r *rng) {
	for i := range w.iov {
		base := w.pointer(r)
		if r.intn(3) == 0 {
			base = uint64(w.slot) + offOut + uint64(r.intn(512))
		}
		l := w.value(r, kLen, nil)
		if r.intn(2) == 0 {
			l = uint64(r.intn(2048))
		}
		w.iov[i] = [2]uint64{base, l}
	}
}

// inSlot reports whether [p, p+n) lies in the worker's arena slot, where the fuzzer may read it.
func (w *worker) inSlot(p, n uint64) bool {
	s := uint64(w.slot)
	return p >= s && n <= slotSize && p+n <= s+slotSize && p+n >= p
}

func (w *worker) slotU64(p uint64) uint64 {
	return binary.LittleEndian.Uint64(arena[w.id][p-uint64(w.slot):])
}

// iovRule vets the buffers a readv or recvmsg writes through the iovecs at iov (cnt entries):
// "" if they are all the fuzzer's (or the call must fail), else why not. The fuzzer can read
// the iovecs only in its own slot; an array elsewhere is vetted only if no kernel can read it.
func (w *worker) iovRule(iov, cnt uint64) string {
	if cnt == 0 || cnt > 1024 {
		return "" // nothing to write, or EINVAL/EMSGSIZE
	}
	f := w.f
	if f.unreadable(iov, mul(16, cnt)) {
		return "" // EFAULT
	}
	if !w.inSlot(iov, mul(16, cnt)) {
		return "writes through iovecs the fuzzer cannot vet"
	}
	for i := uint64(0); i < cnt; i++ {
		if int64(w.slotU64(iov+16*i+8)) < 0 {
			return "" // EINVAL before anything moves
		}
	}
	for i := uint64(0); i < cnt; i++ {
		base, l := w.slotU64(iov+16*i), w.slotU64(iov+16*i+8)
		l = min(l, 0x7ffff000) // MAX_RW_COUNT
		if !w.writeOK(base, l) {
			return "would write to memory that is not the fuzzer's (an iovec)"
		}
		// gmpos reads the iovecs after the 8th again as it fills them: one filled first must not
		// be able to redirect them.
		if cnt > 8 && l > 0 && base < iov+16*cnt && base+l > iov {
			return "an iovec over the iovec array, past the 8 gmpos reads once"
		}
	}
	return ""
}

// recvmsgRule vets recvmsg's msghdr at msg: what it points to and what the kernel writes back.
func (w *worker) recvmsgRule(msg, flags uint64) string {
	f := w.f
	if uint32(flags)&msgCmsgCompat != 0 || f.unreadable(msg, 56) {
		return "" // EINVAL, EFAULT
	}
	if !w.inSlot(msg, 56) {
		return "writes through a msghdr the fuzzer cannot vet"
	}
	name, namelen := w.slotU64(msg), uint64(uint32(w.slotU64(msg+8)))
	iov, iovlen := w.slotU64(msg+16), w.slotU64(msg+24)
	ctl, ctlLen := w.slotU64(msg+32), w.slotU64(msg+40)
	if name != 0 && int32(namelen) < 0 || iovlen > 1024 {
		return "" // EINVAL, EMSGSIZE
	}
	if why := w.iovRule(iov, iovlen); why != "" {
		return why
	}
	if name != 0 && !w.writeOK(name, min(namelen, 128)) {
		return "would write to memory that is not the fuzzer's (msg_name)"
	}
	if ctl != 0 && ctlLen > 0 && !w.writeOK(ctl, ctlLen) {
		return "would write to memory that is not the fuzzer's (msg_control)"
	}
	return ""
}

// sockRule keeps the fuzzer's sockets non-blocking (see the top of this file) and the stack
// alive; "" to make the call.
func (w *worker) sockRule(nr uint64, a *[6]uint64) string {
	f := w.f
	kind := func(i int) uint32 {
		if fd := uint32(a[i]); fd < uint32(len(f.created)) {
			return f.created[fd].Load()
		}
		return 0
	}
	switch nr {
	case nrSocket, nrSocketpair:
		// Linux's order: the flags (EINVAL), the family's range (EAFNOSUPPORT), the type's
		// range (EINVAL): those fail whatever the family. Any other may make a socket.
		t, d := uint32(a[1]), int32(a[0])
		if t&^(0xf|sockNonblock|sockCloexec) != 0 || d < 0 || d >= 46 || t&0xf >= 11 || t&sockNonblock != 0 {
			return ""
		}
		return "creates a blocking socket (its reads may wait forever, as on Linux)"
	case nrAccept, nrAccept4:
		if nr == nrAccept4 && (uint32(a[3])&^(sockNonblock|sockCloexec) != 0 || uint32(a[3])&sockNonblock != 0) {
			return ""
		}
		if k := kind(0); k == fdTCP || k == fdListen {
			return "accepts a blocking socket (its reads may wait forever, as on Linux)"
		}
		return ""
	case nrReadv:
		if uint32(a[0]) < uint32(len(f.protected)) && f.protected[uint32(a[0])] {
			return "reads the console or a runtime or network-stack fd"
		}
		return w.iovRule(a[1], uint64(uint32(a[2])))
	case nrRecvmsg:
		return w.recvmsgRule(a[1], a[2])
	case nrGmposNet:
		switch a[0] { // the kernel compares all 64 bits of the op
		case 4: // OpEvents: takes the stack's events (its requests would never be answered)
			if a[2] == 0 || f.unwritable(a[1], eventSize) {
				return ""
			}
			return "gmpos_net(OpEvents) would take the network stack's events"
		case 11: // OpAccepted: a connection the stack knows nothing of (its slot never comes back)
			if f.unreadable(a[2], 2*addrBufSize) {
				return ""
			}
			return "gmpos_net(OpAccepted) would queue a connection the stack does not know"
		}
	}
	return ""
}

// sockAfter books the fds a successful socket call made (see after).
func (w *worker) sockAfter(nr uint64, a [6]uint64, r uint64) {
	f := w.f
	if r >= uint64(len(f.created)) {
		return
	}
	switch nr {
	case nrSocket:
		kind := uint32(fdTCP)
		if uint32(a[1])&0xf == sockDgram {
			kind = fdUDP
		}
		w.own(r, kind)
	case nrAccept, nrAccept4:
		// Blocking only if the filter let a race through (another worker's socket, not yet
		// booked): make it non-blocking before anyone reads it.
		if nr == nrAccept || uint32(a[3])&sockNonblock == 0 {
			syscall.RawSyscall(nrFcntl, uintptr(r), syscall.F_SETFL, syscall.O_RDWR|syscall.O_NONBLOCK)
		}
		w.own(r, fdTCP)
	case nrListen:
		f.created[uint32(a[0])].CompareAndSwap(fdTCP, fdListen)
	case nrDup, nrDup2, nrDup3, nrFcntl:
		// A second fd for one of the fuzzer's files is booked as the same kind.
		if nr == nrFcntl && uint32(a[1]) != syscall.F_DUPFD && uint32(a[1]) != syscall.F_DUPFD_CLOEXEC {
			return
		}
		if src := uint32(a[0]); src < uint32(len(f.created)) && uint64(src) != r {
			if k := f.created[src].Load(); k != 0 {
				w.own(r, k)
			}
		}
	}
}

// book records fd as one of the fuzzer's, of the given kind, with its socket id if it is a socket
// (gmpos's fstat says it in st_ino).
func (f *fuzzer) book(fd uint64, kind uint32) {
	if kind >= fdTCP {
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) == nil {
			f.sids[fd].Store(st.Ino)
		}
	}
	f.created[fd].Store(kind)
}

// own books fd as the worker's, closing its oldest when it holds many.
func (w *worker) own(fd uint64, kind uint32) {
	w.f.book(fd, kind)
	w.owned = append(w.owned, fd)
	if len(w.owned) > 8 {
		old := w.owned[0]
		w.owned = w.owned[1:]
		if w.f.created[old].Swap(0) != 0 {
			syscall.RawSyscall(nrClose, uintptr(old), 0, 0)
		}
	}
}
