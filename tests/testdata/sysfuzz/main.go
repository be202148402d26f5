// Guest: sysfuzz, a system-call fuzzer for the gmpos kernel: random calls with hostile arguments.
// SPDX-License-Identifier: BSD-3-Clause

// Sysfuzz issues random system calls with random arguments from several threads at once and
// checks that the kernel survives them: a program must never be able to make the kernel fault,
// hang, or corrupt the program's own memory through a call that should have failed.
//
// Usage (gmpos only; see the end of this comment for why not natively):
//
//	gmpos run -net none [-smp N] ./tests/testdata/sysfuzz -- [-seed S] [-calls N] [-threads T] [-v]
//
// The program imports net, so the network stack runs (as goroutines of the program) and the
// socket calls meet live sockets (net.go); -net none keeps the guest off the host's network,
// and the fuzzer refuses to run with a NIC.
//
// # What is generated
//
// Each worker is a goroutine locked to its own OS thread (runtime.LockOSThread), so there are T
// kernel threads issuing calls, on several cores with -smp. Call k of worker i is generated from
// a generator seeded with (seed+i, k) alone, so a worker's sequence of calls is the same on every
// run with the same seed, whatever the others do and whatever the kernel answered (the results
// differ: fd numbers, timing).
//
//   - Numbers: mostly the calls gmpos implements (kernel/syscall.go), weighted; some random ones
//     in [0, 512); a few wild ones (1<<32|n, the x32 bit, -1, gmpos's own 0x6d70 neighbours).
//   - Arguments: per slot, either the kind the call expects there (fd, pointer, length, signal,
//     thread id, flags from a per-call list) or anything at all. Pointers point into a scratch
//     region the fuzzer owns (read-write, read-only, PROT_NONE, straddling into an unmapped guard
//     page, page-unaligned), at the fuzzer's own global and heap buffers, at the kernel image
//     (a function, read-only data, a pinned global), at addresses nothing maps (below the image,
//     above the user stack), at NULL, non-canonical and kernel-half addresses (direct map, kernel
//     stacks, the last page) and at the local APIC. Lengths and counts include the values whose
//     *8, *12, *16 products wrap (1<<59 ...), huge lengths, 1<<32|small (int truncation), -1.
//   - Sockets (net.go): fds are mostly the fuzzer's own sockets (a listener, a connected pair,
//     UDP sockets, and those its calls make), addresses mostly prepared sockaddrs (the
//     listener's, the UDP socket's, wrong families, short ones), iovecs and msghdrs prepared in
//     the worker's slot with buffers of every kind; gmpos_net goes at the fuzzer's sockets as a
//     hostile network stack would.
//
// Between calls, each worker moves to a fresh thread every churnEvery calls (the old one exits,
// and its thread id stays in the pool of signal targets), and every probeEvery calls it changes
// or touches a page of a private region from user mode and checks the outcome against a model
// (probe.go): protections, discarded and remapped pages, and with -smp the TLB shootdowns behind
// them.
//
// # Staying alive
//
// The fuzzer must not kill or hang itself through the *legitimate* effect of a call, so filter
// skips calls by their actual argument values (each rule says why, in filter). It skips, for
// example, exit, clone, rt_sigreturn, fatal signals, installing signal handlers, changing the
// signal mask or the alternate signal stack, setting FS/GS, memory operations on anything but its
// own regions (but not invalid ranges: those must fail, and are kept), long sleeps, blocking
// reads, and closing the Go runtime's file descriptors. Everything else is fair game. Writing to
// memory is allowed only where the fuzzer owns it: out-pointers (where the kernel writes) are
// checked against the fuzzer's regions; memory the kernel must refuse to write is kept.
//
// The Linux view of a call is used for these decisions where gmpos is stricter (Linux truncates
// int arguments and the system call number to 32 bits, gmpos does not), so that a kernel which
// starts truncating like Linux does not turn a harmless call into a fatal one.
//
// # Output
//
// The start line prints the seed and the command that replays the run; at the end come a
// one-line summary (errno counts, the most frequent calls, calls/s) and, last,
//
//	sysfuzz: N calls on T threads, seed S: no kernel fault
//
// A kernel fault stops the machine at once (the runner exits 101 with the kernel's report on
// stderr), so nothing more is printed: rerun with the same seed, -calls and -threads plus -v,
// which prints each call before making it and its result after; the last call of each worker
// names the culprit (a race may need several tries, or -worker to replay one worker alone).
// Other failures exit with their own status:
//
//	3  a call did not return for -stall (every worker's call in flight is printed)
//	4  after the run: the fuzzer's canaries, text or the runtime's fds were damaged, calls
//	   succeeded that must have failed (the oracle: a buffer no kernel may touch), or a memory
//	   probe disagreed with its model (each such call is printed as WRONG when it happens)
//
// -known NAME,... (or all) steers around kernel bugs already found and not yet fixed
// (known.go), so that a long run can find the next one; -report prints the filter's reasons and
// every implemented call's successes, to see what the generator reaches.
//
// Natively this would issue random system calls on the host (as root in CI): never run it
// outside gmpos. The memory layout it assumes (image at 1 MiB, initial stack just below
// 0x7fff_fff0_0000) is gmpos's (kernel/mm/doc.go).
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// gmpos's user address space (kernel/mm/doc.go, kernel/stack.go, kernel/arch/amd64/lapic.go).
const (
	pageSize  = 4096
	minAddr   = 0x10000               // lowest address mmap accepts
	imageBase = 0x100000              // the program (and the kernel) is linked at 1 MiB
	stackTop  = 0x7fff_fff0_0000      // top of the initial user stack; nothing is mapped above it
	userEnd   = 0x7fff_ffff_f000      // one past the last user address
	lapicBase = 0xfee0_0000           // the local APIC's registers: a pinned PROT_NONE VMA
	directMap = 0xffff_8000_0000_0000 // kernel: direct map of RAM
	kstacks   = 0xffff_c000_0000_0000 // kernel: kernel stacks (guard page first)
)

