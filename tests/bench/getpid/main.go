// Benchmark guest: system call round trip (getpid: no work in the kernel).
package main

import (
	"fmt"
	"syscall"
	"time"
)

func main() {
	const n = 200000
	pid := syscall.Getpid()
	t0 := time.Now()
	for i := 0; i < n; i++ {
		if syscall.Getpid() != pid {
			panic("getpid changed")
		}
	}
	d := time.Since(t0)
	fmt.Printf("BENCH syscall_getpid %.0f ns/op\n", float64(d.Nanoseconds())/n)
}
