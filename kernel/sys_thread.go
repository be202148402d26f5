// Threads and process exit: clone, exit, exit_group.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
	"gmpos/kernel/netabi"
	"gmpos/sched"
)

// Clone flags (include/uapi/linux/sched.h). The Go runtime always passes cloneThread|[cloneSettls]
// (docs/runtime-contract.md §3.4) for its threads; os/exec passes cloneVM|cloneVfork|SIGCHLD for
// a child process (proc.go). A fork that copies the address space does not exist here.
const (
	cloneVM            = 0x100
	cloneFS            = 0x200
	cloneFiles         = 0x400
	cloneSighand       = 0x800
	cloneThread        = 0x10000
	cloneVfork         = 0x4000
	cloneSysvsem       = 0x40000
	cloneSettls        = 0x80000
	cloneParentSettid  = 0x100000
	cloneChildCleartid = 0x200000
	cloneChildSettid   = 0x1000000

	cloneRequired = cloneVM | cloneSighand | cloneThread
	cloneAllowed  = cloneRequired | cloneFS | cloneFiles | cloneSysvsem | cloneSettls | 0xff /* exit signal */
)

// sysClone creates a thread sharing everything with its parent; the child resumes at the same
// instruction with result 0 on the given stack (docs/runtime-contract.md §3.4: the Go runtime
// relies on every other register being inherited). The argument order is the architecture's
// (abi_<arch>.go cloneArgs).
func sysClone(t *Thread, gp sched.GID, cpu int, a [6]uint64) int64 {
	flags, stack, _, _, tls := cloneArgs(a)
	if flags&cloneThread == 0 && (flags&cloneSighand == 0 || flags&cloneVM != 0) {
		// A new process. CLONE_SIGHAND without CLONE_VM is EINVAL first, as in Linux's
		// copy_process. vfork's flags (os/exec's) make a child (proc.go); a fork that copies
		// the address space is ENOSYS, as for fork(2) — "not here", where EINVAL would blame
		// the arguments.
		if flags&cloneSighand != 0 && flags&cloneVM == 0 {
			return -EINVAL
		}
		if flags&^(cloneVM|cloneVfork|0xff) == 0 && flags&(cloneVM|cloneVfork) == cloneVM|cloneVfork {
			return sysVfork(t, gp, cpu, flags, stack)
		}
		return -ENOSYS
	}
	if flags&cloneRequired != cloneRequired || flags&^cloneAllowed != 0 {
		return -EINVAL
	}
	if flags&cloneSettls != 0 && !userAddress(tls) {
		return -EINVAL
	}
	child, cgp := newThread(cpu)
	if child == nil {
		return -EAGAIN
	}
	child.frame = t.frame
	child.frame.SetSyscallResult(0)
	if stack != 0 {
		child.frame.SetStackPointer(stack)
	}
	child.tls = t.tls
	if flags&cloneSettls != 0 {
		child.tls = tls
	}
	copyWords(child.fpArea(), t.fpState(), arch.FPStateSize)
	child.sigmask = t.sigmask // signals stay blocked in the child until its minit unblocks them
	child.proc = t.proc
	procOf(t).threads++
	startThread(cgp, cpu)
	stats.threads++
	return int64(child.tid)
}

// userAddress reports whether va lies in the user half of the address space.
func userAddress(va uintptr) bool { return va < mm.UserEnd }

// threadExit ends the calling thread (exit(2)), or a thread of an exiting process (schedule).
// Nothing of the user stack is touched: the runtime may already be reusing it
// (docs/runtime-contract.md §0, fact 9). The last thread's exit ends the process (proc.go).
func threadExit(t *Thread, gp sched.GID, cpu int) {
	S.Exit(cpu)
	signalsThreadExit(t, gp, cpu) // what it had pending for the process (sigsource.go)
	k := int(t.proc)
	// A sender without the BKL looks the tid up under futexQ's lock (signal_unlocked.go): it
	// posts to this thread before, or finds no such thread after — never to the slot's next.
	futexQ.lock.lock(cpu)
	t.tid = 0
	futexQ.lock.unlock(cpu)
	*t = Thread{}
	procThreadGone(k, cpu)
}

