// conformance runs several hundred system calls with bad (and a few good) arguments and prints one
// line per case, "name<TAB>result": the errno name (EINVAL, EFAULT, ...), "ok", or a success value
// that is the same on every machine ("=8", "=fd", "=addr"); a last line "done<TAB>N" says all N
// cases ran. tests/conformance_test.go runs it
// natively on Linux and under gmpos and compares the two outputs case by case, so no result may
// contain an address, a pid, a tid, an fd number or a time.
//
// Every case is safe to run natively as root, which is how the test runs it: signals go only to
// this process, and only signal 0, SIGURG (the Go runtime's own preemption signal, which it
// handles) or an invalid signal number; memory is changed only in a scratch region this program
// maps itself; fds are only ones it opened; no file is created, written or removed; every futex
// wait has a timeout or cannot block; signal dispositions are only queried, or changed on a
// signal nobody sends and restored at once. guard() enforces the signal rules at run time.
//
// Cases are grouped by system call family; the name's prefix before "/" is the family.
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl), spelled out rather than
// taken from package syscall, whose frozen table lacks the newer ones.
const (
	sysRead             = 0
	sysWrite            = 1
	sysOpen             = 2
	sysClose            = 3
	sysStat             = 4
	sysFstat            = 5
	sysLstat            = 6
	sysLseek            = 8
	sysWait4            = 61
	sysWaitid           = 247
	sysMmap             = 9
	sysMprotect         = 10
	sysMunmap           = 11
	sysBrk              = 12
	sysRtSigaction      = 13
	sysRtSigprocmask    = 14
	sysIoctl            = 16
	sysPread64          = 17
	sysAccess           = 21
	sysSchedYield       = 24
	sysMincore          = 27
	sysMadvise          = 28
	sysDup              = 32
	sysDup2             = 33
	sysNanosleep        = 35
	sysGetitimer        = 36
	sysAlarm            = 37
	sysSetitimer        = 38
	sysGetpid           = 39
	sysKill             = 62
	sysUname            = 63
	sysFcntl            = 72
	sysReadlink         = 89
	sysRenameat2        = 316
	sysGettimeofday     = 96
	sysGetrlimit        = 97
	sysGetuid           = 102
	sysGetgid           = 104
	sysGeteuid          = 107
	sysGetegid          = 108
	sysGetppid          = 110
	sysSigaltstack      = 131
	sysPrctl            = 157
	sysArchPrctl        = 158
	sysGettid           = 186
	sysTkill            = 200
	sysTime             = 201
	sysFutex            = 202
	sysSchedGetaffinity = 204
	sysTimerCreate      = 222
	sysTimerSettime     = 223
	sysTimerGettime     = 224
	sysTimerGetoverrun  = 225
	sysTimerDelete      = 226
	sysClockGettime     = 228
	sysClockGetres      = 229
	sysClockNanosleep   = 230
	sysEpollWait        = 232
	sysEpollCtl         = 233
	sysTgkill           = 234
	sysOpenat           = 257
	sysNewfstatat       = 262
	sysReadlinkat       = 267
	sysFaccessat        = 269
	sysEpollPwait       = 281
	sysEventfd2         = 290
	sysEpollCreate1     = 291
	sysDup3             = 292
	sysPrlimit64        = 302
	sysGetrandom        = 318
	sysRseq             = 334
	sysFaccessat2       = 439
)

// Flag and command values (include/uapi/...), for the same reason.
const (
	protRead, protWrite, protExec, protSem = 1, 2, 4, 8
	protGrowsdown, protGrowsup             = 0x01000000, 0x02000000
	mapShared, mapPrivate, mapSharedValid  = 0x01, 0x02, 0x03
	mapFixed, mapAnon, mapGrowsdown        = 0x10, 0x20, 0x0100
	mapFixedNoreplace                      = 0x100000

	oRdwr, oNonblock, oAppend, oCloexec = 2, 0o4000, 0o2000, 0o2000000
	oDirectory, oTmpfileBit             = 0o200000, 0o20000000
	atFdcwd                             = -100
	atSymlinkNofollow, atEmptyPath      = 0x100, 0x1000

	fDupfd, fGetfd, fSetfd, fGetfl, fSetfl = 0, 1, 2, 3, 4
	fGetlk, fGetown, fSetsig, fGetsig      = 5, 9, 10, 11
	fGetownEx, fDupfdCloexec               = 16, 1030
	fGetpipeSz, fGetSeals                  = 1032, 1034

	fionbio, fioclex, fionclex, fioasync = 0x5421, 0x5451, 0x5450, 0x5452
	tcgets, fionread                     = 0x5401, 0x541b

	efdSemaphore, efdNonblock, efdCloexec = 1, 0o4000, 0o2000000

	epollCloexec                          = 0o2000000
	epollCtlAdd, epollCtlDel, epollCtlMod = 1, 2, 3
	epollIn, epollOut                     = 0x1, 0x4
	epollExclusive, epollOneshot          = 1 << 28, 1 << 30
	epollET                               = 1 << 31

	futexWait, futexWake, futexRequeue, futexCmpRequeue = 0, 1, 3, 4
	futexWakeOp, futexUnlockPI, futexTrylockPI          = 5, 7, 8
	futexWaitBitset, futexWakeBitset                    = 9, 10
	futexPrivate, futexClockRealtime                    = 128, 256

	clockRealtime, clockMonotonic, clockProcessCPU, clockThreadCPU = 0, 1, 2, 3
	clockMonotonicRaw, clockRealtimeCoarse, clockMonotonicCoarse   = 4, 5, 6
	clockBoottime, clockTAI                                        = 7, 11
	timerAbstime                                                   = 1
	itimerReal, itimerVirtual, itimerProf                          = 0, 1, 2
	sigevSignal, sigevNone, sigevThread, sigevThreadID             = 0, 1, 2, 4

	sigKill, sigUsr2, sigStop, sigUrg  = 9, 12, 19, 23
	sigSpare                           = 52 // SIGRTMIN+18: nobody sends it, so its disposition may change for a moment
	saRestorer                         = 0x04000000
	ssOnstack, ssDisable, ssAutodisarm = 1, 2, 1 << 31

	archSetGS, archGetFS, archGetGS    = 0x1001, 0x1003, 0x1004
	archGetCPUID                       = 0x1011
	archGetXcompSupp, archGetXcompPerm = 0x1021, 0x1022

	prSetPdeathsig, prGetPdeathsig, prGetDumpable, prSetDumpable = 1, 2, 3, 4
	prGetUnalign, prGetKeepcaps, prGetFpemu, prGetFpexc          = 5, 7, 9, 11
	prGetTiming, prSetName, prGetName, prGetEndian               = 13, 15, 16, 19
	prGetSeccomp, prCapbsetRead, prGetTSC, prGetTimerslack       = 21, 23, 25, 30
	prMceKillGet, prGetChildSubreaper, prGetNoNewPrivs           = 34, 37, 39
	prGetTHPDisable, prSetVMA                                    = 42, 0x53564d41

	rlimitStack, rlimitNofile, rlimitAS = 3, 7, 9

	grndNonblock, grndRandom, grndInsecure = 1, 2, 4

	madvNormal, madvRandom, madvSequential, madvWillneed, madvDontneed = 0, 1, 2, 3, 4
	madvFree, madvRemove, madvDontfork, madvDofork                     = 8, 9, 10, 11
	madvHugepage, madvNohugepage, madvDontdump, madvDodump             = 14, 15, 16, 17
	madvWipeonfork, madvKeeponfork, madvCold, madvPageout              = 18, 19, 20, 21
	madvPopulateRead, madvPopulateWrite, madvDontneedLocked            = 22, 23, 24
)

// Addresses that must never be dereferenced.
const (
	unmapped = uintptr(0xdead0000)         // canonical user address, never mapped
	kernel   = uintptr(0xffff800000000000) // kernel half
	noncanon = uintptr(1) << 63            // non-canonical
	hi       = uintptr(1) << 32            // OR-ed into an int argument: Linux uses only the low 32 bits
	neg1     = ^uintptr(0)                 // -1
	unusedFD = 200                         // an fd number nothing opens (gmpos has 256 slots)
	noPid    = 0x3ffffff0                  // above PID_MAX_LIMIT: no such process or thread
)

// The scratch region: every buffer a case passes lives here, never on the Go stack or heap (which
// can move or be reused), and every mm case changes only these pages.
const (
	pg      = 4096
	pgBuf   = 0  // output buffers
	pgArg   = 1  // input structs handed out by slot()
	pgStr   = 2  // strings
	pgRO    = 3  // read-only: output arguments here must fault; inputs read fine
	pgNone  = 4  // PROT_NONE
	pgEdge  = 5  // read-write, followed by the hole: buffers straddling into unmapped memory
	pgHole  = 6  // unmapped
	pgMM    = 7  // 7..14: pages for mprotect, madvise, munmap, mincore
	pgHole2 = 15 // unmapped
	pgWords = 16 // futex words
	pgLong  = 17 // 17..18: a path longer than PATH_MAX
	nPages  = 19
)

var (
	mem      []byte
	base     uintptr
	pid, tid uintptr
	efd      uintptr // a non-blocking eventfd for the read/write cases; drained between them
	epfd     uintptr // an epoll instance that is not the runtime's
	argNext  int
	seen     = map[string]bool{}
	ncases   int
)

func at(page, off int) uintptr { return base + uintptr(page*pg+off) }

// edge returns a buffer whose first n bytes are mapped and the rest is the hole.
func edge(n int) uintptr { return at(pgHole, 0) - uintptr(n) }

func put64(a uintptr, v uint64) { binary.LittleEndian.PutUint64(mem[a-base:], v) }
func put32(a uintptr, v uint32) { binary.LittleEndian.PutUint32(mem[a-base:], v) }
func get64(a uintptr) uint64    { return binary.LittleEndian.Uint64(mem[a-base:]) }
func get32(a uintptr) uint32    { return binary.LittleEndian.Uint32(mem[a-base:]) }
func putStr(a uintptr, s string) {
	copy(mem[a-base:], s)
	mem[a-base+uintptr(len(s))] = 0
}
func getStr(a uintptr) string {
	b := mem[a-base:]
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// slot returns 64 zeroed bytes of argument space, a different slot each call.
func slot() uintptr {
	a := at(pgArg, argNext*64)
	argNext = (argNext + 1) % (pg / 64)
	clear(mem[a-base : a-base+64])
	return a
}

func timespec(sec, nsec int64) uintptr {
	a := slot()
	put64(a, uint64(sec))
	put64(a+8, uint64(nsec))
	return a
}

// obuf returns the output buffer, zeroed.
func obuf() uintptr {
	a := at(pgBuf, 0)
	clear(mem[a-base : a-base+pg])
	return a
}

func neg(n int64) uintptr { return uintptr(n) }

func sys(nr uintptr, a ...uintptr) (uintptr, syscall.Errno) {
	var x [6]uintptr
	copy(x[:], a)
	r, _, e := syscall.Syscall6(nr, x[0], x[1], x[2], x[3], x[4], x[5])
	return r, e
}

// quiet runs cases that block for a moment (a sleep, a 1 ms futex or epoll wait) with SIGURG
// blocked on this thread. The Go runtime sends SIGURG to preempt a goroutine that has run for
// 10 ms (sysmon) or that the GC must stop, and decides on a state it read a moment earlier: the
// signal may land in the system call the goroutine has entered since, and a blocking call then
// ends with EINTR — on Linux as on gmpos (CI saw futex/WAIT,val=1<<32|0,timeout answer EINTR
// once in hundreds of runs). Blocked, the signal waits for the old mask and the goroutine is
// preempted at its next function call instead. No case in these groups passes a signal mask of
// its own, which could let the blocked signal through in the middle of a case.
func quiet(cases func()) {
	set, old := slot(), slot()
	put64(set, 1<<(sigUrg-1))
	if _, e := sys(sysRtSigprocmask, 0 /* SIG_BLOCK */, set, old, 8); e != 0 {
		fail("block SIGURG: " + ename(e))
	}
	mask := get64(old) // slots are reused: the cases may overwrite this one
	cases()
	restore := slot()
	put64(restore, mask)
	if _, e := sys(sysRtSigprocmask, 2 /* SIG_SETMASK */, restore, 0, 8); e != 0 {
		fail("restore the signal mask: " + ename(e))
	}
}

// p prints one case.
func p(name, result string) {
	if seen[name] {
		fail("duplicate case name " + name)
	}
	seen[name] = true
	ncases++
	fmt.Printf("%s\t%s\n", name, result)
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "conformance:", msg)
	os.Exit(1)
}

var errnoNames = map[syscall.Errno]string{
	syscall.EPERM: "EPERM", syscall.ENOENT: "ENOENT", syscall.ESRCH: "ESRCH", syscall.EINTR: "EINTR",
	syscall.EIO: "EIO", syscall.ENXIO: "ENXIO", syscall.E2BIG: "E2BIG", syscall.EBADF: "EBADF",
	syscall.ECHILD: "ECHILD", syscall.EAGAIN: "EAGAIN", syscall.ENOMEM: "ENOMEM", syscall.EACCES: "EACCES",
	syscall.EFAULT: "EFAULT", syscall.EBUSY: "EBUSY", syscall.EEXIST: "EEXIST", syscall.EXDEV: "EXDEV",
	syscall.ENODEV: "ENODEV", syscall.ENOTDIR: "ENOTDIR", syscall.EISDIR: "EISDIR", syscall.EINVAL: "EINVAL",
	syscall.ENFILE: "ENFILE", syscall.EMFILE: "EMFILE", syscall.ENOTTY: "ENOTTY", syscall.EFBIG: "EFBIG",
	syscall.ENOSPC: "ENOSPC", syscall.ESPIPE: "ESPIPE", syscall.EROFS: "EROFS", syscall.ERANGE: "ERANGE",
	syscall.EDEADLK: "EDEADLK", syscall.ENAMETOOLONG: "ENAMETOOLONG", syscall.ENOSYS: "ENOSYS",
	syscall.ELOOP: "ELOOP", syscall.EOVERFLOW: "EOVERFLOW", syscall.EOPNOTSUPP: "EOPNOTSUPP",
	syscall.ETIMEDOUT: "ETIMEDOUT", syscall.EBADFD: "EBADFD",
	syscall.ENOTSOCK: "ENOTSOCK", syscall.EDESTADDRREQ: "EDESTADDRREQ", syscall.EMSGSIZE: "EMSGSIZE",
	syscall.EPROTOTYPE: "EPROTOTYPE", syscall.ENOPROTOOPT: "ENOPROTOOPT", syscall.EPROTONOSUPPORT: "EPROTONOSUPPORT",
	syscall.ESOCKTNOSUPPORT: "ESOCKTNOSUPPORT", syscall.EAFNOSUPPORT: "EAFNOSUPPORT", syscall.EADDRINUSE: "EADDRINUSE",
	syscall.EADDRNOTAVAIL: "EADDRNOTAVAIL", syscall.ENETUNREACH: "ENETUNREACH", syscall.ECONNABORTED: "ECONNABORTED",
	syscall.ECONNRESET: "ECONNRESET", syscall.ENOBUFS: "ENOBUFS", syscall.EISCONN: "EISCONN", syscall.ENOTCONN: "ENOTCONN",
	syscall.ECONNREFUSED: "ECONNREFUSED", syscall.EALREADY: "EALREADY", syscall.EINPROGRESS: "EINPROGRESS",
	syscall.EPIPE: "EPIPE", syscall.EPROTO: "EPROTO",
}

func ename(e syscall.Errno) string {
	if s, ok := errnoNames[e]; ok {
		return s
	}
	return "errno" + strconv.Itoa(int(e))
}

// num reports the result as a signed number, or the errno.
func num(r uintptr, e syscall.Errno) string {
	if e != 0 {
		return ename(e)
	}
	return "=" + strconv.FormatInt(int64(r), 10)
}

// ok reports success without its value (which differs between machines), or the errno.
func ok(_ uintptr, e syscall.Errno) string {
	if e != 0 {
		return ename(e)
	}
	return "ok"
}

// fdOut reports a new fd as "=fd" and closes it.
func fdOut(r uintptr, e syscall.Errno) string {
	if e != 0 {
		return ename(e)
	}
	sys(sysClose, r)
	return "=fd"
}

// addrOut reports a new mapping of n bytes as "=addr" and unmaps it.
func addrOut(n uintptr) func(uintptr, syscall.Errno) string {
	return func(r uintptr, e syscall.Errno) string {
		if e != 0 {
			return ename(e)
		}
		if r == 0 || r%pg != 0 {
			return "=odd-address"
		}
		sys(sysMunmap, r, n)
		return "=addr"
	}
}

func mustFD(r uintptr, e syscall.Errno) uintptr {
	if e != 0 {
		fail("setup: " + ename(e))
	}
	return r
}

func newEventfd(flags uintptr) uintptr { return mustFD(sys(sysEventfd2, 0, flags)) }

// closedFD returns an fd number that was open a moment ago.
func closedFD() uintptr {
	fd := newEventfd(efdNonblock)
	sys(sysClose, fd)
	return fd
}

func efdAdd(fd uintptr, v uint64) {
	a := slot()
	put64(a, v)
	if _, e := sys(sysWrite, fd, a, 8); e != 0 {
		fail("eventfd write: " + ename(e))
	}
}

func drain(fd uintptr) { sys(sysRead, fd, slot(), 8) }

// evRead reads an eventfd and reports the count it returned.
func evRead(fd, n uintptr) string {
	b := obuf()
	r, e := sys(sysRead, fd, b, n)
	if e != 0 {
		return ename(e)
	}
	return fmt.Sprintf("=%d v=%d", r, get64(b))
}

// guard refuses, before the call, any signal that could hurt another process or this one: only
// signal 0, SIGURG to this process, or a number that is not a signal at all.
func guard(target, sig uintptr) {
	s := int32(sig)
	if s == 0 || s < 0 || s > 64 {
		return
	}
	if s == sigUrg && (uint32(target) == uint32(pid) || uint32(target) == uint32(tid)) {
		return
	}
	fail(fmt.Sprintf("unsafe signal %d to %d", s, int32(target)))
}

func kill(target, sig uintptr) (uintptr, syscall.Errno) {
	guard(target, sig)
	return sys(sysKill, target, sig)
}

func tgkill(tg, t, sig uintptr) (uintptr, syscall.Errno) {
	guard(tg, sig)
	guard(t, sig)
	return sys(sysTgkill, tg, t, sig)
}

func tkill(t, sig uintptr) (uintptr, syscall.Errno) {
	guard(t, sig)
	return sys(sysTkill, t, sig)
}

// The main goroutine stays on the main thread, so gettid() == getpid() and every per-thread state
// a case touches (signal mask, alternate stack) is the one it restores.
func init() { runtime.LockOSThread() }

