// The default gmpos demo (`make qemu`): an ordinary Go program exercising
// goroutines, channels, select with timers, the garbage collector and a
// recovered panic. Only kernelstats.go knows about gmpos: at the end it asks
// the kernel how the scheduler used the cores (and stays silent elsewhere).
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// bootClock reads CLOCK_BOOTTIME: under gmpos the time since the kernel's
// clock started at boot, so at the top of main it is the boot-to-main
// time; on Linux it is the machine's uptime.
func bootClock() time.Duration {
	var ts syscall.Timespec
	const clockBoottime = 7
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockBoottime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return -1
	}
	return time.Duration(ts.Nano())
}

func main() {
	atMain := bootClock()
	start := time.Now()
	fmt.Printf("hello from %s: main reached %v after boot (CLOCK_BOOTTIME), GOMAXPROCS=%d\n",
		os.Args[0], atMain.Round(time.Microsecond), runtime.GOMAXPROCS(0))

	// Goroutines and channels: a pipeline of three stages.
	nums := make(chan int)
	squares := make(chan int)
	go func() {
		for i := 1; i <= 100; i++ {
			nums <- i
		}
		close(nums)
	}()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range nums {
				squares <- n * n
			}
		}()
	}
	go func() { wg.Wait(); close(squares) }()
	sum := 0
	for s := range squares {
		sum += s
	}
	fmt.Printf("pipeline: sum of squares 1..100 = %d (4 workers)\n", sum)

	// Select with timers: a ticker, a deadline and a result racing.
	result := make(chan string)
	go func() {
		time.Sleep(35 * time.Millisecond)
		result <- "worker done"
	}()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	ticks := 0
wait:
	for {
		select {
		case r := <-result:
			fmt.Printf("select: %s after %d ticks\n", r, ticks)
			break wait
		case <-tick.C:
			ticks++
		case <-time.After(time.Second):
			fmt.Println("select: deadline (should not happen)")
			break wait
		}
	}

	// Garbage collection: churn 64 MiB, keep a little.
	var ms runtime.MemStats
	keep := make([][]byte, 0, 16)
	for i := 0; i < 1024; i++ {
		b := make([]byte, 64<<10)
		if i%64 == 0 {
			keep = append(keep, b)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	fmt.Printf("gc: %d cycles, %d MiB allocated in total, %d MiB in use, kept %d buffers\n",
		ms.NumGC, ms.TotalAlloc>>20, ms.HeapInuse>>20, len(keep))

	// A nil-pointer dereference is a hardware fault; the kernel turns it
	// into SIGSEGV, and the Go runtime into a panic that recover catches.
	func() {
		defer func() { fmt.Printf("recovered: %v\n", recover()) }()
		var p *struct{ x int }
		fmt.Println(p.x)
	}()

	fmt.Printf("done in %v\n", time.Since(start).Round(time.Millisecond))
	kernelStats()
}
