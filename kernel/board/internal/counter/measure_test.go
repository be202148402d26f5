// Tests of Measure against a fake reference.
// SPDX-License-Identifier: BSD-3-Clause

package counter

import "testing"

func TestMeasure(t *testing.T) {
	// A reference of 62.5 MHz (QEMU's CNTFRQ) read by a fake that advances 10 ticks a read, and
	// a counter at 3 GHz that advances with it.
	var ref uint64
	refRead := func() uint64 { ref += 10; return ref }
	counter := func() uint64 { return ref * 48 } // 48 × 62.5 MHz
	hz, ppm := Measure(counter, refRead, 62_500_000, 625_000, 8, 1000)
	if hz < 2_999_000_000 || hz > 3_001_000_000 || ppm > 1000 {
		t.Errorf("measured %d Hz ± %d ppm", hz, ppm)
	}
	if hz, _ := Measure(counter, refRead, 0, 100, 8, 1000); hz != 0 {
		t.Error("a reference without a rate")
	}
}
