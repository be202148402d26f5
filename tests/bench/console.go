// The console benchmark: how fast the program's stdout goes, and what it does to timers.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"bytes"
	"os"
	"slices"
	"time"
)

// consoleChunk is one write: 64 lines of 1 KiB, "~" and filler, which benchrun counts and drops
// (its lineLog) — a bufio.Writer's worth, as programs that print a lot write.
const consoleChunk = 64 << 10

// runConsole writes mb megabytes (10^6 bytes) to stdout, consoleChunk a call, while another
// goroutine sleeps 10 ms at a time, and reports the write rate (bytes over the time the writes
// took, MB/s) and the longest and median of the sleeps (ms). On gmpos the bytes go through the
// virtio console (they went through a 16550 UART at 0.3 MB/s before it, with interrupts off: a
// 10 ms sleep beside a large write took seconds); natively into a pipe to benchrun; on the Linux
// peer to its serial console (ttyS0).
func runConsole(mb int) {
	line := append([]byte{'~'}, bytes.Repeat([]byte("0123456789abcdef"), 64)[:1022]...)
	line = append(line, '\n')
	chunk := bytes.Repeat(line, consoleChunk/len(line))
	stop, stopped := make(chan struct{}), make(chan []float64)
	go func() {
		var sleeps []float64
		for {
			t0 := time.Now()
			time.Sleep(10 * time.Millisecond)
			sleeps = append(sleeps, ms(time.Since(t0)))
			select {
			case <-stop:
				stopped <- sleeps
				return
			default:
			}
		}
	}()
	n := int64(mb) * 1e6 / int64(len(line)) * int64(len(line)) // whole lines: the next is a BENCH line
	t0 := time.Now()
	for w := int64(0); w < n; {
		c := chunk[:min(int64(len(chunk)), n-w)]
		if _, err := os.Stdout.Write(c); err != nil {
			report("console_write_failed", 1, "error")
			return
		}
		w += int64(len(c))
	}
	took := time.Since(t0)
	close(stop)
	sleeps := <-stopped
	slices.Sort(sleeps)
	report("console_write_mbps", float64(n)/1e6/took.Seconds(), "MB/s")
	report("console_sleep_worst", sleeps[len(sleeps)-1], "ms")
	report("console_sleep_median", sleeps[len(sleeps)/2], "ms")
}
