// Clocks: the generic counter as the reference for measuring other counters, and the PL031 RTC
// for the wall-clock time at boot.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import (
	"math/bits"

	"gmpos/drivers/mmio"
)

// The PC measures its counters against the PIT because nothing tells it their rates. An arm64
// core has a clock whose rate it is told: the generic counter, CNTVCT_EL0, ticking at
// CNTFRQ_EL0 Hz (ARM ARM D11.1; firmware or QEMU sets CNTFRQ — QEMU 7.2: 62.5 MHz). The kernel's
// cycle counter on arm64 is that same counter, so measuring it gives CNTFRQ back; measure
// exists for any other counter read (the contract's MeasureHz) and bounds its error the way
// drivers/pit.Measure does.

// measure returns read's rate counted against ref (a counter of refHz ticks a second) over
// ticks of ref, and its uncertainty in parts per million. Each end of the interval is
// bracketed by two ref reads: the read of the counter happened between them, so the ref time
// between the two counter reads lies between the inner and the outer bracket's span; the
// estimate is the middle and the uncertainty half the difference. A stall of the virtual CPU
// inside a bracket widens it and the measurement is made again: tries times at most, keeping
// the surest, stopping at one within goodPPM.
func measure(read, ref func() uint64, refHz, ticks uint64, tries int, goodPPM uint64) (hz, ppm uint64) {
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

// measureTries bounds the boot time a loaded host can cost, as on the PC: 8 measurements.
const measureTries = 8

// PL031 registers (ARM PrimeCell Real Time Clock (PL031) Technical Reference Manual, ARM DDI
// 0224, §3.3): RTCDR, the counter, counts seconds; QEMU starts it at the host's time of day
// in seconds since the Unix epoch (hw/rtc/pl031.c, -rtc base=utc, the default).
const rtcDR = 0x000

// WallClock returns the time of day from the PL031 in Unix nanoseconds (second resolution);
// 0 if the tree has no RTC or it reads 0 (not set). Boot only, after MapDevices.
func (b *Board) WallClock() int64 {
	if b.rtc == 0 {
		return 0
	}
	return int64(mmio.Read32(b.rtc+rtcDR)) * 1_000_000_000
}
