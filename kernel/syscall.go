package kernel

import (
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// syscall dispatches the system call in t's frame (x86-64 Linux convention, runtime-contract §3.1:
// number in RAX, arguments in RDI, RSI, RDX, R10, R8, R9, result or -errno in RAX; every other
// register is preserved — the kernel only writes RAX back).
//
// A handler returns the result, or blocks the thread (block) and returns anything: the value in
// the frame is then set by whoever wakes it. rt_sigreturn and exit paths manage the frame
// themselves (noResult).
func syscall(t *Thread, gp sched.GID, cpu int) {
	f := &t.frame
	a0, a1, a2, a3, a4, a5 := f.DI, f.SI, f.DX, f.R10, f.R8, f.R9
	nr := f.AX
	stats.syscalls++
	var r int64
	switch nr {
	case sysRead:
		r = sysReadFd(int(a0), uintptr(a1), uintptr(a2))
	case sysWrite:
		r = sysWriteFd(t, gp, cpu, int(a0), uintptr(a1), uintptr(a2))
	case sysOpen, sysOpenat, sysStat, sysLstat, sysNewfstatat, sysAccess, sysFaccessat, sysFaccessat2, sysReadlink, sysReadlinkat:
		r = -ENOENT // gmpos has no file system
	case sysClose:
		r = sysCloseFd(int(a0))
	case sysFstat:
		r = sysFstatFd(int(a0), uintptr(a1))
	case sysLseek:
		r = sysLseekFd(int(a0))
	case sysPread64:
		r = sysPreadFd(int(a0))
	case sysIoctl:
		r = sysIoctlFd(int(a0))
	case sysFcntl:
		r = sysFcntlFd(int(a0), int(a1))
	case sysMmapNr:
		r = sysMmap(uintptr(a0), uintptr(a1), uint32(a2), uint32(a3), int(int32(a4)), uintptr(a5))
	case sysMunmap:
		r = errnoResult(mm.Space.Munmap(uintptr(a0), uintptr(a1)))
	case sysMadvise:
		r = errnoResult(mm.Space.Madvise(uintptr(a0), uintptr(a1), int(a2)))
	case sysMprotect:
		r = errnoResult(mm.Space.Mprotect(uintptr(a0), uintptr(a1), uint32(a2)))
	case sysBrk:
		r = 0 // no heap segment: the current break is 0 and cannot move (the Go runtime never calls brk)
	case sysMincore:
		r = -ENOSYS
	case sysRtSigaction:
		r = sysRtSigactionCall(int(a0), uintptr(a1), uintptr(a2), uintptr(a3))
	case sysRtSigprocmask:
		r = sysRtSigprocmaskCall(t, int(a0), uintptr(a1), uintptr(a2), uintptr(a3))
	case sysRtSigreturnNr:
		f.AX = uint64(sysRtSigreturn(t))
		return
	case sysSigaltstack:
		r = sysSigaltstackCall(t, uintptr(a0), uintptr(a1))
	case sysSchedYield:
		t.state = threadRunnable
		S.GoYield(cpu)
		r = 0
	case sysNanosleep:
		r = sysNanosleepCall(t, gp, cpu, uintptr(a0))
	case sysClockNanosleep:
		r = sysClockNanosleepCall(t, gp, cpu, int(a0), int(a1), uintptr(a2))
	case sysClockGettime:
		r = sysClockGettimeCall(int(a0), uintptr(a1))
	case sysClockGetres:
		r = sysClockGetresCall(int(a0), uintptr(a1))
	case sysGettimeofday:
		r = sysGettimeofdayCall(uintptr(a0))
	case sysTime:
		r = walltime() / 1e9
		if a0 != 0 {
			if !mm.Space.UserRange(uintptr(a0), 8, true) {
				r = -EFAULT
			} else {
				store64(uintptr(a0), uint64(r))
			}
		}
	case sysFutex:
		r = sysFutexCall(t, gp, cpu, uintptr(a0), int(a1), uint32(a2), uintptr(a3), uint32(a5))
	case sysClone:
		r = sysCloneCall(t, cpu, a0, uintptr(a1), uintptr(a2), uintptr(a3), uintptr(a4))
	case sysExit:
		threadExit(t, gp, cpu)
		return
	case sysExitGroup:
		exitProcess(int(a0 & 0xff))
		return
	case sysGetpid:
		r = processID
	case sysGettid:
		r = int64(t.tid)
	case sysGetppid:
		r = 0
	case sysGetuid, sysGeteuid, sysGetgid, sysGetegid:
		r = 0
	case sysTgkill:
		r = sysTgkillCall(cpu, int(int32(a0)), int(int32(a1)), int(a2))
	case sysTkill:
		r = sysTgkillCall(cpu, int(processID), int(int32(a0)), int(a1))
	case sysKill:
		r = sysKillCall(cpu, int(int32(a0)), int(a1))
	case sysSchedGetaffinity:
		r = sysSchedGetaffinityCall(uintptr(a1), uintptr(a2))
	case sysArchPrctl:
		r = sysArchPrctlCall(t, int(a0), uintptr(a1))
	case sysPrctl:
		r = sysPrctlCall(int(a0))
	case sysPrlimit64:
		r = sysPrlimitCall(int(a0), int(a1), uintptr(a2), uintptr(a3))
	case sysGetrlimit:
		r = sysPrlimitCall(0, int(a0), 0, uintptr(a1))
	case sysUname:
		r = sysUnameCall(uintptr(a0))
	case sysGetrandom:
		r = sysGetrandomCall(uintptr(a0), uintptr(a1), uint32(a2))
	case sysEventfd2:
		r = sysEventfdCall(uint32(a0), int(a1))
	case sysEpollCreate1:
		r = sysEpollCreateCall(int(a0))
	case sysEpollCtl:
		r = sysEpollCtlCall(int(a0), int(a1), int(a2), uintptr(a3))
	case sysEpollPwait, sysEpollWait:
		r = sysEpollWaitCall(t, gp, cpu, int(a0), uintptr(a1), int(int32(a2)), int(int32(a3)))
	case sysRseq:
		r = -ENOSYS // glibc's optional restartable sequences; Go never registers one
	case sysGmposInfo:
		r = sysGmposInfoCall(int(a0), uintptr(a1), uintptr(a2))
	default:
		r = -ENOSYS
		logUnknownSyscall(nr)
	}
	if t.state == threadRunning || t.state == threadRunnable {
		f.AX = uint64(r)
	}
	if cmd.strace {
		straceLog(t, nr, a0, a1, a2, a3, r)
	}
}

// straceLog writes one strace(1)-like line: time since boot in µs, thread, call, first four
// arguments, result (or that the thread blocked; the result then arrives with the wake-up).
func straceLog(t *Thread, nr, a0, a1, a2, a3 uint64, r int64) {
	var k kbuf
	k.s("log ").d(nanotime() / 1000).s(" [").d(int64(t.tid)).s("] ")
	if nr < uint64(len(sysNames)) && sysNames[nr] != "" {
		k.s(sysNames[nr])
	} else {
		k.s("syscall_").d(int64(nr))
	}
	k.s("(").x(a0).s(", ").x(a1).s(", ").x(a2).s(", ").x(a3).s(")")
	if t.state == threadBlocked {
		k.s(" blocks")
	} else {
		k.s(" = ").d(r)
	}
	k.record()
}

func errnoResult(e mm.Errno) int64 { return -int64(e) }

// sysMmap passes the Linux mmap contract to mm (anonymous private mappings only). A file mapping
// names an fd: EBADF if it is not open, ENODEV if it is (no gmpos file can be mapped).
func sysMmap(addr, length uintptr, prot, flags uint32, fd int, off uintptr) int64 {
	if flags&mm.MAP_ANONYMOUS == 0 && length != 0 && !validFD(fd) {
		return -EBADF
	}
	va, e := mm.Space.Mmap(addr, length, prot, flags, fd, off)
	if e != mm.OK {
		return -int64(e)
	}
	return int64(va)
}

// logUnknownSyscall logs each unimplemented system call once, by name.
var unknownSeen [512]bool

func logUnknownSyscall(nr uint64) {
	var k kbuf
	if nr < uint64(len(unknownSeen)) {
		if unknownSeen[nr] {
			return
		}
		unknownSeen[nr] = true
	}
	k.s("log unimplemented syscall ")
	if nr < uint64(len(sysNames)) && sysNames[nr] != "" {
		k.s(sysNames[nr])
	} else {
		k.s("#")
	}
	k.s(" (").d(int64(nr)).s(") -> ENOSYS")
	k.record()
}

// klogOnce logs msg the first time *seen is false.
func klogOnce(seen *bool, msg string) {
	if !*seen {
		*seen = true
		klog(msg)
	}
}

// processID is getpid(): the main thread's tid, as on Linux.
var processID int64

// stats are kernel counters, reported by the gmpos_info system call and at exit with klog=1.
var stats struct {
	syscalls    uint64
	signals     uint64
	preemptions uint64
	threads     uint64
	futexWaits  uint64
	timerArms   uint64
	shootdowns  uint64

	bklContended  uint64 // BKL acquisitions that had to wait
	bklSpinCycles uint64 // TSC cycles spent waiting for the BKL
}
