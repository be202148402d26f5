// The per-core one-shot timer.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
)

// tickNS is the scheduler tick while a thread runs: the policy's 10 ms slice is checked this
// often, so a thread is preempted at most one tick late. Timeouts fire at their own deadline,
// not on a tick, and an idle core with nothing to wait for gets no interrupts at all.
//
// 4 ms, Linux's HZ=250 (Debian's kernel). A tick is not cheap under TCG: the timer interrupt,
// the EOI and the re-arm are accesses to the emulated local APIC, each taken under QEMU's big
// lock — which its main loop holds while it moves network traffic. Measured with the kernel's
// ktime report while a guest served HTTP (one run each, a loaded host): 265–460 µs per timer
// trap; at 1 ms ticks they took a quarter of the core, and going to 4 ms doubled the requests
// per second (341 → 688 req/s).
const tickNS = 4_000_000

// armTimer (re)programs this core's timer on every way out of the kernel, for the earliest of:
// the nearest timeout of a blocked thread, the next expiry of a real-clock timer (ptimer.go,
// itimer.go), a pending sched WakeMAt, and — only if a thread is about to run (running) and
// needs one (tickAt) — the next scheduler tick. This is Linux's NO_HZ_IDLE and NO_HZ_FULL
// ideas in miniature: precise timeouts (a 1 ms sleep is not rounded to a tick boundary), a
// silent idle core, and a thread that has its core to itself runs without interruptions, which
// under TCG also means a host CPU that is not woken for nothing.
//
// now is the time chargeSystem read a moment before, on the same way out. BKL held.
//
// The timer is written only when the deadline comes sooner than the armed one. On the way out to a
// running thread a later deadline, or none, leaves the armed one in place: it fires early,
// timerTick (or timerUnlocked) finds nothing due, and that trap's way out arms the real deadline. A
// thread hand-off moves the deadline at every switch — the waker's tick is armed while the wakee
// waits, and dropped when it runs — and each move was a write to the emulated local APIC, taken
// under QEMU's big lock: futex ping-pong on one vCPU wrote the timer on 39,911 of its 40,005 futex
// calls and spent 14.4 µs in each; deferring the writes made that 487 writes and 7.0 µs
// (examples/pingpong futex 5000, -kopt klog=1). An early interrupt costs less than a write on every
// switch (Linux's remove_hrtimer makes the same trade for a timer removed on another CPU, where the
// write would cost an IPI). A core going idle is armed exactly, so that it sleeps undisturbed.
//
// The write stays under the BKL, although it can wait ~60 µs for QEMU's big lock. A build that
// wrote the timer (and sent the EOIs) after releasing the BKL made 2-vCPU channel ping-pong and
// spawn+join 15% and 9% slower (medians of 10 alternating boots each): the other core then
// reached its own local-APIC accesses meanwhile, and the two vCPUs waited for QEMU's lock, a
// mutex handed over through the host's scheduler, instead of one spinning for the BKL.
func armTimer(cpu int, running bool, now int64) {
	armTimerFor(cpu, running, now, sharedDeadline(), periodicTick())
}

// sharedDeadline is the earliest deadline every core's timer covers: a blocked thread's
// timeout, or a real-clock timer's expiry (0: none). BKL held.
func sharedDeadline() int64 {
	return earlier(bklDeadline(), futexQ.next.Load())
}

// bklDeadline is the earliest of the deadlines only the BKL's holder may expire: a timeout on
// waiters, a real-clock timer's expiry (0: none). BKL held.
func bklDeadline() int64 {
	return earlier(waiters.earliest(), ptimers.realNext)
}

// unlockedNext is sharedDeadline for the paths without the BKL: the BKL's part as its last
// holder published it (unlockedView), futexQ's as it is now.
func unlockedNext() int64 {
	return earlier(unlockedView.next.Load(), futexQ.next.Load())
}

