// pingpong times one hand-off primitive N times and prints the mean, for the labs of
// docs/profiling.md: run it under the profiler (-profile) or the instruction counter (-plugin),
// on gmpos or natively, and compare.
//
//	go run ./qemu run ./examples/pingpong -- MODE N
//
// Modes:
//
//	chan    two goroutines pass a value back and forth over unbuffered channels: the runtime's
//	        scheduler alone (at GOMAXPROCS=1 no system call is on the path)
//	futex   the same with each goroutine locked to its own thread (runtime.LockOSThread): every
//	        hand-off is a futex wake of one thread and a futex wait of the other
//	spawn   start a goroutine and wait for it to finish
//	getpid  one system call that does nothing: the kernel's entry and exit
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pingpong chan|futex|spawn|getpid N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "pingpong: N must be a positive number")
		os.Exit(2)
	}
	var ns float64
	switch os.Args[1] {
	case "chan":
		ns = pingPong(n, false)
	case "futex":
		ns = pingPong(n, true)
	case "spawn":
		ns = spawn(n)
	case "getpid":
		ns = getpid(n)
	default:
		fmt.Fprintf(os.Stderr, "pingpong: unknown mode %q\n", os.Args[1])
		os.Exit(2)
	}
	fmt.Printf("%s %.0f ns\n", os.Args[1], ns)
}

// pingPong passes a value back and forth n times; locked: each side on its own thread.
func pingPong(n int, locked bool) float64 {
	ping, pong := make(chan int), make(chan int)
	go func() {
		if locked {
			runtime.LockOSThread()
		}
		for v := range ping {
			pong <- v
		}
	}()
	if locked {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	t0 := time.Now()
	for i := 0; i < n; i++ {
		ping <- i
		<-pong
	}
	close(ping)
	return float64(time.Since(t0).Nanoseconds()) / float64(n)
}

func spawn(n int) float64 {
	done := make(chan struct{})
	t0 := time.Now()
	for i := 0; i < n; i++ {
		go func() { done <- struct{}{} }()
		<-done
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(n)
}

func getpid(n int) float64 {
	t0 := time.Now()
	for i := 0; i < n; i++ {
		syscall.Getpid()
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(n)
}
