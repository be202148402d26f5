// Guest: sysfuzz's keep-alive rules: which generated calls would kill or hang the fuzzer itself.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"sort"
	"strings"
	"syscall"
)

// filter returns why the call must not be made ("" to make it). The decision is taken on the
// actual argument values: a call whose legitimate effect (on gmpos, or on Linux where gmpos is
// stricter) kills the program, hangs it, or writes to memory the fuzzer does not own is skipped;
// the same call with arguments the kernel must refuse is made.
//
// Linux reads the system call number as a 32-bit int and strips the x32 bit (0x40000000) when it
// supports x32; gmpos compares all 64 bits. Every view of the number is checked, so that a kernel
// that narrows the number like Linux cannot be made to run exit(2) by 1<<32|60.
func (w *worker) filter(nr uint64, a *[6]uint64) string {
	views := [3]uint64{nr, uint64(uint32(nr)), uint64(uint32(nr) &^ 0x40000000)}
	for i, v := range views {
		if i > 0 && v == views[i-1] {
			continue
		}
		if why := w.rule(v, a); why != "" {
			return why
		}
		if why := w.outRule(v, a); why != "" {
			return why
		}
		if why := w.knownRule(v, a); why != "" {
			return why
		}
	}
	return ""
}

// rule is filter for one view of the number. Linux takes most int arguments (fds, signals,
// options, commands) as 32-bit ints, so those are compared as int32/uint32.
func (w *worker) rule(nr uint64, a *[6]uint64) string {
	f := w.f
	fd := func(i int) bool { return uint32(a[i]) < uint32(len(f.protected)) && f.protected[uint32(a[i])] }
	if why := w.sockRule(nr, a); why != "" {
		return why // sockets, readv, recvmsg, gmpos_net (net.go)
	}
	switch nr {
	case nrExit, nrExitGroup:
		return "exit"
	case nrRtSigreturn:
		return "rt_sigreturn (loads registers from the stack: jumps to garbage)"
	case nrFork, nrVfork, nrClone3, nrExecve, nrExecveat:
		return "creates or replaces a process"
	case nrClone:
		// Linux refuses CLONE_THREAD without CLONE_SIGHAND and CLONE_SIGHAND without CLONE_VM
		// (copy_process: EINVAL), and so does gmpos: those are kept. Any other clone starts a
		// thread or a process at the caller's IP on a garbage stack.
		fl := a[0]
		if fl&0x10000 != 0 && fl&0x800 == 0 || fl&0x800 != 0 && fl&0x100 == 0 {
			return ""
		}
		return "clone that would start a thread"
	case nrKill, nrTkill:
		return sigRule(a[1])
	case nrTgkill, nrRtTgsigqueueinfo:
		return sigRule(a[2])
	case nrRtSigqueueinfo, nrPidfdSendSignal:
		return sigRule(a[1])
	case nrRtSigaction:
		// A query (act NULL), and calls Linux refuses before reading act (bad sigsetsize,
		// bad signal) or cannot read act for, are kept; installing a handler would replace the
		// runtime's.
		if a[1] == 0 || a[3] != 8 || int32(a[0]) < 1 || int32(a[0]) > 64 || f.unreadable(a[1], 32) {
			return ""
		}
		return "installs a signal handler"
	case nrRtSigprocmask:
		// Queries only: blocking SIGSEGV or SIGURG under the runtime would kill or stall it.
		if a[1] == 0 || a[3] != 8 || int32(a[0]) < 0 || int32(a[0]) > 2 || f.unreadable(a[1], 8) {
			return ""
		}
		return "changes the signal mask"
	case nrSigaltstack:
		// The runtime's signal handler throws when it finds itself off its gsignal stack.
		if a[0] == 0 || f.unreadable(a[0], 24) {
			return ""
		}
		return "changes the alternate signal stack"
	case nrArchPrctl:
		switch int32(a[0]) {
		case 0x1001, 0x1002:
			return "sets FS/GS (the runtime's TLS)"
		case 0x1012, 0x2001, 0x2002, 0x2003, 0x4001, 0x4002, 0x4003, 0x4004, 0x5001, 0x5002, 0x5003, 0x5004, 0x5005:
			return "arch_prctl that changes the thread (CPUID faulting, vDSO, LAM, shadow stack)"
		}
		return ""
	case nrPrctl:
		switch o := int32(a[0]); o {
		case 2, 3, 5, 7, 9, 11, 13, 15, 16, 19, 21, 25, 30, 37, 39, 40, 42, 0x53564d41:
			return "" // queries, the thread's name, naming an anonymous mapping
		default:
			if o < 1 || o > 80 {
				return "" // no such option: EINVAL
			}
		}
		return "prctl that changes the process (seccomp, dumpable, no_new_privs, ...)"
	case nrPrlimit64:
		if a[2] == 0 || uint32(a[1]) >= 16 || f.unreadable(a[2], 16) {
			return ""
		}
		return "sets a resource limit (RLIMIT_AS or RLIMIT_CPU would kill)"
	case nrSetrlimit:
		if uint32(a[0]) >= 16 || f.unreadable(a[1], 16) {
			return ""
		}
		return "sets a resource limit"
	case nrGmposInfo:
		if uint32(a[0]) == 3 {
			return "gmpos_info(3): the deliberate kernel fault (a test hook)"
		}
		return ""

	// Memory: only the fuzzer's regions, and ranges every kernel must refuse.
	case nrMmap:
		fl := a[3]
		if a[1] == 0 {
			return "" // EINVAL
		}
		if fl&syscall.MAP_FIXED == 0 {
			// The kernel picks the place (or honours a free hint; MAP_FIXED_NOREPLACE never
			// replaces): the mapping is new and the fuzzer's, and after() unmaps it. Populating
			// (MAP_POPULATE, MAP_LOCKED) a huge one would take all of RAM.
			if fl&(syscall.MAP_POPULATE|syscall.MAP_LOCKED) != 0 && a[2]&7 != 0 && a[1] > 1<<20 {
				return "populates a huge mapping (out of memory)"
			}
			return ""
		}
		if !f.mmRangeOK(a[0], a[1]) {
			return "MAP_FIXED over memory that is not the fuzzer's"
		}
		return ""
	case nrMunmap:
		if !f.mmRangeOK(a[0], a[1]) {
			return "munmap of memory that is not the fuzzer's"
		}
		return ""
	case nrMprotect, nrPkeyMprotect:
		if !f.mmRangeOK(a[0], a[1]) {
			return "mprotect of memory that is not the fuzzer's"
		}
		return ""
	case nrMadvise:
		switch int32(a[2]) {
		case 4, 8, 9, 24, 100, 101, 102:
			// DONTNEED, FREE, REMOVE, DONTNEED_LOCKED discard contents; HWPOISON,
			// SOFT_OFFLINE, GUARD_INSTALL make pages fault. (DONTNEED_LOCKED was missing
			// here once: it zeroed 116 KiB of the Go heap in a 20M-call run, and the runtime
			// crashed with nil pointers in its signal handler.)
			if !f.mmRangeOK(a[0], a[1]) {
				return "madvise that discards memory that is not the fuzzer's"
			}
		case 22, 23:
			// POPULATE_READ/WRITE over a huge range would take all of RAM.
			if !f.mmRangeOK(a[0], a[1]) {
				return "madvise that populates memory that is not the fuzzer's"
			}
		}
		return "" // hints (and unknown advice: EINVAL) change nothing
	case nrMremap:
		if !f.mmRangeOK(a[0], a[1]) || !f.mmRangeOK(a[0], a[2]) || a[3]&2 != 0 && !f.mmRangeOK(a[4], a[2]) {
			return "mremap of memory that is not the fuzzer's"
		}
		return ""
	case nrRemapFilePages:
		if !f.mmRangeOK(a[0], a[1]) {
			return "remap_file_pages of memory that is not the fuzzer's"
		}
		return ""
	case nrMseal:
		// Sealing the scratch region would make restore fail for good; sealing the runtime's
		// memory would make its later munmap/mprotect fail (fatal).
		if f.mmInvalid(a[0], a[1]) {
			return ""
		}
		return "mseal"
	case nrShmat:
		return "shmat (SHM_REMAP replaces whatever is mapped at the address)"
	case nrBrk:
		// brk below the start of the heap segment (after the image's .bss) changes nothing.
		if a[0] < imageBase || a[0] >= userEnd {
			return ""
		}
		return "moves the program break"
	case nrMlockall:
		return "mlockall (MCL_FUTURE populates every later mapping)"

	// Waiting: at most ~1 ms.
	case nrFutex:
		switch uint32(a[1]) &^ (128 | 256) {
		case 0, 9: // WAIT, WAIT_BITSET
			if !w.shortTS(a[3]) {
				return "futex wait without a short timeout"
			}
		case 3, 4, 5, 6, 7, 8, 11, 12, 13:
			// REQUEUE, CMP_REQUEUE, WAKE_OP, the PI operations: they move, modify or lock
			// futex words, or wait without a timeout.
			return "futex requeue/wake_op/PI operation"
		}
		return "" // WAKE (spurious wake-ups are harmless: the runtime rechecks), unknown ops
	case nrFutexWait, nrFutexWaitv, nrFutexRequeue:
		return "futex2 wait/requeue"
	case nrNanosleep:
		if a[0] != 0 && !w.shortTS(a[0]) { // NULL: EFAULT
			return "nanosleep longer than 1 ms"
		}
		return ""
	case nrClockNanosleep:
		if a[2] != 0 && !w.shortTS(a[2]) { // NULL: EFAULT
			return "clock_nanosleep longer than 1 ms"
		}
		return ""
	case nrEpollWait, nrEpollPwait:
		if t := int32(a[3]); t != 0 && t != 1 {
			return "epoll_wait with a timeout of -1 or > 1 ms"
		}
		if fd(0) {
			// The runtime's netpoller watches the network stack's service file edge-triggered:
			// an event taken here is lost to it, and the stack stops serving.
			return "epoll_wait on the runtime's epoll (takes its netpoll events)"
		}
		return ""
	case nrEpollPwait2, nrPpoll, nrRtSigtimedwait:
		i := map[uint64]int{nrEpollPwait2: 3, nrPpoll: 2, nrRtSigtimedwait: 2}[nr]
		if !w.shortTS(a[i]) {
			return "waits without a short timeout"
		}
		if nr == nrEpollPwait2 && fd(0) {
			return "epoll_wait on the runtime's epoll (takes its netpoll events)"
		}
		return ""
	case nrPoll:
		if t := int32(a[2]); t != 0 && t != 1 {
			return "poll with a long timeout"
		}
		return ""
	case nrSelect, nrPselect6, nrPause, nrRtSigsuspend, nrSemop, nrSemtimedop, nrMsgsnd, nrMsgrcv,
		nrMqTimedreceive, nrIoGetevents, nrIoPgetevents, nrRecvmmsg:
		return "may wait indefinitely"

	// File descriptors: never the console's or the runtime's (its epoll and eventfd).
	case nrRead, nrPread64:
		if fd(0) {
			return "reads the console (blocks natively) or the runtime's eventfd (steals its wake-ups)"
		}
		return ""
	case nrPreadv, nrPreadv2, nrProcessVMReadv, nrProcessVMWritev, 209 /* io_submit */ :
		return "writes through iovecs the fuzzer cannot vet" // readv and recvmsg: sockRule
	case nrWrite, 18 /* pwrite64 */ :
		// Only what must fail: the fuzzer's memory printed on its console is noise (and slow).
		// Like Linux's pipe and tty writes, the console sends a buffer in 4 KiB pieces and stops
		// at the first it cannot read: only a write whose first piece cannot be read sends nothing.
		if u := uint32(a[0]); (u == 1 || u == 2) && a[2] != 0 && !f.readMustFail(a[1], min(a[2], 4096)) {
			return "prints memory on the console"
		}
		return ""
	case nrWritev, nrPwritev, nrPwritev2:
		if u := uint32(a[0]); u == 1 || u == 2 {
			return "prints memory on the console"
		}
		return ""
	case 40, 275, 276, 326: // sendfile, splice, tee, copy_file_range
		if fd(0) || fd(1) || fd(2) {
			return "moves data between the console or runtime fds"
		}
		return ""
	case nrClose, 77 /* ftruncate */, 285 /* fallocate */ :
		if fd(0) {
			return "closes (or truncates) the console or a runtime fd"
		}
		return ""
	case nrCloseRange:
		return "close_range"
	case nrDup2, nrDup3:
		if fd(1) {
			return "dup2 over the console or a runtime fd"
		}
		if fd(0) {
			return "a second fd for the runtime's epoll or eventfd (the fuzzer would then change them through it)"
		}
		return ""
	case 32: // dup
		if fd(0) {
			return "a second fd for the runtime's epoll or eventfd (the fuzzer would then change them through it)"
		}
		return ""
	case nrFcntl:
		if fd(0) {
			switch int32(a[1]) {
			case 1, 3, 9, 11, 1025, 1032, 1034: // GETFD, GETFL, GETOWN, GETSIG, GETLEASE, GETPIPE_SZ, GET_SEALS
				return ""
			}
			return "changes the flags of the console or a runtime fd"
		}
		if int32(a[1]) == syscall.F_SETFL && a[2]&syscall.O_NONBLOCK == 0 {
			return "makes an fd blocking (its reads and writes may then wait forever, as on Linux)"
		}
		return ""
	case nrIoctl:
		if fd(0) {
			return "ioctl on the console or a runtime fd"
		}
		if uint32(a[1]) == 0x5421 /* FIONBIO */ && !f.readMustFail(a[2], 4) {
			return "may make an fd blocking (its reads and writes may then wait forever, as on Linux)"
		}
		return ""
	case nrEventfd:
		return "creates a blocking eventfd (reads and writes may wait forever, as on Linux)"
	case nrEventfd2:
		if fl := uint32(a[1]); fl&^(1|syscall.O_NONBLOCK|syscall.O_CLOEXEC) == 0 && fl&syscall.O_NONBLOCK == 0 {
			return "creates a blocking eventfd (reads and writes may wait forever, as on Linux)"
		}
		return ""
	case 22: // pipe
		return "creates a blocking pipe (reads and writes may wait forever, as on Linux)"
	case nrPipe2:
		if fl := uint32(a[1]); fl&^(syscall.O_NONBLOCK|syscall.O_CLOEXEC) != 0 || f.unreadable(a[0], 8) {
			return "" // EINVAL or EFAULT: no pipe
		}
		if uint32(a[1])&syscall.O_NONBLOCK == 0 {
			return "creates a blocking pipe (reads and writes may wait forever, as on Linux)"
		}
		if !w.inSlot(a[0], 8) {
			return "would put a pipe's fds where the fuzzer cannot read them back (they would leak)"
		}
		return ""
	case nrEpollCtl:
		if fd(0) {
			return "changes the runtime's epoll interest list"
		}
		return ""

	// Registrations the kernel acts on later, outside this call.
	case nrSetTidAddress, nrSetRobustList:
		return "registers an address the kernel writes at thread exit"
	case nrRseq:
		if a[0] >= userEnd {
			return "" // EFAULT
		}
		return "registers an rseq area the kernel writes on every return to user mode"
	case nrAlarm:
		if uint32(a[0]) == 0 {
			return "" // alarm(0) only disarms
		}
		return "arms a timer whose signal arrives after the call"
	case nrSetitimer:
		if a[1] == 0 || f.readMustFail(a[1], 32) {
			return "" // NULL disarms (or is EINVAL), an unreadable value is EFAULT: nothing is armed
		}
		return "arms a timer whose signal arrives after the call"
	case nrTimerSettime:
		if a[2] == 0 || f.readMustFail(a[2], 32) {
			return "" // EINVAL or EFAULT before the timer is even looked up
		}
		return "arms a timer whose signal arrives after the call"
	case nrSeccomp:
		return "seccomp (a filter or strict mode kills the process)"
	case nrPersonality:
		if uint32(a[0]) == 0xffffffff {
			return "" // query
		}
		return "changes the personality"
	case nrUnshare, nrSetns:
		return "changes namespaces"
	case nrSchedSetaffinity, nrSchedSetscheduler, nrSchedSetparam, nrSchedSetattr:
		return "changes scheduling (a real-time policy can starve the runtime's threads)"
	case nrReboot, nrKexecLoad, nrKexecFileLoad, nrInitModule, 313 /* finit_module */, nrDeleteModule:
		return "system administration"
	case nrPtrace:
		return "ptrace"
	case 153: // vhangup
		return "vhangup (SIGHUP to the session)"
	case 323: // userfaultfd
		return "userfaultfd (a registered range stalls the faulting thread)"
	case nrIoUringSetup, nrIoUringEnter, nrIoUringRegister:
		return "io_uring (asynchronous I/O the fuzzer cannot vet)"
	case 440, 448: // process_madvise, process_mrelease
		return "madvise of another process's memory (or ours, by pidfd)"
	}
	return ""
}

