// The scheduler's view of the machine: sched.Platform.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/arch"
	"gmpos/sched"
)

// platform implements sched.Platform (and sched.TimerPlatform) for the real machine. The
// scheduler calls it in trap context, under the BKL or on the paths without it (wake_unlocked.go,
// futex_unlocked.go, sleep_unlocked.go): each method touches only the calling core's state and
// atomics.
type platform struct{}

var plat platform

// Now is the monotonic clock (clock.go).
func (platform) Now() int64 { return nanotime() }

// WakeM sends the wake-up IPI to the core that owns P pid (P i belongs to core i); a core waking
// itself needs no IPI: it calls Schedule on its way out of the kernel anyway. An IPI that arrives
// before the target halts is not lost: the idle loop enables interrupts and halts atomically
// (sched/doc.go, "Delicate dance").
//
// A core that is polling before it halts (idle.go) is woken with a store instead, and the IPI
// itself is sent when this core releases the BKL (smp.go bklUnlock), not while it holds it.
func (platform) WakeM(pid int) {
	if self := arch.Current().ID(); pid != self && !kickPoll(pid) {
		cpus[self].wakeIPIs |= 1 << pid
	}
}

// ParkM: the caller halts the core (schedule returns a nil frame), nothing to record.
func (platform) ParkM(pid int) {}

// WakeMAt asks for Schedule(pid) to run again at when (a thief found a runnext too fresh to
// steal): the core's one-shot timer takes it into account (timer.go).
func (platform) WakeMAt(pid int, when int64) {
	if pid >= 0 && pid < len(cpus) {
		cpus[pid].retryAt = when
	}
}

var (
	_ sched.Platform      = platform{}
	_ sched.TimerPlatform = platform{}
)
