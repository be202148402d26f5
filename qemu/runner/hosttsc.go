// The host's time-stamp counter rate, told to the kernel so that it need not measure it.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"os"
	"strings"
	"time"
)

// Under TCG a guest's RDTSC reads the host's counter (QEMU's cpu_get_host_ticks, plus an
// offset), so the guest's cycle counter runs at the host's TSC rate. Measuring that rate in the
// guest against the emulated PIT took 20 ms of every boot (drivers/pit), so the runner measures
// it on the host instead — against CLOCK_MONOTONIC, across the build, which takes hundreds of
// milliseconds anyway — and passes it as the kernel option tsc_hz=N: the role the hypervisor's
// CPUID leaf 0x4000_0010 or kvmclock plays for Linux under KVM or VMware. The kernel does not
// trust it blindly: a 2 ms PIT measurement must agree (kernel/clock.go), or it calibrates as
// before.

// tscStart is one end of the measurement: the counter and the monotonic clock read together.
type tscStart struct {
	c uint64
	t time.Time
	// ok: the host's TSC runs at a constant rate, in every C-state, on every core: its
	// /proc/cpuinfo flags constant_tsc and nonstop_tsc (Linux, arch/x86/kernel/cpu).
	ok bool
}

// minTSCWindow is the shortest measurement worth passing on: the reads' jitter (a few
// microseconds, each pair bracketed below) is then under 0.01% of it.
const minTSCWindow = 50 * time.Millisecond

// startTSC takes the first reading. On a host without an invariant TSC, or not amd64, it
// records nothing and hostTSCHz answers 0.
func startTSC() tscStart {
	if !hasRDTSC || !invariantTSC() {
		return tscStart{}
	}
	c, t, ok := readTSCPair()
	return tscStart{c: c, t: t, ok: ok}
}

// hostTSCHz is the rate since s, or 0 if it cannot be known well: no first reading, a window
// shorter than minTSCWindow, or reads that a preemption kept apart.
func (s tscStart) hostTSCHz() uint64 {
	if !s.ok {
		return 0
	}
	c, t, ok := readTSCPair()
	d := t.Sub(s.t)
	if !ok || d < minTSCWindow || c <= s.c {
		return 0
	}
	return uint64(float64(c-s.c) / d.Seconds())
}

// readTSCPair reads the counter and the clock back to back, trying again when the clock says
// something (a preemption, a page fault) came between them.
func readTSCPair() (uint64, time.Time, bool) {
	for range 10 {
		t0 := time.Now()
		c := rdtsc()
		t1 := time.Now()
		if d := t1.Sub(t0); d < 20*time.Microsecond {
			return c, t0.Add(d / 2), true
		}
	}
	return 0, time.Time{}, false
}

// invariantTSC reports whether /proc/cpuinfo lists constant_tsc and nonstop_tsc.
func invariantTSC() bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			f := " " + v + " "
			return strings.Contains(f, " constant_tsc ") && strings.Contains(f, " nonstop_tsc ")
		}
	}
	return false
}
