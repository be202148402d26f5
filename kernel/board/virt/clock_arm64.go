// The reference clock on arm64: the generic counter.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import "gmpos/kernel/arch/arm64"

// MeasureHz returns the rate of the counter read, counted over ns nanoseconds of the generic
// counter (CNTVCT_EL0 at CNTFRQ_EL0 Hz), and its uncertainty in parts per million (clock.go:
// measure). 0 and the largest uncertainty if the firmware left CNTFRQ at 0. Boot only.
func (b *Board) MeasureHz(read func() uint64, ns int64, goodPPM uint64) (hz, ppm uint64) {
	f := uint64(arm64.CounterFreq())
	ticks := uint64(max(ns, 1)) * (f / 1000) / 1_000_000 // in ms of ticks: no overflow for any f
	return measure(read, arm64.Cycles, f, max(ticks, 1), measureTries, goodPPM)
}
