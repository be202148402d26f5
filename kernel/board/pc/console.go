// The console: three 16550 UARTs at the PC's standard I/O ports.
// SPDX-License-Identifier: BSD-3-Clause

package pc

import (
	"github.com/usbarmory/tamago/soc/intel/uart"

	kuart "gmpos/drivers/uart"
	"gmpos/kernel/arch/amd64"
)

// The ports of the gmpos console protocol (docs/contract.md), at the PC/AT I/O addresses
// COM1 0x3f8, COM2 0x2f8, COM3 0x3e8. Statically initialised: usable before any init() runs.
var ports = [...]uart.UART{
	1: {Index: 1, Base: 0x3f8}, // stdout (fd 1)
	2: {Index: 2, Base: 0x2f8}, // stderr (fd 2) and kernel fault reports
	3: {Index: 3, Base: 0x3e8}, // control records: entry, log, exit, panic, trace
}

// startMarker is written on COM1 at kernel entry: the firmware may have printed there first, and
// the runner drops everything up to and including the marker.
const startMarker = "\x1b]gmpos-start\x07"

// EarlyInit brings up the console and announces the kernel: the start marker on stdout and an
// "entry" record on the control channel. It is the first thing the kernel does at boot, and it
// masks the legacy PICs, whose IRQ 0 would otherwise arrive on vector 8 — #DF.
func (b *Board) EarlyInit() {
	maskPIC()
	for i := 1; i < len(ports); i++ {
		ports[i].Init()
	}
	kuart.WriteString(&ports[1], startMarker)
	kuart.WriteString(&ports[3], "entry\n")
}

// ConsoleWrite sends p on console channel ch: 1 stdout, 2 stderr, 3 control. Bytes pass
// unchanged (no "\n" → "\r\n"): the runner compares guest output byte for byte. Any context.
func (b *Board) ConsoleWrite(ch int, p []byte) {
	if ch < 1 || ch >= len(ports) {
		return
	}
	kuart.Write(&ports[ch], p)
}

// drainConsole waits until every UART has sent its last byte.
func drainConsole() {
	for i := 1; i < len(ports); i++ {
		kuart.Drain(&ports[i], amd64.Inb, 100000)
	}
}

// Console input: the runner writes the program's stdin to COM1 and its signal requests to COM2
// (docs/contract.md, "Console input"); each port's receiver interrupts on its ISA line — COM1 on
// IRQ 4, COM2 on IRQ 3 (the PC/AT wiring), which the MADT may route to another GSI. COM3 (IRQ 4
// too, shared with COM1) stays output only.
const (
	ierERBFI = 1 << 0 // IER bit 0: interrupt when received data is available (datasheet §8.5)

	// fcrRX14 enables the 16-byte FIFOs with the receive interrupt at 14 bytes, or at a
	// character time-out with fewer (FCR bits 0, 6-7; §8.6). Without the FIFO every byte is an
	// interrupt (QEMU then hands the UART one byte at a time): 7 KB/s of stdin under TCG. No
	// FIFO-clear bits: bytes already received stay.
	fcrRX14 = 1<<0 | 3<<6
)

// comIRQ is the ISA IRQ of each port's receiver.
var comIRQ = [...]int{1: 4, 2: 3}

// ConsoleInputIRQ is the interrupt line of console channel ch's receiver, -1 if it has none.
func (b *Board) ConsoleInputIRQ(ch int) int {
	if ch < 1 || ch >= len(comIRQ) {
		return -1
	}
	gsi, _, _ := b.madt.isaLine(comIRQ[ch])
	return gsi
}

// ConsoleInputEnable turns ch's receive interrupt on or off: off while the kernel's input buffer
// is full, so that the UART keeps the bytes (and QEMU stops reading the runner's socket) instead
// of interrupting for bytes with nowhere to go. Interrupt or trap context.
func (b *Board) ConsoleInputEnable(ch int, on bool) {
	if ch < 1 || ch >= len(comIRQ) {
		return
	}
	var ier uint8
	if on {
		ier = ierERBFI
		amd64.Outb(ports[ch].Base+uart.FCR, fcrRX14)
	}
	amd64.Outb(ports[ch].Base+uart.IER, ier)
}

// ConsoleRead takes one received byte from console channel ch (LSR.DR, then RBR); ok false if
// none is waiting. Reading RBR clears the receive interrupt. Interrupt or trap context.
func (b *Board) ConsoleRead(ch int) (c byte, ok bool) {
	if ch < 1 || ch >= len(comIRQ) {
		return 0, false
	}
	return ports[ch].Rx()
}
