// Guest: channel and select semantics, including timers.
package main

import (
	"fmt"
	"time"
)

func main() {
	// Unbuffered hand-off in both directions.
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	v := 0
	for i := 0; i < 1000; i++ {
		ping <- v
		v = <-pong
	}
	close(ping)
	_, ok := <-pong
	fmt.Println("pingpong", v, "closed", !ok)

	// Buffered channel keeps FIFO order.
	b := make(chan int, 8)
	for i := 0; i < 8; i++ {
		b <- i
	}
	order := true
	for i := 0; i < 8; i++ {
		order = order && <-b == i
	}
	fmt.Println("fifo", order)

	// Non-blocking select takes default.
	select {
	case x := <-b:
		fmt.Println("unexpected", x)
	default:
		fmt.Println("default taken")
	}

	// Select with a timer: the timer fires, the nil channel never does.
	var never chan int
	start := time.Now()
	select {
	case <-never:
		fmt.Println("nil channel fired")
	case <-time.After(20 * time.Millisecond):
		fmt.Println("timeout fired, at least 20ms:", time.Since(start) >= 20*time.Millisecond)
	}

	// Fan-in over select from several producers.
	a, c := make(chan int), make(chan int)
	for _, ch := range []chan int{a, c} {
		go func(ch chan int) {
			for i := 0; i < 500; i++ {
				ch <- 1
			}
			close(ch)
		}(ch)
	}
	total := 0
	for a != nil || c != nil {
		select {
		case x, ok := <-a:
			if !ok {
				a = nil
				continue
			}
			total += x
		case x, ok := <-c:
			if !ok {
				c = nil
				continue
			}
			total += x
		}
	}
	fmt.Println("fan-in", total)

	// A ticker delivers repeatedly; Stop stops it.
	tk := time.NewTicker(5 * time.Millisecond)
	for i := 0; i < 3; i++ {
		<-tk.C
	}
	tk.Stop()
	fmt.Println("ticker 3 ticks")
}
