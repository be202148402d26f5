// Signals sent by one thread to another: tgkill, tkill, kill.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/sched"

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
	return tkill(cpu, processID, tid, sig)
}

func tkill(cpu int, tgid, tid int32, sig int32) int64 {
	t, gp := threadByTid(tid)
	if t == nil || tgid != processID {
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

// sysKill sends sig to the process (kernel/signal.c kill_something_info). gmpos has one process,
// whose ID is also its process group's: a positive pid naming any of its threads (Linux finds the
// process by any of its task IDs), 0 (the caller's group) and -getpid() name it; pid = -1 means
// "every process but the caller", of which there is none (ESRCH); any other pid does not exist
// (ESRCH, looked up before the signal number is checked). Linux picks a thread that does not block
// the signal (complete_signal); gmpos picks the first such thread.
func sysKill(cpu int, pid int32, sig int32) int64 {
	switch {
	case pid > 0:
		if t, _ := threadByTid(pid); t == nil {
			return -ESRCH
		}
	case pid == 0, pid == -processID:
	default:
		return -ESRCH
	}
	if uint32(sig) > nSig {
		return -EINVAL
	}
	if sig == 0 {
		return 0
	}
	for i := 1; i < MaxThreads; i++ {
		gp := sched.GID(i)
		if t := &threads[i]; live(gp) && t.sigmask&sigbit(int(sig)) == 0 {
			postSignal(t, gp, int(sig), cpu)
			return 0
		}
	}
	// Every thread blocks it: leave it pending on the main thread, as Linux leaves it pending
	// on the process until some thread unblocks it.
	if t, _ := threadByTid(processID); t != nil {
		t.sigpending |= sigbit(int(sig))
	}
	return 0
}
