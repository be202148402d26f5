// Guest: time.Sleep accuracy. Prints one line per duration: requested and
// measured (monotonic clock). The test asserts only that no sleep returns
// early (Go's guarantee) and reports the error.
package main

import (
	"fmt"
	"time"
)

func main() {
	for _, d := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond, 200 * time.Millisecond} {
		const rounds = 5
		var worst, total time.Duration
		for i := 0; i < rounds; i++ {
			t0 := time.Now()
			time.Sleep(d)
			got := time.Since(t0)
			total += got
			if got < d {
				fmt.Printf("EARLY sleep %v returned after %v\n", d, got)
			}
			worst = max(worst, got)
		}
		fmt.Printf("sleep %v mean %v worst %v\n", d, total/rounds, worst)
	}
}
