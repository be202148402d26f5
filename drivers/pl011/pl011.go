// The PL011's registers and the polled UART.
// SPDX-License-Identifier: BSD-3-Clause

package pl011

import "gmpos/drivers/mmio"

// Register offsets (DDI 0183G Table 3-1). All are 32-bit registers; only the low bits are used.
const (
	regDR   = 0x000 // data: write to send, read to receive (bits 11:8 the byte's errors)
	regFR   = 0x018 // flags (§3.3.3)
	regIBRD = 0x024 // integer baud rate divisor
	regFBRD = 0x028 // fractional baud rate divisor (64ths)
	regLCRH = 0x02c // line control (§3.3.7)
	regCR   = 0x030 // control (§3.3.8)
	regIMSC = 0x038 // interrupt mask set/clear: 1 enables (§3.3.10)
	regICR  = 0x044 // interrupt clear: write 1s (§3.3.13)
)

// UARTFR bits (§3.3.3).
const (
	frBUSY = 1 << 3 // the UART is sending a character (from the FIFO or the shift register)
	frRXFE = 1 << 4 // the receive FIFO is empty
	frTXFF = 1 << 5 // the transmit FIFO is full
	frTXFE = 1 << 7 // the transmit FIFO is empty
)

// UARTLCR_H bits (§3.3.7): 8 data bits, no parity, one stop bit, FIFOs on.
const (
	lcrhFEN   = 1 << 4 // FIFOs enabled (16 bytes each way, §2.4.3)
	lcrhWLEN8 = 3 << 5 // word length 8 bits
)

// UARTCR bits (§3.3.8).
const (
	crUARTEN = 1 << 0
	crTXE    = 1 << 8
	crRXE    = 1 << 9
	crCTSEn  = 1 << 15
)

// Interrupt bits, the same in UARTIMSC, UARTRIS, UARTMIS and UARTICR (§3.3.10-3.3.13).
const (
	intRX  = 1 << 4 // receive: the FIFO reached its trigger level
	intRT  = 1 << 6 // receive time-out: data waits below the level and the line went quiet
	intAll = 0x7ff
)

// UART is one PL011 at Base, the physical (identity-mapped) address of its registers. The zero
// value is none: every method does nothing (and Rx reports no data), so a board that has not
// found its UART yet cannot fault on address 0.
type UART struct {
	Base uintptr
}

// Init programs the UART for 8N1 with both FIFOs on and every interrupt masked, following the
// reprogramming sequence of §3.3.8: disable, wait for the character being sent, flush the
// transmit FIFO (FEN off), reprogram, enable. clockHz is UARTCLK's rate (a clocks property of the
// device tree); with clockHz or baud 0 the divisors the firmware left are kept — QEMU ignores
// them, and a Pi's firmware has set them for its own clock. The divisor registers take effect
// at the UARTLCR_H write that follows them (§3.3.6), hence the order.
func (u UART) Init(clockHz, baud uint32) {
	if u.Base == 0 {
		return
	}
	mmio.Write32(u.Base+regCR, 0)
	for i := 0; i < drainSpins && mmio.Read32(u.Base+regFR)&frBUSY != 0; i++ {
	}
	mmio.Write32(u.Base+regLCRH, 0)
	if clockHz != 0 && baud != 0 {
		// divisor = clock / (16 × baud) in 1/64ths, rounded: IBRD the integer part, FBRD the
		// fraction (§3.3.6's worked example).
		div := (uint64(clockHz)*4 + uint64(baud)/2) / uint64(baud)
		if div>>6 >= 1 && div>>6 <= 0xffff {
			mmio.Write32(u.Base+regIBRD, uint32(div>>6))
			mmio.Write32(u.Base+regFBRD, uint32(div&63))
		}
	}
	mmio.Write32(u.Base+regLCRH, lcrhFEN|lcrhWLEN8)
	mmio.Write32(u.Base+regIMSC, 0)
	mmio.Write32(u.Base+regICR, intAll)
	mmio.Write32(u.Base+regCR, crUARTEN|crTXE|crRXE)
}

// Tx sends one byte, waiting while the transmit FIFO is full. It waits for as long as that
// takes: on QEMU a full FIFO means the host's end of the serial socket is not reading, and the
// byte must not be lost (the runner compares output byte for byte).
func (u UART) Tx(c byte) {
	if u.Base == 0 {
		return
	}
	for mmio.Read32(u.Base+regFR)&frTXFF != 0 {
	}
	mmio.Write32(u.Base+regDR, uint32(c))
}

// Write sends p.
func (u UART) Write(p []byte) {
	for _, c := range p {
		u.Tx(c)
	}
}

// WriteString sends s (no conversion to []byte, which could allocate).
func (u UART) WriteString(s string) {
	for i := 0; i < len(s); i++ {
		u.Tx(s[i])
	}
}

// Rx takes one received byte; ok false if the receive FIFO is empty. A byte received with an
// error (framing, parity, break, overrun: UARTDR bits 11:8) is returned as received: the
// runner's stream has no way to resend it, and QEMU never sets them.
func (u UART) Rx() (c byte, ok bool) {
	if u.Base == 0 || mmio.Read32(u.Base+regFR)&frRXFE != 0 {
		return 0, false
	}
	return byte(mmio.Read32(u.Base + regDR)), true
}

// RxInterrupt unmasks (on) or masks the receive interrupts: the FIFO-level one and the
// time-out that reports bytes waiting below the level (§3.4; QEMU raises only the first, for
// every byte). Reading the FIFO empty clears both, so a handler need not write UARTICR.
func (u UART) RxInterrupt(on bool) {
	if u.Base == 0 {
		return
	}
	var m uint32
	if on {
		m = intRX | intRT
	}
	mmio.Write32(u.Base+regIMSC, m)
}

// drainSpins bounds the waits for the transmitter: far more UARTFR reads than sending a FIFO of
// 16 bytes at 115200 baud takes (1.4 ms) on any core gmpos runs on, and finite, so that a UART
// held back by flow control cannot hang the machine's exit.
const drainSpins = 1 << 22

// Drain waits until every byte written has left the UART — the transmit FIFO empty and the
// shift register idle (UARTFR TXFE set, BUSY clear) — and reports whether it got there within
// drainSpins reads. Used before the machine stops: QEMU exits at once, and bytes still in the
// UART would be lost.
func (u UART) Drain() bool {
	if u.Base == 0 {
		return true
	}
	for i := 0; i < drainSpins; i++ {
		if fr := mmio.Read32(u.Base + regFR); fr&frTXFE != 0 && fr&frBUSY == 0 {
			return true
		}
	}
	return false
}

// Enabled reports whether the UART is switched on (UARTCR.UARTEN and TXE) without CTS flow
// control (CTSEn, bit 15): on a board whose firmware set the UART up (a Raspberry Pi's,
// enable_uart=1), whether it may be written without programming it first. With CTSEn the UART
// sends only while its peer asserts CTS — on a Pi the Bluetooth chip, which may never — and Tx
// would wait for good.
func (u UART) Enabled() bool {
	if u.Base == 0 {
		return false
	}
	cr := mmio.Read32(u.Base + regCR)
	return cr&crUARTEN != 0 && cr&crTXE != 0 && cr&crCTSEn == 0
}