// System call numbers (x86-64) the fuzzer treats specially; the syscall package lacks some.
const (
	nrRead, nrWrite, nrOpen, nrClose, nrStat, nrFstat, nrLstat, nrPoll, nrLseek   = 0, 1, 2, 3, 4, 5, 6, 7, 8
	nrMmap, nrMprotect, nrMunmap, nrBrk, nrRtSigaction, nrRtSigprocmask           = 9, 10, 11, 12, 13, 14
	nrRtSigreturn, nrIoctl, nrPread64, nrReadv, nrWritev, nrAccess                = 15, 16, 17, 19, 20, 21
	nrSelect, nrSchedYield, nrMremap, nrMincore, nrMadvise, nrShmat               = 23, 24, 25, 27, 28, 30
	nrDup2, nrPause, nrNanosleep, nrGetitimer, nrAlarm, nrSetitimer, nrGetpid     = 33, 34, 35, 36, 37, 38, 39
	nrRecvmsg, nrClone, nrFork, nrVfork, nrExecve, nrExit, nrWait4, nrKill        = 47, 56, 57, 58, 59, 60, 61, 62
	nrUname, nrSemop, nrMsgsnd, nrMsgrcv, nrFcntl, nrReadlink, nrGetcwd           = 63, 65, 69, 70, 72, 89, 79
	nrGettimeofday, nrGetrlimit, nrGetrusage, nrSysinfo, nrTimes, nrPtrace        = 96, 97, 98, 99, 100, 101
	nrGetuid, nrGetgid, nrGeteuid, nrGetegid, nrGetppid, nrGetgroups              = 102, 104, 107, 108, 110, 115
	nrGetresuid, nrGetresgid, nrCapget, nrRtSigpending, nrRtSigtimedwait          = 118, 120, 125, 127, 128
	nrRtSigqueueinfo, nrRtSigsuspend, nrSigaltstack, nrPersonality, nrStatfs      = 129, 130, 131, 135, 137
	nrFstatfs, nrSetpriority, nrSchedSetparam, nrSchedGetparam                    = 138, 141, 142, 143
	nrSchedSetscheduler, nrSchedRrGetInterval, nrMlockall, nrPrctl, nrArchPrctl   = 144, 148, 151, 157, 158
	nrAdjtimex, nrSetrlimit, nrReboot, nrInitModule, nrDeleteModule, nrGettid     = 159, 160, 169, 175, 176, 186
	nrGetxattr, nrLgetxattr, nrFgetxattr, nrListxattr, nrLlistxattr, nrFlistxattr = 191, 192, 193, 194, 195, 196
	nrTkill, nrTime, nrFutex, nrSchedSetaffinity, nrSchedGetaffinity              = 200, 201, 202, 203, 204
	nrIoSetup, nrIoGetevents, nrEpollCreate, nrRemapFilePages, nrGetdents64       = 206, 208, 213, 216, 217
	nrSetTidAddress, nrSemtimedop, nrTimerCreate, nrTimerSettime, nrTimerGettime  = 218, 220, 222, 223, 224
	nrTimerGetoverrun, nrTimerDelete                                              = 225, 226
	nrClockGettime, nrClockGetres, nrClockNanosleep, nrExitGroup, nrEpollWait     = 228, 229, 230, 231, 232
	nrEpollCtl, nrTgkill, nrMqTimedreceive, nrKexecLoad, nrWaitid                 = 233, 234, 243, 246, 247
	nrOpenat, nrNewfstatat, nrReadlinkat, nrFaccessat, nrPselect6, nrPpoll        = 257, 262, 267, 269, 270, 271
	nrUnshare, nrSetRobustList, nrGetRobustList, nrEpollPwait, nrTimerfdGettime   = 272, 273, 274, 281, 287
	nrEventfd, nrEventfd2, nrEpollCreate1, nrDup3, nrPipe2, nrPreadv, nrPwritev   = 284, 290, 291, 292, 293, 295, 296
	nrRtTgsigqueueinfo, nrRecvmmsg, nrPrlimit64, nrClockAdjtime, nrSetns          = 297, 299, 302, 305, 308
	nrGetcpu, nrProcessVMReadv, nrProcessVMWritev, nrSchedSetattr, nrSchedGetattr = 309, 310, 311, 314, 315
	nrSeccomp, nrGetrandom, nrKexecFileLoad, nrExecveat, nrPreadv2, nrPwritev2    = 317, 318, 320, 322, 327, 328
	nrPkeyMprotect, nrIoPgetevents, nrRseq, nrPidfdSendSignal                     = 329, 333, 334, 424
	nrIoUringSetup, nrIoUringEnter, nrIoUringRegister, nrClone3, nrCloseRange     = 425, 426, 427, 435, 436
	nrFaccessat2, nrEpollPwait2, nrFutexWaitv, nrMapShadowStack                   = 439, 441, 449, 453
	nrFutexWake, nrFutexWait, nrFutexRequeue, nrMseal                             = 454, 455, 456, 462
	nrGmposInfo                                                                   = 0x6d70
	nrGmposNet                                                                    = 0x6d71 // kernel/netabi NrGmposNet
)

// Signals whose delivery the Go runtime shrugs off when the program has not asked for them
// (runtime/sigtab_linux_generic.go: _SigNotify/_SigIgn without _SigKill/_SigThrow/_SigPanic, or a
// default action of "ignore"): the fuzzer may send these, and only these, to its own threads.
// Not SIGPROF (it would feed the profiler), not 32/33 (glibc's, left at SIG_DFL: terminate).
var harmlessSig = map[int32]bool{0: true, 10: true, 12: true, 17: true, 18: true, 23: true, 28: true, 40: true, 64: true}

// Kinds of the fds the fuzzer created.
const (
	fdEventfd = 1
	fdEpoll   = 2
)

// argKind says what a generator should produce for one argument slot.
type argKind uint8

const (
	kAny   argKind = iota // anything from every pool
	kInt                  // small and boundary integers
	kFD                   // file descriptors
	kEpfd                 // an epoll fd the fuzzer created, mostly
	kEvfd                 // an eventfd the fuzzer created, mostly
	kPtr                  // pointers (anything the kernel might dereference)
	kLen                  // lengths and counts, including wrapping and huge ones
	kTid                  // thread ids
	kPid                  // process ids
	kSig                  // signal numbers
	kTS                   // pointer to a struct timespec (the fuzzer's prepared ones, mostly)
	kNull                 // mostly NULL, else a pointer (the "new value" slots that filter guards)
	kConst                // one of the call's own interesting values
)

// spec describes one system call for the generator.
type spec struct {
	nr     uint64
	name   string
	weight int
	args   []argKind
	consts [6][]uint64
}

// neg makes a negative int argument readable in the tables.
func neg(v int64) uint64 { return uint64(v) }

var (
	mmapProt  = []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 0x01000000, 0x02000000, neg(-1)}
	mmapFlags = []uint64{0x22, 0x22, 0x02, 0x01, 0x03, 0x20, 0x21, 0x32, 0x32, 0x100022, 0x8022, 0x40022, 0x4022, 0x122, 0x1022, 0x10022, neg(-1)}
	advice    = []uint64{0, 1, 2, 3, 4, 4, 8, 8, 9, 10, 12, 14, 15, 20, 21, 22, 23, 25, 100, 102, 1 << 32, neg(-1)}
	clocks    = []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, neg(-1), neg(-2), neg(-6), 1<<32 | 1, 1 << 31}
	futexOps  = []uint64{0, 1, 9, 10, 128, 129, 137, 138, 256 | 9, 256 | 137, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 1<<32 | 1, neg(-1)}
	maxEvents = []uint64{1, 2, 8, 64, 65536, 65537, 0, neg(-1), 1<<32 | 1, 1 << 31, 0x15555556}
	epTimeout = []uint64{0, 0, 1, 1, 1, neg(-1), 1000, 1<<32 | 0, 1<<32 | 1}
	gmposReq  = []uint64{0, 1, 2, 2, 2, 3, 4, 4, 5, 5, 5, 6, 8, 8, 1<<32 | 2, 1<<32 | 5, 1<<32 | 8, neg(-1)}
	netOps    = []uint64{0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1<<32 | 4, neg(-1)}
	rlimits   = []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 1<<32 | 7, neg(-1)}
	setsize   = []uint64{8, 8, 8, 0, 4, 16, 128, 1<<32 | 8, neg(-1)}
	itimers   = []uint64{0, 1, 2, 3, neg(-1), 1<<32 | 2}
	timerIDs  = []uint64{0, 0, 1, 1, 2, 3, 5, 17, 255, 256, 257, 1<<31 - 1, neg(-1), 1<<32 | 1}
)

