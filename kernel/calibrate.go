// Measuring clocks at boot: the cycle counter's rate, checked against the runner's hint, and
// the per-core timer's rate against the cycle counter.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"math/bits"

	"gmpos/kernel/arch"
)

// Why not simply measure everything against the board's reference clock, as before? Because
// under TCG that clock is the emulated PIT: each poll of it is an exit to QEMU, a measurement is
// only as sure as the polls around its ends (drivers/pit), and 0.1% took 10 ms windows, tried
// twice on a quiet host: 21 ms of a 150 ms boot for the cycle counter and 11 more for the timer.
// Now:
//
//   - The runner, on the host, knows the counter's rate (under TCG the guest reads the host's
//     TSC) and passes it as tsc_hz=N (qemu/runner/hosttsc.go). A 2 ms measurement against the
//     reference clock must agree with it within its own uncertainty plus hintSlackPPM
//     (hintAgrees); if it does not, or is too unsure to say, the kernel measures as before.
//     So a wrong hint costs 2-16 ms, never a wrong clock.
//   - The timer is then measured against the counter (measureAgainst): reading the counter
//     costs no exit, so only the timer's reads bracket the ends, and 2 ms suffice.

const (
	calibrateNS   = 10_000_000 // the reference measurement of the cycle counter
	calibratePPM  = 1000       // its wanted uncertainty (pit.GoodPPM)
	hintCheckNS   = 2_000_000  // the check of a tsc_hz hint
	hintCheckPPM  = 5000       // a check this sure that disagrees refutes the hint
	hintTries     = 4
	hintUnsurePPM = 20_000    // a check less sure than this cannot confirm anything
	hintSlackPPM  = 1000      // how far the hint may be from the check's interval
	timerNS       = 2_000_000 // one measurement of the per-core timer against the counter
	timerPPM      = 5000      // its wanted uncertainty: a timer interrupt 0.25% late at worst
	timerUnsure   = 10_000    // the most a measurement may be unsure by to be used at all
	timerTries    = 4
)

// cyclesHz returns the cycle counter's rate: the hint (tsc_hz=N) if a short measurement
// against the board's reference clock confirms it, else a full measurement. Boot.
func cyclesHz(read func() uint64) (hz uint64, hinted bool) {
	if h := cmd.tscHz; h != 0 {
		// Measure until the hint is confirmed, or refuted by a measurement sure enough
		// (within hintCheckPPM), hintTries at most.
		for try := 0; try < hintTries; try++ {
			m, ppm := board.MeasureHz(read, hintCheckNS, hintUnsurePPM)
			if hintAgrees(h, m, ppm) {
				return h, true
			}
			if ppm <= hintCheckPPM {
				break
			}
		}
		klog("tsc_hz disagrees with the board's reference clock: measuring the cycle counter")
	}
	hz, _ = board.MeasureHz(read, calibrateNS, calibratePPM)
	return hz, false
}

// hintAgrees reports whether rate hint lies within a measurement hz of uncertainty ppm (the width
// of the interval the true rate lies in, relative to hz; hz is its middle) widened by
// hintSlackPPM on each side. A measurement less sure than hintUnsurePPM confirms nothing.
func hintAgrees(hint, hz, ppm uint64) bool {
	if hint == 0 || hz == 0 || ppm > hintUnsurePPM {
		return false
	}
	diff := max(hint, hz) - min(hint, hz)
	return diff <= mulDiv(hz, ppm/2+hintSlackPPM, 1_000_000)
}

// measureTimer is the per-core timer's rate (arch.CalibrateTimer's measure): against the cycle
// counter, or the board's reference clock over ns if no measurement against the counter came
// within timerUnsure (a host too busy to keep two reads close).
//
// Why 0.5% and not the cycle counter's 0.1%: the timer only says when to look at the clock. An
// interrupt that comes early finds its deadline not reached and is armed again; one that comes
// late is late by the error, 25 µs of a 10 ms slice. And each read of the emulated local APIC
// is an exit to QEMU that took 0.5-20 µs in measurements on the project's host: 2 ms windows
// then give 0.1-1%, and 0.1% would take 10 ms ones.
func measureTimer(read func() uint64, ns int64) uint64 {
	read() // the first read runs cold code (under TCG: its translation), which a try would count
	if hz, ppm := measureAgainst(arch.Cycles, clock.hz, read, timerNS, timerTries, timerPPM); hz != 0 && ppm <= timerUnsure {
		return hz
	}
	hz, _ := board.MeasureHz(read, ns, calibratePPM)
	return hz
}

// measureAgainst measures the rate of read against a counter of known rate cyclesHz, over ns of
// that counter's time: each end's read is bracketed by two counter reads, so the time between
// the two reads of read is known to lie in [lo, hi]. The estimate takes the middle, the
// uncertainty is the interval's width over hi (parts per million). Up to tries measurements,
// stopping at one within goodPPM, keeping the surest; hz 0 if none could be made (a counter
// that went back). Boot.
func measureAgainst(counter func() uint64, counterHz uint64, read func() uint64, ns int64, tries int, goodPPM uint64) (hz, ppm uint64) {
	span := mulDiv(uint64(ns), counterHz, 1_000_000_000)
	best, bestPPM := uint64(0), uint64(1<<63)
	for i := 0; i < tries && bestPPM > goodPPM; i++ {
		a0 := counter()
		r0 := read()
		b0 := counter()
		for counter()-b0 < span {
		}
		a1 := counter()
		r1 := read()
		b1 := counter()
		if b0 < a0 || a1 <= b0 || b1 < a1 || r1 < r0 {
			continue
		}
		lo, hi := a1-b0, b1-a0
		h, p := mulDiv(r1-r0, counterHz, lo+(hi-lo)/2), (hi-lo)*1_000_000/hi
		if p < bestPPM {
			best, bestPPM = h, p
		}
	}
	return best, bestPPM
}

// mulDiv is a*b/c without overflowing the product; 0 if c is 0 or the quotient does not fit.
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if c == 0 || hi >= c {
		return 0
	}
	q, _ := bits.Div64(hi, lo, c)
	return q
}
