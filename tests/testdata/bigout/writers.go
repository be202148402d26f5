package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// WriterLine is line seq of writer w: "w<w> <seq, 6 digits> " then a payload of one letter, the
// same for the whole line (which it names), and "\n". Every 16th line's payload is 20 KiB, more
// than a 4 KiB piece, so that a write split or interleaved with another inside the kernel shows.
// The test (tests/console_test.go) parses the output with the same rule.
func writerLine(prefix string, w, seq int) []byte {
	n := 40 + seq%23
	if seq%16 == 15 {
		n = 20 << 10
	}
	letter := byte('a' + (w*7+seq)%26)
	return []byte(fmt.Sprintf("%s%d %06d %s\n", prefix, w, seq, strings.Repeat(string(letter), n)))
}

// writers: 4 threads, n lines each, all at once; writers 0 and 2 on stdout, 1 and 3 on stderr.
// Each goroutine keeps its own thread, so that the writes really run on several cores.
func writers(n int) {
	runtime.GOMAXPROCS(4)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			<-start
			for seq := 0; seq < n; seq++ {
				mustWrite(1+w%2, writerLine("w", w, seq))
			}
		}()
	}
	close(start)
	wg.Wait()
}

// mustWrite writes all of b to fd with write(2) itself, continuing after short counts as
// os.File does, and stops the program on an error.
func mustWrite(fd int, b []byte) {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err != nil {
			fmt.Fprintf(os.Stderr, "write fd %d: %v\n", fd, err)
			os.Exit(1)
		}
		b = b[n:]
	}
}

// redirect: 2 threads write n lines each to fd 10 (prefix "r") while a third makes fd 10 the
// pipe's write end and then stdout again, over and over. Every write must land whole in one
// place or the other: the lines on stdout and the lines the pipe got add up to the writes. Then
// "redirect writes W pipe-lines P" on stderr.
func redirect(n int) {
	runtime.GOMAXPROCS(4)
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		fmt.Fprintln(os.Stderr, "pipe2:", err)
		os.Exit(1)
	}
	out, err := syscall.Dup(1)
	if err != nil || syscall.Dup3(out, 10, 0) != nil {
		fmt.Fprintln(os.Stderr, "dup:", err)
		os.Exit(1)
	}
	var pipeLines atomic.Int64
	drained := make(chan struct{})
	go func() { // counts the pipe's lines, checking each
		r := bufio.NewReaderSize(os.NewFile(uintptr(p[0]), "pipe"), 64<<10)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				close(drained)
				return
			}
			if !strings.HasPrefix(l, "r") {
				fmt.Fprintf(os.Stderr, "pipe got a broken line %.40q\n", l)
				os.Exit(1)
			}
			pipeLines.Add(1)
		}
	}()
	var writes atomic.Int64
	var wg sync.WaitGroup
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() { // the switcher
		runtime.LockOSThread()
		for i := 0; ; i++ {
			select {
			case <-stop:
				close(stopped)
				return
			default:
			}
			target := out
			if i%2 == 0 {
				target = p[1]
			}
			if err := syscall.Dup3(target, 10, 0); err != nil {
				fmt.Fprintln(os.Stderr, "dup3:", err)
				os.Exit(1)
			}
			runtime.Gosched()
		}
	}()
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			for seq := 0; seq < n; seq++ {
				b := writerLine("r", w, seq)
				if seq%16 == 15 {
					b = b[:64] // a pipe takes 4 KiB whole (PIPE_BUF); keep every line below it
					b[63] = '\n'
				}
				// One write(2): a short count would leave the rest of the line to whichever
				// file fd 10 is next.
				if k, err := syscall.Write(10, b); err != nil || k != len(b) {
					fmt.Fprintf(os.Stderr, "write fd 10: %d of %d: %v\n", k, len(b), err)
					os.Exit(1)
				}
				writes.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-stopped
	syscall.Dup3(out, 10, 0)
	syscall.Close(p[1])
	<-drained
	fmt.Fprintf(os.Stderr, "redirect writes %d pipe-lines %d\n", writes.Load(), pipeLines.Load())
}