// specs: every call gmpos implements (kernel/syscall.go), with argument kinds.
var specs = []spec{
	{nr: nrRead, name: "read", weight: 10, args: []argKind{kEvfd, kPtr, kLen}},
	{nr: nrWrite, name: "write", weight: 12, args: []argKind{kEvfd, kPtr, kLen}},
	{nr: nrOpen, name: "open", weight: 2, args: []argKind{kPtr, kInt, kInt}},
	{nr: nrClose, name: "close", weight: 5, args: []argKind{kFD}},
	{nr: nrStat, name: "stat", weight: 1, args: []argKind{kPtr, kPtr}},
	{nr: nrFstat, name: "fstat", weight: 8, args: []argKind{kFD, kPtr}},
	{nr: nrLstat, name: "lstat", weight: 1, args: []argKind{kPtr, kPtr}},
	{nr: nrLseek, name: "lseek", weight: 2, args: []argKind{kFD, kInt, kConst}, consts: [6][]uint64{2: {0, 1, 2, 3, 4, 5}}},
	{nr: nrMmap, name: "mmap", weight: 14, args: []argKind{kPtr, kLen, kConst, kConst, kFD, kConst},
		consts: [6][]uint64{2: mmapProt, 3: mmapFlags, 5: {0, 0, 4096, 1, 1 << 63, neg(-4096)}}},
	{nr: nrMprotect, name: "mprotect", weight: 12, args: []argKind{kPtr, kLen, kConst}, consts: [6][]uint64{2: mmapProt}},
	{nr: nrMunmap, name: "munmap", weight: 12, args: []argKind{kPtr, kLen}},
	{nr: nrBrk, name: "brk", weight: 1, args: []argKind{kPtr}},
	{nr: nrRtSigaction, name: "rt_sigaction", weight: 6, args: []argKind{kSig, kNull, kPtr, kConst}, consts: [6][]uint64{3: setsize}},
	{nr: nrRtSigprocmask, name: "rt_sigprocmask", weight: 6, args: []argKind{kConst, kNull, kPtr, kConst},
		consts: [6][]uint64{0: {0, 1, 2, 3, neg(-1), 1<<32 | 0}, 3: setsize}},
	{nr: nrRtSigreturn, name: "rt_sigreturn", weight: 1},
	{nr: nrIoctl, name: "ioctl", weight: 3, args: []argKind{kFD, kConst, kPtr}, consts: [6][]uint64{1: {0x5401, 0x541b, 0x5421, 0x5413, 0, neg(-1)}}},
	{nr: nrPread64, name: "pread64", weight: 2, args: []argKind{kFD, kPtr, kLen, kInt}},
	{nr: nrAccess, name: "access", weight: 1, args: []argKind{kPtr, kInt}},
	{nr: nrSchedYield, name: "sched_yield", weight: 3},
	{nr: nrMincore, name: "mincore", weight: 2, args: []argKind{kPtr, kLen, kPtr}},
	{nr: nrMadvise, name: "madvise", weight: 12, args: []argKind{kPtr, kLen, kConst}, consts: [6][]uint64{2: advice}},
	{nr: nrNanosleep, name: "nanosleep", weight: 4, args: []argKind{kTS, kPtr}},
	{nr: nrGetpid, name: "getpid", weight: 1},
	{nr: nrClone, name: "clone", weight: 2, args: []argKind{kConst, kPtr, kPtr, kPtr, kPtr},
		consts: [6][]uint64{0: {0x50f00, 0x3d0f00, 0x800, 0x10000, 0x10800, 0x11, 0, neg(-1)}}},
	{nr: nrExit, name: "exit", weight: 1, args: []argKind{kInt}},
	{nr: nrKill, name: "kill", weight: 4, args: []argKind{kPid, kSig}},
	{nr: nrUname, name: "uname", weight: 4, args: []argKind{kPtr}},
	{nr: nrFcntl, name: "fcntl", weight: 5, args: []argKind{kFD, kConst, kAny},
		consts: [6][]uint64{1: {0, 1, 2, 3, 4, 5, 6, 1030, 1024, 1025, neg(-1), 1<<32 | 3}}},
	{nr: nrReadlink, name: "readlink", weight: 1, args: []argKind{kPtr, kPtr, kLen}},
	{nr: nrGettimeofday, name: "gettimeofday", weight: 4, args: []argKind{kPtr, kPtr}},
	{nr: nrGetrlimit, name: "getrlimit", weight: 3, args: []argKind{kConst, kPtr}, consts: [6][]uint64{0: rlimits}},
	{nr: nrGetuid, name: "getuid", weight: 1},
	{nr: nrGetgid, name: "getgid", weight: 1},
	{nr: nrGeteuid, name: "geteuid", weight: 1},
	{nr: nrGetegid, name: "getegid", weight: 1},
	{nr: nrGetppid, name: "getppid", weight: 1},
	{nr: nrSigaltstack, name: "sigaltstack", weight: 4, args: []argKind{kNull, kPtr}},
	{nr: nrPrctl, name: "prctl", weight: 3, args: []argKind{kConst, kPtr, kInt, kInt, kInt},
		consts: [6][]uint64{0: {15, 16, 2, 3, 0x53564d41, 0, 1<<32 | 16, neg(-1), 22, 38, 59}}},
	{nr: nrArchPrctl, name: "arch_prctl", weight: 5, args: []argKind{kConst, kPtr},
		consts: [6][]uint64{0: {0x1001, 0x1002, 0x1003, 0x1003, 0x1004, 0x1004, 0x1011, 0x1012, 0x3001, 0, 1<<32 | 0x1003, 1<<32 | 0x1002}}},
	{nr: nrGettid, name: "gettid", weight: 1},
	{nr: nrTkill, name: "tkill", weight: 4, args: []argKind{kTid, kSig}},
	{nr: nrTime, name: "time", weight: 3, args: []argKind{kPtr}},
	{nr: nrFutex, name: "futex", weight: 14, args: []argKind{kPtr, kConst, kInt, kTS, kPtr, kConst},
		consts: [6][]uint64{1: futexOps, 5: {0, 1, 0xffffffff, 1 << 32}}},
	{nr: nrSchedGetaffinity, name: "sched_getaffinity", weight: 4, args: []argKind{kPid, kLen, kPtr}},
	{nr: nrClockGettime, name: "clock_gettime", weight: 6, args: []argKind{kConst, kPtr}, consts: [6][]uint64{0: clocks}},
	{nr: nrClockGetres, name: "clock_getres", weight: 4, args: []argKind{kConst, kPtr}, consts: [6][]uint64{0: clocks}},
	{nr: nrClockNanosleep, name: "clock_nanosleep", weight: 4, args: []argKind{kConst, kConst, kTS, kPtr},
		consts: [6][]uint64{0: clocks, 1: {0, 1, 1, 2, neg(-1)}}},
	{nr: nrGetitimer, name: "getitimer", weight: 2, args: []argKind{kConst, kPtr}, consts: [6][]uint64{0: itimers}},
	{nr: nrSetitimer, name: "setitimer", weight: 2, args: []argKind{kConst, kNull, kPtr}, consts: [6][]uint64{0: itimers}},
	{nr: nrTimerCreate, name: "timer_create", weight: 3, args: []argKind{kConst, kPtr, kPtr}, consts: [6][]uint64{0: clocks}},
	{nr: nrTimerSettime, name: "timer_settime", weight: 2, args: []argKind{kConst, kConst, kNull, kPtr},
		consts: [6][]uint64{0: timerIDs, 1: {0, 1, 0xff, neg(-1)}}},
	{nr: nrTimerGettime, name: "timer_gettime", weight: 2, args: []argKind{kConst, kPtr}, consts: [6][]uint64{0: timerIDs}},
	{nr: nrTimerGetoverrun, name: "timer_getoverrun", weight: 1, args: []argKind{kConst}, consts: [6][]uint64{0: timerIDs}},
	{nr: nrTimerDelete, name: "timer_delete", weight: 2, args: []argKind{kConst}, consts: [6][]uint64{0: timerIDs}},
	{nr: nrExitGroup, name: "exit_group", weight: 1, args: []argKind{kInt}},
	{nr: nrEpollWait, name: "epoll_wait", weight: 8, args: []argKind{kEpfd, kPtr, kConst, kConst},
		consts: [6][]uint64{2: maxEvents, 3: epTimeout}},
	{nr: nrEpollCtl, name: "epoll_ctl", weight: 8, args: []argKind{kEpfd, kConst, kEvfd, kPtr}, consts: [6][]uint64{1: {1, 1, 2, 3, 0, 4, 1<<32 | 1}}},
	{nr: nrTgkill, name: "tgkill", weight: 4, args: []argKind{kPid, kTid, kSig}},
	{nr: nrOpenat, name: "openat", weight: 2, args: []argKind{kConst, kPtr, kInt, kInt}, consts: [6][]uint64{0: {neg(-100), 0, 3}}},
	{nr: nrNewfstatat, name: "newfstatat", weight: 1, args: []argKind{kFD, kPtr, kPtr, kInt}},
	{nr: nrReadlinkat, name: "readlinkat", weight: 1, args: []argKind{kFD, kPtr, kPtr, kLen}},
	{nr: nrFaccessat, name: "faccessat", weight: 1, args: []argKind{kFD, kPtr, kInt}},
	{nr: nrEpollPwait, name: "epoll_pwait", weight: 8, args: []argKind{kEpfd, kPtr, kConst, kConst, kPtr, kConst},
		consts: [6][]uint64{2: maxEvents, 3: epTimeout, 5: setsize}},
	{nr: nrEventfd2, name: "eventfd2", weight: 5, args: []argKind{kInt, kConst}, consts: [6][]uint64{1: {0x800, 0x800, 0x80800, 0, 1, 0x801, 0x80000, neg(-1)}}},
	{nr: nrPipe2, name: "pipe2", weight: 4, args: []argKind{kPtr, kConst}, consts: [6][]uint64{1: {0x800, 0x800, 0x80800, 0, 0x4000, 0x80, 0x1000000, neg(-1)}}},
	{nr: nrEpollCreate1, name: "epoll_create1", weight: 3, args: []argKind{kConst}, consts: [6][]uint64{0: {0, 0, 0x80000, 1, neg(-1)}}},
	{nr: nrPrlimit64, name: "prlimit64", weight: 3, args: []argKind{kPid, kConst, kNull, kPtr}, consts: [6][]uint64{1: rlimits}},
	{nr: nrGetrandom, name: "getrandom", weight: 6, args: []argKind{kPtr, kLen, kConst}, consts: [6][]uint64{2: {0, 1, 2, 4, 7, 8, 1 << 32}}},
	{nr: nrRseq, name: "rseq", weight: 1, args: []argKind{kPtr, kLen, kInt, kInt}},
	{nr: nrFaccessat2, name: "faccessat2", weight: 1, args: []argKind{kFD, kPtr, kInt, kInt}},
	{nr: nrGmposInfo, name: "gmpos_info", weight: 10, args: []argKind{kConst, kPtr, kLen}, consts: [6][]uint64{0: gmposReq}},
	// The network stack's private call, made as a hostile stack would on the fuzzer's own
	// sockets (net.go netArgs): the kernel trusts no record of it. OpEvents and OpAccepted would
	// break the real stack and are filtered; OpAttach and OpOpenNIC must fail.
	{nr: nrGmposNet, name: "gmpos_net", weight: 6, args: []argKind{kConst, kPtr, kLen, kPtr, kLen, kInt}, consts: [6][]uint64{0: netOps}},
}

