package kernel

import (
	"gmpos/sched"
)

// Signals sent by one thread to another: tgkill, tkill, kill.

// sysTgkillCall sends sig to thread tid of process tgid.
func sysTgkillCall(cpu int, tgid, tid, sig int) int64 {
	if sig < 0 || sig > nSig {
		return -EINVAL
	}
	if tgid != int(processID) {
		return -ESRCH
	}
	t, gp := threadByTid(tid)
	if t == nil {
		return -ESRCH
	}
	if sig == 0 {
		return 0
	}
	postSignal(t, gp, sig, cpu)
	return 0
}

// sysKillCall: kill(getpid(), sig) targets the process; Linux picks a thread that does not block
// the signal, gmpos picks the first such thread.
func sysKillCall(cpu int, pid, sig int) int64 {
	if pid != int(processID) && pid != 0 && pid != -1 {
		return -ESRCH
	}
	if sig < 0 || sig > nSig {
		return -EINVAL
	}
	if sig == 0 {
		return 0
	}
	for i := 1; i < MaxThreads; i++ {
		t := &threads[i]
		if (t.state == threadRunning || t.state == threadRunnable || t.state == threadBlocked) && t.sigmask&sigbit(sig) == 0 {
			postSignal(t, sched.GID(i), sig, cpu)
			return 0
		}
	}
	// Every thread blocks it: leave it pending on the main thread, as Linux leaves it pending
	// on the process until some thread unblocks it.
	if t, _ := threadByTid(int(processID)); t != nil {
		t.sigpending |= sigbit(sig)
	}
	return 0
}
