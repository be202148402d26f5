// The generic timer: the kernel's clock and each core's one-shot timer.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

import "math/bits"

// The kernel's clock is the virtual counter CNTVCT_EL0 (ARM ARM D11.2 "The Generic Timer"): one
// system-wide count at CNTFRQ_EL0 Hz (62.5 MHz on QEMU 7.2's virt, 19.2 MHz on the Raspberry Pi
// 3, 54 MHz on the Pi 4), the same on every core, never stopping. Each core's timer is its EL1
// virtual timer: CNTV_CVAL_EL0 is the count at which it fires, CNTV_CTL_EL0 enables and masks it,
// and it raises PPI 27 on its own core.

// timerHz is the counter's rate. Immutable after CalibrateTimer.
var timerHz uint64

// Cycles reads the virtual counter: the kernel's clock.
func Cycles() uint64 { return cntvct() }

// CounterFreq is the counter's rate, as the firmware programmed CNTFRQ_EL0.
func CounterFreq() uint64 { return cntfrq() }

// CalibrateTimer takes the timer's rate from CNTFRQ_EL0: timer and clock are the same counter,
// so there is nothing to measure. measure is the contract's way to measure a timer that differs.
func CalibrateTimer(measure func(read func() uint64, ns int64) uint64) {
	timerHz = cntfrq()
	if timerHz == 0 { // firmware that left CNTFRQ unset: measure it against the board's clock
		timerHz = measure(cntvct, 10_000_000)
	}
}

// TimerRate returns the timer's rate (Hz).
func TimerRate() uint64 { return timerHz }

// StartTimer leaves this core's timer stopped, as the contract's one-shot mode begins.
func StartTimer() { stopTimer() }

// ctlEnable is CNTV_CTL_EL0.ENABLE with IMASK clear (D17.10.19).
const ctlEnable = 1

// ArmTimer makes this core's timer fire ns from now; ns <= 0 stops it.
func ArmTimer(ns int64) {
	if ns <= 0 {
		stopTimer()
		return
	}
	hi, lo := bits.Mul64(uint64(ns), timerHz)
	var ticks uint64
	if hi >= 1_000_000_000 {
		ticks = 1 << 62 // beyond any deadline the kernel keeps
	} else {
		ticks, _ = bits.Div64(hi, lo, 1_000_000_000)
	}
	if ticks == 0 {
		ticks = 1
	}
	setTimer(cntvct()+ticks, ctlEnable)
}