func main() {
	setup()
	readCases()
	writeCases()
	closeCases()
	fstatCases()
	lseekCases()
	ioctlCases()
	fcntlCases()
	dupCases()
	fsCases()
	treeCases()
	mmapCases()
	munmapCases()
	mprotectCases()
	madviseCases()
	mincoreCases()
	brkCases()
	sigactionCases()
	sigprocmaskCases()
	sigaltstackCases()
	killCases()
	clockGettimeCases()
	clockGetresCases()
	quiet(sleepCases)
	timerCreateCases()
	timerCases()
	itimerCases()
	timeofdayCases()
	quiet(futexCases)
	idCases()
	affinityCases()
	archPrctlCases()
	prctlCases()
	rlimitCases()
	unameCases()
	getrandomCases()
	eventfdCases()
	epollCases()
	miscCases()
	waitCases()
	socketCases()
	bindCases()
	connectCases()
	listenCases()
	acceptCases()
	sockNameCases()
	setsockoptCases()
	getsockoptCases()
	shutdownCases()
	sendCases()
	epollOutCases()
	recvCases()
	sendmsgCases()
	recvmsgCases()
	iovCases()
	fmt.Printf("done\t%d\n", ncases)
}

func setup() {
	// The Go runtime opens its netpoll fds (an epoll instance and an eventfd) with its first
	// timer. Do that now, so that no fd number chosen below is taken over later.
	time.Sleep(time.Millisecond)
	b, err := syscall.Mmap(-1, 0, nPages*pg, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		fail("mmap scratch: " + err.Error())
	}
	mem, base = b, uintptr(unsafe.Pointer(&b[0]))
	pid, _ = sys(sysGetpid)
	tid, _ = sys(sysGettid)

	// Read-only fixtures, written before the page is made read-only.
	put64(at(pgRO, 0), 5)                      // an eventfd increment
	put64(at(pgRO, 16), 0)                     // timespec {0, 1}
	put64(at(pgRO, 24), 1)                     //
	putStr(at(pgRO, 64), "/nonexistent-gmpos") // a path
	put32(at(pgRO, 128), epollIn)              // struct epoll_event {EPOLLIN, 0x1234}
	put64(at(pgRO, 132), 0x1234)               //
	put32(at(pgRO, 256), 7)                    // a futex word holding 7
	// 512..1023 stay zero: an empty sigset, a SIG_DFL sigaction.
	for _, c := range []struct {
		page int
		prot uintptr
	}{{pgRO, protRead}, {pgNone, 0}} {
		if _, e := sys(sysMprotect, at(c.page, 0), pg, c.prot); e != 0 {
			fail("mprotect scratch: " + ename(e))
		}
	}
	for _, page := range []int{pgHole, pgHole2} {
		if _, e := sys(sysMunmap, at(page, 0), pg); e != 0 {
			fail("munmap scratch: " + ename(e))
		}
	}
	long := mem[at(pgLong, 0)-base : at(pgLong, 0)-base+5001]
	long[0] = '/'
	for i := 1; i < 5000; i++ {
		long[i] = 'a'
	}
	long[5000] = 0
	efd = newEventfd(efdNonblock | efdCloexec)
	epfd = mustFD(sys(sysEpollCreate1, epollCloexec))
}

// read: fd validity (Linux takes the fd as unsigned int), then the buffer range (access_ok), then
// what the file does (eventfd: at least 8 bytes, EAGAIN when empty, copy after consuming).
func readCases() {
	b := at(pgBuf, 0)
	p("read/fd=-1", num(sys(sysRead, neg1, b, 8)))
	p("read/fd=unused", num(sys(sysRead, unusedFD, b, 8)))
	p("read/fd=closed", num(sys(sysRead, closedFD(), b, 8)))
	p("read/fd=1<<31", num(sys(sysRead, 1<<31, b, 8)))
	p("read/fd=1<<32|0,len=0", num(sys(sysRead, hi|0, b, 0)))
	p("read/fd=0,len=0", num(sys(sysRead, 0, b, 0)))
	p("read/fd=2(write-only),len=0", num(sys(sysRead, 2, b, 0)))
	p("read/fd=-1,buf=kernel", num(sys(sysRead, neg1, kernel, 8)))
	p("read/eventfd,len=0", num(sys(sysRead, efd, b, 0)))
	p("read/eventfd,len=4", num(sys(sysRead, efd, b, 4)))
	p("read/eventfd,empty", num(sys(sysRead, efd, b, 8)))
	efdAdd(efd, 3)
	p("read/eventfd,len=16", evRead(efd, 16))
	p("read/eventfd,empty,buf=NULL", num(sys(sysRead, efd, 0, 8)))
	p("read/eventfd,empty,buf=kernel", num(sys(sysRead, efd, kernel, 8)))
	p("read/eventfd,empty,buf=non-canonical", num(sys(sysRead, efd, noncanon, 8)))
	p("read/eventfd,empty,len=1<<63", num(sys(sysRead, efd, b, 1<<63)))
	p("read/eventfd,len=4,buf=unmapped", num(sys(sysRead, efd, unmapped, 4)))
	p("read/eventfd,len=4,buf=kernel", num(sys(sysRead, efd, kernel, 4)))
	efdAdd(efd, 1)
	p("read/eventfd,buf=read-only", num(sys(sysRead, efd, at(pgRO, 0), 8)))
	// Linux resets the counter before copying it out: a failed copy loses the count.
	p("read/eventfd,after-EFAULT", evRead(efd, 8))
	drain(efd)
	efdAdd(efd, 1)
	p("read/eventfd,buf=PROT_NONE", num(sys(sysRead, efd, at(pgNone, 0), 8)))
	drain(efd)
	efdAdd(efd, 1)
	p("read/eventfd,buf=straddles-hole", num(sys(sysRead, efd, edge(4), 8)))
	drain(efd)
	efdAdd(efd, 1)
	p("read/eventfd,buf=unmapped", num(sys(sysRead, efd, unmapped, 8)))
	drain(efd)
	efdAdd(efd, 2)
	p("read/fd=1<<32|eventfd", evRead(hi|efd, 8))
	drain(efd)
	p("read/epoll", num(sys(sysRead, epfd, b, 8)))
	p("read/epoll,buf=kernel", num(sys(sysRead, epfd, kernel, 8)))
}

// write: the same order as read; fd 2 is a pipe natively and the console under gmpos, both
// write-only, and the cases write nothing to it.
func writeCases() {
	b := slot()
	put64(b, 1)
	p("write/fd=-1", num(sys(sysWrite, neg1, b, 8)))
	p("write/fd=unused", num(sys(sysWrite, unusedFD, b, 8)))
	p("write/fd=closed", num(sys(sysWrite, closedFD(), b, 8)))
	p("write/fd=0(read-only),len=0", num(sys(sysWrite, 0, b, 0)))
	p("write/fd=2,len=0", num(sys(sysWrite, 2, b, 0)))
	p("write/fd=1<<32|2,len=0", num(sys(sysWrite, hi|2, b, 0)))
	p("write/fd=2,buf=NULL,len=0", num(sys(sysWrite, 2, 0, 0)))
	p("write/fd=2,buf=NULL", num(sys(sysWrite, 2, 0, 1)))
	p("write/fd=2,buf=unmapped", num(sys(sysWrite, 2, unmapped, 1)))
	p("write/fd=2,buf=kernel", num(sys(sysWrite, 2, kernel, 1)))
	p("write/fd=2,buf=non-canonical", num(sys(sysWrite, 2, noncanon, 1)))
	p("write/fd=2,len=1<<63", num(sys(sysWrite, 2, b, 1<<63)))
	p("write/fd=2,buf=straddles-hole", num(sys(sysWrite, 2, edge(4), 8)))
	p("write/fd=2,buf=PROT_NONE", num(sys(sysWrite, 2, at(pgNone, 0), 8)))
	p("write/eventfd", num(sys(sysWrite, efd, b, 8)))
	p("write/eventfd,len=4", num(sys(sysWrite, efd, b, 4)))
	drain(efd)
	max := slot()
	put64(max, ^uint64(0))
	p("write/eventfd,value=2^64-1", num(sys(sysWrite, efd, max, 8)))
	put64(max, ^uint64(0)-1)
	p("write/eventfd,value=2^64-2", num(sys(sysWrite, efd, max, 8)))
	p("write/eventfd,overflow", num(sys(sysWrite, efd, b, 8)))
	drain(efd)
	p("write/eventfd,buf=NULL", num(sys(sysWrite, efd, 0, 8)))
	p("write/eventfd,buf=unmapped", num(sys(sysWrite, efd, unmapped, 8)))
	p("write/eventfd,buf=kernel,len=4", num(sys(sysWrite, efd, kernel, 4)))
	p("write/eventfd,len=1<<63", num(sys(sysWrite, efd, b, 1<<63)))
	drain(efd)
	p("write/eventfd,buf=read-only", num(sys(sysWrite, efd, at(pgRO, 0), 8)))
	p("write/eventfd,buf=read-only,count", evRead(efd, 8))
	p("write/eventfd,buf=straddles-hole", num(sys(sysWrite, efd, edge(4), 8)))
	p("write/fd=1<<32|eventfd", num(sys(sysWrite, hi|efd, b, 8)))
	drain(efd)
	p("write/epoll", num(sys(sysWrite, epfd, b, 8)))
}

// close: the fd is an unsigned int on Linux.
func closeCases() {
	p("close/fd=-1", num(sys(sysClose, neg1)))
	p("close/fd=unused", num(sys(sysClose, unusedFD)))
	p("close/fd=1<<31", num(sys(sysClose, 1<<31)))
	p("close/fd=closed", num(sys(sysClose, closedFD())))
	p("close/eventfd", num(sys(sysClose, newEventfd(efdNonblock))))
	p("close/epoll", num(sys(sysClose, mustFD(sys(sysEpollCreate1, 0)))))
	fd := newEventfd(efdNonblock)
	p("close/fd=1<<32|eventfd", num(sys(sysClose, hi|fd)))
	sys(sysClose, fd) // whichever way the case went
}

// fstat: fd first, then the output buffer.
func fstatCases() {
	st := obuf()
	p("fstat/fd=-1", num(sys(sysFstat, neg1, st)))
	p("fstat/fd=unused", num(sys(sysFstat, unusedFD, st)))
	p("fstat/fd=-1,buf=NULL", num(sys(sysFstat, neg1, 0)))
	p("fstat/eventfd", num(sys(sysFstat, efd, st)))
	p("fstat/epoll", num(sys(sysFstat, epfd, st)))
	p("fstat/fd=2", num(sys(sysFstat, 2, st)))
	p("fstat/fd=1<<32|2", num(sys(sysFstat, hi|2, st)))
	p("fstat/buf=NULL", num(sys(sysFstat, efd, 0)))
	p("fstat/buf=unmapped", num(sys(sysFstat, efd, unmapped)))
	p("fstat/buf=kernel", num(sys(sysFstat, efd, kernel)))
	p("fstat/buf=read-only", num(sys(sysFstat, efd, at(pgRO, 0))))
	p("fstat/buf=straddles-hole", num(sys(sysFstat, efd, edge(64))))
}

// lseek and pread64: unseekable files say ESPIPE, but anonymous inodes (eventfd, epoll) have
// noop_llseek; pread64 checks the position before the fd.
func lseekCases() {
	p("lseek/fd=-1", num(sys(sysLseek, neg1, 0, 0)))
	p("lseek/fd=unused", num(sys(sysLseek, unusedFD, 0, 0)))
	p("lseek/fd=-1,whence=99", num(sys(sysLseek, neg1, 0, 99)))
	p("lseek/fd=2(pipe-or-console)", num(sys(sysLseek, 2, 0, 0)))
	p("lseek/fd=1<<32|2", num(sys(sysLseek, hi|2, 0, 0)))
	p("lseek/eventfd", num(sys(sysLseek, efd, 0, 0)))
	p("lseek/eventfd,whence=99", num(sys(sysLseek, efd, 0, 99)))
	p("lseek/eventfd,whence=1<<32|SEEK_CUR", num(sys(sysLseek, efd, 0, hi|1)))
	p("lseek/epoll", num(sys(sysLseek, epfd, 0, 0)))

	b := obuf()
	p("pread64/fd=-1", num(sys(sysPread64, neg1, b, 8, 0)))
	p("pread64/fd=unused", num(sys(sysPread64, unusedFD, b, 8, 0)))
	p("pread64/eventfd", num(sys(sysPread64, efd, b, 8, 0)))
	p("pread64/fd=2", num(sys(sysPread64, 2, b, 8, 0)))
	p("pread64/eventfd,pos=-1", num(sys(sysPread64, efd, b, 8, neg1)))
	p("pread64/fd=-1,pos=-1", num(sys(sysPread64, neg1, b, 8, neg1)))
	p("pread64/fd=1<<32|eventfd", num(sys(sysPread64, hi|efd, b, 8, 0)))
}

// ioctl: the generic commands (FIOCLEX, FIONCLEX, FIONBIO, FIOASYNC) work on every file
// (fs/ioctl.c do_vfs_ioctl); anything else is the file's business, ENOTTY here.
func ioctlCases() {
	fd := newEventfd(efdNonblock)
	one := slot()
	put32(one, 1)
	zero := slot()
	p("ioctl/fd=-1,FIOCLEX", num(sys(sysIoctl, neg1, fioclex)))
	p("ioctl/fd=unused,TCGETS", num(sys(sysIoctl, unusedFD, tcgets, obuf())))
	p("ioctl/fd=-1,cmd=0xdead", num(sys(sysIoctl, neg1, 0xdead)))
	p("ioctl/eventfd,FIOCLEX", num(sys(sysIoctl, fd, fioclex)))
	p("ioctl/eventfd,FIOCLEX,then-F_GETFD", num(sys(sysFcntl, fd, fGetfd)))
	p("ioctl/eventfd,FIONCLEX", num(sys(sysIoctl, fd, fionclex)))
	p("ioctl/eventfd,FIONCLEX,then-F_GETFD", num(sys(sysFcntl, fd, fGetfd)))
	p("ioctl/eventfd,FIONBIO", num(sys(sysIoctl, fd, fionbio, one)))
	p("ioctl/eventfd,FIONBIO,arg=NULL", num(sys(sysIoctl, fd, fionbio, 0)))
	p("ioctl/eventfd,FIONBIO,arg=kernel", num(sys(sysIoctl, fd, fionbio, kernel)))
	p("ioctl/eventfd,FIOASYNC(0)", num(sys(sysIoctl, fd, fioasync, zero)))
	p("ioctl/eventfd,FIOASYNC,arg=NULL", num(sys(sysIoctl, fd, fioasync, 0)))
	p("ioctl/eventfd,TCGETS", num(sys(sysIoctl, fd, tcgets, obuf())))
	p("ioctl/eventfd,FIONREAD", num(sys(sysIoctl, fd, fionread, obuf())))
	p("ioctl/eventfd,cmd=0xdead", num(sys(sysIoctl, fd, 0xdead)))
	p("ioctl/eventfd,cmd=1<<32|FIOCLEX", num(sys(sysIoctl, fd, hi|fioclex)))
	p("ioctl/fd=1<<32|eventfd,FIOCLEX", num(sys(sysIoctl, hi|fd, fioclex)))
	p("ioctl/epoll,FIOCLEX", num(sys(sysIoctl, epfd, fioclex)))
	p("ioctl/fd=2,TCGETS", num(sys(sysIoctl, 2, tcgets, obuf())))
	sys(sysClose, fd)
}

// fcntl: fd first (unsigned int), then the command (unsigned int); F_DUPFD and the
// descriptor-flag commands keep real state.
func fcntlCases() {
	cx := newEventfd(efdNonblock | efdCloexec)
	fd := newEventfd(efdNonblock)
	p("fcntl/fd=-1,F_GETFD", num(sys(sysFcntl, neg1, fGetfd)))
	p("fcntl/fd=unused,F_GETFL", num(sys(sysFcntl, unusedFD, fGetfl)))
	p("fcntl/fd=-1,cmd=99", num(sys(sysFcntl, neg1, 99)))
	p("fcntl/eventfd-cloexec,F_GETFD", num(sys(sysFcntl, cx, fGetfd)))
	p("fcntl/eventfd,F_GETFD", num(sys(sysFcntl, fd, fGetfd)))
	sys(sysFcntl, fd, fSetfd, 1)
	p("fcntl/eventfd,F_SETFD(1),then-F_GETFD", num(sys(sysFcntl, fd, fGetfd)))
	sys(sysFcntl, fd, fSetfd, 0)
	p("fcntl/eventfd,F_SETFD(0),then-F_GETFD", num(sys(sysFcntl, fd, fGetfd)))
	sys(sysFcntl, fd, fSetfd, 0xff)
	p("fcntl/eventfd,F_SETFD(0xff),then-F_GETFD", num(sys(sysFcntl, fd, fGetfd)))
	p("fcntl/eventfd,F_GETFL", num(sys(sysFcntl, fd, fGetfl)))
	p("fcntl/epoll,F_GETFL", num(sys(sysFcntl, epfd, fGetfl)))
	p("fcntl/fd=2,F_GETFL", num(sys(sysFcntl, 2, fGetfl)))
	p("fcntl/eventfd,cmd=99", num(sys(sysFcntl, fd, 99)))
	p("fcntl/eventfd,cmd=1<<32|F_GETFL", num(sys(sysFcntl, fd, hi|fGetfl)))
	p("fcntl/fd=1<<32|eventfd,F_GETFL", num(sys(sysFcntl, hi|fd, fGetfl)))
	p("fcntl/eventfd,F_DUPFD(0)", fdOut(sys(sysFcntl, fd, fDupfd, 0)))
	r, e := sys(sysFcntl, fd, fDupfd, 100)
	switch {
	case e != 0:
		p("fcntl/eventfd,F_DUPFD(100)", ename(e))
	case r >= 100:
		sys(sysClose, r)
		p("fcntl/eventfd,F_DUPFD(100)", "=fd>=100")
	default:
		sys(sysClose, r)
		p("fcntl/eventfd,F_DUPFD(100)", "=fd<100")
	}
	p("fcntl/eventfd,F_DUPFD(-1)", fdOut(sys(sysFcntl, fd, fDupfd, neg1)))
	p("fcntl/eventfd,F_DUPFD(1<<31)", fdOut(sys(sysFcntl, fd, fDupfd, 1<<31)))
	if r, e := sys(sysFcntl, fd, fDupfdCloexec, 0); e != 0 {
		p("fcntl/eventfd,F_DUPFD_CLOEXEC,then-F_GETFD", ename(e))
	} else {
		p("fcntl/eventfd,F_DUPFD_CLOEXEC,then-F_GETFD", num(sys(sysFcntl, r, fGetfd)))
		sys(sysClose, r)
	}
	p("fcntl/eventfd,F_GETOWN", num(sys(sysFcntl, fd, fGetown)))
	p("fcntl/eventfd,F_GETSIG", num(sys(sysFcntl, fd, fGetsig)))
	p("fcntl/eventfd,F_SETSIG(65)", num(sys(sysFcntl, fd, fSetsig, 65)))
	p("fcntl/eventfd,F_SETSIG(0)", num(sys(sysFcntl, fd, fSetsig, 0)))
	p("fcntl/eventfd,F_GETOWN_EX,arg=NULL", num(sys(sysFcntl, fd, fGetownEx, 0)))
	p("fcntl/eventfd,F_GETLK,arg=NULL", num(sys(sysFcntl, fd, fGetlk, 0)))
	p("fcntl/eventfd,F_GET_SEALS", num(sys(sysFcntl, fd, fGetSeals)))
	p("fcntl/eventfd,F_GETPIPE_SZ", num(sys(sysFcntl, fd, fGetpipeSz)))
	sys(sysFcntl, fd, fSetfl, oNonblock|oAppend)
	p("fcntl/eventfd,F_SETFL(O_NONBLOCK|O_APPEND),then-F_GETFL", num(sys(sysFcntl, fd, fGetfl)))
	sys(sysFcntl, fd, fSetfl, 0)
	p("fcntl/eventfd,F_SETFL(0),then-F_GETFL", num(sys(sysFcntl, fd, fGetfl)))
	sys(sysClose, fd)
	sys(sysClose, cx)
}

