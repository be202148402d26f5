// Clocks: the generic counter as the reference for measuring other counters, and the PL031 RTC
// for the wall-clock time at boot.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import "gmpos/drivers/mmio"

// The PC measures its counters against the PIT because nothing tells it their rates. An arm64
// core has a clock whose rate it is told: the generic counter, CNTVCT_EL0, ticking at
// CNTFRQ_EL0 Hz (ARM ARM D11.1; firmware or QEMU sets CNTFRQ — QEMU 7.2: 62.5 MHz). The kernel's
// cycle counter on arm64 is that same counter, so measuring it gives CNTFRQ back;
// gmpos/kernel/board/internal/counter.Measure exists for any other counter read (the contract's MeasureHz) and bounds its error the way
// drivers/pit.Measure does.

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
