// Console input: the program's stdin, and the signals the runner forwards (Ctrl-C).
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// The runner writes to two console channels (docs/contract.md, "Console input"):
//
//   - consoleStdout's receiver (COM1 on the PC) carries the program's stdin, escaped so that
//     the end of the host's stdin can travel in order with the data: 0xFF 0xFF is the byte
//     0xFF, 0xFF 0x00 is end of file, any other byte is itself (another byte after 0xFF is
//     dropped and counted);
//   - consoleStderr's receiver (COM2) carries signal requests, one byte each: the signal
//     number — SIGHUP, SIGINT, SIGQUIT or SIGTERM; any other byte is dropped and counted.
//
// Each receiver interrupts (interrupt context: the handlers only move bytes and wake). Stdin
// bytes go to a 4 KiB ring that read(0) empties (fd_console.go); while the ring is full the
// receive interrupt is off, so the bytes wait in the UART and in QEMU's socket — the host's
// writer is slowed down, nothing is lost. A signal goes to the process as the terminal's would
// (Linux's tty sends SIGINT with SI_KERNEL): to the main thread if it can take it.
//
// Protected by the BKL; stdinBuf's fields are written by the interrupt handler and read(0).

const stdinBufSize = 4096

// stdinBuf is the console's input ring. head and tail count bytes from boot (the ring index is
// their value mod stdinBufSize).
var stdinBuf struct {
	data       [stdinBufSize]byte
	head, tail uint64
	eof        bool // the runner said end of file (after the last byte in data)
	esc        bool // a 0xFF came last: the next byte says what it meant
	off        bool // the receive interrupt is off: data was full
	dropped    uint64
}

// consoleInputInit registers the two receivers' interrupts, turns them on, and then tells the
// runner with an "input" record: the runner sends nothing before it, because turning a UART's
// FIFO on empties it, and a byte that arrived earlier would be lost. Boot.
func consoleInputInit() {
	ok := false
	in, sig := board.ConsoleInputIRQ(consoleStdout), board.ConsoleInputIRQ(consoleStderr)
	if in >= 0 && in == sig {
		// One receiver for both channels (arm64 virt's single UART, docs/contract.md): one
		// handler serves both, each taking its own channel's bytes.
		if irqRegister(in, "console", consoleInputIRQ) {
			board.ConsoleInputEnable(consoleStdout, true)
			board.ConsoleInputEnable(consoleStderr, true)
			ok = true
		}
	} else {
		if in >= 0 && irqRegister(in, "stdin", stdinIRQ) {
			board.ConsoleInputEnable(consoleStdout, true)
			ok = true
		}
		if sig >= 0 && irqRegister(sig, "signals", signalIRQ) {
			board.ConsoleInputEnable(consoleStderr, true)
		}
	}
	if ok {
		var k kbuf
		k.s("input").record()
	}
}

// consoleInputIRQ serves a receiver that carries both channels. Interrupt context.
func consoleInputIRQ(line, cpu int) {
	stdinIRQ(line, cpu)
	signalIRQ(line, cpu)
}

// stdinIRQ moves the received bytes into stdinBuf, decoding the escapes, and wakes readers.
// Interrupt context.
func stdinIRQ(line, cpu int) {
	b := &stdinBuf
	woke := false
	for b.tail-b.head < stdinBufSize {
		c, ok := board.ConsoleRead(consoleStdout)
		if !ok {
			break
		}
		woke = stdinPut(c) || woke
	}
	if b.tail-b.head == stdinBufSize && !b.off {
		b.off = true
		board.ConsoleInputEnable(consoleStdout, false)
	}
	if woke {
		stdinNotify(cpu)
	}
}

// stdinPut decodes one received byte into stdinBuf, which has room for it; true if a reader has
// something new (a byte, or the end of file).
func stdinPut(c byte) bool {
	b := &stdinBuf
	if b.esc {
		b.esc = false
		switch c {
		case 0xff:
		case 0x00:
			b.eof = true
			return true
		default:
			b.dropped++
			return false
		}
	} else if c == 0xff {
		b.esc = true
		return false
	}
	if b.eof {
		b.dropped++ // nothing comes after the end of file
		return false
	}
	b.data[b.tail%stdinBufSize] = c
	b.tail++
	return true
}

// stdinNotify wakes every open file of the console's stdin (fd 0 and its dups).
func stdinNotify(cpu int) {
	for i := range files {
		if files[i].kind == kindConsole && files[i].priv == consoleStdin {
			fileNotify(i, epollIn, cpu)
		}
	}
}

// stdinRead copies up to n buffered bytes to buf: the count, 0 at end of file, -EAGAIN while
// there is nothing yet. It turns the receive interrupt back on once there is room.
func stdinRead(buf, n uintptr) int64 {
	b := &stdinBuf
	avail := b.tail - b.head
	if avail == 0 {
		if b.eof {
			return 0
		}
		return -EAGAIN
	}
	if n == 0 {
		return 0
	}
	c := min(uint64(n), avail)
	if !userRange(buf, uintptr(c), true) {
		return -EFAULT
	}
	for done := uint64(0); done < c; {
		at := (b.head + done) % stdinBufSize
		k := min(c-done, stdinBufSize-at)
		copy(userBytes(buf+uintptr(done), uintptr(k)), b.data[at:at+k])
		done += k
	}
	b.head += c
	if b.off {
		b.off = false
		board.ConsoleInputEnable(consoleStdout, true)
	}
	return int64(c)
}

// stdinPoll: readable with data or at end of file; EPOLLHUP at end of file, as a pipe whose
// writer has gone.
func stdinPoll() uint32 {
	var ev uint32
	if stdinBuf.tail != stdinBuf.head || stdinBuf.eof {
		ev |= epollIn
	}
	if stdinBuf.eof {
		ev |= epollHup
	}
	return ev
}

// The signals a terminal sends, which the runner may forward.
var consoleSignals = [...]bool{sigHUP: true, sigINT: true, sigQUIT: true, sigTERM: true}

// signalIRQ posts each requested signal to the process. Interrupt context.
func signalIRQ(line, cpu int) {
	for {
		c, ok := board.ConsoleRead(consoleStderr)
		if !ok {
			return
		}
		if int(c) >= len(consoleSignals) || !consoleSignals[c] {
			stdinBuf.dropped++
			continue
		}
		postKernelSignal(0, mainThread(0), int(c), cpu) // the program's
	}
}
