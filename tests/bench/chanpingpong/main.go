// Benchmark guest: unbuffered channel ping-pong between two ordinary
// goroutines (scheduler hand-off, no system call on the fast path).
package main

import (
	"fmt"
	"time"
)

func main() {
	const n = 200000
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	t0 := time.Now()
	for i := 0; i < n; i++ {
		ping <- i
		<-pong
	}
	d := time.Since(t0)
	fmt.Printf("BENCH chan_pingpong %.0f ns/roundtrip\n", float64(d.Nanoseconds())/n)
}