// dup, dup2, dup3 (fs/file.c): fds are unsigned ints; dup2 onto itself checks the fd; dup3 onto
// itself is EINVAL.
func dupCases() {
	a := newEventfd(efdNonblock)
	p("dup/eventfd", fdOut(sys(sysDup, a)))
	p("dup/fd=-1", fdOut(sys(sysDup, neg1)))
	p("dup/fd=unused", fdOut(sys(sysDup, unusedFD)))
	p("dup/fd=1<<32|eventfd", fdOut(sys(sysDup, hi|a)))
	same := func(want uintptr) func(uintptr, syscall.Errno) string {
		return func(r uintptr, e syscall.Errno) string {
			if e != 0 {
				return ename(e)
			}
			if r == want {
				return "=newfd"
			}
			sys(sysClose, r)
			return "=other-fd"
		}
	}
	p("dup2/oldfd=newfd", same(a)(sys(sysDup2, a, a)))
	p("dup2/oldfd=newfd=unused", same(unusedFD)(sys(sysDup2, unusedFD, unusedFD)))
	p("dup2/oldfd=-1", same(a)(sys(sysDup2, neg1, a)))
	p("dup2/newfd=0x7fffffff", same(0x7fffffff)(sys(sysDup2, a, 0x7fffffff)))
	b := newEventfd(efdNonblock)
	p("dup2/onto-open-fd", same(b)(sys(sysDup2, a, b)))
	sys(sysClose, b)
	p("dup3/oldfd=newfd", same(a)(sys(sysDup3, a, a, 0)))
	b = newEventfd(efdNonblock)
	p("dup3/flags=1", same(b)(sys(sysDup3, a, b, 1)))
	p("dup3/oldfd=-1", same(b)(sys(sysDup3, neg1, b, 0)))
	if r, e := sys(sysDup3, a, b, oCloexec); e != 0 {
		p("dup3/O_CLOEXEC,then-F_GETFD", ename(e))
	} else {
		p("dup3/O_CLOEXEC,then-F_GETFD", num(sys(sysFcntl, r, fGetfd)))
	}
	sys(sysClose, b)
	sys(sysClose, a)
}

// The path system calls' argument checks: Linux validates the arguments first (flags, buffer
// sizes, the dirfd of a relative path, the path's own memory and length), before the lookup.
func fsCases() {
	missing := at(pgStr, 0)
	putStr(missing, "/nonexistent-gmpos")
	rel := at(pgStr, 64)
	putStr(rel, "nonexistent-gmpos")
	empty := at(pgStr, 128)
	putStr(empty, "")
	root := at(pgStr, 192)
	putStr(root, "/")
	nameMax := at(pgStr, 256)
	putStr(nameMax, "/"+strings.Repeat("n", 300))
	long := at(pgLong, 0)
	straddle := edge(4)
	copy(mem[straddle-base:], "/abc") // no NUL before the hole
	st := obuf()

	p("fs/open,missing", fdOut(sys(sysOpen, missing, 0)))
	p("fs/open,path=NULL", fdOut(sys(sysOpen, 0, 0)))
	p("fs/open,path=unmapped", fdOut(sys(sysOpen, unmapped, 0)))
	p("fs/open,path=kernel", fdOut(sys(sysOpen, kernel, 0)))
	p("fs/open,path=empty", fdOut(sys(sysOpen, empty, 0)))
	p("fs/open,path>PATH_MAX", fdOut(sys(sysOpen, long, 0)))
	p("fs/open,name>NAME_MAX", fdOut(sys(sysOpen, nameMax, 0)))
	p("fs/open,path=straddles-hole", fdOut(sys(sysOpen, straddle, 0)))
	p("fs/open,path=read-only", fdOut(sys(sysOpen, at(pgRO, 64), 0)))
	p("fs/open,O_TMPFILE-without-O_DIRECTORY", fdOut(sys(sysOpen, missing, oTmpfileBit|oRdwr)))
	p("fs/open,root", fdOut(sys(sysOpen, root, 0)))
	p("fs/openat,dirfd=-1,relative", fdOut(sys(sysOpenat, neg1, rel, 0)))
	p("fs/openat,dirfd=-1,absolute", fdOut(sys(sysOpenat, neg1, missing, 0)))
	p("fs/openat,dirfd=eventfd,relative", fdOut(sys(sysOpenat, efd, rel, 0)))
	p("fs/openat,AT_FDCWD,missing", fdOut(sys(sysOpenat, neg(atFdcwd), missing, 0)))
	p("fs/openat,AT_FDCWD,path=NULL", fdOut(sys(sysOpenat, neg(atFdcwd), 0, 0)))
	p("fs/stat,missing", num(sys(sysStat, missing, st)))
	p("fs/stat,path=NULL", num(sys(sysStat, 0, st)))
	p("fs/stat,missing,buf=NULL", num(sys(sysStat, missing, 0)))
	p("fs/stat,path>PATH_MAX", num(sys(sysStat, long, st)))
	p("fs/lstat,missing", num(sys(sysLstat, missing, st)))
	p("fs/lstat,path=unmapped", num(sys(sysLstat, unmapped, st)))
	p("fs/newfstatat,AT_FDCWD,missing", num(sys(sysNewfstatat, neg(atFdcwd), missing, st, 0)))
	p("fs/newfstatat,dirfd=-1,relative", num(sys(sysNewfstatat, neg1, rel, st, 0)))
	p("fs/newfstatat,dirfd=unused,relative", num(sys(sysNewfstatat, unusedFD, rel, st, 0)))
	p("fs/newfstatat,flags=1", num(sys(sysNewfstatat, neg(atFdcwd), missing, st, 1)))
	p("fs/newfstatat,eventfd,AT_EMPTY_PATH", num(sys(sysNewfstatat, efd, empty, st, atEmptyPath)))
	p("fs/newfstatat,fd=2,AT_EMPTY_PATH,buf=NULL", num(sys(sysNewfstatat, 2, empty, 0, atEmptyPath)))
	p("fs/newfstatat,fd=-1,AT_EMPTY_PATH", num(sys(sysNewfstatat, neg1, empty, st, atEmptyPath)))
	p("fs/newfstatat,path=NULL", num(sys(sysNewfstatat, neg(atFdcwd), 0, st, 0)))
	p("fs/access,missing", num(sys(sysAccess, missing, 0)))
	p("fs/access,mode=8", num(sys(sysAccess, missing, 8)))
	p("fs/access,path=NULL", num(sys(sysAccess, 0, 0)))
	p("fs/faccessat,dirfd=-1,relative", num(sys(sysFaccessat, neg1, rel, 0)))
	p("fs/faccessat,mode=8", num(sys(sysFaccessat, neg(atFdcwd), missing, 8)))
	p("fs/faccessat2,missing", num(sys(sysFaccessat2, neg(atFdcwd), missing, 0, 0)))
	p("fs/faccessat2,flags=1", num(sys(sysFaccessat2, neg(atFdcwd), missing, 0, 1)))
	p("fs/faccessat2,dirfd=-1,relative", num(sys(sysFaccessat2, neg1, rel, 0, 0)))
	b := obuf()
	p("fs/readlink,missing", num(sys(sysReadlink, missing, b, 64)))
	p("fs/readlink,bufsiz=0", num(sys(sysReadlink, missing, b, 0)))
	p("fs/readlink,bufsiz=-1", num(sys(sysReadlink, missing, b, neg1)))
	p("fs/readlink,path=NULL", num(sys(sysReadlink, 0, b, 64)))
	p("fs/readlinkat,dirfd=-1,relative", num(sys(sysReadlinkat, neg1, rel, b, 64)))
	p("fs/readlinkat,AT_FDCWD,missing", num(sys(sysReadlinkat, neg(atFdcwd), missing, b, 64)))
	p("fs/readlinkat,bufsiz=0", num(sys(sysReadlinkat, neg(atFdcwd), missing, b, 0)))
}

// mmap (mm/mmap.c do_mmap, arch/x86/kernel/sys_x86_64.c): the offset first, then length, type and
// file; prot is not validated; the fd is truncated to unsigned int.
func mmapCases() {
	const rw = protRead | protWrite
	const pa = mapPrivate | mapAnon
	p("mmap/anon", addrOut(pg)(sys(sysMmap, 0, pg, rw, pa, neg1, 0)))
	p("mmap/len=0", addrOut(0)(sys(sysMmap, 0, 0, rw, pa, neg1, 0)))
	p("mmap/len=-1", addrOut(0)(sys(sysMmap, 0, neg1, rw, pa, neg1, 0)))
	p("mmap/len=1<<62", addrOut(0)(sys(sysMmap, 0, 1<<62, rw, pa, neg1, 0)))
	p("mmap/len=1<<47", addrOut(0)(sys(sysMmap, 0, 1<<47, rw, pa, neg1, 0)))
	p("mmap/PROT_NONE,len=1TiB", addrOut(1<<40)(sys(sysMmap, 0, 1<<40, 0, pa|0x4000, neg1, 0))) // MAP_NORESERVE
	p("mmap/prot=0x100", addrOut(pg)(sys(sysMmap, 0, pg, 0x100|protRead, pa, neg1, 0)))
	p("mmap/prot=1<<32|PROT_READ", addrOut(pg)(sys(sysMmap, 0, pg, hi|protRead, pa, neg1, 0)))
	p("mmap/prot=EXEC|WRITE", addrOut(pg)(sys(sysMmap, 0, pg, protExec|rw, pa, neg1, 0)))
	p("mmap/flags=MAP_ANONYMOUS(no-type)", addrOut(pg)(sys(sysMmap, 0, pg, rw, mapAnon, neg1, 0)))
	p("mmap/flags=1<<32|PRIVATE|ANON", addrOut(pg)(sys(sysMmap, 0, pg, rw, hi|pa, neg1, 0)))
	p("mmap/MAP_SHARED|ANON", addrOut(pg)(sys(sysMmap, 0, pg, rw, mapShared|mapAnon, neg1, 0)))
	p("mmap/MAP_SHARED_VALIDATE|ANON", addrOut(pg)(sys(sysMmap, 0, pg, rw, mapSharedValid|mapAnon, neg1, 0)))
	p("mmap/MAP_SHARED|ANON|GROWSDOWN", addrOut(pg)(sys(sysMmap, 0, pg, rw, mapShared|mapAnon|mapGrowsdown, neg1, 0)))
	p("mmap/MAP_GROWSDOWN", addrOut(pg)(sys(sysMmap, 0, pg, rw, pa|mapGrowsdown, neg1, 0)))
	p("mmap/anon,fd=12345", addrOut(pg)(sys(sysMmap, 0, pg, rw, pa, 12345, 0)))
	p("mmap/anon,off=1", addrOut(pg)(sys(sysMmap, 0, pg, rw, pa, neg1, 1)))
	p("mmap/anon,off=1<<40", addrOut(pg)(sys(sysMmap, 0, pg, rw, pa, neg1, 1<<40)))
	p("mmap/file,fd=-1", addrOut(pg)(sys(sysMmap, 0, pg, protRead, mapPrivate, neg1, 0)))
	p("mmap/file,fd=unused", addrOut(pg)(sys(sysMmap, 0, pg, protRead, mapPrivate, unusedFD, 0)))
	p("mmap/file,eventfd", addrOut(pg)(sys(sysMmap, 0, pg, protRead, mapPrivate, efd, 0)))
	p("mmap/file,fd=1<<32|eventfd", addrOut(pg)(sys(sysMmap, 0, pg, protRead, mapPrivate, hi|efd, 0)))
	p("mmap/file,fd=2(write-only)", addrOut(pg)(sys(sysMmap, 0, pg, protRead, mapPrivate, 2, 0)))
	p("mmap/file,off=1", addrOut(pg)(sys(sysMmap, 0, pg, protRead, mapPrivate, efd, 1)))
	p("mmap/hint=kernel", addrOut(pg)(sys(sysMmap, kernel, pg, rw, pa, neg1, 0)))
	p("mmap/hint=non-canonical", addrOut(pg)(sys(sysMmap, noncanon, pg, rw, pa, neg1, 0)))
	// A free hint is taken; an unaligned one is rounded down (arch_get_unmapped_area*).
	hint := func(want uintptr) func(uintptr, syscall.Errno) string {
		return func(r uintptr, e syscall.Errno) string {
			if e != 0 {
				return ename(e)
			}
			sys(sysMunmap, r, pg)
			if r == want {
				return "=hint-page"
			}
			return "=elsewhere"
		}
	}
	hole2 := at(pgHole2, 0)
	p("mmap/hint=free-page", hint(hole2)(sys(sysMmap, hole2, pg, rw, pa, neg1, 0)))
	p("mmap/hint=free-page+1", hint(hole2)(sys(sysMmap, hole2+1, pg, rw, pa, neg1, 0)))
	fixed := func(want uintptr) func(uintptr, syscall.Errno) string {
		return func(r uintptr, e syscall.Errno) string {
			if e != 0 {
				return ename(e)
			}
			if r != want {
				sys(sysMunmap, r, pg)
				return "=elsewhere"
			}
			return "=fixed"
		}
	}
	p("mmap/FIXED,unaligned", fixed(hole2+1)(sys(sysMmap, hole2+1, pg, rw, pa|mapFixed, neg1, 0)))
	p("mmap/FIXED,kernel", fixed(kernel)(sys(sysMmap, kernel, pg, rw, pa|mapFixed, neg1, 0)))
	p("mmap/FIXED,non-canonical", fixed(noncanon)(sys(sysMmap, noncanon, pg, rw, pa|mapFixed, neg1, 0)))
	p("mmap/FIXED,len=-1", fixed(hole2)(sys(sysMmap, hole2, neg1, rw, pa|mapFixed, neg1, 0)))
	p("mmap/FIXED,hole", fixed(hole2)(sys(sysMmap, hole2, pg, rw, pa|mapFixed, neg1, 0)))
	sys(sysMunmap, hole2, pg)
	p("mmap/FIXED_NOREPLACE,hole", fixed(hole2)(sys(sysMmap, hole2, pg, rw, pa|mapFixedNoreplace, neg1, 0)))
	sys(sysMunmap, hole2, pg)
	p("mmap/FIXED_NOREPLACE,occupied", fixed(at(pgMM, 0))(sys(sysMmap, at(pgMM, 0), pg, rw, pa|mapFixedNoreplace, neg1, 0)))
	p("mmap/FIXED_NOREPLACE,partly-occupied", fixed(hole2-pg)(sys(sysMmap, hole2-pg, 2*pg, rw, pa|mapFixedNoreplace, neg1, 0)))
	p("mmap/FIXED,replace", fixed(at(pgMM, 0))(sys(sysMmap, at(pgMM, 0), pg, rw, pa|mapFixed, neg1, 0)))
}

// munmap (mm/vma.c do_vmi_munmap): misaligned, empty or out-of-range → EINVAL; holes are fine.
func munmapCases() {
	const rw, pa = protRead | protWrite, mapPrivate | mapAnon
	p("munmap/unaligned", num(sys(sysMunmap, at(pgMM, 1), pg)))
	p("munmap/len=0", num(sys(sysMunmap, at(pgMM, 0), 0)))
	p("munmap/len=-1", num(sys(sysMunmap, at(pgMM, 0), neg1)))
	p("munmap/len=1<<62", num(sys(sysMunmap, at(pgMM, 0), 1<<62)))
	p("munmap/kernel", num(sys(sysMunmap, kernel, pg)))
	p("munmap/non-canonical", num(sys(sysMunmap, noncanon, pg)))
	p("munmap/hole", num(sys(sysMunmap, at(pgHole, 0), pg)))
	p("munmap/addr=0", num(sys(sysMunmap, 0, pg)))
	if a, e := sys(sysMmap, 0, 3*pg, rw, pa, neg1, 0); e == 0 {
		p("munmap/fresh", num(sys(sysMunmap, a, pg)))
		p("munmap/range-with-hole", num(sys(sysMunmap, a, 3*pg)))
	} else {
		p("munmap/fresh", "setup:"+ename(e))
		p("munmap/range-with-hole", "setup:"+ename(e))
	}
}

// mprotect (mm/mprotect.c do_mprotect_pkey): alignment, then len 0 succeeds before prot is looked
// at, then an overflowing or unmapped range is ENOMEM, prot is an unsigned long.
func mprotectCases() {
	pgA := at(pgMM, 1*pg)
	p("mprotect/unaligned", num(sys(sysMprotect, pgA+1, pg, protRead)))
	p("mprotect/unaligned,len=0", num(sys(sysMprotect, pgA+1, 0, protRead)))
	p("mprotect/len=0", num(sys(sysMprotect, pgA, 0, protRead)))
	p("mprotect/len=0,prot=0x100", num(sys(sysMprotect, pgA, 0, 0x100)))
	p("mprotect/prot=0x100", num(sys(sysMprotect, pgA, pg, 0x100)))
	p("mprotect/prot=1<<32|READ", num(sys(sysMprotect, pgA, pg, hi|protRead)))
	p("mprotect/PROT_SEM", num(sys(sysMprotect, pgA, pg, protRead|protWrite|protSem)))
	p("mprotect/GROWSDOWN|GROWSUP", num(sys(sysMprotect, pgA, pg, protRead|protGrowsdown|protGrowsup)))
	p("mprotect/GROWSDOWN,not-growsdown", num(sys(sysMprotect, pgA, pg, protRead|protGrowsdown)))
	p("mprotect/READ", num(sys(sysMprotect, pgA, pg, protRead)))
	p("mprotect/NONE", num(sys(sysMprotect, pgA, pg, 0)))
	p("mprotect/EXEC", num(sys(sysMprotect, pgA, pg, protExec)))
	p("mprotect/READ|WRITE", num(sys(sysMprotect, pgA, pg, protRead|protWrite)))
	p("mprotect/hole", num(sys(sysMprotect, at(pgHole, 0), pg, protRead)))
	p("mprotect/mapped-then-hole", num(sys(sysMprotect, at(pgEdge, 0), 2*pg, protRead|protWrite)))
	p("mprotect/addr=0", num(sys(sysMprotect, 0, pg, protRead)))
	p("mprotect/kernel", num(sys(sysMprotect, kernel, pg, protRead)))
	p("mprotect/non-canonical", num(sys(sysMprotect, noncanon, pg, protRead)))
	// Linux changes every mapping up to the first gap before it reports ENOMEM: start these on
	// the page before the hole, with the protection it already has.
	p("mprotect/len=-1", num(sys(sysMprotect, at(pgEdge, 0), neg1, protRead|protWrite)))
	p("mprotect/len=1<<62", num(sys(sysMprotect, at(pgEdge, 0), 1<<62, protRead|protWrite)))
	p("mprotect/last-user-page", num(sys(sysMprotect, 0x7ffffffff000, pg, protRead)))
}

