// wait4 and waitid: the calls that reap children (proc.go).
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/sched"

// A child that has ended is a zombie until its parent waits for it (kernel/exit.c do_wait):
// wait4 and waitid report its status and free it (waitid with WNOWAIT only reports). Without a
// zombie to report, the call sleeps until a child ends (waitChild; procDied wakes the parent's
// waiters, which look again), or returns at once with WNOHANG. A process with no child that the
// call could ever report gets ECHILD, after the argument checks Linux makes first, so that a
// program probing the options sees the same errno as on Linux. Children never stop or continue
// here (no job control, no ptrace): WSTOPPED and WCONTINUED find nothing.

// Options (include/uapi/linux/wait.h).
const (
	wNohang    = 0x00000001
	wUntraced  = 0x00000002 // = WSTOPPED for waitid
	wExited    = 0x00000004
	wContinued = 0x00000008
	wNowait    = 0x01000000
	wNothread  = 0x20000000
	wAll       = 0x40000000
	wClone     = 0x80000000

	// waitid's idtype.
	pAll   = 0
	pPID   = 1
	pPGID  = 2
	pPIDFD = 3

	// siginfo's si_code for SIGCHLD (include/uapi/asm-generic/siginfo.h).
	cldExited = 1
	cldKilled = 2

	// rusageSize is sizeof(struct rusage) on 64-bit Linux.
	rusageSize = 144
)

// sysWait4: options beyond wait4's set are EINVAL; pid INT_MIN is ESRCH (-INT_MIN has no
// process group). pid > 0 names a child, -1 (and, with one process group, 0 and -pgid) any.
// The status (WIFEXITED's code<<8, or WIFSIGNALED's signal) and a zeroed rusage are written
// for the child reaped.
func sysWait4(t *Thread, gp sched.GID, cpu int, pid int32, statusp uintptr, options uint32, rusage uintptr) int64 {
	if options&^(wNohang|wUntraced|wContinued|wNothread|wClone|wAll) != 0 {
		return -EINVAL
	}
	if pid == -1<<31 {
		return -ESRCH
	}
	if pid < -1 || pid == 0 {
		pid = -1 // one process group: every child is in the caller's
	}
	k, any := findChild(int(t.proc), pid, options)
	if k < 0 {
		if !any {
			return -ECHILD
		}
		if options&wNohang != 0 {
			return 0
		}
		block(t, gp, cpu, waitChild, 0)
		return 0
	}
	c := &procs[k]
	if statusp != 0 {
		if !userRange(statusp, 4, true) {
			return -EFAULT
		}
		store32(statusp, uint32(c.status))
	}
	if rusage != 0 {
		if !userRange(rusage, rusageSize, true) {
			return -EFAULT
		}
		zeroUser(rusage, rusageSize)
	}
	r := int64(c.pid)
	*c = process{} // reaped
	return r
}

// sysWaitid: options beyond waitid's set, or none of WEXITED, WSTOPPED and WCONTINUED, are
// EINVAL; then the idtype and its id (a P_PIDFD is an fd, and no gmpos file is a pidfd: EBADF).
// Whatever the answer, a non-NULL infop gets the fields (all zero when no child was reported),
// as in Linux's sys_waitid.
func sysWaitid(t *Thread, gp sched.GID, cpu int, idtype uint32, id int32, infop uintptr, options uint32) int64 {
	if r := waitidCheck(idtype, id, options); r != 0 {
		return waitidInfo(infop, nil, r)
	}
	pid := int32(-1)
	if idtype == pPID {
		pid = id
	}
	k := -1
	any := false
	if options&wExited != 0 {
		k, any = findChild(int(t.proc), pid, options)
	} else {
		_, any = findChild(int(t.proc), pid, options)
	}
	if k < 0 {
		if !any {
			return waitidInfo(infop, nil, -ECHILD)
		}
		if options&wNohang != 0 {
			return waitidInfo(infop, nil, 0)
		}
		block(t, gp, cpu, waitChild, 0)
		return 0
	}
	r := waitidInfo(infop, &procs[k], 0)
	if r == 0 && options&wNowait == 0 {
		procs[k] = process{} // reaped
	}
	return r
}

// waitidInfo writes the siginfo of child c (nil: none) at infop, unless infop is NULL, and
// returns r (or EFAULT). user_write_access_begin(infop, sizeof(siginfo_t)), then si_signo,
// si_errno, si_code (offsets 0, 4, 8) and si_pid, si_uid, si_status (16, 20, 24).
func waitidInfo(infop uintptr, c *process, r int64) int64 {
	if infop == 0 {
		return r
	}
	if !accessOK(infop, siginfoSize) || !userRange(infop, 28, true) {
		return -EFAULT
	}
	var v [6]uint32
	if c != nil {
		v = [6]uint32{sigCHLD, 0, cldExited, uint32(c.pid), 0, uint32(c.status>>8) & 0xff}
		if c.status&0x7f != 0 {
			v[2], v[5] = cldKilled, uint32(c.status&0x7f)
		}
	}
	for i, off := range [...]uintptr{0, 4, 8, 16, 20, 24} {
		store32(infop+off, v[i])
	}
	return r
}

// findChild looks among process k's children for one that pid (-1: any) names and the options
// make eligible (__WCLONE: children whose exit signal is not SIGCHLD; __WALL: both kinds). It
// returns a zombie to report (-1: none yet) and whether any eligible child exists.
func findChild(k int, pid int32, options uint32) (zombie int, any bool) {
	zombie = -1
	for c := 1; c < maxProcs; c++ {
		p := &procs[c]
		if p.state == procFree || int(p.parent) != k || (pid > 0 && p.pid != pid) {
			continue
		}
		if options&wAll == 0 && (p.exitSignal == sigCHLD) == (options&wClone != 0) {
			continue
		}
		any = true
		if p.state == procZombie && zombie < 0 {
			zombie = c
		}
	}
	return zombie, any
}

// waitidCheck is kernel_waitid's argument checks; 0 if they pass.
func waitidCheck(idtype uint32, id int32, options uint32) int64 {
	if options&^(wNohang|wNowait|wExited|wUntraced|wContinued|wNothread|wClone|wAll) != 0 ||
		options&(wExited|wUntraced|wContinued) == 0 {
		return -EINVAL
	}
	switch idtype {
	case pAll:
	case pPID:
		if id <= 0 {
			return -EINVAL
		}
	case pPGID:
		if id < 0 {
			return -EINVAL
		}
	case pPIDFD:
		if id < 0 {
			return -EINVAL
		}
		return -EBADF // pidfd_get_pid: not open, or not a pidfd
	default:
		return -EINVAL
	}
	return 0
}
