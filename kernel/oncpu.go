// Which core holds a thread: the rule that no two cores resume one thread's state at once.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/sched"
)

// A core holds the thread it runs from the moment it resumes it until it has switched away from
// it: not only while the thread is in user mode, but through its traps, and after the thread
// blocked or was preempted, until the core has finished with it. Two things of the thread's stay
// with that core until then: its x87 state, which the amd64 entry leaves in the registers
// (arch/amd64/fpu.go) and only the switch writes back; and, in a trap, the core's use of the
// thread's frame and result. Another core must not resume the thread before (its FXRSTOR would
// load a stale x87 image, or the trap would still write the frame the other core runs).
//
// Under one big lock the rule held by itself: the blocking core switched away before it
// released the lock, and the other cores' wake-ups waited for the lock. Since futex waits and
// wake-ups run without it (futex_unlocked.go), a thread can be readied, and picked by another
// core, while the core it blocked on is still in its trap. So each thread records its holder
// (onCPU, Linux's task_struct.on_cpu, which try_to_wake_up waits for the same way), and a core
// that picks a thread another core still holds waits until it is released (holdThread).
//
// No cycle of waits: a core releases the thread it held before it asks the scheduler for the
// next one (releaseHeld), so a core that waits holds no thread. The holder finishes without the
// waiter's help: the BKL, if it needs it, is not held by a waiter on the way to resuming (schedule
// waits under the BKL, but only for a core that does not need it to release; see
// futexUnlocked), and the wait acknowledges TLB shootdowns, which a BKL holder may be waiting for.

// onCPU is, per thread slot, the core that holds the thread (its index + 1; 0: none). Set by
// that core as it resumes the thread (holdThread), cleared by it as it lets go (releaseHeld).
// Apart from Thread, which a thread's exit clears while its core still holds it.
var onCPU [MaxThreads]atomic.Uint32

// holdThread makes core cpu the holder of thread gp, which it is about to resume: at once if it
// holds it already or nobody does, otherwise once the core that holds it lets go. The core's
// previous thread, if another, is released first.
//
// Context: trap context, with or without the BKL.
func holdThread(cpu int, gp sched.GID) {
	c := &cpus[cpu]
	if c.held == gp {
		return
	}
	releaseHeld(cpu)
	me := uint32(cpu) + 1
	if !onCPU[gp].CompareAndSwap(0, me) {
		for !onCPU[gp].CompareAndSwap(0, me) {
			ackFlush(cpu) // the holder may be a BKL holder waiting for this core's acknowledgement
			arch.Pause()
		}
		atomic.AddUint64(&stats.onCPUWaits, 1)
	}
	c.held = gp
}

// releaseHeld lets go of the thread core cpu holds, if any: its x87 state is written back to its
// save area (arch: PrepareIdle), then the thread is free for any core to resume. Called as soon
// as the thread stops running here (it blocked, was preempted or yielded, or ended), before the
// core looks for its next thread.
//
// Context: trap context, with or without the BKL.
func releaseHeld(cpu int) {
	c := &cpus[cpu]
	if c.held == 0 {
		return
	}
	arch.Current().PrepareIdle()
	onCPU[c.held].Store(0) // after the write-back: a store that orders it for the next holder
	c.held = 0
}
