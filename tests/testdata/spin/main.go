// spin keeps a core busy in one function (spin) for about a second while another goroutine
// spends its time in the kernel (writes to /dev/null) and sleeping, so that a whole-machine
// profile (gmpos run -profile) has program, kernel and idle time to show.
package main

import (
	"fmt"
	"os"
	"time"
)

// spin computes for d and returns a value that depends on every step (nothing to optimise away).
//
//go:noinline
func spin(d time.Duration) uint64 {
	var n uint64
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := uint64(0); i < 100_000; i++ {
			n += i ^ n>>3
		}
	}
	return n
}

// writer makes system calls: small writes to /dev/null, with short sleeps between rounds.
func writer(done <-chan struct{}) {
	f, err := os.OpenFile("/dev/null", os.O_WRONLY, 0)
	if err != nil {
		panic(err)
	}
	buf := make([]byte, 64)
	for {
		select {
		case <-done:
			return
		default:
		}
		for i := 0; i < 1000; i++ {
			f.Write(buf)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func main() {
	done := make(chan struct{})
	go writer(done)
	n := spin(time.Second)
	close(done)
	time.Sleep(100 * time.Millisecond) // an idle stretch
	fmt.Println("spun", n != 0)
}