// madvise (mm/madvise.c): the advice first, then alignment and length; advisory advice succeeds;
// unmapped parts of the range (including anything outside user space) are ENOMEM. The huge and
// kernel ranges use harmless advice only.
func madviseCases() {
	pgA := at(pgMM, 2*pg)
	advice := []struct {
		name string
		v    uintptr
	}{
		{"NORMAL", madvNormal}, {"RANDOM", madvRandom}, {"SEQUENTIAL", madvSequential},
		{"WILLNEED", madvWillneed}, {"DONTNEED", madvDontneed}, {"FREE", madvFree},
		{"REMOVE", madvRemove}, {"DONTFORK", madvDontfork}, {"DOFORK", madvDofork},
		{"HUGEPAGE", madvHugepage}, {"NOHUGEPAGE", madvNohugepage}, {"DONTDUMP", madvDontdump},
		{"DODUMP", madvDodump}, {"WIPEONFORK", madvWipeonfork}, {"KEEPONFORK", madvKeeponfork},
		{"COLD", madvCold}, {"PAGEOUT", madvPageout}, {"POPULATE_READ", madvPopulateRead},
		{"POPULATE_WRITE", madvPopulateWrite}, {"DONTNEED_LOCKED", madvDontneedLocked},
	}
	for _, a := range advice {
		p("madvise/"+a.name, num(sys(sysMadvise, pgA, pg, a.v)))
	}
	for _, bad := range []uintptr{5, 7, 99} {
		p(fmt.Sprintf("madvise/advice=%d", bad), num(sys(sysMadvise, pgA, pg, bad)))
	}
	p("madvise/advice=-1", num(sys(sysMadvise, pgA, pg, neg1)))
	p("madvise/advice=1<<32|NORMAL", num(sys(sysMadvise, pgA, pg, hi|madvNormal)))
	p("madvise/advice=1<<32|DONTNEED", num(sys(sysMadvise, pgA, pg, hi|madvDontneed)))
	p("madvise/advice=99,unaligned", num(sys(sysMadvise, pgA+1, pg, 99)))
	p("madvise/advice=99,hole", num(sys(sysMadvise, at(pgHole, 0), pg, 99)))
	p("madvise/unaligned", num(sys(sysMadvise, pgA+1, pg, madvNormal)))
	p("madvise/len=0", num(sys(sysMadvise, pgA, 0, madvNormal)))
	p("madvise/len=0,unaligned", num(sys(sysMadvise, pgA+1, 0, madvNormal)))
	p("madvise/len=-1", num(sys(sysMadvise, pgA, neg1, madvNormal)))
	p("madvise/hole", num(sys(sysMadvise, at(pgHole, 0), pg, madvNormal)))
	p("madvise/DONTNEED,hole", num(sys(sysMadvise, at(pgHole, 0), pg, madvDontneed)))
	p("madvise/WILLNEED,hole", num(sys(sysMadvise, at(pgHole, 0), pg, madvWillneed)))
	p("madvise/mapped-then-hole", num(sys(sysMadvise, at(pgEdge, 0), 2*pg, madvNormal)))
	p("madvise/kernel", num(sys(sysMadvise, kernel, pg, madvNormal)))
	p("madvise/kernel,DONTNEED", num(sys(sysMadvise, kernel, pg, madvDontneed)))
	p("madvise/non-canonical", num(sys(sysMadvise, noncanon, pg, madvNormal)))
	p("madvise/kernel,len=1<<40", num(sys(sysMadvise, kernel, 1<<40, madvNormal)))
	p("madvise/POPULATE_READ,read-only", num(sys(sysMadvise, at(pgRO, 0), pg, madvPopulateRead)))
	p("madvise/POPULATE_WRITE,read-only", num(sys(sysMadvise, at(pgRO, 0), pg, madvPopulateWrite)))
	p("madvise/POPULATE_READ,PROT_NONE", num(sys(sysMadvise, at(pgNone, 0), pg, madvPopulateRead)))
	p("madvise/POPULATE_WRITE,hole", num(sys(sysMadvise, at(pgHole, 0), pg, madvPopulateWrite)))
	mem[pgA-base] = 42
	sys(sysMadvise, pgA, pg, madvDontneed)
	p("madvise/DONTNEED,then-read", "="+strconv.Itoa(int(mem[pgA-base])))
}

// mincore (mm/mincore.c): alignment, the range must be user memory (ENOMEM), the vector must be
// writable (EFAULT), every page must be mapped (ENOMEM).
func mincoreCases() {
	pgA := at(pgMM, 3*pg)
	vec := obuf()
	mem[pgA-base] = 1 // resident
	r, e := sys(sysMincore, pgA, pg, vec)
	if e != 0 {
		p("mincore/resident", ename(e))
	} else {
		p("mincore/resident", fmt.Sprintf("=%d vec=%d", r, mem[vec-base]&1))
	}
	sys(sysMadvise, pgA, pg, madvDontneed)
	mem[vec-base] = 0xff
	r, e = sys(sysMincore, pgA, pg, vec)
	if e != 0 {
		p("mincore/after-DONTNEED", ename(e))
	} else {
		p("mincore/after-DONTNEED", fmt.Sprintf("=%d vec=%d", r, mem[vec-base]&1))
	}
	p("mincore/unaligned", num(sys(sysMincore, pgA+1, pg, vec)))
	p("mincore/len=0", num(sys(sysMincore, pgA, 0, vec)))
	p("mincore/hole", num(sys(sysMincore, at(pgHole, 0), pg, vec)))
	p("mincore/mapped-then-hole", num(sys(sysMincore, at(pgEdge, 0), 2*pg, vec)))
	p("mincore/kernel", num(sys(sysMincore, kernel, pg, vec)))
	p("mincore/len=1<<62", num(sys(sysMincore, pgA, 1<<62, vec)))
	p("mincore/vec=NULL", num(sys(sysMincore, pgA, pg, 0)))
	p("mincore/vec=read-only", num(sys(sysMincore, pgA, pg, at(pgRO, 0))))
	p("mincore/vec=kernel", num(sys(sysMincore, pgA, pg, kernel)))
}

// brk (mm/mmap.c): returns the current break, unchanged for a request it refuses.
func brkCases() {
	cur, _ := sys(sysBrk, 0)
	norm := func(r uintptr, e syscall.Errno) string {
		switch {
		case e != 0:
			return ename(e)
		case r == 0:
			return "=0"
		case r == cur:
			return "=current-break"
		}
		return "=other"
	}
	p("brk/0", norm(cur, 0))
	p("brk/1", norm(sys(sysBrk, 1)))
	p("brk/kernel", norm(sys(sysBrk, kernel)))
	p("brk/non-canonical", norm(sys(sysBrk, noncanon)))
}

// sigactionOut describes a struct sigaction read back from the kernel.
func sigactionOut(a uintptr) string {
	h := "handler"
	switch get64(a) {
	case 0:
		h = "SIG_DFL"
	case 1:
		h = "SIG_IGN"
	}
	return fmt.Sprintf("ok %s flags=%#x mask=%#x", h, get64(a+8), get64(a+24))
}

// rt_sigaction (kernel/signal.c): sigsetsize, then the new action is copied in, then the signal
// number is checked, then the old action is copied out (after the new one is installed).
func sigactionCases() {
	q := func(sig uintptr) string {
		o := obuf()
		if _, e := sys(sysRtSigaction, sig, 0, o, 8); e != 0 {
			return ename(e)
		}
		return sigactionOut(o)
	}
	p("rt_sigaction/query,SIGURG", q(sigUrg))
	p("rt_sigaction/query,SIGKILL", q(sigKill))
	p("rt_sigaction/query,0", q(0))
	p("rt_sigaction/query,65", q(65))
	p("rt_sigaction/query,-1", q(neg1))
	p("rt_sigaction/query,1<<32|SIGURG", q(hi|sigUrg))
	p("rt_sigaction/query,NULL-oact", num(sys(sysRtSigaction, sigUrg, 0, 0, 8)))
	o := obuf()
	p("rt_sigaction/sigsetsize=4", num(sys(sysRtSigaction, sigUrg, 0, o, 4)))
	p("rt_sigaction/sigsetsize=16", num(sys(sysRtSigaction, sigUrg, 0, o, 16)))
	p("rt_sigaction/sigsetsize=0", num(sys(sysRtSigaction, sigUrg, 0, o, 0)))
	p("rt_sigaction/oact=unmapped", num(sys(sysRtSigaction, sigUrg, 0, unmapped, 8)))
	p("rt_sigaction/oact=kernel", num(sys(sysRtSigaction, sigUrg, 0, kernel, 8)))
	p("rt_sigaction/oact=read-only", num(sys(sysRtSigaction, sigUrg, 0, at(pgRO, 0), 8)))
	p("rt_sigaction/oact=straddles-hole", num(sys(sysRtSigaction, sigUrg, 0, edge(16), 8)))
	p("rt_sigaction/act=unmapped", num(sys(sysRtSigaction, sigSpare, unmapped, 0, 8)))
	p("rt_sigaction/act=unmapped,sig=0", num(sys(sysRtSigaction, 0, unmapped, 0, 8)))
	p("rt_sigaction/act=unmapped,SIGKILL", num(sys(sysRtSigaction, sigKill, unmapped, 0, 8)))
	p("rt_sigaction/act=unmapped,sigsetsize=4", num(sys(sysRtSigaction, sigSpare, unmapped, 0, 4)))

	// The spare signal's own action, to put back after every case that changes it.
	orig := slot()
	if _, e := sys(sysRtSigaction, sigSpare, 0, orig, 8); e != 0 {
		fail("query spare signal: " + ename(e))
	}
	restore := func() {
		if _, e := sys(sysRtSigaction, sigSpare, orig, 0, 8); e != 0 {
			fail("restore spare signal: " + ename(e))
		}
	}
	p("rt_sigaction/act=SIGKILL", num(sys(sysRtSigaction, sigKill, orig, 0, 8)))
	p("rt_sigaction/act=SIGSTOP", num(sys(sysRtSigaction, sigStop, orig, 0, 8)))
	p("rt_sigaction/act,sig=65", num(sys(sysRtSigaction, 65, orig, 0, 8)))
	p("rt_sigaction/act=same", num(sys(sysRtSigaction, sigSpare, orig, 0, 8)))
	p("rt_sigaction/act=same,oact=unmapped", num(sys(sysRtSigaction, sigSpare, orig, unmapped, 8)))
	restore()
	ign := slot()
	put64(ign, 1) // SIG_IGN
	p("rt_sigaction/act=SIG_IGN", num(sys(sysRtSigaction, sigSpare, ign, 0, 8)))
	p("rt_sigaction/act=SIG_IGN,read-back", q(sigSpare))
	restore()
	p("rt_sigaction/act=read-only(SIG_DFL)", num(sys(sysRtSigaction, sigSpare, at(pgRO, 512), 0, 8)))
	restore()
	full := slot()
	put64(full, 1)
	put64(full+24, ^uint64(0))
	sys(sysRtSigaction, sigSpare, full, 0, 8)
	p("rt_sigaction/mask-all,read-back", q(sigSpare))
	restore()
	noRestorer := slot()
	copy(mem[noRestorer-base:noRestorer-base+32], mem[orig-base:orig-base+32])
	put64(noRestorer+8, get64(orig+8)&^saRestorer)
	put64(noRestorer+16, 0)
	p("rt_sigaction/handler-without-SA_RESTORER", num(sys(sysRtSigaction, sigSpare, noRestorer, 0, 8)))
	restore()
}

// rt_sigprocmask (kernel/signal.c): sigsetsize, then the new set is copied in, then how is
// checked; SIGKILL and SIGSTOP are silently left unblocked.
func sigprocmaskCases() {
	old := slot()
	if _, e := sys(sysRtSigprocmask, 0, 0, old, 8); e != 0 {
		fail("query signal mask: " + ename(e))
	}
	empty := slot()
	o := obuf()
	p("rt_sigprocmask/query", num(sys(sysRtSigprocmask, 0, 0, o, 8)))
	p("rt_sigprocmask/how=3", num(sys(sysRtSigprocmask, 3, empty, 0, 8)))
	p("rt_sigprocmask/how=-1", num(sys(sysRtSigprocmask, neg1, empty, 0, 8)))
	p("rt_sigprocmask/how=3,set=NULL", num(sys(sysRtSigprocmask, 3, 0, o, 8)))
	p("rt_sigprocmask/how=1<<32|SIG_BLOCK", num(sys(sysRtSigprocmask, hi|0, empty, 0, 8)))
	p("rt_sigprocmask/set=unmapped", num(sys(sysRtSigprocmask, 0, unmapped, 0, 8)))
	p("rt_sigprocmask/set=unmapped,how=3", num(sys(sysRtSigprocmask, 3, unmapped, 0, 8)))
	p("rt_sigprocmask/set=read-only", num(sys(sysRtSigprocmask, 0, at(pgRO, 512), 0, 8)))
	p("rt_sigprocmask/oset=unmapped", num(sys(sysRtSigprocmask, 0, 0, unmapped, 8)))
	p("rt_sigprocmask/oset=kernel", num(sys(sysRtSigprocmask, 0, 0, kernel, 8)))
	p("rt_sigprocmask/oset=read-only", num(sys(sysRtSigprocmask, 0, 0, at(pgRO, 0), 8)))
	p("rt_sigprocmask/oset=straddles-hole", num(sys(sysRtSigprocmask, 0, 0, edge(4), 8)))
	p("rt_sigprocmask/sigsetsize=4", num(sys(sysRtSigprocmask, 0, empty, o, 4)))
	p("rt_sigprocmask/sigsetsize=16", num(sys(sysRtSigprocmask, 0, empty, o, 16)))
	p("rt_sigprocmask/sigsetsize=4,no-sets", num(sys(sysRtSigprocmask, 0, 0, 0, 4)))
	p("rt_sigprocmask/SIG_SETMASK,same", num(sys(sysRtSigprocmask, 2, old, 0, 8)))
	set := slot()
	put64(set, 1<<(sigKill-1)|1<<(sigStop-1)|1<<(sigUsr2-1))
	sys(sysRtSigprocmask, 0, set, 0, 8)
	now := obuf()
	sys(sysRtSigprocmask, 0, 0, now, 8)
	m := get64(now)
	p("rt_sigprocmask/block-KILL|STOP|USR2", fmt.Sprintf("kill=%d stop=%d usr2=%d", m>>(sigKill-1)&1, m>>(sigStop-1)&1, m>>(sigUsr2-1)&1))
	if _, e := sys(sysRtSigprocmask, 2, old, 0, 8); e != 0 {
		fail("restore signal mask: " + ename(e))
	}
}

// sigaltstack (kernel/signal.c do_sigaltstack): the new stack is copied in, then on-stack
// (EPERM), mode (EINVAL), no change (0), size (ENOMEM); then the old one is copied out. Every case
// here fails or changes nothing.
func sigaltstackCases() {
	cur := slot()
	if _, e := sys(sysSigaltstack, 0, cur, 0); e != 0 {
		fail("query sigaltstack: " + ename(e))
	}
	p("sigaltstack/query", fmt.Sprintf("flags=%d size=%d", get32(cur+8), get64(cur+16)))
	p("sigaltstack/oss=unmapped", num(sys(sysSigaltstack, 0, unmapped)))
	p("sigaltstack/oss=kernel", num(sys(sysSigaltstack, 0, kernel)))
	p("sigaltstack/oss=read-only", num(sys(sysSigaltstack, 0, at(pgRO, 0))))
	p("sigaltstack/ss=unmapped", num(sys(sysSigaltstack, unmapped, 0)))
	p("sigaltstack/ss=unmapped,oss=unmapped", num(sys(sysSigaltstack, unmapped, unmapped)))
	ss := func(flags uint32, size uint64) uintptr {
		a := slot()
		put64(a, get64(cur))
		put32(a+8, flags)
		put64(a+16, size)
		return a
	}
	p("sigaltstack/flags=4", num(sys(sysSigaltstack, ss(4, 100), 0)))
	p("sigaltstack/flags=4,oss=unmapped", num(sys(sysSigaltstack, ss(4, 100), unmapped)))
	p("sigaltstack/size=100", num(sys(sysSigaltstack, ss(0, 100), 0)))
	p("sigaltstack/size=0", num(sys(sysSigaltstack, ss(0, 0), 0)))
	p("sigaltstack/SS_ONSTACK,size=100", num(sys(sysSigaltstack, ss(ssOnstack, 100), 0)))
	p("sigaltstack/SS_AUTODISARM,size=100", num(sys(sysSigaltstack, ss(ssAutodisarm, 100), 0)))
	p("sigaltstack/same", num(sys(sysSigaltstack, ss(get32(cur+8), get64(cur+16)), 0)))
}

// kill, tgkill, tkill (kernel/signal.c): ids are pid_t and signals int, so only the low 32 bits
// count; tgkill/tkill refuse ids <= 0 with EINVAL before looking anything up; the signal number is
// checked only once a target was found.
func killCases() {
	p("kill/self,0", num(kill(pid, 0)))
	p("kill/self,SIGURG", num(kill(pid, sigUrg)))
	p("kill/self,65", num(kill(pid, 65)))
	p("kill/self,-1", num(kill(pid, neg1)))
	p("kill/self,1<<32|0", num(kill(pid, hi|0)))
	p("kill/self,1<<32|SIGURG", num(kill(pid, hi|sigUrg)))
	p("kill/pid=1<<32|self,0", num(kill(hi|pid, 0)))
	p("kill/pid=0,0", num(kill(0, 0)))
	p("kill/pid=0,65", num(kill(0, 65)))
	p("kill/pid=-1,0", num(kill(neg1, 0)))
	p("kill/pid=-1,65", num(kill(neg1, 65)))
	p("kill/pid=none,0", num(kill(noPid, 0)))
	p("kill/pid=none,65", num(kill(noPid, 65)))
	p("kill/pid=INT_MIN,0", num(kill(neg(-1<<31), 0)))

	p("tgkill/self,0", num(tgkill(pid, tid, 0)))
	p("tgkill/self,SIGURG", num(tgkill(pid, tid, sigUrg)))
	p("tgkill/tgid=0", num(tgkill(0, tid, 0)))
	p("tgkill/tid=0", num(tgkill(pid, 0, 0)))
	p("tgkill/tgid=-1", num(tgkill(neg1, tid, 0)))
	p("tgkill/tid=-1", num(tgkill(pid, neg1, 0)))
	p("tgkill/tgid=0,sig=65", num(tgkill(0, tid, 65)))
	p("tgkill/sig=65", num(tgkill(pid, tid, 65)))
	p("tgkill/sig=-1", num(tgkill(pid, tid, neg1)))
	p("tgkill/sig=1<<32|0", num(tgkill(pid, tid, hi|0)))
	p("tgkill/tid=none", num(tgkill(pid, noPid, 0)))
	p("tgkill/tgid=none", num(tgkill(noPid, tid, 0)))
	p("tgkill/tid=none,sig=65", num(tgkill(pid, noPid, 65)))
	p("tgkill/tgid=1<<32|self", num(tgkill(hi|pid, tid, 0)))
	p("tgkill/tid=1<<32|self", num(tgkill(pid, hi|tid, 0)))

	p("tkill/self,0", num(tkill(tid, 0)))
	p("tkill/self,SIGURG", num(tkill(tid, sigUrg)))
	p("tkill/tid=0", num(tkill(0, 0)))
	p("tkill/tid=-1", num(tkill(neg1, 0)))
	p("tkill/sig=65", num(tkill(tid, 65)))
	p("tkill/tid=none", num(tkill(noPid, 0)))
	p("tkill/tid=none,sig=65", num(tkill(noPid, 65)))
	p("tkill/tid=1<<32|self", num(tkill(hi|tid, 0)))
	p("tkill/sig=1<<32|SIGURG", num(tkill(tid, hi|sigUrg)))
}

