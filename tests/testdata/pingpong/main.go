// pingpong: two goroutines locked to their threads (runtime.LockOSThread) pass a token back and
// forth, so that every hand-off is a futex wake of a thread on another core, then nanosleep's
// timer slack is measured: the shortest of 20 one-microsecond sleeps, with the default slack and
// with PR_SET_TIMERSLACK 1 ns.
package main

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
)

const (
	prSetTimerslack = 29
	prGetTimerslack = 30
)

func main() {
	const n = 2000
	ping, pong := make(chan int), make(chan int)
	go func() {
		runtime.LockOSThread()
		for v := range ping {
			pong <- v + 1
		}
	}()
	runtime.LockOSThread()
	sum := 0
	for i := 0; i < n; i++ {
		ping <- i
		sum += <-pong - i
	}
	close(ping)
	fmt.Printf("pingpong %d round trips ok: %v\n", n, sum == n)

	fmt.Printf("shortest nanosleep(1µs): %d µs\n", shortestSleep().Microseconds())
	if _, _, e := syscall.Syscall6(syscall.SYS_PRCTL, prSetTimerslack, 1, 0, 0, 0, 0); e != 0 {
		fmt.Println("PR_SET_TIMERSLACK:", e)
	}
	s, _, _ := syscall.Syscall6(syscall.SYS_PRCTL, prGetTimerslack, 0, 0, 0, 0, 0)
	fmt.Printf("timer slack now %d ns\n", s)
}

// shortestSleep is the shortest of 20 nanosleeps of one microsecond.
func shortestSleep() time.Duration {
	best := time.Hour
	ts := syscall.Timespec{Nsec: 1000}
	for range 20 {
		t0 := time.Now()
		syscall.Nanosleep(&ts, nil)
		best = min(best, time.Since(t0))
	}
	return best
}
