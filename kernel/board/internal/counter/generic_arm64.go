// The generic counter as the reference.
// SPDX-License-Identifier: BSD-3-Clause

package counter

import "gmpos/kernel/arch/arm64"

// MeasureGeneric returns the rate of the counter read, counted over ns nanoseconds of the
// generic counter (CNTVCT_EL0 at CNTFRQ_EL0 Hz), and its uncertainty in parts per million
// (Measure). 0 and the largest uncertainty if the firmware left CNTFRQ at 0. Boot only.
func MeasureGeneric(read func() uint64, ns int64, goodPPM uint64) (hz, ppm uint64) {
	f := uint64(arm64.CounterFreq())
	ticks := uint64(max(ns, 1)) * (f / 1000) / 1_000_000 // in ms of ticks: no overflow for any f
	return Measure(read, arm64.Cycles, f, max(ticks, 1), Tries, goodPPM)
}