var (
	specOf      = map[uint64]*spec{}
	totalWeight int
)

func init() {
	specs = append(specs, socketSpecs...)
	for i := range specs {
		specOf[specs[i].nr] = &specs[i]
		totalWeight += specs[i].weight
	}
}

// callName names nr for the log.
func callName(nr uint64) string {
	if s := specOf[nr]; s != nil {
		return s.name
	}
	return fmt.Sprintf("nr%#x", nr)
}

// rng is splitmix64: tiny, and any state is a good one, so a per-call state can be derived from
// (seed, worker, call index) directly.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *rng) pick(v []uint64) uint64 { return v[r.intn(len(v))] }

// Layout of the scratch region: a PROT_NONE reservation the runtime never uses, with the scratch
// pages in the middle and an unmapped guard page right after them. Only the kernel ever touches
// the scratch pages (the fuzzer's own code never does), so any call may do anything to them.
const (
	resvSize     = 64 << 20
	scratchOff   = 32 << 20
	scratchPages = 64
	roPage       = 60 // read-only
	nonePage     = 61 // PROT_NONE; 62 and 63 are read-write again, up to the guard
)

// The per-worker slot of the global arena (in the image's .bss, a pinned VMA): prepared structs
// the generator points at, rewritten before every call because calls may overwrite them, and an
// output area.
const (
	slotSize   = 4096
	offShortTS = 0   // {0, 500 µs}: the only sleep the fuzzer allows to block
	offZeroTS  = 16  // {0, 0}
	offBadTS   = 32  // {0, 1e9}: EINVAL
	offNegTS   = 48  // {-1, 0}: EINVAL
	offEvent   = 64  // struct epoll_event {EPOLLIN, data}
	offSigset  = 80  // all signals
	offOut     = 128 // free for the kernel to write
	maxWorkers = 64
)

// arena is the fuzzer's global buffer; one slot per worker plus a spare one, so that reading
// past the last worker's slot stays inside it.
var arena [maxWorkers + 1][slotSize]byte

// canary is never handed to the kernel: it must be intact at the end.
var canary [16 << 10]byte

// fuzzer is the state shared by the workers.
type fuzzer struct {
	seed    uint64
	threads int
	verbose bool
	only    int // run only this worker's calls (-1: all)

	resv, scratch, scratchEnd, guardEnd uintptr
	text, rodata                        uintptr // a function of the program; a string constant

	protected [maxFD]bool               // fds 0-2 and the Go runtime's (its epoll and eventfd)
	created   [maxFD]atomic.Uint32      // fds the fuzzer's calls created: fdEventfd, fdEpoll (0: none)
	tids      [maxWorkers]atomic.Uint64 // each worker's current thread id
	oldTids   [64]atomic.Uint64         // thread ids of workers' threads that have exited
	wg        sync.WaitGroup            // the workers' goroutines

	known map[string]bool // known kernel bugs the filter steers clear of (-known)

	mu     sync.Mutex
	wrongs int // calls the oracle found wrong

	upkeepErrs atomic.Uint64        // upkeeps that could not open a socket (net.go)
	upkeepErr  atomic.Value         // the first one's error (a string)
	sids       [maxFD]atomic.Uint64 // the socket ids (st_ino) of created's sockets, for gmpos_net
}

