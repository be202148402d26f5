// The console as a file: fds 0, 1 and 2.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// consoleStdin is the console file's priv for fd 0; fds 1 and 2 carry the board's console
// channel (consoleStdout, consoleStderr).
const consoleStdin = 0

// consoleFile is the kind of fds 0-2: stdout and stderr go to the virtio console as one stream of
// records when the machine has one (vconsole.go), else to the board's console channels (on the
// PC, COM1 and COM2: docs/contract.md); stdin is what the runner forwards (console_input.go).
type consoleFile struct{}

func (consoleFile) read(f *file, buf, n uintptr) int64 {
	if f.flags&oAccmode == oWronly {
		return -EBADF
	}
	return stdinRead(buf, n)
}

// write sends the bytes on the file's channel: into the virtio console's ring when the machine
// has one (vconsole.go), else to the board's UART.
func (consoleFile) write(f *file, buf, n uintptr) int64 {
	if f.flags&oAccmode == oRdonly {
		return -EBADF
	}
	if vcon.up {
		return vconWrite(int(f.priv), buf, n, f.flags&oNonblock == 0)
	}
	return uartWrite(int(f.priv), buf, n)
}

// consoleMax bounds one console write on the UART: it takes about 10 µs a byte and the kernel
// holds the BKL with interrupts off while it sends. A larger write returns a short count, which
// POSIX allows and Go's os.File.Write (like every careful writer) continues.
const consoleMax = 64 << 10

// consolePiece is how much is checked and sent at a time. As Linux's pipe_write and tty write do,
// a piece is copied whole or not at all: a write stops at the first piece it cannot read and
// returns what it sent before, or EFAULT if that is nothing — so a buffer running into an
// unmapped page is neither rejected whole nor faulted in whole first.
const consolePiece = 4096

// uartWrite is the write on console channel ch through the board (the UARTs).
func uartWrite(ch int, buf, n uintptr) int64 {
	n = min(n, consoleMax)
	done := uintptr(0)
	for done < n {
		c := min(n-done, consolePiece)
		if !userRange(buf+done, c, false) {
			break
		}
		board.ConsoleWrite(ch, userBytes(buf+done, c))
		done += c
	}
	if done == 0 && n > 0 {
		return -EFAULT
	}
	return int64(done)
}

// poll: the UART never makes a writer wait, the virtio console does while its ring is full;
// stdin is readable with data or at end of file (console_input.go).
func (consoleFile) poll(f *file) uint32 {
	if f.priv == consoleStdin {
		return stdinPoll()
	}
	if vcon.up && !vconWritable() {
		return 0
	}
	return epollOut
}

// stat: a character device, like a serial line.
func (consoleFile) stat(f *file) fileStat {
	return fileStat{mode: sIFCHR | 0o620, nlink: 1, blksize: 1024, rdev: 4<<8 | 64 + f.priv} // ttyS<n>: major 4, minor 64+n
}

func (consoleFile) release(f *file) {}
