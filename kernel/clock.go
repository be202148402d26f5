// The kernel clock: CLOCK_MONOTONIC from the cycle counter, CLOCK_REALTIME from the board.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"math/bits"

	"gmpos/kernel/arch"
)

// The cycle counter (x86: the TSC), whose rate is measured once at boot against the board's
// reference clock (the PC's PIT), gives CLOCK_MONOTONIC; the board's wall clock read at boot (the
// PC's CMOS RTC) gives the CLOCK_REALTIME offset. On a constant-rate counter (QEMU's -cpu max
// reports an invariant TSC) this is exact enough for a teaching kernel; Linux additionally
// cross-checks against other clocks and refines the rate over time.
//
// Immutable after calibrateClock (boot).
var clock struct {
	cycles0  uint64 // the counter at calibration: time 0 of CLOCK_MONOTONIC
	mult     uint64 // ns = (cycles - cycles0) * mult >> 32
	hz       uint64 // counter rate
	hinted   bool   // hz is the runner's tsc_hz, confirmed (calibrate.go)
	realBase int64  // Unix ns at cycles0
}

// calibrateClock finds the cycle counter's rate (calibrate.go: the runner's figure, checked, or
// a measurement over 10 ms of reference time) and reads the wall clock. Boot.
func calibrateClock() {
	hz, hinted := cyclesHz(arch.Cycles)
	clock.hinted = hinted
	if hz == 0 {
		hz = 1_000_000_000 // no reference clock: assume 1 GHz rather than divide by zero
	}
	clock.hz = hz
	clock.mult = (uint64(1_000_000_000) << 32) / hz
	clock.cycles0 = arch.Cycles()
	clock.realBase = board.WallClock()
}

// nanotime is CLOCK_MONOTONIC: nanoseconds since calibrateClock. Any context.
func nanotime() int64 { return nanotimeAt(arch.Cycles()) }

// nanotimeAt is nanotime at cycle count c, read before (trap's entry reads the counter once
// for its accounting and its clock).
func nanotimeAt(c uint64) int64 {
	hi, lo := bits.Mul64(c-clock.cycles0, clock.mult)
	return int64(hi<<32 | lo>>32)
}

// walltime is CLOCK_REALTIME in Unix nanoseconds.
func walltime() int64 { return clock.realBase + nanotime() }

// cyclesToNS converts a cycle count (a duration) to nanoseconds.
func cyclesToNS(c uint64) int64 {
	hi, lo := bits.Mul64(c, clock.mult)
	return int64(hi<<32 | lo>>32)
}

// spinFor busy-waits ns nanoseconds (boot: starting the other cores).
func spinFor(ns int64) {
	for end := nanotime() + ns; nanotime() < end; {
		arch.Pause()
	}
}