// cpuClock builds a dynamic CPU-time clock id (include/linux/posix-timers.h): ~pid << 3 | type,
// type 2 = CPUCLOCK_SCHED, | 4 = per thread. Type 3 without the thread bit is CLOCKFD, a clock
// named by an fd (~fd << 3 | 3); -1 is a per-thread clock of type 3, which is invalid.
func cpuClock(id uintptr, perThread bool, typ int64) uintptr {
	c := (^int64(id))<<3 | typ
	if perThread {
		c |= 4
	}
	return uintptr(c)
}

var clockNames = []struct {
	name string
	id   uintptr
}{
	{"REALTIME", clockRealtime}, {"MONOTONIC", clockMonotonic}, {"PROCESS_CPUTIME", clockProcessCPU},
	{"THREAD_CPUTIME", clockThreadCPU}, {"MONOTONIC_RAW", clockMonotonicRaw},
	{"REALTIME_COARSE", clockRealtimeCoarse}, {"MONOTONIC_COARSE", clockMonotonicCoarse},
	{"BOOTTIME", clockBoottime}, {"TAI", clockTAI},
}

// clock_gettime (kernel/time/posix-timers.c, posix-cpu-timers.c): clockid_t is an int; negative
// ids name other processes' and threads' CPU clocks or a clock fd. The alarm clocks (8, 9) are
// left out: their answer depends on whether the machine has an RTC.
func clockGettimeCases() {
	for _, c := range clockNames {
		p("clock_gettime/"+c.name, ok(sys(sysClockGettime, c.id, obuf())))
	}
	for _, bad := range []uintptr{10, 12, 15, 16, 99, 0x7fffffff} {
		p(fmt.Sprintf("clock_gettime/clock=%d", bad), ok(sys(sysClockGettime, bad, obuf())))
	}
	p("clock_gettime/clock=1<<32|MONOTONIC", ok(sys(sysClockGettime, hi|clockMonotonic, obuf())))
	p("clock_gettime/clock=-1(thread-cpu-clock,bad-type)", ok(sys(sysClockGettime, neg1, obuf())))
	p("clock_gettime/cpu-clock,pid=0", ok(sys(sysClockGettime, cpuClock(0, false, 2), obuf())))
	p("clock_gettime/cpu-clock,pid=self", ok(sys(sysClockGettime, cpuClock(pid, false, 2), obuf())))
	p("clock_gettime/cpu-clock,pid=none", ok(sys(sysClockGettime, cpuClock(noPid, false, 2), obuf())))
	p("clock_gettime/cpu-clock,tid=0", ok(sys(sysClockGettime, cpuClock(0, true, 2), obuf())))
	p("clock_gettime/cpu-clock,tid=self", ok(sys(sysClockGettime, cpuClock(tid, true, 2), obuf())))
	p("clock_gettime/clock-fd,fd=0", ok(sys(sysClockGettime, cpuClock(0, false, 3), obuf())))
	p("clock_gettime/tp=NULL", ok(sys(sysClockGettime, clockMonotonic, 0)))
	p("clock_gettime/tp=unmapped", ok(sys(sysClockGettime, clockMonotonic, unmapped)))
	p("clock_gettime/tp=kernel", ok(sys(sysClockGettime, clockMonotonic, kernel)))
	p("clock_gettime/tp=read-only", ok(sys(sysClockGettime, clockMonotonic, at(pgRO, 0))))
	p("clock_gettime/tp=PROT_NONE", ok(sys(sysClockGettime, clockMonotonic, at(pgNone, 0))))
	p("clock_gettime/tp=straddles-hole", ok(sys(sysClockGettime, clockMonotonic, edge(8))))
	p("clock_gettime/clock=99,tp=NULL", ok(sys(sysClockGettime, 99, 0)))
	p("clock_gettime/TAI,tp=NULL", ok(sys(sysClockGettime, clockTAI, 0)))
	p("clock_gettime/REALTIME,tp=NULL", ok(sys(sysClockGettime, clockRealtime, 0)))
}

// clock_getres: the same clock checks; a NULL result pointer is allowed.
func clockGetresCases() {
	for _, c := range clockNames {
		p("clock_getres/"+c.name, ok(sys(sysClockGetres, c.id, obuf())))
	}
	b := obuf()
	if _, e := sys(sysClockGetres, clockMonotonic, b); e != 0 {
		p("clock_getres/MONOTONIC,value", ename(e))
	} else {
		p("clock_getres/MONOTONIC,value", fmt.Sprintf("%ds%dns", get64(b), get64(b+8)))
	}
	p("clock_getres/res=NULL", ok(sys(sysClockGetres, clockMonotonic, 0)))
	p("clock_getres/clock=99", ok(sys(sysClockGetres, 99, obuf())))
	p("clock_getres/clock=16", ok(sys(sysClockGetres, 16, obuf())))
	p("clock_getres/clock=1<<32|MONOTONIC", ok(sys(sysClockGetres, hi|clockMonotonic, obuf())))
	p("clock_getres/cpu-clock,pid=0", ok(sys(sysClockGetres, cpuClock(0, false, 2), obuf())))
	p("clock_getres/clock=-1(thread-cpu-clock,bad-type)", ok(sys(sysClockGetres, neg1, obuf())))
	p("clock_getres/res=unmapped", ok(sys(sysClockGetres, clockMonotonic, unmapped)))
	p("clock_getres/res=read-only", ok(sys(sysClockGetres, clockMonotonic, at(pgRO, 0))))
	p("clock_getres/clock=99,res=unmapped", ok(sys(sysClockGetres, 99, unmapped)))
}

// nanosleep and clock_nanosleep (kernel/time/hrtimer.c, posix-timers.c): clock first (EINVAL,
// then EOPNOTSUPP for clocks that cannot sleep), then the request is copied (EFAULT) and checked
// (EINVAL). Every sleep here is at most 1 ns or an absolute time in the past.
func sleepCases() {
	p("nanosleep/0", num(sys(sysNanosleep, timespec(0, 0), 0)))
	p("nanosleep/1ns", num(sys(sysNanosleep, timespec(0, 1), 0)))
	p("nanosleep/nsec=1e9", num(sys(sysNanosleep, timespec(0, 1e9), 0)))
	p("nanosleep/nsec=-1", num(sys(sysNanosleep, timespec(0, -1), 0)))
	p("nanosleep/sec=-1", num(sys(sysNanosleep, timespec(-1, 0), 0)))
	p("nanosleep/req=NULL", num(sys(sysNanosleep, 0, 0)))
	p("nanosleep/req=unmapped", num(sys(sysNanosleep, unmapped, 0)))
	p("nanosleep/req=kernel", num(sys(sysNanosleep, kernel, 0)))
	p("nanosleep/req=read-only", num(sys(sysNanosleep, at(pgRO, 16), 0)))
	p("nanosleep/req=straddles-hole", num(sys(sysNanosleep, edge(8), 0)))
	p("nanosleep/rem=unmapped", num(sys(sysNanosleep, timespec(0, 1), unmapped)))
	p("nanosleep/nsec=1e9,rem=unmapped", num(sys(sysNanosleep, timespec(0, 1e9), unmapped)))

	cn := func(clk, flags, req uintptr) string { return num(sys(sysClockNanosleep, clk, flags, req, 0)) }
	for _, c := range clockNames {
		if c.id == clockProcessCPU {
			// A relative sleep on the process CPU clock waits for CPU time to be used.
			p("clock_nanosleep/PROCESS_CPUTIME,abs-past", cn(c.id, timerAbstime, timespec(0, 0)))
			continue
		}
		p("clock_nanosleep/"+c.name, cn(c.id, 0, timespec(0, 1)))
	}
	p("clock_nanosleep/clock=99", cn(99, 0, timespec(0, 1)))
	p("clock_nanosleep/clock=-1(thread-cpu-clock,bad-type)", cn(neg1, 0, timespec(0, 1)))
	p("clock_nanosleep/cpu-clock,pid=0,abs-past", cn(cpuClock(0, false, 2), timerAbstime, timespec(0, 0)))
	p("clock_nanosleep/cpu-clock,tid=0", cn(cpuClock(0, true, 2), timerAbstime, timespec(0, 0)))
	p("clock_nanosleep/clock=1<<32|MONOTONIC", cn(hi|clockMonotonic, 0, timespec(0, 1)))
	p("clock_nanosleep/TIMER_ABSTIME,past", cn(clockMonotonic, timerAbstime, timespec(0, 0)))
	p("clock_nanosleep/REALTIME,TIMER_ABSTIME,past", cn(clockRealtime, timerAbstime, timespec(0, 0)))
	p("clock_nanosleep/flags=1<<32|TIMER_ABSTIME,past", cn(clockMonotonic, hi|timerAbstime, timespec(0, 0)))
	p("clock_nanosleep/flags=2", cn(clockMonotonic, 2, timespec(0, 1)))
	p("clock_nanosleep/req=NULL", cn(clockMonotonic, 0, 0))
	p("clock_nanosleep/req=unmapped", cn(clockMonotonic, 0, unmapped))
	p("clock_nanosleep/req=kernel", cn(clockMonotonic, 0, kernel))
	p("clock_nanosleep/req=read-only", cn(clockMonotonic, 0, at(pgRO, 16)))
	p("clock_nanosleep/req=straddles-hole", cn(clockMonotonic, 0, edge(8)))
	p("clock_nanosleep/nsec=1e9", cn(clockMonotonic, 0, timespec(0, 1e9)))
	p("clock_nanosleep/nsec=-1", cn(clockMonotonic, 0, timespec(0, -1)))
	p("clock_nanosleep/sec=-1", cn(clockMonotonic, 0, timespec(-1, 0)))
	p("clock_nanosleep/TIMER_ABSTIME,nsec=1e9", cn(clockMonotonic, timerAbstime, timespec(0, 1e9)))
	p("clock_nanosleep/clock=99,req=NULL", cn(99, 0, 0))
	p("clock_nanosleep/MONOTONIC_RAW,req=NULL", cn(clockMonotonicRaw, 0, 0))
	p("clock_nanosleep/TAI,req=NULL", cn(clockTAI, 0, 0))
}

// gettimeofday and time (kernel/time/time.c): each pointer may be NULL; each non-NULL one is
// written (the timezone too).
func timeofdayCases() {
	p("gettimeofday/NULL,NULL", num(sys(sysGettimeofday, 0, 0)))
	p("gettimeofday/tv", num(sys(sysGettimeofday, obuf(), 0)))
	p("gettimeofday/tv=unmapped", num(sys(sysGettimeofday, unmapped, 0)))
	p("gettimeofday/tv=kernel", num(sys(sysGettimeofday, kernel, 0)))
	p("gettimeofday/tv=read-only", num(sys(sysGettimeofday, at(pgRO, 0), 0)))
	p("gettimeofday/tv=straddles-hole", num(sys(sysGettimeofday, edge(8), 0)))
	p("gettimeofday/tz", num(sys(sysGettimeofday, 0, obuf())))
	p("gettimeofday/tz=unmapped", num(sys(sysGettimeofday, 0, unmapped)))
	p("gettimeofday/tz=read-only", num(sys(sysGettimeofday, 0, at(pgRO, 0))))
	p("gettimeofday/tv,tz=kernel", num(sys(sysGettimeofday, obuf(), kernel)))

	p("time/NULL", ok(sys(sysTime, 0)))
	p("time/buf", ok(sys(sysTime, obuf())))
	p("time/unmapped", ok(sys(sysTime, unmapped)))
	p("time/kernel", ok(sys(sysTime, kernel)))
	p("time/read-only", ok(sys(sysTime, at(pgRO, 0))))
	p("time/straddles-hole", ok(sys(sysTime, edge(4))))
}

// futex (kernel/futex/syscalls.c, core.c, waitwake.c, requeue.c): the timeout is copied and
// checked before anything else, then the op and its flags, then the address (alignment, then
// access_ok for private futexes or a page lookup for shared ones), then the value. Every wait
// has a timeout of at most 1 ms or cannot block.
func futexCases() {
	w := at(pgWords, 0)
	w2 := at(pgWords, 64)
	put32(w, 0)
	ms := func() uintptr { return timespec(0, 1e6) }
	f := func(addr, op, val, timeout, addr2, val3 uintptr) string {
		return num(sys(sysFutex, addr, op, val, timeout, addr2, val3))
	}
	const wp, wk = futexWait | futexPrivate, futexWake | futexPrivate
	p("futex/WAIT,value-differs", f(w, wp, 1, ms(), 0, 0))
	p("futex/WAIT,timeout", f(w, wp, 0, ms(), 0, 0))
	p("futex/WAIT,shared,timeout", f(w, futexWait, 0, ms(), 0, 0))
	p("futex/WAIT,val=1<<32|0,timeout", f(w, wp, hi|0, ms(), 0, 0))
	p("futex/WAIT,timeout=0", f(w, wp, 0, timespec(0, 0), 0, 0))
	p("futex/WAIT,timeout=0,value-differs", f(w, wp, 1, timespec(0, 0), 0, 0))
	p("futex/WAIT,timeout=NULL,value-differs", f(w, wp, 1, 0, 0, 0))
	p("futex/WAIT,unaligned", f(w+1, wp, 0, ms(), 0, 0))
	p("futex/WAIT,unaligned,timeout=unmapped", f(w+1, wp, 0, unmapped, 0, 0))
	p("futex/WAIT,addr=NULL", f(0, wp, 0, ms(), 0, 0))
	p("futex/WAIT,addr=unmapped", f(unmapped, wp, 0, ms(), 0, 0))
	p("futex/WAIT,addr=kernel", f(kernel, wp, 0, ms(), 0, 0))
	p("futex/WAIT,addr=non-canonical", f(noncanon, wp, 0, ms(), 0, 0))
	p("futex/WAIT,addr=PROT_NONE", f(at(pgNone, 0), wp, 0, ms(), 0, 0))
	p("futex/WAIT,addr=read-only,value-differs", f(at(pgRO, 256), wp, 0, ms(), 0, 0))
	p("futex/WAIT,shared,addr=unmapped", f(unmapped, futexWait, 0, ms(), 0, 0))
	p("futex/WAIT,timeout=unmapped", f(w, wp, 0, unmapped, 0, 0))
	p("futex/WAIT,timeout=kernel", f(w, wp, 0, kernel, 0, 0))
	p("futex/WAIT,timeout.nsec=1e9", f(w, wp, 0, timespec(0, 1e9), 0, 0))
	p("futex/WAIT,timeout.sec=-1", f(w, wp, 0, timespec(-1, 0), 0, 0))
	p("futex/WAIT,timeout.nsec=1e9,value-differs", f(w, wp, 1, timespec(0, 1e9), 0, 0))
	p("futex/WAIT|CLOCK_REALTIME,value-differs", f(w, wp|futexClockRealtime, 1, ms(), 0, 0))
	const wb = futexWaitBitset | futexPrivate
	p("futex/WAIT_BITSET,abs-past", f(w, wb, 0, timespec(0, 0), 0, ^uintptr(0)))
	p("futex/WAIT_BITSET,abs-past,value-differs", f(w, wb, 1, timespec(0, 0), 0, ^uintptr(0)))
	p("futex/WAIT_BITSET|CLOCK_REALTIME,abs-past", f(w, wb|futexClockRealtime, 0, timespec(0, 0), 0, ^uintptr(0)))
	p("futex/WAIT_BITSET,bitset=0", f(w, wb, 0, timespec(0, 0), 0, 0))
	p("futex/WAIT_BITSET,bitset=0,timeout=unmapped", f(w, wb, 0, unmapped, 0, 0))
	p("futex/WAKE", f(w, wk, 1, 0, 0, 0))
	p("futex/WAKE,shared", f(w, futexWake, 1, 0, 0, 0))
	p("futex/WAKE,val=0", f(w, wk, 0, 0, 0, 0))
	p("futex/WAKE,timeout=unmapped(ignored)", f(w, wk, 1, unmapped, 0, 0))
	p("futex/WAKE,unaligned", f(w+2, wk, 1, 0, 0, 0))
	p("futex/WAKE,addr=NULL", f(0, wk, 1, 0, 0, 0))
	p("futex/WAKE,addr=unmapped", f(unmapped, wk, 1, 0, 0, 0))
	p("futex/WAKE,shared,addr=unmapped", f(unmapped, futexWake, 1, 0, 0, 0))
	p("futex/WAKE,addr=kernel", f(kernel, wk, 1, 0, 0, 0))
	p("futex/WAKE,addr=non-canonical", f(noncanon, wk, 1, 0, 0, 0))
	p("futex/WAKE|CLOCK_REALTIME", f(w, wk|futexClockRealtime, 1, 0, 0, 0))
	p("futex/op=1<<32|WAKE", f(w, hi|wk, 1, 0, 0, 0))
	p("futex/WAKE_BITSET", f(w, futexWakeBitset|futexPrivate, 1, 0, 0, ^uintptr(0)))
	p("futex/WAKE_BITSET,bitset=0", f(w, futexWakeBitset|futexPrivate, 1, 0, 0, 0))
	p("futex/op=99", f(w, 99|futexPrivate, 1, 0, 0, 0))
	p("futex/op=-1", f(w, neg1, 1, 0, 0, 0))

	// Requeue and wake-op: no waiters, so they wake (and requeue) nobody. The second count
	// travels in the timeout argument.
	put32(w2, 0)
	p("futex/REQUEUE", f(w, futexRequeue|futexPrivate, 1, 1, w2, 0))
	p("futex/REQUEUE,nr_requeue=-1", f(w, futexRequeue|futexPrivate, 1, neg1, w2, 0))
	p("futex/REQUEUE,uaddr2=unaligned", f(w, futexRequeue|futexPrivate, 1, 1, w2+1, 0))
	p("futex/REQUEUE,uaddr2=kernel", f(w, futexRequeue|futexPrivate, 1, 1, kernel, 0))
	p("futex/CMP_REQUEUE,val3-matches", f(w, futexCmpRequeue|futexPrivate, 1, 1, w2, 0))
	p("futex/CMP_REQUEUE,val3-differs", f(w, futexCmpRequeue|futexPrivate, 1, 1, w2, 5))
	p("futex/CMP_REQUEUE,addr=unmapped", f(unmapped, futexCmpRequeue|futexPrivate, 1, 1, w2, 0))
	wakeOp := func(op, oparg, cmp, cmparg uintptr) uintptr { return op<<28 | cmp<<24 | oparg<<12 | cmparg }
	wo := func(uaddr2, val3 uintptr) string {
		put32(w2, 5)
		r := f(w, futexWakeOp|futexPrivate, 1, 1, uaddr2, val3)
		return fmt.Sprintf("%s w2=%d", r, get32(w2))
	}
	p("futex/WAKE_OP,ADD-1", wo(w2, wakeOp(1, 1, 0, 0)))
	p("futex/WAKE_OP,op=5", wo(w2, wakeOp(5, 1, 0, 0)))
	p("futex/WAKE_OP,cmp=7", wo(w2, wakeOp(0, 1, 7, 0)))
	p("futex/WAKE_OP,uaddr2=unmapped", wo(unmapped, wakeOp(1, 1, 0, 0)))
	p("futex/WAKE_OP,uaddr2=read-only", wo(at(pgRO, 256), wakeOp(1, 1, 0, 0)))
	p("futex/WAKE_OP,uaddr2=unaligned", wo(w2+1, wakeOp(1, 1, 0, 0)))

	// Priority-inheritance futexes, on a word of our own: take it, then give it back.
	put32(w, 0)
	p("futex/TRYLOCK_PI,free", f(w, futexTrylockPI|futexPrivate, 0, 0, 0, 0))
	p("futex/UNLOCK_PI,owner", f(w, futexUnlockPI|futexPrivate, 0, 0, 0, 0))
	put32(w, 0)
}