// armTimerFor is armTimer with the machine-wide inputs given: the earliest shared deadline
// (sharedDeadline) and whether running threads take the periodic tick (periodicTick). Under the
// BKL they are read exactly; the way out without it (wake_unlocked.go) passes unlockedNext: what
// the last BKL holder published (unlockedView), which only the holder's own way out can have
// made sooner — and that one arms its own timer for it — and futexQ's earliest deadline, which
// a wait beginning on another core may make sooner after this read: that core arms its own.
func armTimerFor(cpu int, running bool, now, next int64, periodic bool) {
	c := &cpus[cpu]
	if r := c.retryAt; r != 0 {
		if r <= now || running {
			c.retryAt = 0 // a running core reschedules on its next trap anyway
		} else if next == 0 || r < next {
			next = r
		}
	}
	isTick := false
	if running {
		if p := profTimerNext(cpu, now); p != 0 && (next == 0 || p < next) {
			next = p // the profiler's next sample of the running thread (profile.go)
		}
		if c.timerArmed != 0 && c.timerArmed <= now {
			// Due, and not yet delivered: QEMU raises the timer interrupt from its main loop,
			// late under load, and interrupts are off here. It comes the moment they are on,
			// and its trap arms what is next. Writing the timer instead (the deadline that has
			// passed, or the next one) cost a local-APIC access on every system call of that
			// window — and, for a tick, put the preemption off by minRunNS each time: a getpid
			// loop beside a waiting thread wrote the timer 10,315 times in 300,000 calls.
			// Checked before tickAt, whose answer would not be used.
			return
		}
		if tick := tickAt(cpu, now, periodic); tick != 0 && (next == 0 || tick < next) {
			next, isTick = tick, true
		}
	}
	if !running && idlePollFor(cpu, next, now) {
		return // the deadline is too near to sleep through: the core polls for it (idle.go)
	}
	if running && c.timerArmed > now && (next == 0 || next > c.timerArmed) {
		c.timerEarly = true // the armed deadline comes first: leave it, it fires early (see above)
		return
	}
	c.tickArmed, c.timerEarly = isTick, false
	if next == c.timerArmed && (next == 0 || next > now) {
		// Armed as wanted already, or stopped as wanted: a one-shot timer that has fired is
		// stopped (SDM Vol. 3A §11.5.4), and writing it again cost a local-APIC access per
		// timer interrupt.
		return
	}
	c.timerArmed = next
	atomic.AddUint64(&stats.timerArms, 1) // also on the way out without the BKL (wake_unlocked.go)
	if next == 0 {
		arch.ArmTimer(0)
		return
	}
	// A deadline that has already passed (the kernel ran past it with interrupts off) must still
	// fire: arm the shortest delay, never "stop".
	arch.ArmTimer(max(next-now, 1))
}

// tickAt is when the thread about to run on core cpu must next be looked at by the timer, 0 for
// never. A periodic tick only while something samples on it: an armed CPU-time timer, any
// thread's or the process's (cputime.go, ptimer.go recalcCPUArmed). (The network poller polls
// on the ticks there are, sched.Tick, but needs none: the NIC interrupts whenever nobody is
// draining its ring, nic.go nicIRQ.) Otherwise only a policy's preemption needs the timer, and
// only when another thread waits to run (this core's P queue, or the global one): then the timer
// is armed for the moment the policy could first preempt (sched.PreemptAt: the end of the slice;
// at once if it has ended), as Linux's hrtick arms the end of a slice, rather than every tickNS.
// A thread that has its core to itself takes no timer interrupt at all, as under Linux's
// NO_HZ_FULL: any wake-up that queues a thread here runs on this core, in the kernel, whose way
// out looks again (a wake-up from another core queues on that core's P, and an idle core
// steals).
//
// Why it matters under TCG: the EOI and the re-arm of a tick are writes to the emulated local
// APIC, which QEMU takes under its big lock and hands back and forth with its main loop — 100–150
// µs of kernel time per timer interrupt on this 2-core host. periodic is periodicTick's answer.
// Reads this core's and the scheduler's state only: callable without the BKL.
func tickAt(cpu int, now int64, periodic bool) int64 {
	if periodic {
		// Keep an already armed, earlier-or-equal tick instead of pushing it back on every
		// system call: the running thread must still be looked at once per tick.
		tick := now + tickNS
		if a := cpus[cpu].timerArmed; a > now && a <= tick {
			tick = a
		}
		return tick
	}
	if !othersWait(cpu) {
		return 0
	}
	return max(S.PreemptAt(cpu), now+minRunNS)
}

// minRunNS is the least a thread runs, from a way out of the kernel, before a tick armed for
// its slice's end preempts it. A thread picked from runnext inherits its predecessor's slice,
// often nearly used up: preempting it the moment it ends would hand the core back within
// microseconds, a timer interrupt for each hand-off, where the periodic tick let it run on for
// 2 ms on average (half of tickNS). Linux's scheduler keeps a minimum granularity for the same
// reason.
const minRunNS = tickNS / 2

// periodicTick reports whether something samples the running threads on the tick: an armed
// CPU-time timer of any thread or of the process (ptimer.go recalcCPUArmed). BKL held.
func periodicTick() bool {
	return ptimers.cpuTicks
}

// othersWait reports whether a thread waits to run where core cpu's scheduler looks first. The
// scheduler's queues have their own locks: callable without the BKL.
func othersWait(cpu int) bool { return S.GRQLen() > 0 || !S.RunqEmpty(cpu) }