// sigRule keeps signals the runtime ignores and values that are no signal at all (EINVAL).
func sigRule(sig uint64) string {
	s := int32(sig)
	if harmlessSig[s] || s < 0 || s > 64 {
		return ""
	}
	return "sends a signal that kills or stops the program"
}

// shortTS reports whether p is a timespec the kernel will either refuse or wait at most 0.5 ms
// for: one of the worker's prepared ones, or memory nobody can read — but not NULL, which means
// "no timeout" to futex, ppoll, epoll_pwait2 and rt_sigtimedwait (a worker once waited on a futex
// until a random signal happened to interrupt it).
func (w *worker) shortTS(p uint64) bool {
	switch p - uint64(w.slot) {
	case offShortTS, offZeroTS, offBadTS, offNegTS:
		return true
	}
	return p != 0 && w.f.unreadable(p, 16)
}

// unreadable reports whether no kernel can read [p, p+n): beyond the user half, wrapping, in the
// never-mapped page 0 area, or in the fuzzer's PROT_NONE reservation (which the rules keep
// PROT_NONE) or the local APIC's pinned PROT_NONE page.
func (f *fuzzer) unreadable(p, n uint64) bool {
	if n == 0 {
		n = 1
	}
	end := p + n
	switch {
	case end < p, p >= userEnd, end > userEnd, end <= minAddr:
		return true
	case p >= uint64(f.resv) && end <= uint64(f.scratch), p >= uint64(f.guardEnd) && end <= uint64(f.resv)+resvSize:
		return true
	case p >= lapicBase && end <= lapicBase+pageSize:
		return true
	}
	return false
}

