// The system-call table.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/netabi"
	"gmpos/sched"
)

//go:generate go run mksysnum.go amd64 arm64
//go:generate go run mkkdata.go amd64
//go:generate go run mkkdata.go arm64

// syscall dispatches the system call in t's frame. The number and the six arguments come from the
// frame as the architecture's convention left them (abi_<arch>.go syscallArgs; on x86-64: number
// in RAX, arguments in RDI, RSI, RDX, R10, R8, R9 — docs/runtime-contract.md §3.1), and the
// numbers are the architecture's (zsysnum_<arch>.go, generated from the Go distribution). Each
// case converts the raw 64-bit arguments to the C types of the call's prototype, so that an int
// argument — an fd, a signal, a clock — uses its low 32 bits only, as Linux does.
//
// Handlers are named sys + the call's name (sysRead for read(2)) and return the result or -errno.
// A handler that blocks the thread (wait.go) returns anything: the waker sets the result. Every
// other register is preserved.
func syscall(t *Thread, gp sched.GID, cpu int) {
	nr, a := syscallArgs(&t.frame)
	atomic.AddUint64(&stats.syscalls, 1) // system calls without the BKL count too
	if cmd.strace {
		pathLen = [2]int{-1, -1} // the paths this call copies (sys_path.go), for straceLog
	}
	if cmd.strace && (nr == nrExit || nr == nrExitGroup) {
		straceLog(t, gp, nr, a) // the thread is gone afterwards
	}
	t.queued = false
	r, done := dispatch(t, gp, cpu, nr, a)
	if !done {
		switch st := S.Status(gp); {
		case t.queued || st == sched.Gwaiting:
			// Blocked: the waker sets the result. A wait on futexQ's list may have ended
			// already, on another core without the BKL (a timeout: sleep_unlocked.go), and
			// its result must stand, whatever the thread's status says now.
			pendingInterrupts(t, gp, cpu) // a signal that came before the wait began (wait.go)
		case st == sched.Grunning || st == sched.Grunnable: // not blocked, not gone
			t.frame.SetSyscallResult(uint64(r))
		}
	}
	if cmd.strace && nr != nrExit && nr != nrExitGroup {
		straceLog(t, gp, nr, a)
	}
}

