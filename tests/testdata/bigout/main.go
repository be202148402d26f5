// bigout: console output at volume — throughput, order and the timers beside it.
//
//	bulk MB         write MB megabytes (10^6 bytes) to stdout, 1 MiB a call; then, on stderr, their
//	                count and SHA-256 and the rate of the writes
//	interleave N    N lines alternately on stdout and stderr: "out I" and "err I"
//	sleep MB        write MB megabytes to stdout in another goroutine while main sleeps 10 ms
//	                at a time; then, on stderr, the longest and the median sleep
//	fault MB        write MB megabytes to stderr, then make the gmpos kernel fault (its
//	                gmpos_info system call, request 3): its report must follow them
//	writers N       4 threads write N lines each at once, with write(2) itself (os.File would
//	                serialise them), 2 on stdout and 2 on stderr; every 16th line is 20 KiB
//	                (writers.go says the format). Then 2 threads write N lines each to fd 10
//	                while a third points fd 10 at a pipe and back at stdout again and again
//	                (dup3); on stderr, how many writes succeeded and how many lines the pipe got
//
// The data is a fixed pseudo-random MiB, each 64 KiB of it preceded by its index, so that a
// lost, doubled or reordered piece changes the hash (pattern returns it).
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"os"
	"sort"
	"strconv"
	"syscall"
	"time"
)

func main() {
	n, _ := strconv.Atoi(os.Args[2])
	switch os.Args[1] {
	case "bulk":
		h := sha256.New()
		total, took := write(os.Stdout, int64(n)*1e6, h)
		fmt.Fprintf(os.Stderr, "bulk %d bytes sha256 %x write-mbps %.1f\n", total, h.Sum(nil), mbps(total, took))
	case "interleave":
		for i := 0; i < n; i++ {
			fmt.Fprintf(os.Stdout, "out %d\n", i)
			fmt.Fprintf(os.Stderr, "err %d\n", i)
		}
	case "sleep":
		done := make(chan struct{})
		var total int64
		var took time.Duration
		go func() {
			total, took = write(os.Stdout, int64(n)*1e6, nil)
			close(done)
		}()
		var sleeps []time.Duration
		for running := true; running; {
			t0 := time.Now()
			time.Sleep(10 * time.Millisecond)
			sleeps = append(sleeps, time.Since(t0))
			select {
			case <-done:
				running = false
			default:
			}
		}
		sort.Slice(sleeps, func(i, j int) bool { return sleeps[i] < sleeps[j] })
		fmt.Fprintf(os.Stderr, "sleep worst %.1f ms median %.1f ms n %d; write %d bytes write-mbps %.1f\n",
			ms(sleeps[len(sleeps)-1]), ms(sleeps[len(sleeps)/2]), len(sleeps), total, mbps(total, took))
	case "writers":
		writers(n)
		redirect(n)
	case "fault":
		write(os.Stderr, int64(n)*1e6, nil)
		syscall.Syscall(0x6d70, 3, 0, 0) // gmpos_info(infoFault, read an unmapped address)
		fmt.Println("the kernel survived its own fault")
	}
}

// write writes n bytes of the pattern to f in 1 MiB calls, adding them to h (if not nil), and
// returns how many it wrote and the time spent in Write.
func write(f *os.File, n int64, h hash.Hash) (int64, time.Duration) {
	block := make([]byte, 1<<20)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range block {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		block[i] = byte(x)
	}
	var took time.Duration
	var total int64
	for piece := uint64(0); total < n; {
		b := block[:min(int64(len(block)), n-total)]
		for off := 0; off+8 <= len(b); off += 64 << 10 {
			binary.LittleEndian.PutUint64(b[off:], piece)
			piece++
		}
		if h != nil {
			h.Write(b)
		}
		t0 := time.Now()
		if _, err := f.Write(b); err != nil {
			fmt.Fprintln(os.Stderr, "write:", err)
			os.Exit(1)
		}
		took += time.Since(t0)
		total += int64(len(b))
	}
	return total, took
}

func mbps(n int64, d time.Duration) float64 { return float64(n) / 1e6 / d.Seconds() }

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