// maxFD bounds the fds the kernel hands out (its fd table: kernel/fd.go maxFDs), so that every
// fd a call returns has a place in the tables above — dup2(fd, 1000) succeeds.
const maxFD = 1024

// wrong reports a call the oracle found wrong (the first few in full).
func (f *fuzzer) wrong(msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wrongs++
	if f.wrongs <= 10 {
		fmt.Printf("sysfuzz: WRONG: %s\n", msg)
	}
}

// worker is one fuzzing thread.
type worker struct {
	f    *fuzzer
	id   int
	seed uint64
	slot uintptr // its arena slot
	heap []byte  // its own Go heap buffer
	tid  uint64

	done     atomic.Uint64
	cur      [8]atomic.Uint64 // the call in flight: index, nr, args (for the stall report)
	issued   uint64
	skipped  uint64
	perCall  map[uint64]uint64
	perOK    map[uint64]uint64
	perErrno [4096]uint64
	skipWhy  map[string]uint64
	owned    []uint64 // fds this worker's calls created, oldest first
	probe    *probe   // its private region for the memory probes (probe.go)

	// What gen drew for the socket calls' prepared structs (net.go), written by prepare.
	iov  [iovN][2]uint64
	msg  [7]uint64
	lenp uint64
	opt  uint64
}

func main() {
	seed := flag.Uint64("seed", 1, "random seed; worker i uses seed+i")
	calls := flag.Int("calls", 20000, "system calls in total (divided among the workers)")
	threads := flag.Int("threads", 2, "worker threads (each locked to its own OS thread)")
	verbose := flag.Bool("v", false, "print each call before making it, and its result (slow; for narrowing down a kernel fault)")
	only := flag.Int("worker", -1, "run only this worker's calls (with -threads as in the run being replayed)")
	stall := flag.Duration("stall", 20*time.Second, "report a call that has not returned after this long")
	report := flag.Bool("report", false, "print why calls were skipped, and each implemented call's successes, at the end")
	known := flag.String("known", "", "comma-separated known kernel bugs not to provoke again (see known.go; \"all\" for every one)")
	flag.Parse()
	if *threads < 1 || *threads > maxWorkers {
		fmt.Fprintf(os.Stderr, "sysfuzz: -threads must be 1..%d\n", maxWorkers)
		os.Exit(2)
	}
	f := &fuzzer{seed: *seed, threads: *threads, verbose: *verbose, only: *only}
	if err := f.setKnown(*known); err != nil {
		fmt.Fprintf(os.Stderr, "sysfuzz: %v\n", err)
		os.Exit(2)
	}
	replay := fmt.Sprintf("-seed %d -calls %d -threads %d", *seed, *calls, *threads)
	if *known != "" {
		replay += " -known " + *known
	}
	// A P for every worker and one more: a worker makes its calls with RawSyscall and keeps its
	// P meanwhile, and the network stack's goroutines need one to answer a round trip (bind,
	// listen, getsockopt) without waiting for sysmon's 10 ms — or, on one vCPU, at all.
	runtime.GOMAXPROCS(*threads + 1)
	fmt.Printf("sysfuzz: seed %d, %d calls, %d threads, GOMAXPROCS %d (replay: %s [-v])\n",
		*seed, *calls, *threads, runtime.GOMAXPROCS(0), replay)
	f.setup()

	for i := range canary {
		canary[i] = byte(i*7 + 1)
	}
	heapCanary := make([]byte, 64<<10)
	for i := range heapCanary {
		heapCanary[i] = byte(i*13 + 5)
	}
	textSum := checksum(f.text&^(pageSize-1), pageSize)

	ws := make([]*worker, *threads)
	per := *calls / *threads
	start := make(chan struct{})
	for i := range ws {
		w := &worker{f: f, id: i, seed: *seed + uint64(i), slot: uintptrOf(&arena[i][0]),
			heap: make([]byte, 16<<10), perCall: map[uint64]uint64{}, perOK: map[uint64]uint64{}, skipWhy: map[string]uint64{}}
		ws[i] = w
		n := per
		if i < *calls%*threads {
			n++
		}
		if f.only >= 0 && i != f.only {
			n = 0
		}
		ready := make(chan struct{})
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			runtime.LockOSThread()
			w.setTid()
			close(ready)
			<-start // every worker's tid is known: the generators may pick them
			if w.run(0, n) {
				runtime.UnlockOSThread()
			}
		}()
		<-ready
	}
	f.setupProbes(ws)
	began := time.Now()
	close(start)

	finished := make(chan struct{})
	go func() { f.wg.Wait(); close(finished) }()
	f.watch(ws, finished, *stall)
	elapsed := time.Since(began)

	// Integrity: nothing the kernel was told to refuse may have changed the program.
	bad := []string{}
	if d := damage(canary[:], 7, 1); d != "" {
		bad = append(bad, "global canary "+d)
	}
	if d := damage(heapCanary, 13, 5); d != "" {
		bad = append(bad, "heap canary "+d)
	}
	if checksum(f.text&^(pageSize-1), pageSize) != textSum {
		bad = append(bad, "program text changed")
	}
	for fd := range f.protected {
		if f.protected[fd] {
			if _, _, e := syscall.RawSyscall(nrFcntl, uintptr(fd), syscall.F_GETFD, 0); e != 0 {
				bad = append(bad, fmt.Sprintf("runtime fd %d gone (%v)", fd, e))
			}
		}
	}
	if err := f.openPair(func(fd uintptr, _ uint32) { syscall.RawSyscall(nrClose, fd, 0, 0) }); err != nil {
		bad = append(bad, "the network stack no longer makes a loopback connection: "+err.Error())
	}
	runtime.GC()
	t0 := time.Now()
	time.Sleep(time.Millisecond)
	if time.Since(t0) < time.Millisecond {
		bad = append(bad, "time.Sleep(1ms) returned early")
	}
	if f.wrongs > 0 {
		bad = append(bad, fmt.Sprintf("%d calls succeeded that must fail", f.wrongs))
	}
	if len(bad) > 0 {
		fmt.Printf("sysfuzz: FAILED: %s\n", strings.Join(bad, "; "))
		os.Exit(4)
	}
	if *report {
		fmt.Print(skipReport(ws))
	}
	if n := f.upkeepErrs.Load(); n > 0 {
		fmt.Printf("sysfuzz: %d upkeeps could not open a socket (the calls had left no room, or raced); first: %v\n", n, f.upkeepErr.Load())
	}
	fmt.Printf("%s; %.1fs, %.0f calls/s\n", summary(ws), elapsed.Seconds(), float64(*calls)/elapsed.Seconds())
	fmt.Printf("sysfuzz: %d calls on %d threads, seed %d: no kernel fault\n", *calls, *threads, *seed)
}

