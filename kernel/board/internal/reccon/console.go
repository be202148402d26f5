// The record console: the kernel's three channels and the runner's two, as records on one PL011.
// SPDX-License-Identifier: BSD-3-Clause

package reccon

import (
	"sync/atomic"

	"gmpos/drivers/pl011"
)

// An arm64 board has one UART where the PC has three (COM1-COM3), so every console channel
// travels on it as records (drivers/pl011/record.go; docs/contract.md, "arm64"): [channel][length u16 LE]
// [bytes], the channels those of the PC's ports — 1 stdout, 2 stderr, 3 control out of the
// kernel; 1 stdin, 2 signals into it. Only the start marker, written first, is raw: whatever
// the firmware printed before it is not framed, and the runner drops everything up to the
// marker, then reads records.
//
// Output: a record must go out whole, or every record after it is misread; so writers take
// the console's write flag for each ConsoleWrite. The kernel's writers hold the BKL already,
// but the fault report writes without it, on any core, perhaps while another core is inside a
// record — or on the same core, when the fault happened inside ConsoleWrite. It waits for the
// flag at most writeWaitSpins tries and then writes regardless: a report that may break the
// stream beats a report that never comes (a core that died holding the flag would otherwise
// silence the machine). Input and output use different FIFOs of the UART, so the flag does not
// cover input.
//
// Input: the runner's records arrive on the one receiver and interrupt on the PL011's one line,
// which ConsoleInputIRQ returns for both channels. The board keeps no stdin of its own: a stdin
// byte stays in the UART (and in QEMU's socket: back-pressure, as on the PC) until
// ConsoleRead(1) takes it, so that when the kernel turns channel 1 off because its buffer is
// full, and back on later, the byte still in the FIFO raises the interrupt again — a byte
// buffered here would wait, with no interrupt to announce it. Signal bytes, a few and rare, may
// be set aside in sig by a ConsoleRead(1) that meets them, so that stdin keeps flowing; a
// ConsoleRead(2) that meets stdin payload stops. The receive interrupt is unmasked only while
// an enabled reader can take the next byte (updateMask): otherwise a level-triggered line
// whose FIFO nobody may read would interrupt forever.
type Console struct {
	UART pl011.UART
	IRQ  int // the PL011's interrupt line (the board's), -1 if unknown

	// Output. Atomic.
	writing atomic.Uint32 // 1 while a ConsoleWrite sends records

	// Input. Protected by the BKL (interrupt and trap context).
	demux    pl011.Demux
	on       [3]bool // ConsoleInputEnable by channel (1, 2)
	unmasked bool    // the UART's receive interrupts are on
	sig      [sigRing]byte
	sigHead  uint32 // counts from boot; the ring index is the count mod sigRing
	sigTail  uint32
	dropped  uint64 // payload bytes of a channel nobody reads (not 1 or 2)
}

const (
	consoleStdout  = 1
	consoleStderr  = 2
	consoleControl = 3

	sigRing = 16 // signal bytes set aside while reading stdin: more than a user can type

	// writeWaitSpins bounds the fault report's wait for the write flag: much longer than a
	// record of 64 KiB takes on QEMU (its PL011 does not pace bytes), short enough that a
	// report stuck behind a dead writer still comes out within about a second.
	writeWaitSpins = 1 << 24

	// StartMarker is written raw at entry: the runner drops everything up to and including it.
	StartMarker = "\x1b]gmpos-start\x07"
)

// Start announces the kernel: the raw start marker, then an "entry" record on the control
// channel. The board's EarlyInit calls it once the UART is set up.
func (c *Console) Start() {
	c.UART.WriteString(StartMarker)
	c.WriteString(consoleControl, "entry\n")
}

// Write sends p on console channel ch (1 stdout, 2 stderr, 3 control) as records. Bytes
// pass unchanged. Any context.
func (c *Console) Write(ch int, p []byte) {
	if ch < consoleStdout || ch > consoleControl || len(p) == 0 {
		return
	}
	owned := c.lockWrite()
	c.UART.WriteRecord(byte(ch), p)
	if owned {
		c.writing.Store(0)
	}
}

