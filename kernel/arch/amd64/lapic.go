package amd64

import (
	"github.com/usbarmory/tamago/amd64/lapic"

	"gmpos/drivers/pit"
)

// The local APIC (SDM Vol. 3A Chapter 11 — "Advanced Programmable Interrupt Controller"): per-core
// timer, end-of-interrupt, and inter-processor interrupts. Register access is tamago's driver; the
// timer's count and divide registers, which that driver does not cover, are written here.
const (
	LAPICBase = 0xfee00000

	lapicSVR         = 0xf0
	lapicTimerInit   = 0x380 // initial count
	lapicTimerCur    = 0x390 // current count
	lapicTimerDivide = 0x3e0
)

var lapicDev = lapic.LAPIC{Base: LAPICBase}

// lapicTicksPerMS is the timer rate at divide-by-16, measured at boot.
var lapicTicksPerMS uint32

func lapicWrite(reg uint32, v uint32) { mmioWrite32(uintptr(LAPICBase+reg), v) }

func lapicRead(reg uint32) uint32 { return mmioRead32(uintptr(LAPICBase + reg)) }

// InitLAPIC enables this core's local APIC (IA32_APIC_BASE.EN and the SVR software-enable bit,
// §11.4.3, §11.9) with VecSpurious as the spurious vector. The MMIO page must be mapped.
func InitLAPIC() {
	wrmsr(msrAPICBase, rdmsr(msrAPICBase)|1<<11)
	lapicWrite(lapicSVR, 1<<8|VecSpurious)
}

// CalibrateTimer measures the APIC timer against the PIT (the APIC timer frequency is the bus or
// core crystal clock, which CPUID does not reliably report under emulation, §11.5.4).
func CalibrateTimer() {
	lapicWrite(lapicTimerDivide, 0b0011) // divide by 16
	lapicDev.SetTimer(VecTimer, lapic.TIMER_MODE_ONE_SHOT)
	lapicWrite(0x320, lapicRead(0x320)|1<<16) // masked while measuring
	lapicWrite(lapicTimerInit, 0xffffffff)
	hz := pit.Measure(pit.PortIO{In: inb, Out: outb}, 5966, func() uint64 { // 5 ms
		return uint64(0xffffffff - lapicRead(lapicTimerCur))
	})
	lapicWrite(lapicTimerInit, 0)
	lapicTicksPerMS = uint32(hz / 1000)
	if lapicTicksPerMS == 0 {
		lapicTicksPerMS = 1
	}
}

// StartTimer makes the APIC timer interrupt this core every periodMS milliseconds on VecTimer.
func StartTimer(periodMS uint32) {
	lapicWrite(lapicTimerDivide, 0b0011)
	lapicDev.SetTimer(VecTimer, lapic.TIMER_MODE_PERIODIC)
	lapicWrite(lapicTimerInit, lapicTicksPerMS*periodMS)
}

// ArmTimer programs a one-shot APIC timer interrupt (VecTimer) ns nanoseconds from now; ns <= 0
// stops the timer. The count register is 32 bits wide (§11.5.4), so long delays are clamped and
// the kernel simply re-arms when the early interrupt arrives.
//
//go:nosplit
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

// StartOneShot switches the APIC timer to one-shot mode (armed later with ArmTimer).
func StartOneShot() {
	lapicWrite(lapicTimerDivide, 0b0011)
	lapicDev.SetTimer(VecTimer, lapic.TIMER_MODE_ONE_SHOT)
	lapicWrite(lapicTimerInit, 0)
}

// TimerRate is the measured APIC timer frequency in Hz (at divide-by-16).
func TimerRate() uint64 { return uint64(lapicTicksPerMS) * 1000 }

// EOI acknowledges the interrupt being handled (§11.8.5).
//
//go:nosplit
func EOI() { lapicWrite(0xb0, 0) }

// SendIPI sends a fixed interrupt with vector vec to the APIC apicID (§11.6.1).
func SendIPI(apicID int, vec int) { lapicDev.IPI(apicID, vec, 0) }

// LAPICID is this core's APIC ID.
func LAPICID() uint32 { return lapicDev.ID() }