// Identity and scheduling calls that cannot fail; their values differ between machines except
// where said.
func idCases() {
	p("getpid/", ok(sys(sysGetpid)))
	p("gettid/", ok(sys(sysGettid)))
	t, _ := sys(sysGettid)
	if t == pid {
		p("gettid/main-thread-is-pid", "=pid")
	} else {
		p("gettid/main-thread-is-pid", "=other")
	}
	p("getuid/", ok(sys(sysGetuid)))
	p("geteuid/", ok(sys(sysGeteuid)))
	p("getgid/", ok(sys(sysGetgid)))
	p("getegid/", ok(sys(sysGetegid)))
	if r, e := sys(sysGetppid); e != 0 {
		p("getppid/", ename(e))
	} else if r == 0 {
		p("getppid/", "=0")
	} else {
		p("getppid/", ">0")
	}
	p("sched_yield/", num(sys(sysSchedYield)))
}

// sched_getaffinity (kernel/sched/syscalls.c): the length (an unsigned int) must cover nr_cpu_ids
// bits and be a multiple of 8; then the pid is looked up; the copy is the smaller of the length
// and the kernel's cpumask size, which follows the kernel's NR_CPUS (8 bytes under gmpos, often
// 32 or 1024 natively): any multiple of 8 up to the length is reported as "=cpumask-size".
func affinityCases() {
	a := func(pid, n, mask uintptr) string {
		r, e := sys(sysSchedGetaffinity, pid, n, mask)
		switch {
		case e != 0:
			return ename(e)
		case r >= 8 && r%8 == 0 && r <= uintptr(uint32(n)):
			return "=cpumask-size"
		}
		return num(r, 0)
	}
	m := obuf()
	p("sched_getaffinity/len=8", a(0, 8, m))
	p("sched_getaffinity/len=128", a(0, 128, m))
	p("sched_getaffinity/len=0", a(0, 0, m))
	p("sched_getaffinity/len=4", a(0, 4, m))
	p("sched_getaffinity/len=9", a(0, 9, m))
	p("sched_getaffinity/len=12", a(0, 12, m))
	p("sched_getaffinity/len=1<<32|128", a(0, hi|128, m))
	p("sched_getaffinity/pid=self", a(pid, 128, m))
	p("sched_getaffinity/pid=none", a(noPid, 128, m))
	p("sched_getaffinity/pid=-1", a(neg1, 128, m))
	p("sched_getaffinity/pid=1<<32|0", a(hi|0, 128, m))
	p("sched_getaffinity/mask=NULL", a(0, 128, 0))
	p("sched_getaffinity/mask=read-only", a(0, 128, at(pgRO, 0)))
	p("sched_getaffinity/mask=kernel", a(0, 128, kernel))
	p("sched_getaffinity/mask=4-bytes-before-hole", a(0, 128, edge(4)))
	p("sched_getaffinity/len=0,mask=NULL", a(0, 0, 0))
	p("sched_getaffinity/pid=none,mask=NULL", a(noPid, 128, 0))
}

// arch_prctl (arch/x86/kernel/process_64.c, process.c, fpu/xstate.c): the option is an int.
// ARCH_SET_FS is never called: the Go runtime's TLS lives there.
func archPrctlCases() {
	b := obuf()
	p("arch_prctl/ARCH_GET_FS", num(sys(sysArchPrctl, archGetFS, b)))
	p("arch_prctl/ARCH_GET_FS,NULL", num(sys(sysArchPrctl, archGetFS, 0)))
	p("arch_prctl/ARCH_GET_FS,read-only", num(sys(sysArchPrctl, archGetFS, at(pgRO, 0))))
	p("arch_prctl/ARCH_GET_FS,kernel", num(sys(sysArchPrctl, archGetFS, kernel)))
	p("arch_prctl/option=1<<32|ARCH_GET_FS", num(sys(sysArchPrctl, hi|archGetFS, b)))
	b = obuf()
	put64(b, 0xdead)
	if _, e := sys(sysArchPrctl, archGetGS, b); e != 0 {
		p("arch_prctl/ARCH_GET_GS", ename(e))
	} else {
		p("arch_prctl/ARCH_GET_GS", fmt.Sprintf("=0 gs=%#x", get64(b)))
	}
	p("arch_prctl/ARCH_GET_GS,NULL", num(sys(sysArchPrctl, archGetGS, 0)))
	p("arch_prctl/ARCH_SET_GS,kernel", num(sys(sysArchPrctl, archSetGS, kernel)))
	p("arch_prctl/ARCH_SET_GS,non-canonical", num(sys(sysArchPrctl, archSetGS, noncanon)))
	p("arch_prctl/ARCH_SET_GS,0", num(sys(sysArchPrctl, archSetGS, 0)))
	p("arch_prctl/option=0", num(sys(sysArchPrctl, 0, b)))
	p("arch_prctl/option=0x9999", num(sys(sysArchPrctl, 0x9999, b)))
	p("arch_prctl/option=-1", num(sys(sysArchPrctl, neg1, b)))
	p("arch_prctl/ARCH_GET_CPUID", num(sys(sysArchPrctl, archGetCPUID, 0)))
	p("arch_prctl/ARCH_GET_XCOMP_SUPP", num(sys(sysArchPrctl, archGetXcompSupp, obuf())))
	p("arch_prctl/ARCH_GET_XCOMP_SUPP,NULL", num(sys(sysArchPrctl, archGetXcompSupp, 0)))
	p("arch_prctl/ARCH_GET_XCOMP_PERM", num(sys(sysArchPrctl, archGetXcompPerm, obuf())))
}

// prctl (kernel/sys.c): the option is an int; most PR_GET_* return a value or store an int, and
// several refuse non-zero unused arguments.
func prctlCases() {
	pr := func(opt uintptr, a ...uintptr) (uintptr, syscall.Errno) {
		return sys(sysPrctl, append([]uintptr{opt}, a...)...)
	}
	// getInt reports a PR_GET_* that stores an int at arg2.
	getInt := func(opt uintptr) string {
		b := obuf()
		put32(b, 0xdead)
		r, e := pr(opt, b)
		if e != 0 {
			return ename(e)
		}
		return fmt.Sprintf("=%d v=%d", r, int32(get32(b)))
	}
	p("prctl/option=0", num(pr(0)))
	p("prctl/option=-1", num(pr(neg1)))
	p("prctl/option=9999", num(pr(9999)))
	name := at(pgStr, 1024)
	putStr(name, "conformance")
	p("prctl/PR_SET_NAME", num(pr(prSetName, name)))
	p("prctl/PR_SET_NAME,NULL", num(pr(prSetName, 0)))
	p("prctl/PR_SET_NAME,unmapped", num(pr(prSetName, unmapped)))
	b := obuf()
	if r, e := pr(prGetName, b); e != 0 {
		p("prctl/PR_GET_NAME", ename(e))
	} else {
		p("prctl/PR_GET_NAME", fmt.Sprintf("=%d name=%q", r, getStr(b)))
	}
	p("prctl/PR_GET_NAME,NULL", num(pr(prGetName, 0)))
	p("prctl/PR_GET_NAME,read-only", num(pr(prGetName, at(pgRO, 0))))
	p("prctl/option=1<<32|PR_GET_NAME", num(pr(hi|prGetName, obuf())))
	p("prctl/PR_GET_DUMPABLE", num(pr(prGetDumpable)))
	p("prctl/PR_SET_DUMPABLE(1)", num(pr(prSetDumpable, 1)))
	p("prctl/PR_SET_DUMPABLE(3)", num(pr(prSetDumpable, 3)))
	p("prctl/PR_GET_PDEATHSIG", getInt(prGetPdeathsig))
	p("prctl/PR_GET_PDEATHSIG,NULL", num(pr(prGetPdeathsig, 0)))
	p("prctl/PR_SET_PDEATHSIG(0)", num(pr(prSetPdeathsig, 0)))
	p("prctl/PR_SET_PDEATHSIG(65)", num(pr(prSetPdeathsig, 65)))
	p("prctl/PR_GET_KEEPCAPS", num(pr(prGetKeepcaps)))
	p("prctl/PR_GET_TIMING", num(pr(prGetTiming)))
	p("prctl/PR_GET_TSC", getInt(prGetTSC))
	p("prctl/PR_GET_TSC,NULL", num(pr(prGetTSC, 0)))
	p("prctl/PR_GET_TIMERSLACK", ok(pr(prGetTimerslack)))
	p("prctl/PR_GET_CHILD_SUBREAPER", getInt(prGetChildSubreaper))
	p("prctl/PR_GET_CHILD_SUBREAPER,NULL", num(pr(prGetChildSubreaper, 0)))
	p("prctl/PR_GET_NO_NEW_PRIVS", ok(pr(prGetNoNewPrivs)))
	p("prctl/PR_GET_NO_NEW_PRIVS,arg2=1", num(pr(prGetNoNewPrivs, 1)))
	p("prctl/PR_GET_THP_DISABLE", num(pr(prGetTHPDisable)))
	p("prctl/PR_GET_THP_DISABLE,arg2=1", num(pr(prGetTHPDisable, 1)))
	p("prctl/PR_GET_SECCOMP", ok(pr(prGetSeccomp)))
	p("prctl/PR_MCE_KILL_GET", num(pr(prMceKillGet)))
	p("prctl/PR_MCE_KILL_GET,arg2=1", num(pr(prMceKillGet, 1)))
	p("prctl/PR_GET_ENDIAN", num(pr(prGetEndian, obuf())))
	p("prctl/PR_GET_UNALIGN", num(pr(prGetUnalign, obuf())))
	p("prctl/PR_GET_FPEMU", num(pr(prGetFpemu, obuf())))
	p("prctl/PR_GET_FPEXC", num(pr(prGetFpexc, obuf())))
	p("prctl/PR_CAPBSET_READ(999)", num(pr(prCapbsetRead, 999)))
	p("prctl/PR_SET_VMA,subop=99", num(pr(prSetVMA, 99, at(pgMM, 0), pg, 0)))
}

// prlimit64 and getrlimit (kernel/sys.c): the new limit is copied in first, then the pid (pid_t)
// is looked up, then the resource (unsigned int) is checked, then the old limit copied out.
// Limits are only read, or set to what they already are.
func rlimitCases() {
	pl := func(pid, res, newp, oldp uintptr) string { return ok(sys(sysPrlimit64, pid, res, newp, oldp)) }
	old := obuf()
	p("prlimit64/NOFILE", pl(0, rlimitNofile, 0, old))
	p("prlimit64/STACK", pl(0, rlimitStack, 0, old))
	p("prlimit64/AS", pl(0, rlimitAS, 0, old))
	p("prlimit64/no-new-no-old", pl(0, rlimitNofile, 0, 0))
	p("prlimit64/resource=16", pl(0, 16, 0, old))
	p("prlimit64/resource=-1", pl(0, neg1, 0, old))
	p("prlimit64/resource=1<<32|NOFILE", pl(0, hi|rlimitNofile, 0, old))
	p("prlimit64/pid=self", pl(pid, rlimitNofile, 0, old))
	p("prlimit64/pid=none", pl(noPid, rlimitNofile, 0, old))
	p("prlimit64/pid=-1", pl(neg1, rlimitNofile, 0, old))
	p("prlimit64/pid=1<<32|0", pl(hi|0, rlimitNofile, 0, old))
	p("prlimit64/old=unmapped", pl(0, rlimitNofile, 0, unmapped))
	p("prlimit64/old=kernel", pl(0, rlimitNofile, 0, kernel))
	p("prlimit64/old=read-only", pl(0, rlimitNofile, 0, at(pgRO, 0)))
	p("prlimit64/old=unmapped,resource=16", pl(0, 16, 0, unmapped))
	p("prlimit64/new=unmapped", pl(0, rlimitNofile, unmapped, 0))
	p("prlimit64/new=unmapped,pid=none", pl(noPid, rlimitNofile, unmapped, 0))
	p("prlimit64/new=unmapped,resource=16", pl(0, 16, unmapped, 0))
	cur := slot()
	if _, e := sys(sysPrlimit64, 0, rlimitNofile, 0, cur); e != 0 {
		fail("query RLIMIT_NOFILE: " + ename(e))
	}
	p("prlimit64/new=current", pl(0, rlimitNofile, cur, 0))
	bad := slot()
	put64(bad, get64(cur+8))
	put64(bad+8, get64(cur+8)/2) // soft above hard
	p("prlimit64/new,cur>max", pl(0, rlimitNofile, bad, 0))
	big := slot()
	put64(big, 1<<40)
	put64(big+8, 1<<40) // above fs.nr_open, even for root
	p("prlimit64/NOFILE,max>nr_open", pl(0, rlimitNofile, big, 0))
	p("prlimit64/new=read-only", pl(0, 16, at(pgRO, 0), 0))

	g := func(res, buf uintptr) string { return ok(sys(sysGetrlimit, res, buf)) }
	p("getrlimit/NOFILE", g(rlimitNofile, obuf()))
	p("getrlimit/STACK", g(rlimitStack, obuf()))
	p("getrlimit/resource=16", g(16, obuf()))
	p("getrlimit/resource=1<<32|NOFILE", g(hi|rlimitNofile, obuf()))
	p("getrlimit/buf=NULL", g(rlimitNofile, 0))
	p("getrlimit/buf=unmapped", g(rlimitNofile, unmapped))
	p("getrlimit/buf=read-only", g(rlimitNofile, at(pgRO, 0)))
}

// uname (kernel/sys.c newuname): one copy of the whole struct.
func unameCases() {
	b := obuf()
	if _, e := sys(sysUname, b); e != 0 {
		p("uname/", ename(e))
	} else {
		p("uname/", fmt.Sprintf("=0 %s %s", getStr(b), getStr(b+4*65)))
	}
	p("uname/NULL", num(sys(sysUname, 0)))
	p("uname/unmapped", num(sys(sysUname, unmapped)))
	p("uname/kernel", num(sys(sysUname, kernel)))
	p("uname/read-only", num(sys(sysUname, at(pgRO, 0))))
	p("uname/straddles-hole", num(sys(sysUname, edge(100))))
}

// getrandom (drivers/char/random.c): flags first (unknown bits, or INSECURE with RANDOM), then the
// length is capped at MAX_RW_COUNT and the buffer range checked (access_ok); bytes are copied 64 at
// a time and a fault part-way returns what was copied.
func getrandomCases() {
	g := func(buf, n, flags uintptr) string { return num(sys(sysGetrandom, buf, n, flags)) }
	b := obuf()
	p("getrandom/len=64", g(b, 64, 0))
	p("getrandom/len=0", g(b, 0, 0))
	p("getrandom/buf=NULL,len=0", g(0, 0, 0))
	p("getrandom/buf=NULL", g(0, 8, 0))
	p("getrandom/buf=unmapped", g(unmapped, 8, 0))
	p("getrandom/buf=kernel", g(kernel, 8, 0))
	p("getrandom/buf=read-only", g(at(pgRO, 0), 8, 0))
	p("getrandom/GRND_NONBLOCK", g(b, 64, grndNonblock))
	p("getrandom/GRND_RANDOM", g(b, 64, grndRandom))
	p("getrandom/GRND_INSECURE", g(b, 64, grndInsecure))
	p("getrandom/GRND_NONBLOCK|GRND_RANDOM", g(b, 64, grndNonblock|grndRandom))
	p("getrandom/GRND_INSECURE|GRND_RANDOM", g(b, 64, grndInsecure|grndRandom))
	p("getrandom/flags=8", g(b, 64, 8))
	p("getrandom/flags=-1", g(b, 64, neg1))
	p("getrandom/flags=1<<32", g(b, 64, hi))
	p("getrandom/flags=8,buf=NULL", g(0, 64, 8))
	p("getrandom/128-bytes-before-hole,len=256", g(edge(128), 256, 0))
	p("getrandom/page-before-hole,len=1<<40", g(at(pgEdge, 0), 1<<40, 0))
	p("getrandom/page-before-hole,len=1<<63", g(at(pgEdge, 0), 1<<63, 0))
	p("getrandom/len=1<<63,buf=kernel", g(kernel, 1<<63, 0))
}

// eventfd2 (fs/eventfd.c): flags are an int (EFD_SEMAPHORE, EFD_CLOEXEC, EFD_NONBLOCK), the
// initial value an unsigned int.
func eventfdCases() {
	e2 := func(init, flags uintptr) string { return fdOut(sys(sysEventfd2, init, flags)) }
	p("eventfd2/NONBLOCK", e2(0, efdNonblock))
	p("eventfd2/NONBLOCK|CLOEXEC", e2(0, efdNonblock|efdCloexec))
	p("eventfd2/flags=0", e2(0, 0))
	p("eventfd2/CLOEXEC", e2(0, efdCloexec))
	p("eventfd2/SEMAPHORE|NONBLOCK", e2(0, efdSemaphore|efdNonblock))
	p("eventfd2/flags=0x100", e2(0, 0x100))
	p("eventfd2/flags=-1", e2(0, neg1))
	p("eventfd2/flags=1<<32|NONBLOCK", e2(0, hi|efdNonblock))
	rd := func(init, flags uintptr) string {
		fd, e := sys(sysEventfd2, init, flags)
		if e != 0 {
			return ename(e)
		}
		defer sys(sysClose, fd)
		return evRead(fd, 8)
	}
	p("eventfd2/initval=1<<32|5,read", rd(hi|5, efdNonblock))
	p("eventfd2/initval=0xffffffff,read", rd(0xffffffff, efdNonblock))
	if fd, e := sys(sysEventfd2, 3, efdSemaphore|efdNonblock); e != 0 {
		p("eventfd2/SEMAPHORE,reads", ename(e))
	} else {
		var rs []string
		for i := 0; i < 4; i++ {
			rs = append(rs, evRead(fd, 8))
		}
		sys(sysClose, fd)
		p("eventfd2/SEMAPHORE,reads", strings.Join(rs, ","))
	}
}

