// Leaving the machine: QEMU's isa-debug-exit device.
// SPDX-License-Identifier: BSD-3-Clause

package pc

import "gmpos/kernel/arch/amd64"

// debugExitPort is the isa-debug-exit device the runner configures (docs/contract.md:
// -device isa-debug-exit,iobase=0xf4,iosize=0x04). Writing v makes QEMU exit with status
// (v<<1)|1 (QEMU hw/misc/debugexit.c).
const debugExitPort = 0xf4

// Exit stops the machine: it lets the UARTs finish sending — QEMU exits at once, and bytes still
// in a UART would be lost — then writes v to isa-debug-exit. On a machine without the device the
// write does nothing, so the core halts for good after it. Only v's low 7 bits survive (QEMU's
// status is 8 bits): the runner takes the full status from the exit record. Never returns. Any
// context.
func (b *Board) Exit(v uint8) {
	drainConsole()
	amd64.Outb(debugExitPort, v&0x7f)
	for {
		amd64.Halt()
	}
}
