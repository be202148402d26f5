// arm64's one UART: the record stream that carries stdout, stderr and the control channel out,
// and stdin and signals in (docs/contract.md, "arm64 virt").
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"
)

// QEMU's `virt` machine has one PL011 UART, where x86 has COM1..COM3. After the start marker the
// kernel multiplexes on it what the three ports carry, as records in the virtio console's format
// (vconsole.go) with a third channel: [channel][length u16 LE, 1..65535][bytes], channel
// ConsoleStdout, ConsoleStderr or ConsoleControl (COM3's one-line records). The runner writes
// records back on the same socket once the kernel has sent "input": ConsoleStdout carries the
// program's stdin, escaped as on COM1 (EscapeStdin), ConsoleStderr its signals, one byte each
// as on COM2.

// ConsoleControl is the UART stream's channel of the kernel's control records.
const ConsoleControl = 3

// maxRecord is the longest record payload (the length is a u16, and 0 is not allowed).
const maxRecord = 0xffff

// AppendRecord appends data to b as records of channel ch, at most maxRecord bytes each (none
// for empty data).
func AppendRecord(b []byte, ch byte, data []byte) []byte {
	for len(data) > 0 {
		n := min(len(data), maxRecord)
		b = append(b, ch, byte(n), byte(n>>8))
		b = append(b, data[:n]...)
		data = data[n:]
	}
	return b
}

// UARTDemux splits the arm64 UART's stream after the start marker (a MarkerWriter in front of
// it drops what comes before) into Stdout, Stderr and Control. It is an io.Writer so that it
// takes the socket's reads as they come, records cut anywhere. A malformed stream — a channel
// other than 1..3, a length of 0 — cannot be resynchronised: Write then drops the rest (and
// still takes it all, so that QEMU's UART is never held up) and Close reports the error, as
// does a writer's error. Close also reports a stream that ended inside a record.
type UARTDemux struct {
	Stdout, Stderr, Control io.Writer
	OnOutput                func() // called before the first byte of stdout or stderr

	hdr    [ConsoleRecordHeader]byte
	nhdr   int   // header bytes of the current record seen so far
	left   int   // payload bytes of the current record still to come
	size   int   // the current record's length
	rec    int   // the current record's number, from 0
	err    error // the first error: the rest of the stream is dropped
	output bool
}

// Write implements io.Writer; it always takes all of p.
func (d *UARTDemux) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && d.err == nil {
		if d.left == 0 {
			k := copy(d.hdr[d.nhdr:], p)
			d.nhdr += k
			p = p[k:]
			if d.nhdr < len(d.hdr) {
				break
			}
			d.nhdr = 0
			d.size = int(binary.LittleEndian.Uint16(d.hdr[1:]))
			if d.writer(d.hdr[0]) == nil || d.size == 0 {
				d.err = fmt.Errorf("UART stream: record %d has channel %d and length %d; the rest of the stream is dropped", d.rec, d.hdr[0], d.size)
				break
			}
			d.left = d.size
			continue
		}
		k := min(d.left, len(p))
		ch := d.hdr[0]
		if ch != ConsoleControl && !d.output {
			d.output = true
			if d.OnOutput != nil {
				d.OnOutput()
			}
		}
		if _, err := d.writer(ch).Write(p[:k]); err != nil {
			d.err = fmt.Errorf("UART stream: channel %d: %v; the rest of the stream is dropped", ch, err)
		}
		p = p[k:]
		if d.left -= k; d.left == 0 {
			d.rec++
		}
	}
	return n, nil
}

func (d *UARTDemux) writer(ch byte) io.Writer {
	switch ch {
	case ConsoleStdout:
		return orDiscard(d.Stdout)
	case ConsoleStderr:
		return orDiscard(d.Stderr)
	case ConsoleControl:
		return orDiscard(d.Control)
	}
	return nil
}

// Close ends the stream: it returns the first error, or one for a stream cut inside a record.
func (d *UARTDemux) Close() error {
	switch {
	case d.err != nil:
		return d.err
	case d.nhdr > 0:
		return fmt.Errorf("UART stream: the stream ends inside record %d's header (%d of 3 bytes)", d.rec, d.nhdr)
	case d.left > 0:
		return fmt.Errorf("UART stream: the stream ends inside record %d (%d of %d bytes)", d.rec, d.size-d.left, d.size)
	}
	return nil
}

// recordSender writes what it is given as records of channel ch to w, which other senders
// share (stdin and signals on the one socket): mu keeps each record whole.
type recordSender struct {
	mu *sync.Mutex
	w  io.Writer
	ch byte
}

func (s recordSender) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.w.Write(AppendRecord(nil, s.ch, p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
