// Benchmark guest: ping-pong between two goroutines locked to their own
// threads (runtime.LockOSThread). Every hop parks one thread and wakes the
// other, i.e. a futex wait/wake pair in each direction per round trip.
package main

import (
	"fmt"
	"runtime"
	"time"
)

func main() {
	const n, warm = 2000, 100
	ping, pong := make(chan struct{}), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		for range ping {
			pong <- struct{}{}
		}
	}()
	runtime.LockOSThread()
	for i := 0; i < warm; i++ {
		ping <- struct{}{}
		<-pong
	}
	t0 := time.Now()
	for i := 0; i < n; i++ {
		ping <- struct{}{}
		<-pong
	}
	d := time.Since(t0)
	fmt.Printf("BENCH futex_pingpong %.0f ns/roundtrip\n", float64(d.Nanoseconds())/n)
}
