// Console input: the program's stdin on COM1 and forwarded signals on COM2 (docs/contract.md,
// "Console input"; the kernel's side is kernel/console_input.go). On arm64 both travel as
// records on the one UART (uart.go, recordSender).
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bufio"
	"io"
)

// The escapes of the stdin stream: the end of the host's stdin travels in order with the data.
const (
	stdinEscape = 0xff
	stdinEOF    = 0x00
)

// EscapeStdin returns b with each 0xFF doubled (the kernel reads 0xFF 0xFF as one 0xFF).
func EscapeStdin(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		out = append(out, c)
		if c == stdinEscape {
			out = append(out, stdinEscape)
		}
	}
	return out
}

// feedStdin copies in to the guest's stdin (COM1's input) and then says end of file; nil in is
// an empty stdin. It starts when ready is closed — the kernel's "input" record: before it, the
// UART would drop what it holds when the kernel turns its FIFO on — and returns when in ends or
// the guest is gone. A terminal's line discipline hands over a line at a time, which the guest
// gets at once.
func feedStdin(c io.Writer, in io.Reader, ready <-chan struct{}) {
	<-ready
	w := bufio.NewWriter(c)
	if in != nil {
		buf := make([]byte, 32<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				if _, werr := w.Write(EscapeStdin(buf[:n])); werr != nil {
					return
				}
				if w.Flush() != nil {
					return
				}
			}
			if err != nil {
				break
			}
		}
	}
	w.Write([]byte{stdinEscape, stdinEOF})
	w.Flush()
}

// feedSignals writes each signal number from sigs to the guest's signal channel (COM2's
// input), once ready is closed, until sigs is closed or the guest is gone.
func feedSignals(c io.Writer, sigs <-chan int, ready <-chan struct{}) {
	if sigs == nil {
		return
	}
	<-ready
	for s := range sigs {
		if s < 1 || s > 255 {
			continue
		}
		if _, err := c.Write([]byte{byte(s)}); err != nil {
			return
		}
	}
}
