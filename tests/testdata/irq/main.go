// irq drives the gmpos kernel's device-interrupt path end to end with the board's test source
// (on the PC, the RTC's periodic interrupt through the I/O APIC): gmpos_info(infoIRQTest, n, hz)
// parks the calling thread until the kernel's interrupt handler has counted n interrupts, and
// the handler wakes it — the same path a network card's interrupt will take to a waiting thread.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const (
	sysGmposInfo = 0x6d70
	infoIRQTest  = 6
	infoIRQStats = 7
)

// stats returns the test source's line, its rate, the last test's duration and the per-line
// interrupt counts.
func stats() (line, rate, ns uint64, counts []uint64) {
	var st [3 + 64]uint64
	syscall.Syscall(sysGmposInfo, infoIRQStats, uintptr(unsafe.Pointer(&st[0])), uintptr(len(st)))
	return st[0], st[1], st[2], st[3:]
}

func main() {
	const n, hz = 64, 1024
	line, _, _, before := stats()
	if line >= 64 {
		fmt.Println("no test interrupt source")
		os.Exit(1)
	}
	// While this thread is parked in the kernel, another goroutine must keep running: the wait
	// gives its core away instead of spinning.
	var spins atomic.Int64
	stop := make(chan bool)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				spins.Add(1)
				runtime.Gosched()
			}
		}
	}()
	busy := make(chan syscall.Errno, 1)
	go func() { // a second test while one runs is refused
		time.Sleep(10 * time.Millisecond)
		_, _, e := syscall.Syscall(sysGmposInfo, infoIRQTest, 1, hz)
		busy <- e
	}()
	// The wait is interruptible, as a Linux wait without SA_RESTART semantics: a signal meant
	// for this thread (the runtime's SIGURG preemption, sent just before it entered the call)
	// ends it with EINTR, and the caller starts again, as Linux callers do.
	r, _, e := syscall.Syscall(sysGmposInfo, infoIRQTest, n, hz)
	for i := 0; e == syscall.EINTR && i < 10; i++ {
		r, _, e = syscall.Syscall(sysGmposInfo, infoIRQTest, n, hz)
	}
	during := spins.Load()
	close(stop)
	_, rate, ns, after := stats()
	fmt.Printf("waited for %d interrupts: got %d (errno %d)\n", n, r, e)
	fmt.Printf("handler counted them on the line: %v\n", after[line]-before[line] >= n)
	// Spread over time, not delivered at once: at least half the periods the interrupts need,
	// as measured by the kernel's clock — whose calibration against the PIT at boot can be off by
	// several percent on a loaded host, so an exact bound would test the host, not the kernel.
	fmt.Printf("they took at least %d periods: %v\n", (n-1)/2, rate > 0 && ns >= (n-1)/2*1_000_000_000/rate)
	fmt.Printf("another goroutine ran meanwhile: %v\n", during > 0)
	fmt.Printf("a second concurrent test: %v\n", <-busy)
	r, _, e = syscall.Syscall(sysGmposInfo, infoIRQTest, 8, hz)
	fmt.Printf("again: got %d (errno %d)\n", r, e)
}
