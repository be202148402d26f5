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