// WriteString is Write for the board's own constant texts.
func (c *Console) WriteString(ch int, s string) {
	owned := c.lockWrite()
	c.UART.WriteRecordString(byte(ch), s)
	if owned {
		c.writing.Store(0)
	}
}

// lockWrite takes the write flag, or gives up after writeWaitSpins tries (see console); true if
// it took it (and must clear it).
func (c *Console) lockWrite() bool {
	for i := 0; i < writeWaitSpins; i++ {
		if c.writing.Load() == 0 && c.writing.CompareAndSwap(0, 1) {
			return true
		}
	}
	return false
}

// InputIRQ is the interrupt line of channel ch's receiver: the PL011's, for stdin (1)
// and signals (2) alike; -1 for other channels or if the board knows no usable line.
func (c *Console) InputIRQ(ch int) int {
	if ch != consoleStdout && ch != consoleStderr {
		return -1
	}
	return c.IRQ
}

// InputEnable turns channel ch's input on or off: off while the kernel has no room for
// its bytes. The UART's interrupt follows (updateMask). Interrupt or trap context.
func (c *Console) InputEnable(ch int, on bool) {
	if ch != consoleStdout && ch != consoleStderr {
		return
	}
	c.on[ch] = on
	c.updateMask()
}

// Read takes one byte of channel ch's records; ok false if none can be had now: the
// UART is empty, or the next byte is the other channel's and cannot be set aside (see
// Console). Header bytes are consumed on the way. Interrupt or trap context.
func (c *Console) Read(ch int) (x byte, ok bool) {
	if ch != consoleStdout && ch != consoleStderr {
		return 0, false
	}
	x, ok = c.read(byte(ch))
	c.updateMask()
	return x, ok
}

// receiver is the UART's receiving side as console input uses it: pl011.UART, or the tests'
// fake. read and updateMask are generic over it, so that the tests can play the UART while the
// kernel's instance calls the PL011 directly (no interface value, nothing escapes).
type receiver interface {
	Rx() (byte, bool)
	RxInterrupt(on bool)
}

// read is ConsoleRead without the mask update.
func (c *Console) read(ch byte) (byte, bool) { return readFrom(c, c.UART, ch) }

func readFrom[R receiver](c *Console, r R, ch byte) (byte, bool) {
	if ch == consoleStderr && c.sigTail != c.sigHead {
		s := c.sig[c.sigHead%sigRing]
		c.sigHead++
		return s, true
	}
	for {
		switch w := c.demux.Want(); {
		case w == 0 || w == ch:
		case w == consoleStderr && c.sigTail-c.sigHead < sigRing:
		case w != consoleStdout && w != consoleStderr:
		default:
			return 0, false // the other channel's byte, which must stay in the UART
		}
		x, ok := r.Rx()
		if !ok {
			return 0, false
		}
		got, payload := c.demux.Feed(x)
		switch {
		case !payload:
		case got == ch:
			return x, true
		case got == consoleStderr:
			c.sig[c.sigTail%sigRing] = x
			c.sigTail++
		default:
			c.dropped++
		}
	}
}

// updateMask unmasks the UART's receive interrupt exactly when an enabled reader can take the
// next byte of the stream: a header byte (either reader), its own channel's payload, or a
// signal byte that a stdin reader can set aside. It writes the mask register only when that
// changes (every MMIO access traps to QEMU).
func (c *Console) updateMask() { updateMaskOn(c, c.UART) }

func updateMaskOn[R receiver](c *Console, r R) {
	var want bool
	switch w := c.demux.Want(); w {
	case consoleStdout:
		want = c.on[consoleStdout]
	case consoleStderr:
		want = c.on[consoleStderr] || c.on[consoleStdout] && c.sigTail-c.sigHead < sigRing
	default: // a header, or a channel nobody reads (its bytes are dropped by any reader)
		want = c.on[consoleStdout] || c.on[consoleStderr]
	}
	if want != c.unmasked {
		c.unmasked = want
		r.RxInterrupt(want)
	}
}

// Drain waits until the UART has sent every byte (the board's Exit).
func (c *Console) Drain() { c.UART.Drain() }
