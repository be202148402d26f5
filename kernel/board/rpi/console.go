// The console: the runner's records on the PL011, or plain text on both UARTs.
// SPDX-License-Identifier: BSD-3-Clause

package rpi

import (
	"sync/atomic"

	"gmpos/drivers/miniuart"
	"gmpos/drivers/pl011"
	"gmpos/kernel/board/internal/reccon"
)

// Two audiences. Under the runner (QEMU's raspi machines: the PL011 is the first -serial) the
// console is virt's: every channel as records on the PL011, stdin and signals back
// (gmpos/kernel/board/internal/reccon). On a board booted from an SD card a person reads the
// header's UART pins at 115200 8N1, so the console is plain text with CR LF line ends, the
// control channel's lines marked "[gmpos] ", and no input. Which one is the image's choice
// (its locator's locRecords flag): the runner sets it, `gmpos image` does not.
//
// In plain mode the kernel writes to the PL011 and to the mini UART, each if the firmware
// switched it on: which one is on GPIO 14/15 is config.txt's choice (the mini UART by default on
// the Pi 3 and 4, whose PL011 drives Bluetooth; the PL011 with dtoverlay=disable-bt), and
// writing both costs nothing. Plain writers are serialized by a write flag taken with a bounded
// wait, as reccon's records are.
type console struct {
	rec     reccon.Console // records mode
	plain   bool
	pl011   pl011.UART // plain mode: each UART the firmware enabled, else the zero UART
	mini    miniuart.UART
	writing atomic.Uint32
}

const (
	consoleControl = 3
	// plainWaitSpins bounds a plain writer's wait for the flag (see reccon's writeWaitSpins).
	plainWaitSpins = 1 << 24
)

// ConsoleWrite sends p on channel ch (1 stdout, 2 stderr, 3 control). Any context.
func (b *Board) ConsoleWrite(ch int, p []byte) {
	if !b.con.plain {
		b.con.rec.Write(ch, p)
		return
	}
	if ch < 1 || ch > consoleControl || len(p) == 0 {
		return
	}
	owned := b.con.lockWrite()
	if ch == consoleControl {
		b.con.putString("[gmpos] ")
	}
	for _, c := range p {
		b.con.put(c)
	}
	if owned {
		b.con.writing.Store(0)
	}
}

// lockWrite takes the plain write flag, or gives up after plainWaitSpins tries.
func (c *console) lockWrite() bool {
	for i := 0; i < plainWaitSpins; i++ {
		if c.writing.Load() == 0 && c.writing.CompareAndSwap(0, 1) {
			return true
		}
	}
	return false
}

// put sends one byte to both UARTs, a CR before each LF for a terminal.
func (c *console) put(x byte) {
	if x == '\n' {
		c.pl011.Tx('\r')
		c.mini.Tx('\r')
	}
	c.pl011.Tx(x)
	c.mini.Tx(x)
}

func (c *console) putString(s string) {
	for i := 0; i < len(s); i++ {
		c.put(s[i])
	}
}

// drain waits for both UARTs (or the record console's) to send everything.
func (c *console) drain() {
	if !c.plain {
		c.rec.Drain()
		return
	}
	c.pl011.Drain()
	c.mini.Drain()
}

// ConsoleInputIRQ is the PL011's line for stdin and signals under the runner; -1 in plain
// mode, which takes no input yet.
func (b *Board) ConsoleInputIRQ(ch int) int {
	if b.con.plain {
		return -1
	}
	return b.con.rec.InputIRQ(ch)
}

// ConsoleInputEnable turns channel ch's input on or off (records mode). Interrupt or trap
// context.
func (b *Board) ConsoleInputEnable(ch int, on bool) {
	if !b.con.plain {
		b.con.rec.InputEnable(ch, on)
	}
}

// ConsoleRead takes one byte of channel ch's input (records mode). Interrupt or trap context.
func (b *Board) ConsoleRead(ch int) (c byte, ok bool) {
	if b.con.plain {
		return 0, false
	}
	return b.con.rec.Read(ch)
}
