// Clocks: the 8254 PIT as the reference for measuring the CPU's counters, and the CMOS RTC for
// the wall-clock time at boot.
// SPDX-License-Identifier: BSD-3-Clause

package pc

import (
	"time"

	"github.com/usbarmory/tamago/soc/intel/rtc"

	"gmpos/drivers/pit"
	"gmpos/kernel/arch/amd64"
)

// portIO gives the PIT driver the CPU's port instructions.
var portIO = pit.PortIO{In: amd64.Inb, Out: amd64.Outb}

// MeasureHz returns the frequency of the counter read by counting how far it advances during ns
// nanoseconds of PIT time (at most 54.9 ms, the PIT's 16-bit range), and its uncertainty in
// parts per million. The PIT runs at a fixed 1.193182 MHz on every PC, so it is the one clock
// whose rate the kernel knows without being told. Each measurement bounds its own error
// (pit.Measure); up to measureTries are made until one is within goodPPM, which one 10 ms
// measurement is at 0.1% on a quiet machine. Boot only.
func (b *Board) MeasureHz(read func() uint64, ns int64, goodPPM uint64) (hz, ppm uint64) {
	ticks := uint64(ns) * pit.Hz / 1_000_000_000
	if ticks == 0 || ticks > 0xffff {
		ticks = 0xffff
	}
	return pit.Measure(portIO, uint16(ticks), read, measureTries, goodPPM)
}

// measureTries bounds the boot time a loaded host can cost: 8 × 10 ms at worst.
const measureTries = 8

// WallClock returns the time of day from the CMOS RTC in Unix nanoseconds (second resolution).
// The read starts right after an update finished: the update-in-progress flag (MC146818
// register A bit 7) rises 244 µs before the next update, so the read cannot race one, and
// tamago's Now never takes its error path (which allocates — not possible at boot). Boot only;
// 0 if the RTC cannot be read.
func (b *Board) WallClock() int64 {
	for rtcUpdating() {
	}
	r := rtc.RTC{Location: time.UTC}
	t, err := r.Now()
	if err != nil {
		return 0
	}
	return t.UnixNano()
}

func rtcUpdating() bool { return cmosRead(rtc.STATUSA)&(1<<rtc.STATUSA_UIP) != 0 }

// cmosRead and cmosWrite access a CMOS/RTC register through the index and data ports. Bit 7 of
// the index port is the NMI disable bit on a real PC; it stays 0.
func cmosRead(reg uint8) uint8 {
	amd64.Outb(rtc.CMOS_RTC_OUT, reg)
	return amd64.Inb(rtc.CMOS_RTC_IN)
}

func cmosWrite(reg, v uint8) {
	amd64.Outb(rtc.CMOS_RTC_OUT, reg)
	amd64.Outb(rtc.CMOS_RTC_IN, v)
}
