// Signals sent by one thread to another: tgkill, tkill, kill.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// sysTgkill sends sig to thread tid of process tgid (kernel/signal.c tgkill → do_tkill →
// do_send_specific): EINVAL for a non-positive id, ESRCH for a thread that does not exist, then
// EINVAL for a bad signal number; signal 0 only checks that the thread exists.
func sysTgkill(cpu int, tgid, tid int32, sig int32) int64 {
	if tgid <= 0 || tid <= 0 {
		return -EINVAL
	}
	return tkill(cpu, tgid, tid, sig)
}

// sysTkill is tgkill without the process check (tkill(2)).
func sysTkill(cpu int, tid int32, sig int32) int64 {
	if tid <= 0 {
		return -EINVAL
	}
	return tkill(cpu, 0, tid, sig)
}

// tkill sends sig to thread tid, which must belong to process tgid (0: any).
func tkill(cpu int, tgid, tid int32, sig int32) int64 {
	t, gp := threadByTid(tid)
	if t == nil || (tgid != 0 && procOf(t).pid != tgid) {
		return -ESRCH
	}
	if uint32(sig) > nSig {
		return -EINVAL // valid_signal takes it unsigned: negative numbers are invalid too
	}
	if sig != 0 {
		postSignal(t, gp, int(sig), cpu)
	}
	return 0
}

// sysKill sends sig to processes (kernel/signal.c kill_something_info). A positive pid names
// the process with that ID, or the process of the thread with that ID (Linux finds a process by
// any of its task IDs). All processes share one process group, so 0 and -pgid name every
// process, and -1 every process but the caller (ESRCH if there is none). Another pid does not
// exist (ESRCH, looked up before the signal number is checked); -1 skips pid 1 as well, and is
// ESRCH when that leaves no process (kill_something_info). The thread that takes it is
// one that does not block it (complete_signal, groupTarget); if every thread blocks it, it stays
// pending at the first, as Linux leaves it pending on the process until a thread unblocks it.
func sysKill(cpu int, pid int32, sig int32) int64 {
	caller := curProc
	target := -1 // one process; -2: every process; -3: every process but the caller
	switch {
	case pid > 0:
		target = procByPid(pid)
		if target < 0 {
			if t, _ := threadByTid(pid); t != nil {
				target = int(t.proc)
			}
		}
		if target < 0 {
			return -ESRCH // a zombie exists still: the signal is accepted and dropped, as on Linux
		}
	case pid == -1:
		target = -3
		n := 0
		for k := 0; k < maxProcs; k++ {
			if k != caller && procs[k].state == procLive && procs[k].pid != 1 {
				n++
			}
		}
		if n == 0 {
			return -ESRCH
		}
	case pid == 0, pid == -procs[0].pid:
		target = -2
	default:
		return -ESRCH
	}
	if uint32(sig) > nSig {
		return -EINVAL
	}
	if sig == 0 {
		return 0
	}
	for k := 0; k < maxProcs; k++ {
		if procs[k].state != procLive || (target >= 0 && k != target) || (target == -3 && (k == caller || procs[k].pid == 1)) {
			continue
		}
		if gp := groupTarget(k, 0, int(sig)); gp != 0 {
			postSignal(&threads[gp], gp, int(sig), cpu) // pending only, if the thread blocks it
		}
	}
	return 0
}
