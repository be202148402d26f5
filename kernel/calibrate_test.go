// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "testing"

func TestHintAgrees(t *testing.T) {
	const hz = 2_445_426_019
	for _, c := range []struct {
		hint, m, ppm uint64
		want         bool
	}{
		{hz, hz, 3000, true},
		{hz, hz + hz/1000*2, 3000, true},  // 0.2% off, allowed 0.15% + 0.1%
		{hz, hz + hz/1000*3, 3000, false}, // 0.3% off
		{hz, hz * 2, 3000, false},         // a scaled TSC (KVM): refuted
		{hz, hz, 30_000, false},           // too unsure to confirm
		{hz, 0, 0, false},                 // no measurement
		{0, hz, 1000, false},              // no hint
		{hz, hz - hz/100, 19_000, true},   // 1% off, unsure by 1.9%
		{1, 1, 0, true},
	} {
		if got := hintAgrees(c.hint, c.m, c.ppm); got != c.want {
			t.Errorf("hintAgrees(%d, %d, %d) = %v, want %v", c.hint, c.m, c.ppm, got, c.want)
		}
	}
}

// fakeClocks is a counter at counterHz and a device counter at devHz on one time line, in
// nanoseconds; each read of the device costs readNS, and stall is added once, during the
// device read of measurement number stallAt (0-based, counting reads).
type fakeClocks struct {
	now               int64 // ns
	counterHz, devHz  uint64
	readNS, stall     int64
	devReads, stallAt int
}

func (f *fakeClocks) counter() uint64 {
	f.now += 5
	return uint64(f.now) * f.counterHz / 1_000_000_000
}

func (f *fakeClocks) dev() uint64 {
	f.now += f.readNS / 2
	if f.devReads == f.stallAt {
		f.now += f.stall
	}
	f.devReads++
	v := uint64(f.now) * f.devHz / 1_000_000_000
	f.now += f.readNS - f.readNS/2
	return v
}

func TestMeasureAgainst(t *testing.T) {
	f := &fakeClocks{counterHz: 2_445_000_000, devHz: 62_500_000, readNS: 3000, stallAt: -1}
	hz, ppm := measureAgainst(f.counter, f.counterHz, f.dev, 2_000_000, 8, 2000)
	if ppm > 4000 || hz < 62_500_000*998/1000 || hz > 62_500_000*1002/1000 {
		t.Errorf("quiet: %d Hz ±%d ppm, want 62.5 MHz within 0.2%%", hz, ppm)
	}
	// A 1 ms stall inside the first measurement's closing read widens it to 50%; the second
	// is sure again, and it is kept.
	f = &fakeClocks{counterHz: 2_445_000_000, devHz: 62_500_000, readNS: 1000, stallAt: 1, stall: 1_000_000}
	hz, ppm = measureAgainst(f.counter, f.counterHz, f.dev, 2_000_000, 8, 2000)
	if f.devReads != 4 || ppm > 2000 || hz < 62_500_000*999/1000 || hz > 62_500_000*1001/1000 {
		t.Errorf("stalled once: %d Hz ±%d ppm after %d reads", hz, ppm, f.devReads)
	}
	// A counter that goes back gives no measurement.
	back := func() uint64 { f.now -= 10; return uint64(f.now) }
	calls := 0
	once := func() uint64 { calls++; return uint64(calls) }
	if hz, _ := measureAgainst(once, 1e9, back, 10, 2, 1); hz != 0 {
		t.Errorf("a device counter going back measured %d Hz", hz)
	}
}

func TestMulDiv(t *testing.T) {
	if got := mulDiv(1<<40, 1<<40, 1<<30); got != 1<<50 {
		t.Errorf("mulDiv(2^40, 2^40, 2^30) = %d", got)
	}
	if mulDiv(1<<63, 4, 1) != 0 || mulDiv(1, 1, 0) != 0 {
		t.Error("an overflowing or undefined quotient was not 0")
	}
}

func TestParseDecimal(t *testing.T) {
	for in, want := range map[string]uint64{"2445426019": 2445426019, "": 0, "12a": 0, "-1": 0,
		"18446744073709551615": 0, "1844674407370955161": 1844674407370955161} {
		if got := parseDecimal([]byte(in)); got != want {
			t.Errorf("parseDecimal(%q) = %d, want %d", in, got, want)
		}
	}
}