// epoll (fs/eventpoll.c): epoll_ctl copies the event before looking at the fds (for every op but
// DEL), then checks epfd, fd, pollability, epfd is an epoll, EPOLLEXCLUSIVE, and the op;
// epoll_wait checks maxevents, then the buffer's range, then epfd; epoll_pwait checks the
// signal mask before all of that.
func epollCases() {
	ev := func(events uint32, data uint64) uintptr {
		a := slot()
		put32(a, events)
		put64(a+4, data)
		return a
	}
	ctl := func(ep, op, fd, e uintptr) string { return num(sys(sysEpollCtl, ep, op, fd, e)) }
	p("epoll_create1/flags=0", fdOut(sys(sysEpollCreate1, 0)))
	p("epoll_create1/EPOLL_CLOEXEC", fdOut(sys(sysEpollCreate1, epollCloexec)))
	p("epoll_create1/flags=1", fdOut(sys(sysEpollCreate1, 1)))
	p("epoll_create1/flags=-1", fdOut(sys(sysEpollCreate1, neg1)))
	p("epoll_create1/flags=1<<32", fdOut(sys(sysEpollCreate1, hi)))
	var eps []uintptr
	var why string
	for len(eps) < 8 {
		fd, e := sys(sysEpollCreate1, epollCloexec)
		if e != 0 {
			why = " " + ename(e)
			break
		}
		eps = append(eps, fd)
	}
	p("epoll_create1/8-more-instances", fmt.Sprintf("=%d%s", len(eps), why))
	for _, fd := range eps {
		sys(sysClose, fd)
	}

	ep := epfd
	x := newEventfd(efdNonblock)
	in := ev(epollIn, 7)
	p("epoll_ctl/ADD", ctl(ep, epollCtlAdd, x, in))
	p("epoll_ctl/ADD,again", ctl(ep, epollCtlAdd, x, in))
	p("epoll_ctl/MOD", ctl(ep, epollCtlMod, x, in))
	p("epoll_ctl/MOD,EPOLLEXCLUSIVE", ctl(ep, epollCtlMod, x, ev(epollIn|epollExclusive, 7)))
	p("epoll_ctl/DEL", ctl(ep, epollCtlDel, x, in))
	p("epoll_ctl/DEL,again", ctl(ep, epollCtlDel, x, in))
	p("epoll_ctl/MOD,not-added", ctl(ep, epollCtlMod, x, in))
	ctl(ep, epollCtlAdd, x, in)
	p("epoll_ctl/DEL,event=NULL", ctl(ep, epollCtlDel, x, 0))
	p("epoll_ctl/ADD,event=NULL", ctl(ep, epollCtlAdd, x, 0))
	p("epoll_ctl/ADD,event=unmapped", ctl(ep, epollCtlAdd, x, unmapped))
	p("epoll_ctl/ADD,event=straddles-hole", ctl(ep, epollCtlAdd, x, edge(4)))
	p("epoll_ctl/ADD,event=read-only", ctl(ep, epollCtlAdd, x, at(pgRO, 128)))
	ctl(ep, epollCtlDel, x, 0)
	p("epoll_ctl/epfd=-1", ctl(neg1, epollCtlAdd, x, in))
	p("epoll_ctl/epfd=unused", ctl(unusedFD, epollCtlAdd, x, in))
	p("epoll_ctl/fd=-1", ctl(ep, epollCtlAdd, neg1, in))
	p("epoll_ctl/fd=closed", ctl(ep, epollCtlAdd, closedFD(), in))
	p("epoll_ctl/epfd=eventfd", ctl(x, epollCtlAdd, efd, in))
	p("epoll_ctl/fd=epfd", ctl(ep, epollCtlAdd, ep, in))
	p("epoll_ctl/op=0", ctl(ep, 0, x, in))
	p("epoll_ctl/op=99", ctl(ep, 99, x, in))
	p("epoll_ctl/op=99,event=NULL", ctl(ep, 99, x, 0))
	p("epoll_ctl/op=99,event=NULL,epfd=-1", ctl(neg1, 99, x, 0))
	p("epoll_ctl/ADD,event=NULL,epfd=-1", ctl(neg1, epollCtlAdd, x, 0))
	p("epoll_ctl/epfd=1<<32|epfd", ctl(hi|ep, epollCtlAdd, x, in))
	ctl(ep, epollCtlDel, x, 0)
	p("epoll_ctl/fd=1<<32|fd", ctl(ep, epollCtlAdd, hi|x, in))
	ctl(ep, epollCtlDel, x, 0)
	p("epoll_ctl/op=1<<32|ADD", ctl(ep, hi|epollCtlAdd, x, in))
	ctl(ep, epollCtlDel, x, 0)
	p("epoll_ctl/ADD,EPOLLEXCLUSIVE", ctl(ep, epollCtlAdd, x, ev(epollIn|epollExclusive, 7)))
	ctl(ep, epollCtlDel, x, 0)
	p("epoll_ctl/ADD,fd=2", ctl(ep, epollCtlAdd, 2, ev(epollOut, 2)))
	ctl(ep, epollCtlDel, 2, 0)
	inner := mustFD(sys(sysEpollCreate1, epollCloexec))
	p("epoll_ctl/ADD,epoll", ctl(ep, epollCtlAdd, inner, in))
	p("epoll_ctl/ADD,epoll,EPOLLEXCLUSIVE", ctl(inner, epollCtlAdd, ep, ev(epollIn|epollExclusive, 7)))
	p("epoll_ctl/ADD,epoll-loop", ctl(inner, epollCtlAdd, ep, in))
	ctl(ep, epollCtlDel, inner, 0)
	sys(sysClose, inner)

	// epoll_wait: x watched for input.
	wt := func(epfd, evs, max, timeout uintptr) string {
		r, e := sys(sysEpollWait, epfd, evs, max, timeout)
		if e != 0 {
			return ename(e)
		}
		if r == 0 || evs < base || evs >= at(nPages, 0) {
			return num(r, 0)
		}
		return fmt.Sprintf("=%d events=%#x data=%d", r, get32(evs), get64(evs+4))
	}
	ctl(ep, epollCtlAdd, x, in)
	out := obuf()
	p("epoll_wait/none-ready", wt(ep, out, 4, 0))
	quiet(func() { p("epoll_wait/none-ready,timeout=1ms", wt(ep, out, 4, 1)) })
	p("epoll_wait/none-ready,events=unmapped", wt(ep, unmapped, 4, 0))
	efdAdd(x, 1)
	p("epoll_wait/ready", wt(ep, obuf(), 4, 0))
	p("epoll_wait/ready,again", wt(ep, obuf(), 4, 0))
	p("epoll_wait/ready,timeout=-1", wt(ep, obuf(), 4, neg1))
	p("epoll_wait/maxevents=0", wt(ep, obuf(), 0, 0))
	p("epoll_wait/maxevents=-1", wt(ep, obuf(), neg1, 0))
	p("epoll_wait/maxevents=1<<32|1", wt(ep, obuf(), hi|1, 0))
	p("epoll_wait/maxevents=100000", wt(ep, obuf(), 100000, 0))
	p("epoll_wait/maxevents=INT_MAX/12+1", wt(ep, obuf(), 0x7fffffff/12+1, 0))
	p("epoll_wait/timeout=1<<32", wt(ep, obuf(), 4, hi))
	p("epoll_wait/events=NULL", wt(ep, 0, 4, 0))
	p("epoll_wait/events=kernel", wt(ep, kernel, 4, 0))
	p("epoll_wait/events=read-only", wt(ep, at(pgRO, 0), 4, 0))
	p("epoll_wait/events=straddles-hole", wt(ep, edge(4), 4, 0))
	p("epoll_wait/epfd=-1", wt(neg1, obuf(), 4, 0))
	p("epoll_wait/epfd=eventfd", wt(x, obuf(), 4, 0))
	p("epoll_wait/epfd=1<<32|epfd", wt(hi|ep, obuf(), 4, 0))

	pw := func(max, mask, size uintptr) string {
		return num(sys(sysEpollPwait, ep, obuf(), max, 0, mask, size))
	}
	mask := slot()
	p("epoll_pwait/ready,sigmask=NULL", pw(4, 0, 8))
	p("epoll_pwait/ready,sigmask", pw(4, mask, 8))
	p("epoll_pwait/sigsetsize=4", pw(4, mask, 4))
	p("epoll_pwait/sigmask=unmapped", pw(4, unmapped, 8))
	p("epoll_pwait/sigmask=NULL,sigsetsize=4", pw(4, 0, 4))
	p("epoll_pwait/sigsetsize=4,maxevents=0", pw(0, mask, 4))
	drain(x)
	ctl(ep, epollCtlDel, x, 0)

	// What the event bits mean: EPOLLOUT (an eventfd is writable), edge-triggered, one-shot.
	ctl(ep, epollCtlAdd, x, ev(epollOut, 8))
	p("epoll_wait/EPOLLOUT", wt(ep, obuf(), 4, 0))
	ctl(ep, epollCtlDel, x, 0)
	ctl(ep, epollCtlAdd, x, ev(epollIn|epollET, 9))
	efdAdd(x, 1)
	p("epoll_wait/EPOLLET,first", wt(ep, obuf(), 4, 0))
	p("epoll_wait/EPOLLET,second", wt(ep, obuf(), 4, 0))
	ctl(ep, epollCtlDel, x, 0)
	ctl(ep, epollCtlAdd, x, ev(epollIn|epollOneshot, 10))
	p("epoll_wait/EPOLLONESHOT,first", wt(ep, obuf(), 4, 0))
	p("epoll_wait/EPOLLONESHOT,second", wt(ep, obuf(), 4, 0))
	p("epoll_ctl/MOD,re-arm-oneshot", ctl(ep, epollCtlMod, x, ev(epollIn|epollOneshot, 11)))
	p("epoll_wait/EPOLLONESHOT,re-armed", wt(ep, obuf(), 4, 0))
	ctl(ep, epollCtlDel, x, 0)
	drain(x)
	sys(sysClose, x)
}

// System call numbers and the calls Go never makes.
// sigevent returns a struct sigevent (64 bytes: sigev_value, sigev_signo, sigev_notify,
// sigev_notify_thread_id) in an argument slot.
func sigevent(notify, signo int32, thread uintptr) uintptr {
	a := slot()
	put64(a, 0x1234)
	put32(a+8, uint32(signo))
	put32(a+12, uint32(notify))
	put32(a+16, uint32(thread))
	return a
}

// timerOut reports timer_create's result as "ok" and deletes the timer it made.
func timerOut(idp uintptr) func(uintptr, syscall.Errno) string {
	return func(_ uintptr, e syscall.Errno) string {
		if e != 0 {
			return ename(e)
		}
		sys(sysTimerDelete, uintptr(get32(idp)))
		return "ok"
	}
}

// timer_create (kernel/time/posix-timers.c do_timer_create, good_sigevent; posix-cpu-timers.c
// posix_cpu_timer_create): the sigevent is read (EFAULT), the clock checked (EINVAL, EOPNOTSUPP
// for clocks without timers), the sigevent checked (EINVAL), the ID written (EFAULT), and last a
// CPU clock's owner (EINVAL). No timer made here is armed, so no signal is ever sent; each is
// deleted at once. The alarm clocks are left out: their answer depends on the machine's RTC.
func timerCreateCases() {
	tc := func(clk, sevp uintptr) string {
		idp := slot()
		return timerOut(idp)(sys(sysTimerCreate, clk, sevp, idp))
	}
	none := func() uintptr { return sigevent(sigevNone, 0, 0) }
	for _, c := range clockNames {
		p("timer_create/"+c.name, tc(c.id, none()))
	}
	for _, bad := range []uintptr{10, 12, 99} {
		p(fmt.Sprintf("timer_create/clock=%d", bad), tc(bad, none()))
	}
	p("timer_create/clock=1<<32|MONOTONIC", tc(hi|clockMonotonic, none()))
	p("timer_create/clock=-1(thread-cpu-clock,bad-type)", tc(neg1, none()))
	p("timer_create/cpu-clock,pid=0", tc(cpuClock(0, false, 2), none()))
	p("timer_create/cpu-clock,pid=self", tc(cpuClock(pid, false, 2), none()))
	p("timer_create/cpu-clock,pid=none", tc(cpuClock(noPid, false, 2), none()))
	p("timer_create/cpu-clock,tid=0", tc(cpuClock(0, true, 2), none()))
	p("timer_create/cpu-clock,tid=self", tc(cpuClock(tid, true, 2), none()))
	p("timer_create/cpu-clock,tid=none", tc(cpuClock(noPid, true, 2), none()))
	p("timer_create/cpu-clock,PROF,pid=0", tc(cpuClock(0, false, 0), none()))
	p("timer_create/cpu-clock,VIRT,tid=0", tc(cpuClock(0, true, 1), none()))
	p("timer_create/clock-fd,fd=0", tc(cpuClock(0, false, 3), none()))

	p("timer_create/sevp=NULL", tc(clockMonotonic, 0))
	p("timer_create/sevp=unmapped", tc(clockMonotonic, unmapped))
	p("timer_create/sevp=kernel", tc(clockMonotonic, kernel))
	p("timer_create/sevp=PROT_NONE", tc(clockMonotonic, at(pgNone, 0)))
	p("timer_create/sevp=straddles-hole", tc(clockMonotonic, edge(32)))
	p("timer_create/sevp=read-only,zero", tc(clockMonotonic, at(pgRO, 512)))
	for _, n := range []int32{sigevSignal, sigevNone, sigevThread, 3, sigevThreadID, 5, 6, 8, -1} {
		p(fmt.Sprintf("timer_create/notify=%d", n), tc(clockMonotonic, sigevent(n, sigUrg, tid)))
	}
	for _, sig := range []int32{0, 1, 64, 65, -1} {
		p(fmt.Sprintf("timer_create/SIGEV_SIGNAL,signo=%d", sig), tc(clockMonotonic, sigevent(sigevSignal, sig, 0)))
	}
	p("timer_create/SIGEV_NONE,signo=65", tc(clockMonotonic, sigevent(sigevNone, 65, 0)))
	p("timer_create/SIGEV_THREAD_ID,tid=self", tc(clockThreadCPU, sigevent(sigevThreadID, sigUrg, tid)))
	p("timer_create/SIGEV_THREAD_ID,tid=0", tc(clockMonotonic, sigevent(sigevThreadID, sigUrg, 0)))
	p("timer_create/SIGEV_THREAD_ID,tid=none", tc(clockMonotonic, sigevent(sigevThreadID, sigUrg, noPid)))
	p("timer_create/SIGEV_THREAD_ID,tid=-1", tc(clockMonotonic, sigevent(sigevThreadID, sigUrg, neg1)))
	p("timer_create/SIGEV_THREAD_ID,signo=0", tc(clockMonotonic, sigevent(sigevThreadID, 0, tid)))

	p("timer_create/id=NULL", ok(sys(sysTimerCreate, clockMonotonic, none(), 0)))
	p("timer_create/id=unmapped", ok(sys(sysTimerCreate, clockMonotonic, none(), unmapped)))
	p("timer_create/id=read-only", ok(sys(sysTimerCreate, clockMonotonic, none(), at(pgRO, 0))))
	p("timer_create/clock=99,id=NULL", ok(sys(sysTimerCreate, 99, none(), 0)))
	p("timer_create/MONOTONIC_RAW,id=NULL", ok(sys(sysTimerCreate, clockMonotonicRaw, none(), 0)))
	p("timer_create/clock=99,sevp=unmapped", ok(sys(sysTimerCreate, 99, unmapped, 0)))
	p("timer_create/notify=3,id=NULL", ok(sys(sysTimerCreate, clockMonotonic, sigevent(3, sigUrg, 0), 0)))
	p("timer_create/clock=-1(thread-cpu-clock,bad-type),id=NULL", ok(sys(sysTimerCreate, neg1, none(), 0)))
	p("timer_create/cpu-clock,pid=none,id=NULL", ok(sys(sysTimerCreate, cpuClock(noPid, false, 2), none(), 0)))
}

// itimerspec returns a struct itimerspec {it_interval, it_value} in an argument slot.
func itimerspec(isec, insec, vsec, vnsec int64) uintptr {
	a := slot()
	put64(a, uint64(isec))
	put64(a+8, uint64(insec))
	put64(a+16, uint64(vsec))
	put64(a+24, uint64(vnsec))
	return a
}

// timer_settime, timer_gettime, timer_getoverrun, timer_delete on a SIGEV_NONE timer (it never
// signals, however it is armed): no new value is EINVAL, then it is read (EFAULT) and checked
// (EINVAL), then the timer is looked up (EINVAL: a timer ID is an int, a negative one names
// nothing), and the old value is written after the timer is set (EFAULT).
func timerCases() {
	idp := slot()
	if _, e := sys(sysTimerCreate, clockMonotonic, sigevent(sigevNone, 0, 0), idp); e != 0 {
		fail("timer_create for the timer cases: " + ename(e))
	}
	id := uintptr(get32(idp))
	const none = 0x3ffffff0 // no such timer
	ts := func(id, flags, newp, oldp uintptr) string { return ok(sys(sysTimerSettime, id, flags, newp, oldp)) }
	hour := func() uintptr { return itimerspec(0, 0, 3600, 0) }
	p("timer_settime/1h", ts(id, 0, hour(), 0))
	p("timer_settime/periodic", ts(id, 0, itimerspec(1, 0, 3600, 0), obuf()))
	p("timer_settime/disarm", ts(id, 0, itimerspec(1, 0, 0, 0), 0))
	p("timer_settime/TIMER_ABSTIME,past", ts(id, timerAbstime, itimerspec(0, 0, 0, 1), 0))
	p("timer_settime/flags=0xff", ts(id, 0xff, hour(), 0))
	p("timer_settime/id=1<<32|id", ts(hi|id, 0, hour(), 0))
	p("timer_settime/new=NULL", ts(id, 0, 0, 0))
	p("timer_settime/new=unmapped", ts(id, 0, unmapped, 0))
	p("timer_settime/new=kernel", ts(id, 0, kernel, 0))
	p("timer_settime/new=straddles-hole", ts(id, 0, edge(16), 0))
	p("timer_settime/new=read-only,zero", ts(id, 0, at(pgRO, 512), 0))
	p("timer_settime/value.nsec=1e9", ts(id, 0, itimerspec(0, 0, 0, 1e9), 0))
	p("timer_settime/value.nsec=-1", ts(id, 0, itimerspec(0, 0, 0, -1), 0))
	p("timer_settime/value.sec=-1", ts(id, 0, itimerspec(0, 0, -1, 0), 0))
	p("timer_settime/interval.nsec=1e9", ts(id, 0, itimerspec(0, 1e9, 1, 0), 0))
	p("timer_settime/interval.nsec=1e9,value=0", ts(id, 0, itimerspec(0, 1e9, 0, 0), 0))
	p("timer_settime/old=unmapped", ts(id, 0, hour(), unmapped))
	p("timer_settime/old=read-only", ts(id, 0, hour(), at(pgRO, 0)))
	p("timer_settime/id=none", ts(none, 0, hour(), 0))
	p("timer_settime/id=-1", ts(neg1, 0, hour(), 0))
	p("timer_settime/id=none,new=NULL", ts(none, 0, 0, 0))
	p("timer_settime/id=none,new=unmapped", ts(none, 0, unmapped, 0))
	p("timer_settime/id=none,value.nsec=1e9", ts(none, 0, itimerspec(0, 0, 0, 1e9), 0))

	tg := func(id, q uintptr) string { return ok(sys(sysTimerGettime, id, q)) }
	p("timer_gettime/ok", tg(id, obuf()))
	p("timer_gettime/id=1<<32|id", tg(hi|id, obuf()))
	p("timer_gettime/cur=NULL", tg(id, 0))
	p("timer_gettime/cur=unmapped", tg(id, unmapped))
	p("timer_gettime/cur=read-only", tg(id, at(pgRO, 0)))
	p("timer_gettime/cur=straddles-hole", tg(id, edge(16)))
	p("timer_gettime/id=none", tg(none, obuf()))
	p("timer_gettime/id=-1", tg(neg1, obuf()))
	p("timer_gettime/id=none,cur=NULL", tg(none, 0))

	p("timer_getoverrun/ok", num(sys(sysTimerGetoverrun, id)))
	p("timer_getoverrun/id=none", num(sys(sysTimerGetoverrun, none)))
	p("timer_getoverrun/id=-1", num(sys(sysTimerGetoverrun, neg1)))

	p("timer_delete/id=none", num(sys(sysTimerDelete, none)))
	p("timer_delete/id=-1", num(sys(sysTimerDelete, neg1)))
	p("timer_delete/ok", num(sys(sysTimerDelete, id)))
	p("timer_delete/again", num(sys(sysTimerDelete, id)))
	p("timer_gettime/deleted", tg(id, obuf()))
}

