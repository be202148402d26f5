// Package uart gives the kernel allocation-free output on 16550 UARTs, over tamago's driver
// (github.com/usbarmory/tamago/soc/intel/uart), which does the register work.
//
// Which port carries what is the board's business (gmpos/kernel/board/pc assigns COM1-COM3);
// this package only adds what tamago's Write lacks for a kernel: helpers that are safe before the
// Go runtime is initialised and in trap context — no allocation, no interfaces, no locks beyond
// the caller's (the kernel serialises its output) — and Drain, which waits until every byte has
// left the transmitter.
//
// Reference: PC16550D UART datasheet (National Semiconductor, June 1995).
package uart

import "github.com/usbarmory/tamago/soc/intel/uart"

// WriteString sends s to port p, byte by byte (Tx waits for room in the transmit holding
// register, LSR.THRE).
func WriteString(p *uart.UART, s string) {
	for i := 0; i < len(s); i++ {
		p.Tx(s[i])
	}
}

// Write sends b to port p.
func Write(p *uart.UART, b []byte) {
	for _, c := range b {
		p.Tx(c)
	}
}

// lsrTEMT is LSR bit 6, Transmitter Empty: the holding and the shift register are both empty
// (datasheet §8.4).
const lsrTEMT = 1 << 6

// Drain waits, for at most about spins LSR reads, until port p has sent every byte; in reads
// an I/O port (tamago's register access is internal to its module). Used before the machine
// stops, so that no byte still in the UART is lost.
func Drain(p *uart.UART, in func(port uint16) uint8, spins int) {
	for i := 0; i < spins && in(p.Base+uart.LSR)&lsrTEMT == 0; i++ {
	}
}
