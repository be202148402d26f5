// preempt checks the two kinds of preemption gmpos must support.
//
// "async": with GOMAXPROCS=1 a goroutine spins in a loop without function calls; main's
// time.Sleep can only return if the runtime preempts the spinner asynchronously — sysmon sends
// SIGURG with tgkill, and the kernel must deliver it (docs/runtime-contract.md §0 fact 4).
//
// "threads": with GOMAXPROCS=2 two goroutines locked to their own OS threads spin; on one core
// both only make progress if the kernel preempts a thread at the end of its time slice.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

var sink atomic.Uint64

func spin(stop *atomic.Bool, count *atomic.Uint64) {
	for !stop.Load() {
		count.Add(1)
	}
}

func main() {
	switch os.Args[1] {
	case "async":
		runtime.GOMAXPROCS(1)
		var stop atomic.Bool
		go func() {
			x := uint64(0)
			for !stop.Load() {
				x = x*6364136223846793005 + 1442695040888963407
			}
			sink.Store(x)
		}()
		runtime.Gosched() // let the spinner start
		t0 := time.Now()
		time.Sleep(30 * time.Millisecond)
		stop.Store(true)
		fmt.Printf("main resumed while a goroutine spun: true (slept >= 30ms: %v)\n", time.Since(t0) >= 30*time.Millisecond)
	case "threads":
		runtime.GOMAXPROCS(2)
		var stop atomic.Bool
		var a, b atomic.Uint64
		for _, c := range []*atomic.Uint64{&a, &b} {
			go func() {
				runtime.LockOSThread()
				spin(&stop, c)
			}()
		}
		time.Sleep(300 * time.Millisecond)
		stop.Store(true)
		fmt.Printf("both threads progressed: %v\n", a.Load() > 0 && b.Load() > 0)
	}
}