// dispatch runs the handler of system call nr. done reports that the handler has set the
// thread's registers itself (rt_sigreturn) or ended the thread (exit).
func dispatch(t *Thread, gp sched.GID, cpu int, nr uint64, a [6]uint64) (r int64, done bool) {
	if nr >= uint64(len(sysNames)) && nr != nrGmposInfo && nr != netabi.NrGmposNet {
		logUnknownSyscall(nr)
		return -ENOSYS, false
	}
	fd0 := int32(a[0])
	if r, ok := nlSyscall(t, gp, cpu, nr, a); ok {
		return r, false // socket(AF_NETLINK), or a socket call on a netlink fd (sys_netlink.go)
	}
	switch int(nr) {
	// Files and file descriptors (sys_fd.go, fd_*.go, epoll.go, sys_path.go).
	case nrRead:
		r = sysRead(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]))
	case nrWrite:
		r = sysWrite(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]))
	case nrClose:
		r = sysClose(fd0)
	case nrFstat:
		r = sysFstat(t, gp, cpu, fd0, uintptr(a[1]))
	case nrLseek:
		r = sysLseek(fd0, int64(a[1]), uint32(a[2]))
	case nrPread64:
		r = sysPread(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), int64(a[3]))
	case nrPwrite64:
		r = sysPwrite(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), int64(a[3]))
	case nrIoctl:
		r = sysIoctl(fd0, uint32(a[1]), uintptr(a[2]))
	case nrFcntl:
		r = sysFcntl(fd0, int32(a[1]), a[2])
	case nrDup:
		r = sysDup(fd0)
	case nrDup2:
		r = sysDup2(fd0, int32(a[1]))
	case nrDup3:
		r = sysDup3(fd0, int32(a[1]), int32(a[2]))
	case nrReadv:
		r = sysReadv(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), false)
	case nrWritev:
		r = sysReadv(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), true)

	// Sockets (sys_socket.go, fd_socket.go, net_svc.go).
	case nrSocket:
		r = sysSocket(t, gp, cpu, fd0, int32(a[1]), int32(a[2]))
	case nrSocketpair:
		r = sysSocketpair(fd0, int32(a[1]), int32(a[2]), uintptr(a[3]))
	case nrBind:
		r = sysBind(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]))
	case nrListen:
		r = sysListen(t, gp, cpu, fd0, int32(a[1]))
	case nrConnect:
		r = sysConnect(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]))
	case nrAccept4:
		r = sysAccept4(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), int32(a[3]))
	case nrAccept:
		r = sysAccept4(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), 0)
	case nrGetsockname:
		r = sysSockName(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), false)
	case nrGetpeername:
		r = sysSockName(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), true)
	case nrSetsockopt:
		r = sysSetsockopt(t, gp, cpu, fd0, int32(a[1]), int32(a[2]), uintptr(a[3]), uintptr(a[4]))
	case nrGetsockopt:
		r = sysGetsockopt(t, gp, cpu, fd0, int32(a[1]), int32(a[2]), uintptr(a[3]), uintptr(a[4]))
	case nrShutdown:
		r = sysShutdown(t, gp, cpu, fd0, int32(a[1]))
	case nrSendto:
		r = sysSendto(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), uint32(a[3]), uintptr(a[4]), uintptr(a[5]))
	case nrRecvfrom:
		r = sysRecvfrom(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), uint32(a[3]), uintptr(a[4]), uintptr(a[5]))
	case nrSendmsg:
		r = sysSendmsg(t, gp, cpu, fd0, uintptr(a[1]), uint32(a[2]))
	case nrRecvmsg:
		r = sysRecvmsg(t, gp, cpu, fd0, uintptr(a[1]), uint32(a[2]))
	case netabi.NrGmposNet:
		r = sysGmposNet(t, gp, cpu, a)

	case nrEventfd2:
		r = sysEventfd2(uint32(a[0]), int32(a[1]))
	case nrPipe2:
		r = sysPipe2(uintptr(a[0]), int32(a[1]))
	case nrPipe:
		r = sysPipe2(uintptr(a[0]), 0)
	case nrSplice:
		r = sysSplice(t, gp, cpu, fd0, uintptr(a[1]), int32(a[2]), uintptr(a[3]), uintptr(a[4]), uint32(a[5]))
	case nrEventfd:
		r = sysEventfd2(uint32(a[0]), 0)
	case nrEpollCreate1:
		r = sysEpollCreate1(fd0)
	case nrEpollCreate:
		r = sysEpollCreate(fd0)
	case nrEpollCtl:
		r = sysEpollCtl(fd0, int32(a[1]), int32(a[2]), uintptr(a[3]))
	case nrEpollWait:
		r = sysEpollPwait(t, gp, cpu, fd0, uintptr(a[1]), int32(a[2]), epollTimeout(int32(a[3])), 0, 0)
	case nrEpollPwait:
		r = sysEpollPwait(t, gp, cpu, fd0, uintptr(a[1]), int32(a[2]), epollTimeout(int32(a[3])), uintptr(a[4]), uintptr(a[5]))
	case nrEpollPwait2:
		r = sysEpollPwait2(t, gp, cpu, fd0, uintptr(a[1]), int32(a[2]), uintptr(a[3]), uintptr(a[4]), uintptr(a[5]))
	// The tree's names and files (sys_path.go, fd_file.go, kernel/vfs).
	case nrOpen:
		r = sysOpenat(t, gp, cpu, atFDCWD, uintptr(a[0]), int32(a[1]), uint32(a[2]))
	case nrOpenat:
		r = sysOpenat(t, gp, cpu, fd0, uintptr(a[1]), int32(a[2]), uint32(a[3]))
	case nrCreat:
		r = sysOpenat(t, gp, cpu, atFDCWD, uintptr(a[0]), oCreat|oWronly|oTrunc, uint32(a[1]))
	case nrStat:
		r = sysNewfstatat(t, gp, cpu, atFDCWD, uintptr(a[0]), uintptr(a[1]), 0)
	case nrLstat:
		r = sysNewfstatat(t, gp, cpu, atFDCWD, uintptr(a[0]), uintptr(a[1]), atSymlinkNofollow)
	case nrNewfstatat:
		r = sysNewfstatat(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), int32(a[3]))
	case nrStatx:
		r = sysStatx(t, gp, cpu, fd0, uintptr(a[1]), int32(a[2]), uint32(a[3]), uintptr(a[4]))
	case nrAccess:
		r = sysFaccessat2(t, gp, cpu, atFDCWD, uintptr(a[0]), int32(a[1]), 0)
	case nrFaccessat:
		r = sysFaccessat2(t, gp, cpu, fd0, uintptr(a[1]), int32(a[2]), 0)
	case nrFaccessat2:
		r = sysFaccessat2(t, gp, cpu, fd0, uintptr(a[1]), int32(a[2]), int32(a[3]))
	case nrReadlink:
		r = sysReadlinkat(t, gp, cpu, atFDCWD, uintptr(a[0]), uintptr(a[1]), int32(a[2]))
	case nrReadlinkat:
		r = sysReadlinkat(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), int32(a[3]))
	case nrGetdents64:
		r = sysGetdents64(t, gp, cpu, fd0, uintptr(a[1]), uintptr(uint32(a[2])))
	case nrMkdir:
		r = sysMkdirat(t, gp, cpu, atFDCWD, uintptr(a[0]), uint32(a[1]))
	case nrMkdirat:
		r = sysMkdirat(t, gp, cpu, fd0, uintptr(a[1]), uint32(a[2]))
	case nrMknod:
		r = sysMknodat(atFDCWD, uintptr(a[0]), uint32(a[1]))
	case nrMknodat:
		r = sysMknodat(fd0, uintptr(a[1]), uint32(a[2]))
	case nrUnlink:
		r = sysUnlinkat(t, gp, cpu, atFDCWD, uintptr(a[0]), 0)
	case nrRmdir:
		r = sysUnlinkat(t, gp, cpu, atFDCWD, uintptr(a[0]), atRemovedir)
	case nrUnlinkat:
		r = sysUnlinkat(t, gp, cpu, fd0, uintptr(a[1]), int32(a[2]))
	case nrRename:
		r = sysRenameat2(t, gp, cpu, atFDCWD, uintptr(a[0]), atFDCWD, uintptr(a[1]), 0)
	case nrRenameat:
		r = sysRenameat2(t, gp, cpu, fd0, uintptr(a[1]), int32(a[2]), uintptr(a[3]), 0)
	case nrRenameat2:
		r = sysRenameat2(t, gp, cpu, fd0, uintptr(a[1]), int32(a[2]), uintptr(a[3]), uint32(a[4]))
	case nrLink:
		r = sysLinkat(atFDCWD, uintptr(a[0]), atFDCWD, uintptr(a[1]), 0)
	case nrLinkat:
		r = sysLinkat(fd0, uintptr(a[1]), int32(a[2]), uintptr(a[3]), int32(a[4]))
	case nrSymlink:
		r = sysSymlinkat(t, gp, cpu, uintptr(a[0]), atFDCWD, uintptr(a[1]))
	case nrSymlinkat:
		r = sysSymlinkat(t, gp, cpu, uintptr(a[0]), int32(a[1]), uintptr(a[2]))
	case nrGetcwd:
		r = sysGetcwd(uintptr(a[0]), uintptr(a[1]))
	case nrChdir:
		r = sysChdir(t, gp, cpu, uintptr(a[0]))
	case nrFchdir:
		r = sysFchdir(fd0)
	case nrUmask:
		r = sysUmask(uint32(a[0]))
	case nrChmod:
		r = sysFchmodat(t, gp, cpu, atFDCWD, uintptr(a[0]), uint32(a[1]), 0)
	case nrFchmodat:
		r = sysFchmodat(t, gp, cpu, fd0, uintptr(a[1]), uint32(a[2]), 0)
	case nrFchmodat2:
		r = sysFchmodat(t, gp, cpu, fd0, uintptr(a[1]), uint32(a[2]), int32(a[3]))
	case nrFchmod:
		r = sysFchmod(t, gp, cpu, fd0, uint32(a[1]))
	case nrChown:
		r = sysFchownat(t, gp, cpu, atFDCWD, uintptr(a[0]), uint32(a[1]), uint32(a[2]), 0)
	case nrLchown:
		r = sysFchownat(t, gp, cpu, atFDCWD, uintptr(a[0]), uint32(a[1]), uint32(a[2]), atSymlinkNofollow)
	case nrFchownat:
		r = sysFchownat(t, gp, cpu, fd0, uintptr(a[1]), uint32(a[2]), uint32(a[3]), int32(a[4]))
	case nrFchown:
		r = sysFchown(t, gp, cpu, fd0, uint32(a[1]), uint32(a[2]))
	case nrUtimensat:
		r = sysUtimensat(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]), int32(a[3]))
	case nrTruncate:
		r = sysTruncate(t, gp, cpu, uintptr(a[0]), int64(a[1]))
	case nrFtruncate:
		r = sysFtruncate(t, gp, cpu, fd0, int64(a[1]))
	case nrFsync, nrFdatasync, nrSyncfs:
		r = sysFsync(t, gp, cpu, fd0)
	case nrSync:
		r = 0
	case nrStatfs:
		r = sysStatfs(uintptr(a[0]), uintptr(a[1]))
	case nrFstatfs:
		r = sysFstatfs(fd0, uintptr(a[1]))
	case nrFlock, nrFadvise64:
		r = sysFsyncLike(fd0) // one process: locks never conflict; advice is free to ignore
	case nrChroot:
		r = -EPERM

	// Memory (sys_mm.go, kernel/mm).
	case nrMmap:
		r = sysMmap(uintptr(a[0]), uintptr(a[1]), uint32(a[2]), uint32(a[3]), int32(a[4]), uintptr(a[5]))
	case nrMunmap:
		r = sysMunmap(uintptr(a[0]), uintptr(a[1]))
	case nrMprotect:
		r = sysMprotect(uintptr(a[0]), uintptr(a[1]), a[2])
	case nrMincore:
		r = sysMincore(uintptr(a[0]), uintptr(a[1]), uintptr(a[2]))
	case nrMadvise:
		r = sysMadvise(uintptr(a[0]), uintptr(a[1]), int32(a[2]))
	case nrBrk:
		r = sysBrk(uintptr(a[0]))

	// Signals (sys_signal.go, sys_kill.go, signal.go).
	case nrRtSigaction:
		r = sysRtSigaction(fd0, uintptr(a[1]), uintptr(a[2]), uintptr(a[3]))
	case nrRtSigprocmask:
		r = sysRtSigprocmask(t, fd0, uintptr(a[1]), uintptr(a[2]), uintptr(a[3]))
	case nrRtSigreturn:
		sysRtSigreturn(t, cpu) // restores the whole frame, the result included
		return 0, true
	case nrSigaltstack:
		r = sysSigaltstack(t, uintptr(a[0]), uintptr(a[1]))
	case nrTgkill:
		r = sysTgkill(cpu, fd0, int32(a[1]), int32(a[2]))
	case nrTkill:
		r = sysTkill(cpu, fd0, int32(a[1]))
	case nrKill:
		r = sysKill(cpu, fd0, int32(a[1]))

	// Threads, waiting, time (sys_thread.go, futex.go, sys_time.go).
	case nrPidfdOpen:
		// No pidfds: os.StartProcess falls back to wait4 on ENOSYS, quietly (proc.go).
		r = -ENOSYS
	case nrVfork:
		r = sysVfork(t, gp, cpu, cloneVM|cloneVfork|sigCHLD, 0)
	case nrExecve:
		return sysExecve(t, gp, cpu, uintptr(a[0]), uintptr(a[1]), uintptr(a[2]))
	case nrClone:
		r = sysClone(t, gp, cpu, a)
	case nrExit:
		threadExit(t, gp, cpu)
		return 0, true
	case nrExitGroup:
		// The program's never returns; a child's threads end in schedule (proc.go).
		procExit(int(t.proc), waitStatusExit(int(a[0])), cpu)
		return 0, true
	case nrFutex:
		r = sysFutex(t, gp, cpu, uintptr(a[0]), int32(a[1]), uint32(a[2]), uintptr(a[3]), uintptr(a[4]), uint32(a[5]))
	case nrSchedYield:
		markRunnable(gp)
		S.GoYield(cpu)
		r = 0
	case nrNanosleep:
		r = sysNanosleep(t, gp, cpu, uintptr(a[0]))
	case nrClockNanosleep:
		r = sysClockNanosleep(t, gp, cpu, fd0, int32(a[1]), uintptr(a[2]))
	case nrClockGettime:
		r = sysClockGettime(fd0, uintptr(a[1]))
	case nrClockGetres:
		r = sysClockGetres(fd0, uintptr(a[1]))
	case nrGettimeofday:
		r = sysGettimeofday(uintptr(a[0]), uintptr(a[1]))
	case nrTime:
		r = sysTime(uintptr(a[0]))

	// Timers (itimer.go, sys_timer.go, ptimer.go).
	case nrSetitimer:
		r = sysSetitimer(fd0, uintptr(a[1]), uintptr(a[2]))
	case nrGetitimer:
		r = sysGetitimer(fd0, uintptr(a[1]))
	case nrAlarm:
		r = sysAlarm(uint32(a[0]))
	case nrTimerCreate:
		r = sysTimerCreate(gp, fd0, uintptr(a[1]), uintptr(a[2]))
	case nrTimerSettime:
		r = sysTimerSettime(fd0, int32(a[1]), uintptr(a[2]), uintptr(a[3]), cpu)
	case nrTimerGettime:
		r = sysTimerGettime(fd0, uintptr(a[1]))
	case nrTimerGetoverrun:
		r = sysTimerGetoverrun(fd0)
	case nrTimerDelete:
		r = sysTimerDelete(fd0)

	// The process and the machine (sys_info.go, sys_gmpos.go).
	case nrGetpid:
		r = int64(procOf(t).pid)
	case nrWait4:
		r = sysWait4(t, gp, cpu, int32(a[0]), uintptr(a[1]), uint32(a[2]), uintptr(a[3]))
	case nrWaitid:
		r = sysWaitid(t, gp, cpu, uint32(a[0]), int32(a[1]), uintptr(a[2]), uint32(a[3]))
	case nrGettid:
		r = int64(t.tid)
	case nrGetppid:
		r = 0
		if p := procOf(t); p.parent >= 0 {
			r = int64(procs[p.parent].pid)
		}
	case nrGetuid, nrGeteuid, nrGetgid, nrGetegid:
		r = 0
	case nrGetgroups:
		// No supplementary groups: the program is started as Linux starts init (init_groups is
		// empty). A negative size is EINVAL (sys_getgroups).
		r = 0
		if int32(a[0]) < 0 {
			r = -EINVAL
		}
	case nrSchedGetaffinity:
		r = sysSchedGetaffinity(fd0, uintptr(a[1]), uintptr(a[2]))
	case nrPrctl:
		r = sysPrctl(t, fd0, a[1], a[2], a[3], a[4])
	case nrPrlimit64:
		r = sysPrlimit(fd0, uint32(a[1]), uintptr(a[2]), uintptr(a[3]))
	case nrGetrlimit:
		r = sysGetrlimit(uint32(a[0]), uintptr(a[1]))
	case nrSetrlimit:
		r = sysSetrlimit(uint32(a[0]), uintptr(a[1]))
	case nrUname:
		r = sysUname(uintptr(a[0]))
	case nrGetrandom:
		r = sysGetrandom(uintptr(a[0]), uintptr(a[1]), uint32(a[2]))
	case nrRseq:
		r = -ENOSYS // restartable sequences: glibc's, optional; Go never registers one
	case nrGmposInfo:
		r = sysGmposInfo(t, gp, cpu, fd0, uintptr(a[1]), uintptr(a[2]))
	default:
		var ok bool
		if r, ok = archSyscall(t, gp, cpu, nr, a); !ok {
			r = -ENOSYS
			logUnknownSyscall(nr)
		}
	}
	return r, false
}

