// The RTC's periodic interrupt: a device interrupt a test can cause at will.
// SPDX-License-Identifier: BSD-3-Clause

package pc

// The MC146818 RTC raises ISA IRQ 8 at a programmable rate when the periodic interrupt is enabled
// (register B bit 6, PIE); the rate is 32768 >> (r-1) Hz for the rate-select value r in register
// A bits 3:0 (3 ≤ r ≤ 15; 6 gives 1024 Hz); reading register C acknowledges the interrupt and
// reports which one it was (bit 6, PF) — until it is read, the RTC raises no further interrupt
// (MC146818A datasheet, "Periodic Interrupt", registers A-C). The kernel uses it to test the
// whole device-interrupt path (I/O APIC → vector → IRQ table → handler → a woken thread): a
// guest can start it, unlike the network card's interrupts, without a peer.
const (
	rtcIRQ      = 8
	rtcRegA     = 0x0a
	rtcRegB     = 0x0b
	rtcRegC     = 0x0c
	rtcRateMask = 0x0f
	rtcBPIE     = 1 << 6
	rtcCPF      = 1 << 6
)

// TestIRQ returns the interrupt line of the board's test interrupt source, the RTC.
func (b *Board) TestIRQ() int {
	gsi, _, _ := b.madt.isaLine(rtcIRQ)
	return gsi
}

// StartTestIRQ makes the RTC interrupt periodically at the highest rate 32768>>(r-1) ≤ hz
// (2 ≤ hz ≤ 8192) and returns that rate. BKL held.
func (b *Board) StartTestIRQ(hz int) int {
	r := uint8(3)
	for r < 15 && 32768>>(r-1) > hz {
		r++
	}
	cmosWrite(rtcRegA, cmosRead(rtcRegA)&^rtcRateMask|r)
	cmosRead(rtcRegC) // drop a stale flag so that the first period raises the line
	cmosWrite(rtcRegB, cmosRead(rtcRegB)|rtcBPIE)
	return 32768 >> (r - 1)
}

// StopTestIRQ disables the periodic interrupt. BKL held.
func (b *Board) StopTestIRQ() {
	cmosWrite(rtcRegB, cmosRead(rtcRegB)&^rtcBPIE)
	cmosRead(rtcRegC)
}

// AckTestIRQ acknowledges an RTC interrupt and reports whether it was the periodic one.
// Interrupt context.
func (b *Board) AckTestIRQ() bool { return cmosRead(rtcRegC)&rtcCPF != 0 }
