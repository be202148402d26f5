// The mini UART's registers and its polled transmitter.
// SPDX-License-Identifier: BSD-3-Clause

package miniuart

import "gmpos/drivers/mmio"

// Register offsets from the auxiliary block's base (§2.1 Table 2-2: AUX at bus 0x7e21_5000,
// physical 0x3f21_5000 on the BCM2837, 0xfe21_5000 on the BCM2711).
const (
	regEnables = 0x04 // AUX_ENABLES: bit 0 the mini UART
	regIO      = 0x40 // AUX_MU_IO_REG: write a byte to send it
	regLSR     = 0x54 // AUX_MU_LSR_REG (§2.2.2)

	lsrTxEmpty = 1 << 5 // the transmit FIFO can take a byte
	lsrTxIdle  = 1 << 6 // the FIFO is empty and the transmitter idle

	// spins bounds every wait: a disabled or clock-less UART must not hang the kernel.
	spins = 1 << 22
)

// UART is the mini UART of the auxiliary block at Base (physical, identity-mapped). The zero
// value is none: every method does nothing.
type UART struct {
	Base uintptr
}

// Enabled reports whether the firmware switched the mini UART on (AUX_ENABLES bit 0).
func (u UART) Enabled() bool {
	return u.Base != 0 && mmio.Read32(u.Base+regEnables)&1 != 0
}

// Tx sends one byte, waiting (boundedly) for room in the transmit FIFO: the mini UART paces
// bytes at its baud rate, and a byte that cannot go within the bound is dropped.
func (u UART) Tx(c byte) {
	if u.Base == 0 {
		return
	}
	for i := 0; i < spins; i++ {
		if mmio.Read32(u.Base+regLSR)&lsrTxEmpty != 0 {
			mmio.Write32(u.Base+regIO, uint32(c))
			return
		}
	}
}

// Drain waits until every byte has left, and reports whether that happened within the bound.
func (u UART) Drain() bool {
	if u.Base == 0 {
		return true
	}
	for i := 0; i < spins; i++ {
		if mmio.Read32(u.Base+regLSR)&lsrTxIdle != 0 {
			return true
		}
	}
	return false
}