// setup maps the scratch region, finds the runtime's fds and the image addresses.
func (f *fuzzer) setup() {
	// The reservation: PROT_NONE, away from where the runtime maps (top-down below 0x7f00_0000_0000,
	// or its heap hints); a hint only, so wherever the kernel puts it.
	r, _, e := syscall.RawSyscall6(nrMmap, 0x5a5a_0000_0000, resvSize, syscall.PROT_NONE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE, ^uintptr(0), 0)
	if e != 0 {
		fmt.Printf("sysfuzz: cannot reserve the scratch region: %v\n", e)
		os.Exit(2)
	}
	f.resv = r
	f.scratch = r + scratchOff
	f.scratchEnd = f.scratch + scratchPages*pageSize
	f.guardEnd = f.scratchEnd + pageSize
	if err := f.restore(); err != nil {
		fmt.Printf("sysfuzz: cannot lay out the scratch region: %v\n", err)
		os.Exit(2)
	}
	f.text = reflect.ValueOf(main).Pointer()
	f.rodata = uintptr(unsafe.Pointer(unsafe.StringData("sysfuzz: read-only data in the kernel image")))

	// Make the runtime open its netpoller fds (an epoll instance and an eventfd, created with the
	// first timer), then record every open fd as the runtime's.
	time.Sleep(time.Millisecond)
	for fd := range f.protected {
		if _, _, e := syscall.RawSyscall(nrFcntl, uintptr(fd), syscall.F_GETFD, 0); e == 0 || fd <= 2 {
			f.protected[fd] = true
		}
	}
	var open []string
	for fd := 3; fd < len(f.protected); fd++ {
		if f.protected[fd] {
			open = append(open, fmt.Sprint(fd))
		}
	}
	fmt.Printf("sysfuzz: scratch %#x-%#x (guard page after it), runtime fds [%s], text %#x, rodata %#x, arena %#x\n",
		f.scratch, f.scratchEnd, strings.Join(open, " "), f.text, f.rodata, uintptr(unsafe.Pointer(&arena[0][0])))

	f.netSetup()

	// A few fds of the fuzzer's own, so that fd arguments hit live eventfds and epolls.
	for i := 0; i < 3; i++ {
		if fd, _, e := syscall.RawSyscall(nrEventfd2, 0, 0x800, 0); e == 0 {
			f.created[fd].Store(fdEventfd)
		}
	}
	if fd, _, e := syscall.RawSyscall(nrEpollCreate1, 0, 0, 0); e == 0 {
		f.created[fd].Store(fdEpoll)
	}
}

// restore lays the scratch region out again (calls may have unmapped, remapped or re-protected
// any of it): read-write pages, one read-only, one PROT_NONE, two read-write, then the guard.
func (f *fuzzer) restore() error {
	if _, _, e := syscall.RawSyscall6(nrMmap, f.scratch, scratchPages*pageSize, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_FIXED, ^uintptr(0), 0); e != 0 {
		return fmt.Errorf("mmap: %v", e)
	}
	if _, _, e := syscall.RawSyscall(nrMprotect, f.scratch+roPage*pageSize, pageSize, syscall.PROT_READ); e != 0 {
		return fmt.Errorf("mprotect read-only: %v", e)
	}
	if _, _, e := syscall.RawSyscall(nrMprotect, f.scratch+nonePage*pageSize, pageSize, syscall.PROT_NONE); e != 0 {
		return fmt.Errorf("mprotect none: %v", e)
	}
	if _, _, e := syscall.RawSyscall(nrMunmap, f.scratchEnd, pageSize, 0); e != 0 {
		return fmt.Errorf("munmap guard: %v", e)
	}
	return nil
}

// damage describes how b differs from its pattern (byte i = i*mul+add): where, how many bytes,
// and the first 32 bytes of the damaged range as found (what was written can tell who wrote it).
func damage(b []byte, mul, add int) string {
	first, last, n := -1, -1, 0
	for i := range b {
		if b[i] != byte(i*mul+add) {
			if first < 0 {
				first = i
			}
			last = i
			n++
		}
	}
	if first < 0 {
		return ""
	}
	end := min(first+32, len(b))
	return fmt.Sprintf("damaged at %#x: %d bytes differ in [%d, %d]; found % x",
		uintptrOf(&b[first]), n, first, last, b[first:end])
}

// inScratch reports whether [lo, hi) lies in the scratch region or its guard page.
func (f *fuzzer) inScratch(lo, hi uint64) bool {
	return lo >= uint64(f.scratch) && hi <= uint64(f.guardEnd) && lo < hi
}

// uintptrOf is the address of a byte of the fuzzer's own memory.
func uintptrOf(b *byte) uintptr { return uintptr(unsafe.Pointer(b)) }

// checksum sums n bytes at p, an address in the image that is not a Go object (code): the double
// conversion tells vet that the integer-to-pointer cast is deliberate.
func checksum(p uintptr, n int) uint64 {
	var s uint64
	for _, b := range unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), n) {
		s = s*31 + uint64(b)
	}
	return s
}

// watch waits for the workers and reports a call that does not return.
func (f *fuzzer) watch(ws []*worker, finished chan struct{}, stall time.Duration) {
	last := make([]uint64, len(ws))
	since := make([]time.Time, len(ws))
	for i := range since {
		since[i] = time.Now()
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-finished:
			return
		case <-tick.C:
		}
		for i, w := range ws {
			d := w.done.Load()
			if d != last[i] || w.cur[0].Load() == 0 {
				last[i], since[i] = d, time.Now()
				continue
			}
			if time.Since(since[i]) < stall {
				continue
			}
			fmt.Printf("sysfuzz: worker %d: a call has not returned for %v (seed %d, -threads %d)\n", i, stall, f.seed, f.threads)
			for _, w := range ws {
				k := w.cur[0].Load()
				if k == 0 {
					continue
				}
				fmt.Printf("sysfuzz:   worker %d call #%d: %s\n", w.id, k-1, formatCall(w.cur[1].Load(),
					[6]uint64{w.cur[2].Load(), w.cur[3].Load(), w.cur[4].Load(), w.cur[5].Load(), w.cur[6].Load(), w.cur[7].Load()}))
			}
			os.Exit(3)
		}
	}
}

func formatCall(nr uint64, a [6]uint64) string {
	return fmt.Sprintf("%s(%#x, %#x, %#x, %#x, %#x, %#x)", callName(nr), a[0], a[1], a[2], a[3], a[4], a[5])
}

// churnEvery is how often a worker moves to a new thread: the old one exits (its goroutine ends
// while locked to it), so thread exit and creation happen under fire, and signals go to thread
// ids that have just died.
const churnEvery = 2048

// setTid records the thread the worker now runs on.
func (w *worker) setTid() {
	w.tid = uint64(syscall.Gettid())
	w.f.tids[w.id].Store(w.tid)
}