// readMustFail reports whether reading [p, p+n) must fail: unreadable, or running from the
// scratch region past the guard page into the PROT_NONE reservation (not merely into the guard
// page: a call's mmap with the guard as its hint maps it until the next restore), or n ≥ 2^47,
// which cannot all be mapped.
func (f *fuzzer) readMustFail(p, n uint64) bool {
	if f.unreadable(p, n) || n >= 1<<47 {
		return true
	}
	return p >= uint64(f.scratch) && p < uint64(f.guardEnd) && p+n > uint64(f.guardEnd)
}

// mmInvalid reports whether munmap/mprotect/madvise/mmap(MAP_FIXED) must refuse the range:
// an unaligned address, or a range that wraps or leaves the user half (Linux: EINVAL/ENOMEM;
// gmpos checks the whole range first, kernel/mm/mmap.go userRange). A zero length changes
// nothing either.
func (f *fuzzer) mmInvalid(addr, length uint64) bool {
	if length == 0 || addr&(pageSize-1) != 0 {
		return true
	}
	size := (length + pageSize - 1) &^ (pageSize - 1)
	return size < length || addr >= userEnd || addr+size < addr || addr+size > userEnd
}

// mmRangeOK reports whether a memory call on [addr, addr+length) may go ahead: the kernel must
// refuse it, or it lies entirely in memory whose loss only the fuzzer would notice — the scratch
// region and its guard page, the never-used areas below the image and above the initial stack —
// or in a pinned part of the image (the global arena, a page of text) or the local APIC's page,
// where gmpos must answer EPERM.
func (f *fuzzer) mmRangeOK(addr, length uint64) bool {
	if f.mmInvalid(addr, length) {
		return true
	}
	end := addr + (length+pageSize-1)&^(pageSize-1)
	in := func(lo, hi uint64) bool { return addr >= lo && end <= hi }
	arenaLo := uint64(uintptrOf(&arena[0][0])) &^ (pageSize - 1)
	return in(uint64(f.scratch), uint64(f.guardEnd)) ||
		in(minAddr, imageBase) || in(stackTop, userEnd) ||
		in(arenaLo+pageSize, uint64(uintptrOf(&arena[maxWorkers][0]))) ||
		in(uint64(f.text)&^(pageSize-1), uint64(f.text)&^(pageSize-1)+pageSize) ||
		in(lapicBase, lapicBase+pageSize)
}

