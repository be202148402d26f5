// Measuring a counter against a reference counter, bracketing each end.
// SPDX-License-Identifier: BSD-3-Clause

package counter

import "math/bits"

// Measure returns read's rate counted against ref (a counter of refHz ticks a second) over
// ticks of ref, and its uncertainty in parts per million. Each end of the interval is
// bracketed by two ref reads: the read of the counter happened between them, so the ref time
// between the two counter reads lies between the inner and the outer bracket's span; the
// estimate is the middle and the uncertainty half the difference. A stall of the virtual CPU
// inside a bracket widens it and the measurement is made again: tries times at most, keeping
// the surest, stopping at one within goodPPM.
func Measure(read, ref func() uint64, refHz, ticks uint64, tries int, goodPPM uint64) (hz, ppm uint64) {
	best, bestPPM := uint64(0), uint64(1<<63)
	if refHz == 0 || ticks == 0 {
		return 0, bestPPM
	}
	for i := 0; i < max(tries, 1) && bestPPM > goodPPM; i++ {
		a0 := ref()
		r0 := read()
		a1 := ref()
		for ref()-a0 < ticks {
		}
		b0 := ref()
		r1 := read()
		b1 := ref()
		inner, outer := b0-a1, b1-a0
		if inner == 0 || outer < inner {
			continue
		}
		mid := inner + (outer-inner)/2
		// hz = (r1-r0) × refHz / mid, in 128 bits: a GHz counter over a second of a GHz
		// reference does not fit 64.
		hi, lo := bits.Mul64(r1-r0, refHz)
		if hi >= mid {
			continue
		}
		h, _ := bits.Div64(hi, lo, mid)
		p := (outer - inner) / 2 * 1_000_000 / mid
		if p < bestPPM {
			best, bestPPM = h, p
		}
	}
	return best, bestPPM
}

// Tries bounds the boot time a loaded host can cost, as on the PC: 8 measurements.
const Tries = 8
