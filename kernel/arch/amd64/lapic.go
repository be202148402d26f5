// The local APIC: this core's timer, end of interrupt, and inter-processor interrupts.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

import "github.com/usbarmory/tamago/amd64/lapic"

// The local APIC (SDM Vol. 3A Chapter 11 — "Advanced Programmable Interrupt Controller").
// Register access is tamago's driver where it has one; the timer's count and divide registers,
// which it does not cover, are written here. tamago's driver addresses registers with a 32-bit
// Base, so the register page must be identity mapped (InitInterrupts asks the kernel for that).
const (
	LocalAPICBase = 0xfee00000 // IA32_APIC_BASE's reset value (§11.4.4)

	lapicEOI         = 0xb0
	lapicSVR         = 0xf0
	lapicLVTTimer    = 0x320
	lapicTimerInit   = 0x380 // initial count
	lapicTimerCur    = 0x390 // current count
	lapicTimerDivide = 0x3e0

	lvtMasked     = 1 << 16
	svrEnable     = 1 << 8  // APIC software enable (§11.4.7.2)
	apicBaseEN    = 1 << 11 // IA32_APIC_BASE: global enable (§11.4.4)
	timerDivide16 = 0b0011  // divide configuration register value for ÷16 (§11.5.4, Figure 11-10)
)

var lapicDev = lapic.LAPIC{Base: LocalAPICBase}

// lapicTicksPerMS is the timer rate at divide-by-16, measured at boot. Immutable after boot.
var lapicTicksPerMS uint32

func lapicWrite(reg uint32, v uint32) { mmioWrite32(uintptr(LocalAPICBase+reg), v) }

func lapicRead(reg uint32) uint32 { return mmioRead32(uintptr(LocalAPICBase + reg)) }

// InitInterrupts prepares interrupt delivery to this core: on the bootstrap processor it first
// asks the kernel to identity-map the local APIC's register page (mapDevice: uncached,
// supervisor only); then it enables the local APIC (IA32_APIC_BASE.EN and the SVR software-enable
// bit, §11.4.3, §11.9) with the spurious vector. Interrupts stay disabled (IF = 0) until the core
// resumes a user thread. false if the page cannot be mapped.
func InitInterrupts(mapDevice func(pa, size uintptr) bool) bool {
	if mapDevice != nil && !mapDevice(LocalAPICBase, 0x1000) {
		return false
	}
	enableLAPIC()
	return true
}

func enableLAPIC() {
	wrmsr(msrAPICBase, rdmsr(msrAPICBase)|apicBaseEN)
	lapicWrite(lapicSVR, svrEnable|vecSpurious)
}

// CalibrateTimer measures the APIC timer against the board's reference clock: measure returns the
// frequency of the counter read by counting it for ns nanoseconds of reference time. The APIC
// timer runs at the bus or core crystal clock, which CPUID does not reliably report under
// emulation (§11.5.4). Bootstrap processor, boot only; the rate holds for every core.
func CalibrateTimer(measure func(read func() uint64, ns int64) uint64) {
	lapicWrite(lapicTimerDivide, timerDivide16)
	lapicDev.SetTimer(vecTimer, lapic.TIMER_MODE_ONE_SHOT)
	lapicWrite(lapicLVTTimer, lapicRead(lapicLVTTimer)|lvtMasked) // masked while measuring
	lapicWrite(lapicTimerInit, 0xffffffff)
	hz := measure(func() uint64 { return uint64(0xffffffff - lapicRead(lapicTimerCur)) }, 5_000_000)
	lapicWrite(lapicTimerInit, 0)
	lapicTicksPerMS = uint32(hz / 1000)
	if lapicTicksPerMS == 0 {
		lapicTicksPerMS = 1
	}
}

// StartTimer puts this core's APIC timer in one-shot mode on the timer vector, stopped (ArmTimer
// starts it).
func StartTimer() {
	lapicWrite(lapicTimerDivide, timerDivide16)
	lapicDev.SetTimer(vecTimer, lapic.TIMER_MODE_ONE_SHOT)
	lapicWrite(lapicTimerInit, 0)
}

// ArmTimer programs this core's one-shot timer to interrupt ns nanoseconds from now; ns <= 0 stops
// it. The count register is 32 bits wide (§11.5.4), so long delays are clamped and the kernel
// simply re-arms when the early interrupt arrives.
func ArmTimer(ns int64) {
	if ns <= 0 {
		lapicWrite(lapicTimerInit, 0)
		return
	}
	ticks := uint64(ns) * uint64(lapicTicksPerMS) / 1_000_000
	if ticks == 0 {
		ticks = 1
	}
	if ticks > 0xffffffff {
		ticks = 0xffffffff
	}
	lapicWrite(lapicTimerInit, uint32(ticks))
}

// TimerRate is the measured APIC timer frequency in Hz (at divide-by-16).
func TimerRate() uint64 { return uint64(lapicTicksPerMS) * 1000 }

// EOI acknowledges the interrupt f is handling (§11.8.5). A spurious interrupt must not be
// acknowledged (§11.9); the kernel does not call EOI for one. A level-triggered device line
// routed through the I/O APIC is re-armed by the same write: the local APIC broadcasts the EOI
// to the I/O APICs (§11.8.5, 82093AA §3.4).
func EOI(f *Frame) { lapicWrite(lapicEOI, 0) }

// SendIPI interrupts core cpu with an IPI of kind k (fixed delivery, physical destination:
// §11.6.1). It returns when the local APIC has accepted the request (tamago waits for the ICR's
// delivery status).
func SendIPI(cpu int, k IPI) { lapicDev.IPI(int(apicIDs[cpu]), ipiVector(k), 0) }

// SendIPIOthers interrupts every core but the caller with an IPI of kind k ("all excluding
// self" shorthand, §11.6.1).
func SendIPIOthers(k IPI) { lapicDev.IPI(0, ipiVector(k), lapic.ICR_DST_REST) }

func ipiVector(k IPI) int {
	if k == IPIFlush {
		return vecFlush
	}
	return vecWakeup
}

// APICID is the local APIC ID of core cpu (interrupt controllers address cores by it).
func APICID(cpu int) uint32 { return apicIDs[cpu] }