// run makes calls k0..n-1 and reports whether it did all of them on this thread; false means it
// handed the rest to a new goroutine, and the caller must return still locked to its thread, so
// that the thread exits.
func (w *worker) run(k0, n int) bool {
	for k := k0; k < n; k++ {
		if k%churnEvery == churnEvery-1 && k > k0 {
			w.f.oldTids[(uint64(k/churnEvery)+uint64(w.id)*7)%uint64(len(w.f.oldTids))].Store(w.tid)
			w.f.wg.Add(1)
			go func() {
				defer w.f.wg.Done()
				runtime.LockOSThread()
				w.setTid()
				if w.run(k, n) {
					runtime.UnlockOSThread()
				}
			}()
			return false
		}
		if k%128 == 127 {
			// The scratch layout drifts as calls change it; put it back now and then so
			// that the pointer classes keep their meaning. Errors are the kernel's to explain
			// (a pinned page cannot appear there), so report them.
			if err := w.f.restore(); err != nil {
				fmt.Printf("sysfuzz: worker %d: restoring the scratch region: %v\n", w.id, err)
			}
		}
		if k%upkeepEvery == upkeepEvery/4 {
			w.upkeep()
		}
		if k%probeEvery == probeEvery/2 {
			// A generator of its own, so that the calls stay those of the seed.
			pr := rng{s: w.seed*0x9e3779b97f4a7c15 ^ uint64(k)*0x2545f4914f6cdd1d ^ 0x5bd1e995}
			pr.next()
			if bad := w.probeStep(&pr); bad != "" {
				w.f.wrong(fmt.Sprintf("worker %d before call #%d: %s", w.id, k, bad))
			}
		}
		r := rng{s: w.seed*0x2545f4914f6cdd1d ^ uint64(k)*0x9e3779b97f4a7c15}
		r.next()
		nr, a := w.gen(&r)
		w.prepare()
		if why := w.filter(nr, &a); why != "" {
			w.skipped++
			w.skipWhy[why]++
			w.done.Add(1)
			continue
		}
		w.cur[1].Store(nr)
		for i := range a {
			w.cur[2+i].Store(a[i])
		}
		w.cur[0].Store(uint64(k) + 1)
		if w.f.verbose {
			fmt.Printf("w%d #%d %s\n", w.id, k, formatCall(nr, a))
		}
		var r1 uintptr
		var e syscall.Errno
		f0, id0, seed0 := w.f, w.id, w.seed // to catch a call that writes over the worker (below)
		if blocking(nr) {
			r1, _, e = syscall.Syscall6(uintptr(nr), uintptr(a[0]), uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), uintptr(a[5]))
		} else {
			r1, _, e = syscall.RawSyscall6(uintptr(nr), uintptr(a[0]), uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4]), uintptr(a[5]))
		}
		w.cur[0].Store(0)
		if w.f != f0 || w.id != id0 || w.seed != seed0 {
			// The worker's own struct was overwritten during the call (it is a large heap object;
			// w.heap's buffer may end just before it): say which call did it, instead of letting
			// the next use of w.f fault somewhere unrelated.
			fmt.Printf("sysfuzz: worker %d: the Go heap changed under call #%d %s = %#x %v (worker struct damaged: f=%p)\n",
				id0, k, formatCall(nr, a), r1, errName(e), w.f)
			os.Exit(2)
		}
		if w.f.verbose {
			fmt.Printf("w%d #%d = %#x %v\n", w.id, k, r1, errName(e))
		}
		w.done.Add(1)
		w.issued++
		w.perCall[nr]++
		if e < 4096 {
			w.perErrno[e]++
		}
		if e == 0 {
			w.perOK[nr]++
			if bad := w.oracle(nr, &a, uint64(r1)); bad != "" {
				w.f.wrong(fmt.Sprintf("worker %d call #%d: %s %s", w.id, k, formatCall(nr, a), bad))
			}
			w.after(nr, a, uint64(r1))
		}
	}
	return true
}

// blocking reports calls that may wait (≤ 1 ms, see filter): they go through Syscall6, which
// tells the runtime, so that the goroutine's P can run others meanwhile — as in a real program.
func blocking(nr uint64) bool {
	switch nr {
	case nrFutex, nrNanosleep, nrClockNanosleep, nrEpollWait, nrEpollPwait, nrSchedYield, nrPoll:
		return true
	case nrBind, nrListen, nrConnect, nrGetsockopt:
		// Round trips to the network stack, which needs a P to answer (with GOMAXPROCS=1, a
		// RawSyscall keeps the only one: the call would time out after 10 s).
		return true
	}
	return false
}

// prepare rewrites the prepared structs of the worker's arena slot.
func (w *worker) prepare() {
	b := arena[w.id][:]
	put := func(off int, v uint64) { binary.LittleEndian.PutUint64(b[off:], v) }
	put(offShortTS, 0)
	put(offShortTS+8, 500_000)
	put(offZeroTS, 0)
	put(offZeroTS+8, 0)
	put(offBadTS, 0)
	put(offBadTS+8, 1_000_000_000)
	put(offNegTS, neg(-1))
	put(offNegTS+8, 0)
	put(offEvent, 1|0x1234<<32)                      // events EPOLLIN, data low half
	binary.LittleEndian.PutUint32(b[offEvent+8:], 0) // data high half
	put(offSigset, ^uint64(0))
	w.prepareNet()
}

// after books what a successful call created: fds are remembered (and the oldest closed when a
// worker holds many), and mappings outside the fuzzer's regions are unmapped at once so that
// neither the VMA table nor RAM fills up.
func (w *worker) after(nr uint64, a [6]uint64, r uint64) {
	switch nr {
	case nrEventfd2, nrEpollCreate1, nrEventfd, nrEpollCreate:
		if r < uint64(len(w.f.created)) {
			kind := uint32(fdEventfd)
			if nr == nrEpollCreate1 || nr == nrEpollCreate {
				kind = fdEpoll
			}
			w.own(r, kind)
		}
	case nrPipe2:
		if w.inSlot(a[0], 8) { // the filter lets no other pipe2 succeed
			fds := w.slotU64(a[0])
			w.own(uint64(uint32(fds)), fdPipe)
			w.own(fds>>32, fdPipe)
		}
	case nrSocket, nrAccept, nrAccept4, nrListen, nrDup, nrDup2, nrDup3, nrFcntl:
		w.sockAfter(nr, a, r)
	case nrClose:
		if a[0] < uint64(len(w.f.created)) {
			w.f.created[a[0]].Store(0)
		}
	case nrMmap, nrMremap:
		length := a[1]
		if nr == nrMremap {
			length = a[2]
		}
		if !w.f.inScratch(r, r+1) {
			syscall.RawSyscall(nrMunmap, uintptr(r), uintptr(length), 0)
		}
	}
}

// gen makes call k's number and arguments from its own generator.
func (w *worker) gen(r *rng) (uint64, [6]uint64) {
	var nr uint64
	var s *spec
	switch x := r.intn(100); {
	case x < 85:
		n := r.intn(totalWeight)
		for i := range specs {
			if n < specs[i].weight {
				s = &specs[i]
				break
			}
			n -= specs[i].weight
		}
		nr = s.nr
	case x < 98:
		nr = uint64(r.intn(512))
		s = specOf[nr]
	default:
		wild := []uint64{1<<32 | uint64(r.intn(512)), 0x40000000 | uint64(r.intn(512)), ^uint64(0), nrGmposInfo + 1,
			nrGmposInfo - 1, 1<<32 | nrGmposInfo, 1 << 63, 512 + uint64(r.intn(512))}
		nr = r.pick(wild)
	}
	var a [6]uint64
	for i := range a {
		k := kAny
		if s != nil && i < len(s.args) && r.intn(4) != 0 {
			k = s.args[i]
		}
		var c []uint64
		if s != nil {
			c = s.consts[i]
		}
		a[i] = w.value(r, k, c)
	}
	if nr == nrGmposNet && s != nil {
		w.netArgs(r, &a)
	}
	return nr, a
}

