package kernel

import (
	"math/bits"
	"time"

	"github.com/usbarmory/tamago/soc/intel/rtc"

	"gmpos/drivers/pit"
	"gmpos/kernel/arch/amd64"
)

// The kernel clock: the TSC, calibrated at boot against the PIT, gives CLOCK_MONOTONIC; the CMOS
// RTC read once at boot gives the CLOCK_REALTIME offset. On a constant-rate TSC (CPUID
// 80000007H:EDX[8], which QEMU's -cpu max reports) this is exact enough for a teaching kernel;
// Linux additionally cross-checks against the HPET and refines the rate over time.
var clock struct {
	tsc0     uint64
	mult     uint64 // ns = (tsc - tsc0) * mult >> 32
	tscHz    uint64
	realBase int64 // Unix ns at tsc0
}

// calibrateClock measures the TSC over 10 ms of PIT time (11932 ticks; one PIT tick is 0.84 µs, so
// the rate is known to better than 0.01%).
func calibrateClock() {
	hz := pit.Measure(pit.PortIO{In: amd64.Inb, Out: amd64.Outb}, 11932, amd64.TSC)
	if hz == 0 {
		hz = 1_000_000_000
	}
	clock.tscHz = hz
	clock.mult = (uint64(1_000_000_000) << 32) / hz
	clock.tsc0 = amd64.TSC()
	// Read the RTC right after an update finished: the update-in-progress flag (MC146818
	// datasheet, register A bit 7) rises 244 µs before the next one, so the read cannot race an
	// update, and tamago's Now never takes its error path (which allocates — not possible yet).
	for rtcUpdating() {
	}
	r := rtc.RTC{Location: time.UTC}
	if t, err := r.Now(); err == nil {
		clock.realBase = t.UnixNano()
	}
}

func rtcUpdating() bool {
	amd64.Outb(rtc.CMOS_RTC_OUT, rtc.STATUSA)
	return amd64.Inb(rtc.CMOS_RTC_IN)&(1<<rtc.STATUSA_UIP) != 0
}

// nanotime is CLOCK_MONOTONIC in ns since boot calibration. Any context.
//
//go:nosplit
func nanotime() int64 {
	d := amd64.TSC() - clock.tsc0
	hi, lo := bits.Mul64(d, clock.mult)
	return int64(hi<<32 | lo>>32)
}

// walltime is CLOCK_REALTIME in Unix ns.
func walltime() int64 { return clock.realBase + nanotime() }
