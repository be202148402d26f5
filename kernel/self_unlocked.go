// getpid and gettid without the big kernel lock.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
)

// Why. The Go runtime preempts a goroutine by signalling its thread (signalM: tgkill(getpid(),
// tid, SIGURG)), and the GC's stop-the-world preempts every running one at once: in a 4-vCPU
// GC-churn run, after the sleep piece, each of its 138 getpid calls waited about a millisecond
// for the BKL while the other cores' tgkills and sigreturns held it. Linux answers getpid and
// gettid from the task without a lock; so does this path. A process's pid and a thread's tid are
// fixed for their lives (proc.go, thread.go), so they are read without the lock: the thread is
// running here, so neither can end meanwhile.
//
// Left to the BKL: everything while strace runs (it logs under the lock) or the scheduler trace
// does, a thread that needs the kernel on its way out (needsKernel: a signal to
// deliver), and both calls with the kernel option sleepbkl=1 (which keeps the calls a thread
// makes about itself under the lock: sleep_unlocked.go).
//
// Context: trap context (doc.go), without the BKL.

// selfUnlockedOK reports whether the system call in f, from the thread running on core cpu, is
// getpid or gettid with nothing on that needs the BKL. The call's number comes first (see
// futexUnlockedOK).
func selfUnlockedOK(f *arch.Frame, cpu int) bool {
	nr, _ := syscallNr(f)
	if nr != nrGetpid && nr != nrGettid {
		return false
	}
	gp := cpus[cpu].cur
	return gp != 0 && !cmd.sleepBKL && !cmd.trace && !cmd.strace && !needsKernel(&threads[gp])
}

// selfUnlocked answers the call selfUnlockedOK accepted (entered at cycle t0) and resumes its
// thread.
func selfUnlocked(f *arch.Frame, cpu int, t0 uint64) *arch.Frame {
	gp := cpus[cpu].cur
	t := &threads[gp]
	nr, _ := syscallNr(f)
	b := ktimeBucket(f, arch.TrapSyscall) // before the result: on amd64 it replaces the number
	r := int64(t.tid)
	if nr == nrGetpid {
		r = int64(procOf(t).pid)
	}
	f.SetSyscallResult(uint64(r))
	atomic.AddUint64(&stats.unlockedSelf, 1)
	atomic.AddUint64(&stats.syscalls, 1)
	return resumeSame(f, cpu, gp, t0, b) // nothing for the timer to look at again
}
