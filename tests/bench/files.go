// The file benchmark: how fast a program writes and reads a file in memory (/tmp) and in a
// directory shared with the host.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// fileChunk is one read or write: 1 MiB, as io.Copy's callers and bufio-less tools move data.
const fileChunk = 1 << 20

// runFiles writes mb MiB to a new file in dir in fileChunk writes, fsyncs and closes it, reads it
// back the same way, and reports both rates (MiB/s) as file_LABEL_write_mbps and
// file_LABEL_read_mbps. On gmpos, /tmp is the kernel's tmpfs (kernel/vfs: frames, copied to and
// from the program's buffers) and a -share directory is the host's, over virtio-9p (128 KiB a
// round trip); on the Linux peer /tmp is its rootfs (ramfs); natively, the host's file systems.
func runFiles(label, dir string, mb int) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Printf("FAIL files %s: %v\n", label, err)
		return
	}
	p := filepath.Join(dir, "bench-file")
	defer os.Remove(p)
	buf := make([]byte, fileChunk)
	for i := range buf {
		buf[i] = byte(i * 31)
	}
	f, err := os.Create(p)
	if err != nil {
		fmt.Printf("FAIL files %s: %v\n", label, err)
		return
	}
	t0 := time.Now()
	for range mb {
		if _, err := f.Write(buf); err != nil {
			fmt.Printf("FAIL files %s: %v\n", label, err)
			return
		}
	}
	if err := f.Sync(); err != nil {
		fmt.Printf("FAIL files %s: %v\n", label, err)
		return
	}
	f.Close()
	report("file_"+label+"_write_mbps", float64(mb)/time.Since(t0).Seconds(), "MiB/s")
	f, err = os.Open(p)
	if err != nil {
		fmt.Printf("FAIL files %s: %v\n", label, err)
		return
	}
	defer f.Close()
	t0 = time.Now()
	total := 0
	for {
		n, err := f.Read(buf)
		total += n
		if err != nil || n == 0 {
			break
		}
	}
	if total != mb*fileChunk {
		fmt.Printf("FAIL files %s: read %d bytes of %d\n", label, total, mb*fileChunk)
		return
	}
	report("file_"+label+"_read_mbps", float64(mb)/time.Since(t0).Seconds(), "MiB/s")
}
