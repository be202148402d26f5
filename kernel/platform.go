package kernel

import (
	"gmpos/kernel/arch/amd64"
	"gmpos/sched"
)

// platform implements sched.Platform for the real machine.
type platform struct{}

var plat platform

// Now is the monotonic clock (clock.go).
func (platform) Now() int64 { return nanotime() }

// WakeM sends the wake-up IPI to the core that owns P pid (P i belongs to core i); a core waking
// itself needs no IPI: it calls Schedule on its way out of the kernel anyway.
func (platform) WakeM(pid int) {
	if pid != amd64.Current().ID() {
		amd64.SendIPIToCPU(pid, amd64.VecWakeup)
	}
}

// ParkM: the caller halts the core (resume with a nil frame), nothing to record.
func (platform) ParkM(pid int) {}

// WakeMAt asks for Schedule(pid) to run again at when (a thief found a runnext too fresh to
// steal): the core's one-shot timer takes it into account (timer.go).
func (platform) WakeMAt(pid int, when int64) {
	if pid >= 0 && pid < len(retryAt) {
		retryAt[pid] = when
	}
}

// retryAt[cpu] is the pending WakeMAt time of that core's P (0: none).
var retryAt [amd64.MaxCPU]int64

var (
	_ sched.Platform      = platform{}
	_ sched.TimerPlatform = platform{}
)