// writeOK reports whether the kernel may write [p, p+n) as far as the fuzzer is concerned: memory
// it owns (scratch, its arena slot or heap buffer, the never-used areas), or memory every kernel
// must refuse to write (read-only image pages, the PROT_NONE reservation, beyond the user half).
//
// Only the first byte decides "the kernel must refuse": a length that runs past the user half
// does not make a call fail when the kernel writes just a prefix of it (sched_getaffinity writes
// min(len, cpumask size) bytes without looking at the rest). Judging by the whole range once let
// sched_getaffinity(pid, 1<<59, p) through with p a thread id that, after enough threads had come
// and gone, equalled an address in the program's data: the kernel rightly wrote the mask there,
// the "churn-corruption" of 20M-call runs (damaged canary, GC metadata, saved registers).
func (w *worker) writeOK(p, n uint64) bool {
	f := w.f
	if n == 0 || f.unreadable(p, 1) || p < minAddr {
		return true
	}
	end := p + n
	if end < p {
		// A length that wraps runs to the end of everything: a kernel that caps it (Linux's
		// MAX_RW_COUNT) writes as far as it has data for. Taken as it was (p+n, wrapped), it
		// once let recvfrom(buf=heap+8, len=-1) write a 64 KiB receive ring over the heap.
		end = ^uint64(0)
	}
	in := func(lo, hi uint64) bool { return p >= lo && p < hi }
	heap := uint64(uintptrOf(&w.heap[0]))
	page := func(a uint64) uint64 { return a &^ (pageSize - 1) }
	switch {
	case in(uint64(f.resv), uint64(f.resv)+resvSize):
		// Scratch, the guard, or PROT_NONE: whatever follows is PROT_NONE up to the end of
		// the reservation, so the kernel cannot get past it.
		return true
	case in(uint64(w.slot), uint64(w.slot)+slotSize):
		return end <= uint64(w.slot)+slotSize
	case in(heap, heap+uint64(len(w.heap))):
		return end <= heap+uint64(len(w.heap))
	case in(page(uint64(f.text)), page(uint64(f.text))+pageSize), in(page(uint64(f.rodata)), page(uint64(f.rodata))+pageSize):
		return true // read-only: the first page already fails
	case in(minAddr, imageBase):
		return end <= imageBase
	case in(stackTop, userEnd):
		return true
	}
	return false
}