// value draws one argument of kind k (c: the call's constants for this slot).
func (w *worker) value(r *rng, k argKind, c []uint64) uint64 {
	if v, ok := w.netValue(r, k); ok {
		return v
	}
	if k == kAny {
		k = []argKind{kInt, kInt, kFD, kPtr, kPtr, kPtr, kLen, kLen, kTid, kSig, kTS}[r.intn(11)]
	}
	switch k {
	case kConst:
		if len(c) > 0 {
			return r.pick(c)
		}
		return w.value(r, kInt, nil)
	case kInt:
		switch r.intn(4) {
		case 0:
			return uint64(r.intn(10))
		case 1:
			return 1<<32 | uint64(r.intn(300))
		case 2:
			return r.next()
		}
		return r.pick([]uint64{0, 1, 2, 3, 7, 8, 15, 16, 63, 64, 65, 127, 128, 255, 256, 511, 512, 1000, 4095, 4096,
			4097, 1 << 16, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, neg(-1), neg(-2), neg(-4095), neg(-4096)})
	case kFD:
		switch r.intn(5) {
		case 0:
			return uint64(r.intn(301))
		case 1:
			return uint64(r.intn(6))
		case 2:
			return r.pick([]uint64{neg(-1), 255, 256, 1 << 31, 1<<32 | uint64(r.intn(8)), neg(-100)})
		}
		return w.createdFD(r, 0)
	case kEpfd, kEvfd:
		want := uint32(fdEpoll)
		if k == kEvfd {
			want = fdEventfd
		}
		if r.intn(4) == 0 {
			return w.value(r, kFD, nil)
		}
		return w.createdFD(r, 1<<want)
	case kLen:
		switch r.intn(4) {
		case 0:
			return uint64(r.intn(1 << 13))
		case 1:
			return uint64(r.intn(scratchPages+3)) * pageSize
		}
		return r.pick([]uint64{0, 1, 8, 12, 16, 24, 32, 128, 144, 390, 4096, 4097, scratchPages * pageSize,
			1 << 59, 1 << 60, 1 << 61, 1 << 62, 1 << 63, 0x1555555555555556, 0x2000000000000001, 0x1000000000000001,
			0x2000000000000000 - 1, 1 << 47, 1 << 46, userEnd, userEnd + 1, 1 << 40, 1 << 32, 1<<32 | 8, 1 << 31,
			neg(-1), neg(-4096), 1<<64 - 1<<47, 33554431, 33554432, 0x15555556})
	case kTid:
		switch r.intn(3) {
		case 0:
			return w.f.tids[r.intn(w.f.threads)].Load()
		case 1:
			return uint64(r.intn(301))
		}
		if r.intn(2) == 0 {
			return w.f.oldTids[r.intn(len(w.f.oldTids))].Load() // a thread that has exited, or 0
		}
		return r.pick([]uint64{0, 1, w.tid, neg(-1), 4096, 4097, 1<<32 | 1, 1 << 31})
	case kPid:
		return r.pick([]uint64{0, 1, 1, 1, neg(-1), 2, w.tid, 1<<32 | 1, 4097, neg(-100)})
	case kSig:
		if r.intn(3) == 0 {
			return uint64(r.intn(70))
		}
		return r.pick([]uint64{0, 0, 23, 23, 10, 12, 17, 18, 28, 40, 64, 65, 9, 11, 19, neg(-1), 1<<32 | 23, 1<<32 | 9})
	case kTS:
		if r.intn(4) != 0 {
			return uint64(w.slot) + r.pick([]uint64{offShortTS, offShortTS, offZeroTS, offBadTS, offNegTS})
		}
		return w.pointer(r)
	case kNull:
		if r.intn(3) != 0 {
			return 0
		}
		return w.pointer(r)
	}
	return w.pointer(r)
}

// createdFD picks, uniformly, an fd the fuzzer created, of the kinds in mask (1<<kind; 0: any).
// It makes one draw whatever their number, so that the draws stay aligned with the seed.
func (w *worker) createdFD(r *rng, mask uint32) uint64 {
	x := r.next()
	var live [len(w.f.created)]uint16
	n := 0
	for fd := range w.f.created {
		if k := w.f.created[fd].Load(); k != 0 && (mask == 0 || mask&(1<<k) != 0) {
			live[n] = uint16(fd)
			n++
		}
	}
	if n == 0 {
		return 3
	}
	return uint64(live[x%uint64(n)])
}

// pointer draws an address.
func (w *worker) pointer(r *rng) uint64 {
	f := w.f
	var p uint64
	switch r.intn(16) {
	case 0, 1, 2: // read-write scratch, aligned or not
		p = uint64(f.scratch) + uint64(r.intn(scratchPages))*pageSize
		if r.intn(2) == 0 {
			p += uint64(r.intn(pageSize))
		}
	case 3: // read-only and PROT_NONE pages
		p = uint64(f.scratch) + r.pick([]uint64{roPage, nonePage})*pageSize + uint64(r.intn(64))
	case 4: // straddling the end of the scratch region into the guard page, or in it
		p = uint64(f.scratchEnd) - uint64(r.intn(32))
		if r.intn(3) == 0 {
			p = uint64(f.scratchEnd) + uint64(r.intn(pageSize))
		}
	case 5: // the worker's arena slot: prepared structs, the output area, its last bytes
		p = uint64(w.slot) + r.pick([]uint64{offShortTS, offZeroTS, offEvent, offSigset, offOut, offOut + 4,
			offOut + 1, slotSize - 8, slotSize - 16, slotSize - 1})
	case 6: // the worker's heap buffer
		p = uint64(uintptr(unsafe.Pointer(&w.heap[0]))) + r.pick([]uint64{0, 1, 8, 4096, uint64(len(w.heap) - 8)})
	case 7: // the kernel image: program text, read-only data, the global arena itself (pinned)
		p = r.pick([]uint64{uint64(f.text), uint64(f.text) + 1, uint64(f.text) &^ (pageSize - 1), uint64(f.rodata),
			uint64(uintptr(unsafe.Pointer(&arena[0][0]))) &^ (pageSize - 1), imageBase})
	case 8, 9: // NULL and the nil page, and other places nothing maps
		p = r.pick([]uint64{0, 0, 8, 0x1000, minAddr - 8, minAddr, 0x20000, imageBase - pageSize, stackTop,
			userEnd - pageSize, userEnd - 8, userEnd - 1, uint64(f.resv), uint64(f.resv) + resvSize - 8})
	case 10, 11: // non-canonical and the kernel half
		p = r.pick([]uint64{1 << 47, 1<<47 + 8, 1 << 63, 0xdead_0000_0000_0000, 0x8000_0000_0000_0000,
			directMap, directMap + imageBase, directMap + 0x10_0000_0000, kstacks, kstacks + pageSize,
			kstacks + 2*pageSize - 8, 0xffff_f000_dead_0000, 0xffff_ffff_ffff_f000, neg(-8), neg(-1)})
	case 12: // the local APIC's registers (identity mapped, supervisor only, pinned PROT_NONE VMA)
		p = lapicBase + r.pick([]uint64{0, 0xb0, 0x300, 0xff8})
	case 13: // the prepared timespecs (sleep, futex and clock calls read them)
		p = uint64(w.slot) + r.pick([]uint64{offShortTS, offZeroTS, offBadTS, offNegTS})
	default: // integers and lengths used as pointers
		p = w.value(r, []argKind{kInt, kLen}[r.intn(2)], nil)
	}
	return p
}