// exitProcess ends the program (process 0): exit_group(2), or a fatal signal. It reports the
// status on the control channel and stops the machine (docs/contract.md). Never returns.
func exitProcess(code int) {
	var k kbuf
	if cmd.klog {
		k.s("log stats syscalls=").d(int64(atomic.LoadUint64(&stats.syscalls))).s(" signals=").d(int64(atomic.LoadUint64(&stats.signals))).
			s(" preemptions=").d(int64(atomic.LoadUint64(&stats.preemptions))).s(" threads=").d(int64(stats.threads)).s(" processes=").d(int64(stats.processes)).s(" timer-arms=").d(int64(atomic.LoadUint64(&stats.timerArms))).s(" ticks=").d(int64(atomic.LoadUint64(&stats.ticks))).s(" idle-ticks=").d(int64(atomic.LoadUint64(&stats.idleTicks))).s(" early-timers=").d(int64(atomic.LoadUint64(&stats.earlyTimers))).
			s(" cpus=").d(int64(ncpu)).s(" shootdowns=").d(int64(stats.shootdowns)).
			s(" bkl-contended=").d(int64(stats.bklContended)).s(" bkl-wait-us=").d(cyclesToNS(stats.bklSpinCycles) / 1000).
			s(" poll-kicks=").d(int64(pollTotal(true))).s(" poll-deadlines=").d(int64(pollTotal(false))).
			s(" unlocked-wakes=").d(int64(atomic.LoadUint64(&stats.unlockedWakes))).s(" unlocked-fallbacks=").d(int64(atomic.LoadUint64(&stats.unlockedFallbacks))).s(" unlocked-idle=").d(int64(atomic.LoadUint64(&stats.unlockedIdle))).
			s(" unlocked-futex=").d(int64(atomic.LoadUint64(&stats.unlockedFutex))).s(" futex-fallbacks=").d(int64(atomic.LoadUint64(&stats.futexFallbacks))).
			s(" futex-contended=").d(int64(futexQ.lock.contended.Load())).s(" oncpu-waits=").d(int64(atomic.LoadUint64(&stats.onCPUWaits))).
			s(" user-fixups=").d(int64(arch.UserFixups())).record()
		k.n = 0 // the rest on a line of its own: a record holds 512 bytes (klog.go kbuf)
		k.s("log stats-unlocked unlocked-sleep=").d(int64(atomic.LoadUint64(&stats.unlockedSleep))).s(" sleep-fallbacks=").d(int64(atomic.LoadUint64(&stats.sleepFallbacks))).
			s(" unlocked-timer=").d(int64(atomic.LoadUint64(&stats.unlockedTimer))).
			s(" unlocked-timed-futex=").d(int64(atomic.LoadUint64(&stats.unlockedTimedFutex))).s(" unlocked-kicks=").d(int64(atomic.LoadUint64(&stats.unlockedKicks))).s(" unlocked-self=").d(int64(atomic.LoadUint64(&stats.unlockedSelf))).
			s(" unlocked-faults=").d(int64(atomic.LoadUint64(&stats.unlockedFaults))).s(" fault-fallbacks=").d(int64(atomic.LoadUint64(&stats.faultFallbacks))).
			s(" unlocked-mm=").d(int64(atomic.LoadUint64(&stats.unlockedMM))).s(" mm-fallbacks=").d(int64(atomic.LoadUint64(&stats.mmFallbacks))).s(" kernel-user-faults=").d(int64(atomic.LoadUint64(&stats.kernelUserFaults))).
			s(" lazy-skips=").d(int64(stats.lazySkips)).s(" space-skips=").d(int64(stats.spaceSkips)).s(" lazy-flushes=").d(int64(atomic.LoadUint64(&stats.lazyFlushes))).
			s(" unlocked-signals=").d(int64(atomic.LoadUint64(&stats.unlockedSignals))).s(" unlocked-sigreturns=").d(int64(atomic.LoadUint64(&stats.unlockedSigreturns))).s(" unlocked-deliveries=").d(int64(atomic.LoadUint64(&stats.unlockedDeliveries))).s(" sig-fallbacks=").d(int64(atomic.LoadUint64(&stats.sigFallbacks))).record()
		k.n = 0
		k.s("log stats-console unlocked-console=").d(int64(atomic.LoadUint64(&stats.unlockedConsole))).s(" console-fallbacks=").d(int64(atomic.LoadUint64(&stats.consoleFallbacks))).s(" console-contended=").d(int64(vconLock.contended.Load())).record()
		k.n = 0
		k.s("log stats-poll unlocked-epoll=").d(int64(atomic.LoadUint64(&stats.unlockedEpoll))).s(" unlocked-eventfd=").d(int64(atomic.LoadUint64(&stats.unlockedEventfd))).s(" poll-fallbacks=").d(int64(atomic.LoadUint64(&stats.pollFallbacks))).s(" poll-contended=").d(int64(epollLock.contended.Load())).record()
		ms := mm.Space.ReadStats() // the program's address space
		k.n = 0
		k.s("log mm frames-used=").d(int64(ms.FramesUsed)).s(" faults=").d(int64(ms.Faults)).s(" faulted-ahead=").d(int64(ms.FaultAhead)).
			s(" spurious=").d(int64(ms.Spurious)).s(" madv-dropped=").d(int64(ms.MadvDropped)).s(" unmapped=").d(int64(ms.Unmapped)).record()
		ktimeReport()
		for i := 0; i < ncpu; i++ { // where each core's time went; the rest was user time
			kt, idle := cpuTime(i)
			k.n = 0
			k.s("log cpu").d(int64(i)).s(" uptime-ms=").d(nanotime() / 1_000_000).s(" kernel-ms=").d(kt / 1_000_000).
				s(" idle-ms=").d(idle / 1_000_000).record()
		}
		if nic.present || netsvc.attached {
			k.n = 0
			k.s("log net")
			for i, name := range netabi.NetStatNames {
				k.s(" ").s(name).s("=").d(int64(netStat(i)))
			}
			k.record()
		}
	}
	if cmd.trace {
		dumpTrace()
	}
	dumpProfile()
	k.s("exit ").d(int64(code)).record()
	board.Exit(uint8(code))
}
