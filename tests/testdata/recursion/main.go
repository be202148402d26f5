// Guest: deep recursion forces many goroutine stack growths (copies), on
// the main goroutine and on a fresh one.
package main

import "fmt"

// depth recurses n times with a frame big enough to matter.
func depth(n int) int {
	var buf [64]byte
	buf[n%64] = byte(n)
	if n == 0 {
		return int(buf[0])
	}
	return depth(n-1) + 1 + int(buf[n%64]) - int(byte(n))
}

func main() {
	const n = 1_000_000 // ~100+ MiB of stack
	fmt.Println("main depth", depth(n))
	done := make(chan int)
	go func() { done <- depth(n / 2) }()
	fmt.Println("goroutine depth", <-done)
}
