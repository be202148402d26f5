// tickless counts the scheduler ticks the kernel takes while threads spin: first one goroutine
// (GOMAXPROCS=1; the runtime's sysmon still wakes up beside it), then two threads sharing the
// one core. A tick is only armed when another thread waits or something samples on it
// (kernel/timer.go tickAt), so no tick may find nothing to do; two threads that share the core
// must still be preempted for each other, once per 10 ms slice.
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

const (
	nrGmposInfo = 0x6d70
	infoTicks   = 11
	spinFor     = 400 * time.Millisecond
)

// ticks returns how many scheduler ticks the kernel has taken, and how many of them found
// nothing to do: no other thread waiting to run, nothing sampling on the tick.
func ticks() (all, lone int) {
	var v [2]uint64
	if _, _, e := syscall.RawSyscall(nrGmposInfo, infoTicks, uintptr(unsafe.Pointer(&v[0])), 2); e != 0 {
		fmt.Println("gmpos_info(ticks):", e)
		os.Exit(1)
	}
	return int(v[0]), int(v[1])
}

// spin burns CPU without system calls until d has passed (time.Now is the vDSO's).
func spin(d time.Duration) (n int) {
	for end := time.Now().Add(d); time.Now().Before(end); n++ {
	}
	return n
}

func main() {
	runtime.GOMAXPROCS(1)
	a0, l0 := ticks()
	spin(spinFor)
	a1, l1 := ticks()

	runtime.GOMAXPROCS(2)
	var wg sync.WaitGroup
	s0, sl0 := ticks()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			spin(spinFor)
		}()
	}
	wg.Wait()
	s1, sl1 := ticks()
	fmt.Printf("spinning %v alone: %d ticks, %d of them preempted nobody\n", spinFor, a1-a0, l1-l0)
	fmt.Printf("two threads sharing the core %v: %d ticks, %d of them preempted nobody\n", spinFor, s1-s0, sl1-sl0)
}
