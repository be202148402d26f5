// The virtio console: its QEMU arguments, its socket, and the demultiplexer of its records.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
)

// The guest's stdout and stderr come through a virtio console (docs/contract.md, "Virtio
// console") when the kernel finds one: a virtio-serial device with one generic port, number 1,
// whose chardev is a Unix socket the runner listens on, like the serial ports. Its stream is a
// sequence of records — channel (1 stdout, 2 stderr), length (u16 LE, 1..65535), bytes — so
// that the interleaving of the two is kept; Demux splits it. A virtserialport rather than a
// virtconsole because QEMU throttles the former when the socket is full and drops data of the
// latter (drivers/virtio/console, doc.go).

// ConsoleSocket is the name of the virtio console's socket in the serial sockets' directory.
const ConsoleSocket = "vcon"

// ConsoleArgs returns QEMU's arguments for the virtio console on the Unix socket sock: the
// virtio-serial function (modern only, as the NIC), two ports at most (port 0 stays empty: it is
// reserved for a virtconsole), and port 1 on the socket. QEMU connects to the runner's listener
// at start-up, before the guest runs.
func ConsoleArgs(sock string) []string {
	return []string{
		"-device", "virtio-serial-pci,id=gmposvser,disable-legacy=on,max_ports=2",
		"-chardev", "socket,id=gmposcon,path=" + sock,
		"-device", "virtserialport,bus=gmposvser.0,nr=1,chardev=gmposcon",
	}
}

// consoleListener listens on the virtio console's socket in dir.
func consoleListener(dir string) (string, net.Listener, error) {
	p := filepath.Join(dir, ConsoleSocket)
	l, err := net.Listen("unix", p)
	return p, l, err
}

// Record channels of the virtio console stream.
const (
	ConsoleStdout = 1
	ConsoleStderr = 2
	// ConsoleRecordHeader is a record's header: the channel and the length.
	ConsoleRecordHeader = 3
)

// Demux reads the virtio console stream from r until it ends and writes each record's bytes to
// stdout or stderr, in order; onOutput (if not nil) is called before the first byte is written.
// It returns nil at the end of a well-formed stream, or what was wrong: a record of another
// channel or of length 0 (the stream cannot be resynchronised: the rest is read and dropped, so
// that QEMU is never held up), one cut short by the end, or an error of r or of a writer.
func Demux(r io.Reader, stdout, stderr io.Writer, onOutput func()) error {
	br := bufio.NewReaderSize(r, 256<<10)
	buf := make([]byte, 64<<10)
	var hdr [ConsoleRecordHeader]byte
	output := false
	for rec := 0; ; rec++ {
		n, err := io.ReadFull(br, hdr[:])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("virtio console: the stream ends inside record %d's header (%d of 3 bytes)", rec, n)
		}
		ch, size := hdr[0], int(binary.LittleEndian.Uint16(hdr[1:]))
		var w io.Writer
		switch ch {
		case ConsoleStdout:
			w = stdout
		case ConsoleStderr:
			w = stderr
		}
		if w == nil || size == 0 {
			io.Copy(io.Discard, br)
			return fmt.Errorf("virtio console: record %d has channel %d and length %d; the rest of the stream is dropped", rec, ch, size)
		}
		n, err = io.ReadFull(br, buf[:size])
		if n > 0 {
			if !output && onOutput != nil {
				onOutput()
			}
			output = true
			if _, werr := w.Write(buf[:n]); werr != nil {
				io.Copy(io.Discard, br)
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
				return fmt.Errorf("virtio console: the stream ends inside record %d (%d of %d bytes)", rec, n, size)
			}
			return err
		}
	}
}

// syncWriter serialises writes to w: the serial ports' readers and the virtio console's share
// the program's stdout and stderr writers, which need not be safe for concurrent use (a
// bytes.Buffer in tests). One mutex for both keeps a combined log of the two in the order the
// runner wrote it.
type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
