// The idle poll: a core about to halt first polls for a while, since a wake-up often comes soon.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/kernel/arch"

// A core with nothing to run halts until an interrupt: its one-shot timer for the nearest
// deadline, or the wake-up IPI another core sends when it readies a thread here (platform.go).
// Under TCG the IPI's way is slow: the sender's write to the emulated local APIC, QEMU waking
// the halted vCPU's host thread, that thread taking QEMU's big lock to deliver the interrupt,
// then the trap and the EOI — 40-180 µs of kernel time per IPI trap in a 2-vCPU thread
// ping-pong, where two threads on two cores wake each other through futexes every 100-200 µs.
//
// So a core going idle first polls, without the BKL and with interrupts off, for a window of
// up to haltPollMaxNS: a core that readies a thread here meanwhile ends the poll with a store
// instead of an IPI (WakeM: kickPoll), and this core goes straight back into the scheduler.
// Only when the window passes does it halt. This is Linux's guest halt-polling
// (drivers/cpuidle/cpuidle-haltpoll.c), and the window adapts as its governor's does
// (drivers/cpuidle/governors/haltpoll.c, adjust_poll_limit): an idle stretch that ended after
// the window but within haltPollMaxNS doubles the window (from haltPollGrowStartNS), one longer
// than that halves it. A core that waits for long (a sleeping program) thus polls less and
// less, and one in a ping-pong settles on a window that catches the wake-ups.
//
// A deadline closer than idlePollNS is polled for too, instead of arming the timer: the poll
// then ends at the deadline, which is handled as the timer interrupt would be (trap, nil
// frame), without the timer's two local-APIC accesses and its interrupt.
//
// The core marks itself polling before it releases the BKL (trapBKL): a waker that queues a
// thread for it afterwards — after its scheduler last looked — then always finds it polling or
// halted, never in between, where the IPI would wait unseen until the window ends.
//
// Device interrupts wait at most the window (they are pending, not lost), and a TLB shootdown is
// acknowledged from the loop (ackFlush), since its sender waits for it. klog's ktime charges a
// polled deadline to the "timer" bucket and a kick to "ipi", as the interrupts they replace.

const (
	idlePollNS          = 30_000  // a deadline this near is polled for rather than slept through
	haltPollMaxNS       = 200_000 // the longest window; an idle stretch beyond it shrinks the window
	haltPollGrowStartNS = 20_000  // the window a first growth sets
)

// cpuState.polling values: the core is not polling, is polling, or was kicked while polling.
const (
	pollOff    = 0
	pollActive = 1
	pollKicked = 2
)

// pollEvent is what ended a poll.
type pollEvent int

const (
	pollNone     pollEvent = iota // nothing came: halt
	pollDeadline                  // the deadline came: handle it as the timer interrupt
	pollWake                      // another core readied a thread here: handle it as the IPI
)

// idlePollFor sets up the poll of an idle core whose nearest deadline is next (0: none), and
// says whether that deadline is polled for, in which case armTimer leaves the timer alone. Called
// by armTimerFor, on this core's way out, with or without the BKL.
func idlePollFor(cpu int, next, now int64) bool {
	c := &cpus[cpu]
	if next != 0 && next-now <= idlePollNS {
		c.pollUntil, c.pollDeadline = next, true
		return true
	}
	c.pollUntil, c.pollDeadline = 0, false
	if c.pollWindow > 0 {
		c.pollUntil = now + c.pollWindow
		if next != 0 {
			c.pollUntil = min(c.pollUntil, next)
		}
	}
	return false
}

// idlePoll polls, without the BKL, until this core's poll ends: a kick, the deadline, or the
// window's end. Trap context, interrupts off; only the core itself uses pollUntil and the
// window's fields.
func idlePoll(cpu int) pollEvent {
	c := &cpus[cpu]
	until := c.pollUntil
	start := nanotime()
	if until == 0 {
		c.idleStart = start // halting at once: idleEnded judges the window by this stretch
		return pollNone
	}
	c.pollUntil = 0 // polling is pollActive already (trapBKL), or pollKicked
	for nanotime() < until && c.polling.Load() != pollKicked {
		ackFlush(cpu) // a shootdown's sender waits for this core
		arch.Pause()
	}
	if c.polling.Swap(pollOff) == pollKicked {
		c.pollKicks++
		return pollWake
	}
	if c.pollDeadline {
		c.pollDeadlines++
		return pollDeadline
	}
	c.idleStart = start // the halt continues this idle stretch: idleEnded judges the window
	return pollNone
}

// idleEnded adjusts the poll window when an idle stretch that ended in a halt ends, by how long
// the whole stretch, poll included, lasted, and by what ended it: only another core's wake-up
// (byWake: the IPI) can end a poll, so only those grow the window. A timer or device interrupt
// that came early would have waited for the poll to end (interrupts are off meanwhile), so it
// shrinks the window instead; on one core, which no one else can wake, the window stays 0. This
// core's own state: with or without the BKL.
func idleEnded(cpu int, now int64, byWake bool) {
	c := &cpus[cpu]
	if c.idleStart == 0 {
		return
	}
	d := now - c.idleStart
	c.idleStart = 0
	switch {
	case d <= c.pollWindow:
		// Came just as the window ended: nothing to learn.
	case d <= haltPollMaxNS && byWake:
		c.pollWindow = min(max(2*c.pollWindow, haltPollGrowStartNS), haltPollMaxNS)
	default:
		c.pollWindow /= 2
		if c.pollWindow < haltPollGrowStartNS/2 {
			c.pollWindow = 0 // a core that mostly waits long: halt at once, until a short one
		}
	}
}

// kickPoll ends core cpu's poll if it is polling, in place of a wake-up IPI; false if it was not
// (the IPI is then needed: the core is halted, about to halt, or running).
func kickPoll(cpu int) bool {
	return cpus[cpu].polling.CompareAndSwap(pollActive, pollKicked)
}

// pollTotal sums the cores' polls ended by a kick (kicks) or by their deadline. BKL held.
func pollTotal(kicks bool) (n uint64) {
	for i := 0; i < ncpu; i++ {
		if kicks {
			n += cpus[i].pollKicks
		} else {
			n += cpus[i].pollDeadlines
		}
	}
	return n
}