// out is a buffer the kernel writes: argument slot and length.
type out struct {
	slot int
	n    uint64
}

// mul is a*b, saturating (a length that overflows is "everything").
func mul(a, b uint64) uint64 {
	if a != 0 && b > ^uint64(0)/a {
		return ^uint64(0)
	}
	return a * b
}

// outs lists the buffers call nr writes (Linux semantics, and gmpos's for its own call).
func outs(nr uint64, a *[6]uint64) []out {
	pos := func(v uint64) uint64 { // an int count: ≤ 0 is EINVAL
		if int32(v) <= 0 {
			return 0
		}
		return uint64(int32(v))
	}
	switch nr {
	case nrRead, nrPread64:
		return []out{{1, a[2]}}
	case 45: // recvfrom: the data, then the source address and its length
		return []out{{1, a[2]}, {4, 128}, {5, 4}}
	case nrFstat, nrStat, nrLstat:
		return []out{{1, 144}}
	case nrNewfstatat:
		return []out{{2, 144}}
	case 332: // statx
		return []out{{4, 256}}
	case nrReadlink, nrGetdents64, 78 /* getdents */, nrListxattr, nrLlistxattr, nrFlistxattr, 103 /* syslog */ :
		return []out{{1, a[2]}}
	case nrReadlinkat, nrGetxattr, nrLgetxattr, nrFgetxattr:
		return []out{{2, a[3]}}
	case nrGetcwd:
		return []out{{0, a[1]}}
	case nrRtSigaction:
		return []out{{2, 32}}
	case nrRtSigprocmask:
		return []out{{2, 8}}
	case nrRtSigpending, 22 /* pipe */, nrPipe2:
		return []out{{0, 8}}
	case nrSigaltstack:
		return []out{{1, 24}}
	case nrNanosleep:
		return []out{{1, 16}}
	case nrClockNanosleep:
		return []out{{3, 16}}
	case nrClockGettime, nrClockGetres, nrSchedRrGetInterval:
		return []out{{1, 16}}
	case nrGettimeofday:
		return []out{{0, 16}, {1, 8}}
	case nrTime:
		return []out{{0, 8}}
	case nrUname:
		return []out{{0, 390}}
	case nrGetrandom:
		n := a[1]
		if n > 33554431 {
			n = 33554431
		}
		return []out{{0, n}}
	case nrSchedGetaffinity:
		return []out{{2, min(a[1], 1024)}} // min(len, cpumask_size()): NR_CPUS is at most 8192
	case nrArchPrctl:
		return []out{{1, 8}}
	case nrPrctl:
		return []out{{1, 16}}
	case nrPrlimit64:
		return []out{{3, 16}}
	case nrGetrlimit:
		return []out{{1, 16}}
	case nrGetrusage, nrWait4:
		if nr == nrWait4 {
			return []out{{1, 4}, {3, 144}}
		}
		return []out{{1, 144}}
	case nrWaitid:
		return []out{{2, 128}, {4, 144}}
	case nrSysinfo:
		return []out{{0, 112}}
	case nrTimes:
		return []out{{0, 32}}
	case nrEpollWait, nrEpollPwait, nrEpollPwait2:
		return []out{{1, mul(12, pos(a[2]))}}
	case nrGmposNet:
		switch a[0] {
		case 1: // OpConfig fills the record even when it answers ENODEV (no NIC)
			return []out{{1, 64}}
		case 4: // OpEvents: records (sockRule keeps only those that must fail)
			return []out{{1, mul(eventSize, a[2])}}
		case 7: // OpPull: the data and the address buffer
			return []out{{2, a[3]}, {4, addrBufSize}}
		}
	case nrGmposInfo:
		switch uint32(a[0]) {
		case 1:
			return []out{{1, 16}}
		case 2, 5, 7, 8, 9, 10, 11: // scheduler counters, per-core dispatches, interrupt and
			// network statistics, per-core kernel and idle time, per-system-call counts, ticks:
			// up to n words each
			return []out{{1, mul(8, a[2])}}
		case 4:
			return []out{{1, a[2]}}
		}
	case nrFutex:
		if int32(a[1])&^(128|256) == 5 { // FUTEX_WAKE_OP: an atomic operation on the word at uaddr2
			return []out{{4, 4}}
		}
	case nrMincore:
		return []out{{2, a[1]/pageSize + 1}}
	case nrGetgroups:
		return []out{{1, mul(4, pos(a[0]))}}
	case nrGetresuid, nrGetresgid, nrGetcpu:
		return []out{{0, 4}, {1, 4}, {2, 4}}
	case nrSchedGetparam:
		return []out{{1, 4}}
	case nrSchedGetattr:
		return []out{{1, a[2]}}
	case nrCapget:
		return []out{{1, 24}}
	case nrGetitimer, nrTimerGettime, nrTimerfdGettime:
		return []out{{1, 32}}
	case nrTimerCreate:
		return []out{{2, 4}}
	case nrSetitimer:
		return []out{{2, 32}}
	case nrTimerSettime:
		return []out{{3, 32}}
	case 53: // socketpair
		return []out{{3, 8}}
	case nrGetRobustList:
		return []out{{1, 8}, {2, 8}}
	case nrStatfs, nrFstatfs:
		return []out{{1, 120}}
	case nrRtSigtimedwait:
		return []out{{1, 128}}
	case nrIoSetup:
		return []out{{1, 8}}
	case nrPoll, nrPpoll:
		return []out{{0, mul(8, uint64(uint32(a[1])))}}
	case nrIoctl:
		return []out{{2, 64}}
	case nrFcntl:
		return []out{{2, 32}}
	case nrAdjtimex:
		return []out{{0, 208}}
	case nrClockAdjtime:
		return []out{{1, 208}}
	case 43, 288, 51, 52: // accept, accept4, getsockname, getpeername
		return []out{{1, 128}, {2, 4}}
	case 55: // getsockopt: the longest value Linux writes (TCP_INFO and the like) is shorter
		return []out{{3, 256}, {4, 4}}
	case 31, 71: // shmctl, msgctl (IPC_STAT)
		return []out{{2, 128}}
	case 66: // semctl
		return []out{{3, 128}}
	case 136: // ustat
		return []out{{1, 32}}
	}
	return nil
}

