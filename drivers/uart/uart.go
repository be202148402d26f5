// Package uart names the PC's 16550 serial ports and gives the kernel allocation-free output on them.
//
// The hardware work is done by tamago's 16550 driver (soc/intel/uart); this package only fixes the
// port assignment gmpos uses (see docs/contract.md) and adds Write helpers that are safe before the Go
// runtime is initialised and in trap context: no allocation, no interfaces, no locks beyond the
// caller's (the kernel serialises output with interrupts disabled).
//
// PC/AT I/O map: COM1 0x3f8, COM2 0x2f8, COM3 0x3e8, COM4 0x2e8 (PC16550D datasheet, June 1995).
package uart

import "github.com/usbarmory/tamago/soc/intel/uart"

// The three ports of the gmpos console protocol. They are statically initialised, so they are usable
// before any package init() has run.
var (
	// Stdout carries the guest's fd 1 (COM1).
	Stdout = uart.UART{Index: 1, Base: 0x3f8}
	// Stderr carries the guest's fd 2 and kernel fault reports (COM2).
	Stderr = uart.UART{Index: 2, Base: 0x2f8}
	// Control carries one-line kernel records: entry, log, exit, panic (COM3).
	Control = uart.UART{Index: 3, Base: 0x3e8}
)

// Init enables the three ports.
func Init() {
	Stdout.Init()
	Stderr.Init()
	Control.Init()
}

// WriteString sends s to port p, byte by byte.
//
//go:nosplit
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
