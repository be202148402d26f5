// The pipe benchmark: how fast bytes go from one goroutine to another through a pipe.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// runPipe sends mb MiB through an os.Pipe — written in fileChunk calls by one goroutine, read
// in fileChunk calls by another — and reports the rate (MiB/s) as pipe_mbps. Go sets both ends
// non-blocking and parks the goroutines in its netpoller when the pipe is full or empty, so a
// 64 KiB pipe (Linux's default capacity, and gmpos's) makes each side wait on the other about
// mb × 16 times: the figure is the kernel's copies in and out plus those hand-offs.
func runPipe(mb int) {
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Println("FAIL pipe:", err)
		return
	}
	defer r.Close()
	src := make([]byte, fileChunk)
	for i := range src {
		src[i] = byte(i * 7)
	}
	werr := make(chan error, 1)
	t0 := time.Now()
	go func() {
		for range mb {
			if _, err := w.Write(src); err != nil {
				werr <- err
				return
			}
		}
		werr <- w.Close()
	}()
	dst := make([]byte, fileChunk)
	total, sum := 0, 0
	for {
		n, err := r.Read(dst)
		total += n
		for _, b := range dst[:min(n, 64)] { // a few bytes checked: the copies move the right data
			sum += int(b)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("FAIL pipe:", err)
			return
		}
	}
	el := time.Since(t0)
	if err := <-werr; err != nil || total != mb*fileChunk || sum == 0 {
		fmt.Printf("FAIL pipe: read %d bytes of %d (writer: %v)\n", total, mb*fileChunk, err)
		return
	}
	report("pipe_mbps", float64(mb)/el.Seconds(), "MiB/s")
}