// outRule skips a call that would write where the fuzzer does not own the memory.
func (w *worker) outRule(nr uint64, a *[6]uint64) string {
	for _, o := range outs(nr, a) {
		if !w.writeOK(a[o.slot], o.n) {
			return "would write to memory that is not the fuzzer's"
		}
	}
	return ""
}

// errnoNames are the short names of the errnos the summary shows.
var errnoNames = map[syscall.Errno]string{
	syscall.EPERM: "EPERM", syscall.ENOENT: "ENOENT", syscall.ESRCH: "ESRCH", syscall.EINTR: "EINTR",
	syscall.EBADF: "EBADF", syscall.EAGAIN: "EAGAIN", syscall.ENOMEM: "ENOMEM", syscall.EFAULT: "EFAULT",
	syscall.EEXIST: "EEXIST", syscall.ENODEV: "ENODEV", syscall.EINVAL: "EINVAL", syscall.EMFILE: "EMFILE",
	syscall.ENOTTY: "ENOTTY", syscall.ESPIPE: "ESPIPE", syscall.ENOSYS: "ENOSYS", syscall.ETIMEDOUT: "ETIMEDOUT",
}

// errName is the short name of e ("ok" for 0).
func errName(e syscall.Errno) string {
	if e == 0 {
		return "ok"
	}
	if n := errnoNames[e]; n != "" {
		return n
	}
	return fmt.Sprintf("E%d", int(e))
}

