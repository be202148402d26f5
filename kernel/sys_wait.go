// wait4 and waitid: the calls that reap children, for a process that never has any.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// gmpos runs one process, which cannot fork (clone makes threads only), so every wait finds no
// child: ECHILD, after the argument checks Linux makes first (kernel/exit.c kernel_wait4,
// kernel_waitid), so that a program probing the options sees the same errno as on Linux. wait4
// writes its status and rusage only for a child it reaped, so it never looks at them; waitid
// writes the siginfo whatever the outcome (its fields zero when no child was reaped), so a bad
// infop is EFAULT even then.

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
)

// sysWait4: options beyond wait4's set are EINVAL; pid INT_MIN is ESRCH (-INT_MIN has no
// process group); anything else finds no child.
func sysWait4(pid int32, options uint32) int64 {
	if options&^(wNohang|wUntraced|wContinued|wNothread|wClone|wAll) != 0 {
		return -EINVAL
	}
	if pid == -1<<31 {
		return -ESRCH
	}
	return -ECHILD
}

// sysWaitid: options beyond waitid's set, or none of WEXITED, WSTOPPED and WCONTINUED, are
// EINVAL; then the idtype and its id (a P_PIDFD is an fd, and no gmpos file is a pidfd: EBADF).
// Whatever the answer, a non-NULL infop gets the fields of "no child" (all zero), as in Linux's
// sys_waitid.
func sysWaitid(idtype uint32, id int32, infop uintptr, options uint32) int64 {
	r := waitidCheck(idtype, id, options)
	if infop == 0 {
		return r
	}
	// user_write_access_begin(infop, sizeof(siginfo_t)), then si_signo, si_errno, si_code
	// (offsets 0, 4, 8) and si_pid, si_uid, si_status (16, 20, 24).
	if !accessOK(infop, siginfoSize) || !userRange(infop, 28, true) {
		return -EFAULT
	}
	for _, off := range [...]uintptr{0, 4, 8, 16, 20, 24} {
		store32(infop+off, 0)
	}
	return r
}

// waitidCheck is kernel_waitid for a process without children.
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
	return -ECHILD
}