// itimerval returns a struct itimerval {it_interval, it_value} (timevals) in an argument slot.
func itimerval(isec, iusec, vsec, vusec int64) uintptr {
	a := slot()
	put64(a, uint64(isec))
	put64(a+8, uint64(iusec))
	put64(a+16, uint64(vsec))
	put64(a+24, uint64(vusec))
	return a
}

// setitimer, getitimer, alarm (kernel/time/itimer.c): setitimer reads and checks the new value
// (EFAULT, EINVAL; NULL disarms) before it looks at which (EINVAL), and writes the old value
// after the timer is set (EFAULT); getitimer checks which first. Every timer armed here is
// armed for an hour and disarmed at once.
func itimerCases() {
	si := func(which, newp, oldp uintptr) string { return ok(sys(sysSetitimer, which, newp, oldp)) }
	hour := func() uintptr { return itimerval(0, 0, 3600, 0) }
	for _, w := range []struct {
		name  string
		which uintptr
	}{{"REAL", itimerReal}, {"VIRTUAL", itimerVirtual}, {"PROF", itimerProf}} {
		p("setitimer/"+w.name+",1h", si(w.which, hour(), 0))
		p("setitimer/"+w.name+",disarm,old", si(w.which, itimerval(0, 0, 0, 0), obuf()))
		p("setitimer/"+w.name+",old=unmapped", si(w.which, hour(), unmapped))
		p("setitimer/"+w.name+",NULL", si(w.which, 0, 0))
		p("getitimer/"+w.name, ok(sys(sysGetitimer, w.which, obuf())))
	}
	p("setitimer/which=1<<32|PROF,NULL", si(hi|itimerProf, 0, 0))
	p("setitimer/which=3,NULL", si(3, 0, 0))
	p("setitimer/which=-1,NULL", si(neg1, 0, 0))
	p("setitimer/which=3,value", si(3, hour(), 0))
	p("setitimer/new=unmapped", si(itimerProf, unmapped, 0))
	p("setitimer/new=kernel", si(itimerProf, kernel, 0))
	p("setitimer/new=straddles-hole", si(itimerProf, edge(16), 0))
	p("setitimer/new=read-only,zero", si(itimerProf, at(pgRO, 512), 0))
	p("setitimer/which=3,new=unmapped", si(3, unmapped, 0))
	p("setitimer/value.usec=1e6", si(itimerProf, itimerval(0, 0, 0, 1e6), 0))
	p("setitimer/value.usec=-1", si(itimerProf, itimerval(0, 0, 0, -1), 0))
	p("setitimer/value.sec=-1", si(itimerProf, itimerval(0, 0, -1, 0), 0))
	p("setitimer/interval.usec=1e6", si(itimerProf, itimerval(0, 1e6, 0, 0), 0))
	p("setitimer/which=3,value.usec=1e6", si(3, itimerval(0, 0, 0, 1e6), 0))
	p("setitimer/old=read-only", si(itimerProf, 0, at(pgRO, 0)))
	p("getitimer/which=3", ok(sys(sysGetitimer, 3, obuf())))
	p("getitimer/which=-1", ok(sys(sysGetitimer, neg1, obuf())))
	p("getitimer/which=1<<32|PROF", ok(sys(sysGetitimer, hi|itimerProf, obuf())))
	p("getitimer/cur=NULL", ok(sys(sysGetitimer, itimerProf, 0)))
	p("getitimer/cur=unmapped", ok(sys(sysGetitimer, itimerProf, unmapped)))
	p("getitimer/cur=read-only", ok(sys(sysGetitimer, itimerProf, at(pgRO, 0))))
	p("getitimer/which=3,cur=NULL", ok(sys(sysGetitimer, 3, 0)))
	p("alarm/0", num(sys(sysAlarm, 0)))
	p("alarm/3600", num(sys(sysAlarm, 3600)))
	p("alarm/0,after-3600", num(sys(sysAlarm, 0)))
}

// wait4 and waitid (kernel/exit.c) in a process without children: the option and id checks
// come first, then ECHILD; a failing call touches none of its buffers (a bad one is no EFAULT).
func waitCases() {
	const wnohang, wstopped, wexited, wcontinued, wnowait, wall, wclone = 1, 2, 4, 8, 0x01000000, 0x40000000, 0x80000000
	b := obuf()
	p("wait4/-1", num(sys(sysWait4, neg1, b, 0, 0)))
	p("wait4/-1,WNOHANG", num(sys(sysWait4, neg1, b, wnohang, 0)))
	p("wait4/-1,WUNTRACED|WCONTINUED|__WALL|__WCLONE", num(sys(sysWait4, neg1, 0, wstopped|wcontinued|wall|wclone, 0)))
	p("wait4/pid=1", num(sys(sysWait4, 1, 0, 0, 0)))
	p("wait4/pid=0", num(sys(sysWait4, 0, 0, 0, 0)))
	p("wait4/pid=-5", num(sys(sysWait4, neg(5), 0, 0, 0)))
	p("wait4/pid=INT_MIN", num(sys(sysWait4, 1<<31, 0, 0, 0)))
	p("wait4/options=WEXITED", num(sys(sysWait4, neg1, 0, wexited, 0)))
	p("wait4/options=WNOWAIT", num(sys(sysWait4, neg1, 0, wnowait, 0)))
	p("wait4/status=8,rusage=8", num(sys(sysWait4, neg1, 8, 0, 8)))
	p("waitid/P_ALL,WEXITED", num(sys(sysWaitid, 0, 0, b, wexited, 0)))
	p("waitid/P_ALL,WEXITED|WNOHANG|WNOWAIT", num(sys(sysWaitid, 0, 0, b, wexited|wnohang|wnowait, 0)))
	p("waitid/P_ALL,options=0", num(sys(sysWaitid, 0, 0, b, 0, 0)))
	p("waitid/P_ALL,WNOHANG", num(sys(sysWaitid, 0, 0, b, wnohang, 0)))
	p("waitid/P_ALL,options=0x10|WEXITED", num(sys(sysWaitid, 0, 0, b, 0x10|wexited, 0)))
	p("waitid/P_PID,0", num(sys(sysWaitid, 1, 0, b, wexited, 0)))
	p("waitid/P_PID,1", num(sys(sysWaitid, 1, 1, b, wstopped, 0)))
	p("waitid/P_PGID,-1", num(sys(sysWaitid, 2, neg1, b, wexited, 0)))
	p("waitid/P_PGID,0", num(sys(sysWaitid, 2, 0, b, wcontinued, 0)))
	p("waitid/P_PIDFD,-1", num(sys(sysWaitid, 3, neg1, b, wexited, 0)))
	p("waitid/P_PIDFD,fd=0", num(sys(sysWaitid, 3, 0, b, wexited, 0)))
	p("waitid/P_PIDFD,fd=unused", num(sys(sysWaitid, 3, unusedFD, b, wexited, 0)))
	p("waitid/idtype=4", num(sys(sysWaitid, 4, 0, b, wexited, 0)))
	p("waitid/idtype=1<<32", num(sys(sysWaitid, hi, 0, b, wexited, 0)))
	p("waitid/infop=8,rusage=8", num(sys(sysWaitid, 0, 0, 8, wexited, 8)))
	// The siginfo written with an error: si_signo..si_status zero, the padding at 12 untouched.
	var info [32]uint32
	for i := range info {
		info[i] = 0xa5a5a5a5
	}
	_, e := sys(sysWaitid, 0, 0, uintptr(unsafe.Pointer(&info)), 0, 0)
	p("waitid/options=0,infop written", fmt.Sprintf("%s %#x %#x %#x %#x", ename(e), info[0], info[3], info[6], info[7]))
}

func miscCases() {
	p("syscall/nr=400", ok(sys(400)))
	p("syscall/nr=100000", ok(sys(100000)))
	p("syscall/nr=-1", ok(sys(neg1)))
	p("syscall/nr=1<<32|getpid", ok(sys(hi|sysGetpid)))
	p("rseq/NULL,len=0", num(sys(sysRseq, 0, 0, 0, 0)))
	p("rseq/flags=2", num(sys(sysRseq, 0, 32, 2, 0)))
}

// treeCases: the name operations on a small tree in /tmp — each error in the order Linux checks
// them (fs/namei.c, fs/open.c, fs/read_write.c, fs/readdir.c), and the successes that decide them.
func treeCases() {
	const dir = "/tmp/gmpos-conformance"
	os.RemoveAll(dir)
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(dir+"/d/sub", 0o755); err != nil {
		fail(err.Error())
	}
	os.WriteFile(dir+"/f", []byte("data"), 0o644)
	os.Symlink("f", dir+"/l")
	os.Symlink("loop", dir+"/loop")
	var keep [][]byte
	str := func(s string) uintptr {
		b := append([]byte(s), 0)
		keep = append(keep, b)
		return uintptr(unsafe.Pointer(&b[0]))
	}
	P := func(rel string) uintptr { return str(dir + "/" + rel) }
	cwd := uintptr(neg(atFdcwd))
	b := obuf()
	p("tree/mkdir,exists", num(sys(syscall.SYS_MKDIR, P("d"), 0o755)))
	p("tree/mkdir,file-on-the-way", num(sys(syscall.SYS_MKDIR, P("f/x"), 0o755)))
	p("tree/mkdir,parent-missing", num(sys(syscall.SYS_MKDIR, P("nope/x"), 0o755)))
	p("tree/mkdir,dot", num(sys(syscall.SYS_MKDIR, P("d/."), 0o755)))
	p("tree/mkdir,trailing-slash", num(sys(syscall.SYS_MKDIR, P("new/"), 0o755)))
	p("tree/rmdir,trailing-slash", num(sys(syscall.SYS_RMDIR, P("new/"))))
	p("tree/rmdir,not-empty", num(sys(syscall.SYS_RMDIR, P("d"))))
	p("tree/rmdir,file", num(sys(syscall.SYS_RMDIR, P("f"))))
	p("tree/rmdir,dot", num(sys(syscall.SYS_RMDIR, P("d/."))))
	p("tree/rmdir,dotdot", num(sys(syscall.SYS_RMDIR, P("d/sub/.."))))
	p("tree/rmdir,root", num(sys(syscall.SYS_RMDIR, str("/"))))
	p("tree/unlink,dir", num(sys(syscall.SYS_UNLINK, P("d"))))
	p("tree/unlink,missing", num(sys(syscall.SYS_UNLINK, P("nope"))))
	p("tree/unlink,file-with-slash", num(sys(syscall.SYS_UNLINK, P("f/"))))
	p("tree/unlinkat,flags=1", num(sys(syscall.SYS_UNLINKAT, cwd, P("f"), 1)))
	p("tree/rename,dir-below-itself", num(sys(syscall.SYS_RENAME, P("d"), P("d/sub/x"))))
	p("tree/rename,file-over-dir", num(sys(syscall.SYS_RENAME, P("f"), P("d"))))
	p("tree/rename,dir-over-file", num(sys(syscall.SYS_RENAME, P("d"), P("f"))))
	p("tree/rename,over-non-empty-ancestor", num(sys(syscall.SYS_RENAME, P("d/sub"), P("d"))))
	p("tree/rename,missing", num(sys(syscall.SYS_RENAME, P("nope"), P("x"))))
	p("tree/rename,dot", num(sys(syscall.SYS_RENAME, P("d/."), P("x"))))
	p("tree/rename,to-root", num(sys(syscall.SYS_RENAME, P("f"), str("/"))))
	p("tree/rename,same-file", num(sys(syscall.SYS_RENAME, P("f"), P("f"))))
	p("tree/renameat2,NOREPLACE,exists", num(sys(sysRenameat2, cwd, P("f"), cwd, P("l"), 1)))
	p("tree/renameat2,flags=3", num(sys(sysRenameat2, cwd, P("f"), cwd, P("l"), 3)))
	p("tree/renameat2,EXCHANGE,missing", num(sys(sysRenameat2, cwd, P("f"), cwd, P("nope"), 2)))
	p("tree/link,dir", num(sys(syscall.SYS_LINK, P("d"), P("d2"))))
	p("tree/link,exists", num(sys(syscall.SYS_LINK, P("f"), P("l"))))
	p("tree/link,missing", num(sys(syscall.SYS_LINK, P("nope"), P("x"))))
	p("tree/linkat,flags=1", num(sys(syscall.SYS_LINKAT, cwd, P("f"), cwd, P("x"), 1)))
	p("tree/symlink,exists", num(sys(syscall.SYS_SYMLINK, str("x"), P("f"))))
	p("tree/symlink,empty-target", num(sys(syscall.SYS_SYMLINK, str(""), P("e"))))
	p("tree/readlink,not-a-link", num(sys(sysReadlink, P("f"), b, 64)))
	p("tree/readlink,link", num(sys(sysReadlink, P("l"), b, 64)))
	p("tree/open,loop", fdOut(sys(sysOpen, P("loop"), 0)))
	p("tree/open,O_NOFOLLOW,link", fdOut(sys(sysOpen, P("l"), syscall.O_NOFOLLOW)))
	p("tree/open,O_PATH|O_NOFOLLOW,link", fdOut(sys(sysOpen, P("l"), syscall.O_NOFOLLOW|0o10000000)))
	p("tree/open,O_DIRECTORY,file", fdOut(sys(sysOpen, P("f"), syscall.O_DIRECTORY)))
	p("tree/open,dir,O_WRONLY", fdOut(sys(sysOpen, P("d"), syscall.O_WRONLY)))
	p("tree/open,dir,O_CREAT", fdOut(sys(sysOpen, P("d"), syscall.O_CREAT)))
	p("tree/open,O_CREAT,trailing-slash", fdOut(sys(sysOpen, P("new/"), syscall.O_CREAT|syscall.O_WRONLY, 0o644)))
	p("tree/open,O_CREAT|O_EXCL,exists", fdOut(sys(sysOpen, P("f"), syscall.O_CREAT|syscall.O_EXCL, 0o644)))
	p("tree/open,O_CREAT|O_EXCL,link", fdOut(sys(sysOpen, P("l"), syscall.O_CREAT|syscall.O_EXCL, 0o644)))
	p("tree/open,file/", fdOut(sys(sysOpen, P("f/"), 0)))
	p("tree/truncate,dir", num(sys(syscall.SYS_TRUNCATE, P("d"), 0)))
	p("tree/truncate,length=-1", num(sys(syscall.SYS_TRUNCATE, P("f"), neg1)))
	p("tree/chdir,file", num(sys(syscall.SYS_CHDIR, P("f"))))
	p("tree/chdir,missing", num(sys(syscall.SYS_CHDIR, P("nope"))))
	p("tree/getcwd,size=1", num(sys(syscall.SYS_GETCWD, b, 1)))
	p("tree/getcwd,buf=NULL", num(sys(syscall.SYS_GETCWD, 0, 4096)))
	f, _ := sys(sysOpen, P("f"), syscall.O_RDONLY)
	d, _ := sys(sysOpen, P("d"), syscall.O_RDONLY|syscall.O_DIRECTORY)
	p("tree/ftruncate,O_RDONLY", num(sys(syscall.SYS_FTRUNCATE, f, 0)))
	p("tree/ftruncate,dir", num(sys(syscall.SYS_FTRUNCATE, d, 0)))
	p("tree/getdents64,file", num(sys(syscall.SYS_GETDENTS64, f, b, 4096)))
	p("tree/getdents64,count=1", num(sys(syscall.SYS_GETDENTS64, d, b, 1)))
	p("tree/getdents64,buf=NULL", num(sys(syscall.SYS_GETDENTS64, d, 0, 4096)))
	p("tree/read,dir", num(sys(syscall.SYS_READ, d, b, 64)))
	p("tree/pread64,dir", num(sys(syscall.SYS_PREAD64, d, b, 64, 0)))
	p("tree/pread64,offset=-1", num(sys(syscall.SYS_PREAD64, f, b, 64, neg1)))
	p("tree/pread64,past-end", num(sys(syscall.SYS_PREAD64, f, b, 64, 100)))
	p("tree/pwrite64,O_RDONLY", num(sys(syscall.SYS_PWRITE64, f, b, 1, 0)))
	p("tree/write,O_RDONLY", num(sys(syscall.SYS_WRITE, f, b, 1)))
	p("tree/lseek,SEEK_SET,-1", num(sys(syscall.SYS_LSEEK, f, neg1, 0)))
	p("tree/lseek,SEEK_END,-2", num(sys(syscall.SYS_LSEEK, f, neg(-2), 2)))
	p("tree/lseek,SEEK_DATA,past-end", num(sys(syscall.SYS_LSEEK, f, 100, 3)))
	p("tree/lseek,SEEK_HOLE,0", num(sys(syscall.SYS_LSEEK, f, 0, 4)))
	p("tree/lseek,whence=5", num(sys(syscall.SYS_LSEEK, f, 0, 5)))
	p("tree/fsync,dir", num(sys(syscall.SYS_FSYNC, d)))
	p("tree/fchdir,file", num(sys(syscall.SYS_FCHDIR, f)))
	ep, _ := sys(sysEpollCreate1, 0)
	p("tree/epoll_ctl,regular-file", num(sys(sysEpollCtl, ep, 1, f, b)))
	sys(sysClose, ep)
	times := obuf()
	binary.LittleEndian.PutUint64(mem[times-base+8:], 1e9)
	p("tree/utimensat,nsec=1e9", num(sys(syscall.SYS_UTIMENSAT, cwd, P("f"), times, 0)))
	p("tree/utimensat,flags=1", num(sys(syscall.SYS_UTIMENSAT, cwd, P("f"), 0, 1)))
	sys(sysClose, f)
	sys(sysClose, d)
	runtime.KeepAlive(keep)
}