// straceLog writes one strace(1)-like line after the call: time since boot in µs, thread, call,
// first four arguments, and the result — or that the thread blocked (the result then arrives with
// the wake-up) or left.
func straceLog(t *Thread, gp sched.GID, nr uint64, a [6]uint64) {
	var k kbuf
	k.s("log ").d(nanotime() / 1000).s(" [").d(int64(t.tid)).s("] ")
	if nr < uint64(len(sysNames)) && sysNames[nr] != "" {
		k.s(sysNames[nr])
	} else if nr == nrGmposInfo {
		k.s("gmpos_info")
	} else if nr == netabi.NrGmposNet {
		k.s("gmpos_net")
	} else {
		k.s("syscall_").d(int64(nr))
	}
	k.s("(").x(a[0]).s(", ").x(a[1]).s(", ").x(a[2]).s(", ").x(a[3]).s(")")
	for i, n := range pathLen {
		if n >= 0 {
			k.s(" \"").bytes(pathBuf[i][:min(n, 160)]).s("\"")
		}
	}
	switch S.Status(gp) {
	case sched.Grunning, sched.Grunnable:
		if nr == nrRtSigreturn {
			k.s(" = ").x(t.frame.SyscallResult()).s(" (context restored)")
		} else {
			k.s(" = ").d(int64(t.frame.SyscallResult()))
		}
	case sched.Gwaiting:
		k.s(" blocks")
	}
	if nr == nrExit || nr == nrExitGroup {
		k.s(" exits")
	}
	k.record()
}

