package kernel

import "gmpos/kernel/arch/amd64"

// The per-core one-shot timer. On every way out of the kernel the core arms its APIC timer for
// the earliest of: the nearest timeout of a blocked thread, and — only if a thread is about to
// run — the next scheduler tick. This is Linux's NO_HZ_IDLE idea in miniature: precise timeouts
// (a 1 ms sleep is not rounded to a tick boundary) and a silent idle core, which under TCG also
// means a host CPU that is not woken for nothing.
var timerArmed [amd64.MaxCPU]int64 // deadline the timer is armed for (0: stopped)

// armTimer (re)programs this core's timer; running reports whether a thread is about to run.
//
// The LAPIC write is skipped when the armed deadline does not change, which is the common case for
// a thread that traps repeatedly within one tick (system calls).
func armTimer(cpu int, running bool) {
	now := nanotime()
	next := int64(0)
	for i := 0; i < waiters.n; i++ {
		if d := threads[waiters.g[i]].deadline; d != 0 && (next == 0 || d < next) {
			next = d
		}
	}
	if r := retryAt[cpu]; r != 0 {
		if r <= now || running {
			retryAt[cpu] = 0 // a running core reschedules on its next trap anyway
		} else if next == 0 || r < next {
			next = r
		}
	}
	if running {
		if tick := now + tickNS; next == 0 || tick < next {
			// Keep an already armed, earlier-or-equal tick instead of pushing it back on every
			// system call: the running thread must still be looked at once per tick.
			if a := timerArmed[cpu]; a > now && a <= tick {
				tick = a
			}
			next = tick
		}
	}
	if next == timerArmed[cpu] && next > now {
		return
	}
	timerArmed[cpu] = next
	stats.timerArms++
	if next == 0 {
		amd64.ArmTimer(0)
		return
	}
	// A deadline that has already passed (the kernel ran past it with interrupts off) must still
	// fire: arm the shortest delay, never "stop".
	d := next - now
	if d < 1 {
		d = 1
	}
	amd64.ArmTimer(d)
}
