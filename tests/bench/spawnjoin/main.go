// Benchmark guest: spawn a goroutine and wait for it to finish, repeatedly.
package main

import (
	"fmt"
	"time"
)

func main() {
	const n = 100000
	done := make(chan struct{})
	t0 := time.Now()
	for i := 0; i < n; i++ {
		go func() { done <- struct{}{} }()
		<-done
	}
	d := time.Since(t0)
	fmt.Printf("BENCH goroutine_spawn_join %.0f ns/op\n", float64(d.Nanoseconds())/n)
}