// logUnknownSyscall logs each unimplemented system call once, by name, and numbers beyond the
// table once altogether: a program must not be able to flood the kernel log (the fuzzer made
// 36,884 lines in one run when only numbers below 512 were remembered). BKL.
var (
	unknownSeen   [512]bool
	unknownBeyond bool
)

func logUnknownSyscall(nr uint64) {
	seen := &unknownBeyond
	if nr < uint64(len(unknownSeen)) {
		seen = &unknownSeen[nr]
	}
	if *seen {
		return
	}
	*seen = true
	if seen == &unknownBeyond {
		var k kbuf
		k.s("log unimplemented syscall numbers beyond the table, first ").x(nr).s(" -> ENOSYS (not logged again)").record()
		return
	}
	var k kbuf
	k.s("log unimplemented syscall ")
	if nr < uint64(len(sysNames)) && sysNames[nr] != "" {
		k.s(sysNames[nr])
	} else {
		k.s("#")
	}
	k.s(" (").d(int64(nr)).s(") -> ENOSYS")
	k.record()
}

// stats are kernel counters, reported by klog=1 at exit. BKL, except the atomic ones: those
// that paths without the BKL count too (wake_unlocked.go, futex_unlocked.go,
// sleep_unlocked.go), added with sync/atomic everywhere.
var stats struct {
	syscalls    uint64 // atomic
	signals     uint64
	preemptions uint64 // atomic
	threads     uint64
	processes   uint64 // children started (vfork)
	futexWaits  uint64 // atomic
	timerArms   uint64 // atomic
	ticks       uint64 // atomic: timer interrupts armed for the scheduler tick, not a deadline (timer.go)
	idleTicks   uint64 // atomic: ticks that preempted nobody and sampled nothing: for nothing
	earlyTimers uint64 // atomic: timer interrupts before anything was due: a deadline left armed
	shootdowns  uint64
	lazySkips   uint64 // shootdown targets left to flush as they wake (smp.go flushOthers)
	spaceSkips  uint64 // cores a shootdown skipped: another page table loaded (smp.go flushOthers)
	lazyFlushes uint64 // atomic: flushes a core owed and did as it woke (smp.go tlbWake)

	bklContended  uint64 // BKL acquisitions that had to wait
	bklSpinCycles uint64 // cycles spent waiting for the BKL

	// Picks without the BKL (wake_unlocked.go pickUnlocked: an idle core's wake-up, or the
	// switch after a wait, yield or preemption without it): resumed a thread, idled, or handed
	// over to trapBKL (the thread needed the kernel). Atomic.
	unlockedWakes, unlockedFallbacks uint64
	unlockedIdle                     uint64
	unlockedKicks                    uint64 // wake-up IPIs to a running core (kickUnlocked)
	unlockedSelf                     uint64 // getpid and gettid without the BKL (self_unlocked.go)

	// Console writes without the BKL (console_unlocked.go), atomic: written without it; tried
	// and handed to the BKL's sysWrite (not a console fd, a buffer to fault in, a full ring).
	unlockedConsole, consoleFallbacks uint64

	// The netpoller's calls without the BKL (poll_unlocked.go), atomic: epoll_waits and eventfd
	// reads and writes done without it; calls tried and handed to the BKL.
	unlockedEpoll, unlockedEventfd, pollFallbacks uint64

	// System calls without the BKL (futex_unlocked.go), atomic: futex calls done without it,
	// and of them the waits with a timeout; futex calls it began and handed to the BKL (the
	// word or the timespec could not be read, or the timespec is invalid); threads a core had
	// to wait for because another core still held them (oncpu.go).
	unlockedFutex, unlockedTimedFutex, futexFallbacks uint64
	onCPUWaits                                        uint64

	// Sleeps and yields without the BKL (sleep_unlocked.go), atomic: nanosleep and sched_yield
	// calls done without it; nanosleep calls it handed to the BKL (the timespec could not be
	// read); timer interrupts (and polled deadlines) handled without it.
	unlockedSleep, sleepFallbacks uint64
	unlockedTimer                 uint64

	// Page faults without the BKL (fault_unlocked.go), atomic: answered without it; begun and
	// handed to it (not a first touch, a forbidden access, no memory, a free list to sync).
	unlockedFaults, faultFallbacks uint64

	// mmap, munmap, mprotect and madvise without the BKL (mm_unlocked.go), atomic: answered
	// without it; begun and handed to it (the process was ending).
	unlockedMM, mmFallbacks uint64
	kernelUserFaults        uint64 // checked user pages faulted in again for the kernel (mm_unlocked.go)

	// tgkill and rt_sigreturn without the BKL (signal_unlocked.go), atomic: signals posted and
	// handlers returned from without it; calls it began and handed to it (a thread that does not
	// exist or is another process's, or whose wait only the BKL may end; a signal frame it could
	// not read or would not accept).
	unlockedSignals, unlockedSigreturns, sigFallbacks uint64
	unlockedDeliveries                                uint64 // signals delivered without it
}
