// Per-core kernel state.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/drivers/virtio"
	"gmpos/kernel/arch"
	"gmpos/sched"
)

// cpuState is what the kernel keeps per core (the architecture's own per-core state — kernel
// stack, descriptor tables, saved user SP — is arch.CPU). Core i is M i and owns P i.
type cpuState struct {
	// Owned by the core: written only by core i, under the BKL or on its paths without it
	// (wake_unlocked.go, futex_unlocked.go, sleep_unlocked.go, self_unlocked.go); other cores
	// read them only for reports, and cur to kick its thread (kickThread, after arch.Fence).
	cur        sched.GID // the thread running on this core (0: idle)
	held       sched.GID // the thread whose state this core holds (oncpu.go; 0: none)
	timerArmed int64     // deadline the one-shot timer is armed for (0: stopped)
	tickArmed  bool      // timerArmed is the scheduler tick (tickAt), not a deadline: stats.ticks
	timerEarly bool      // timerArmed is earlier than anything now due (armTimer left it): stats.earlyTimers
	retryAt    int64     // pending sched WakeMAt time of this core's P (0: none; platform.go)
	dispatches uint64    // threads the scheduler started on this core (gmpos_info)
	irqs       uint64    // device interrupts handled on this core
	// The page table loaded (CR3 on x86) and its address space's generation (proc.go loadRoot);
	// 0: not yet chosen (the boot table).
	root    uintptr
	rootGen uint32

	// Where the core's time goes (gmpos_info infoCPUTime, klog's exit report), in cycles:
	// kernel from trap entry to the way out (waiting for the BKL included), idle while halted;
	// the rest of the time since idleSince's first use is user time. idleSince is when the
	// current halt began (0: not halted).
	kernelCycles, idleCycles, idleSince uint64

	// Atomic: set by the BKL holder, cleared by this core (smp.go).
	flushReq atomic.Uint32 // 1: drop cached translations (TLB shootdown) and clear

	// The core's lazy-TLB state (smp.go): tlbActive, or tlbLazy while it idles, set by the
	// core; tlbOwed, set by a shootdown's sender instead of interrupting it.
	tlbState atomic.Uint32

	// The idle poll (idle.go), all but polling owned by the core: pollUntil is when the poll
	// ends (0: no poll), pollDeadline whether that is a deadline to handle; pollWindow the
	// adaptive halt-poll window and idleStart when the current idle stretch began (0: none
	// being judged); the counts are klog's. polling is pollOff/pollActive, set by the core, and
	// pollKicked, set by a waker instead of an IPI (WakeM).
	pollUntil     int64
	pollDeadline  bool
	pollWindow    int64
	idleStart     int64
	polling       atomic.Int32
	pollKicks     uint64
	pollDeadlines uint64

	// pickedIdle: cur was picked by a wake-up without the BKL that handed over to trapBKL
	// (wake_unlocked.go); it has not run, and the core was idle until the way out, so the
	// trap's charges (chargeUser, chargeSystem) go to nobody, as for an idle core's wake-up.
	// idleSeq is odd while that wake-up updates idleCycles and idleSince, for cpuTime's
	// readers on other cores.
	pickedIdle bool
	idleSeq    atomic.Uint32

	// wakeIPIs are the cores this core must send a wake-up IPI once it releases the BKL (bit i:
	// core i; smp.go bklUnlock). Only this core touches it.
	wakeIPIs uint16

	// notify is a device notification this core owes once it releases the BKL (smp.go
	// bklUnlock; deferNotify): the NIC's transmit kick. Only this core touches it.
	notify virtio.Notifier
}

// wakeIPIs has a bit per core.
const _ = uint16(1) << (arch.MaxCPU - 1)

// cpus is every core's state; ncpu of them are in use.
var cpus [arch.MaxCPU]cpuState

// ncpu is the number of cores in use. Immutable once the other cores have started (boot).
var ncpu = 1

// currentCPU is the index of the core running the caller.
func currentCPU() int { return arch.Current().ID() }

// cpuTime is core i's kernel and idle time so far, in ns (a halt in progress counts up to now).
// BKL held. Core i's wake-up without the BKL updates the idle fields meanwhile, so they are read
// as a seqlock's readers do: again if idleSeq was odd or changed.
func cpuTime(i int) (kernel, idle int64) {
	c := &cpus[i]
	var ic uint64
	for {
		s := c.idleSeq.Load()
		ic = c.idleCycles
		if c.idleSince != 0 {
			ic += arch.Cycles() - c.idleSince
		}
		if s&1 == 0 && c.idleSeq.Load() == s {
			break
		}
		arch.Pause()
	}
	return cyclesToNS(c.kernelCycles), cyclesToNS(ic)
}
