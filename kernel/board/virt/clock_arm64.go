// The reference clock on arm64: the generic counter.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import "gmpos/kernel/board/internal/counter"

// MeasureHz returns the rate of the counter read, counted against the generic counter
// (counter.MeasureGeneric). Boot only.
func (b *Board) MeasureHz(read func() uint64, ns int64, goodPPM uint64) (hz, ppm uint64) {
	return counter.MeasureGeneric(read, ns, goodPPM)
}