// summary is one line: results by errno, the most frequent calls, and how many were skipped.
func summary(ws []*worker) string {
	var errnos [4096]uint64
	calls := map[uint64]uint64{}
	var issued, skipped uint64
	for _, w := range ws {
		issued += w.issued
		skipped += w.skipped
		for e, n := range w.perErrno {
			errnos[e] += n
		}
		for nr, n := range w.perCall {
			calls[nr] += n
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sysfuzz: issued %d, skipped %d; results:", issued, skipped)
	for e, n := range errnos {
		if n == 0 {
			continue
		}
		fmt.Fprintf(&b, " %s=%d", errName(syscall.Errno(e)), n)
	}
	nrs := make([]uint64, 0, len(calls))
	for nr := range calls {
		nrs = append(nrs, nr)
	}
	sort.Slice(nrs, func(i, j int) bool {
		if calls[nrs[i]] != calls[nrs[j]] {
			return calls[nrs[i]] > calls[nrs[j]]
		}
		return nrs[i] < nrs[j]
	})
	b.WriteString("; calls:")
	for i, nr := range nrs {
		if i == 12 {
			fmt.Fprintf(&b, " (+%d more)", len(nrs)-i)
			break
		}
		fmt.Fprintf(&b, " %s=%d", callName(nr), calls[nr])
	}
	return b.String()
}

// skipReport lists the filter's reasons, most frequent first, then each implemented call's
// count and successes, one per line.
func skipReport(ws []*worker) string {
	why := map[string]uint64{}
	for _, w := range ws {
		for k, n := range w.skipWhy {
			why[k] += n
		}
	}
	keys := make([]string, 0, len(why))
	for k := range why {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return why[keys[i]] > why[keys[j]] })
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "sysfuzz: skipped %6d: %s\n", why[k], k)
	}
	for _, s := range specs {
		var n, ok uint64
		for _, w := range ws {
			n += w.perCall[s.nr]
			ok += w.perOK[s.nr]
		}
		fmt.Fprintf(&b, "sysfuzz: %-18s issued %6d, succeeded %6d\n", s.name, n, ok)
	}
	return b.String()
}
