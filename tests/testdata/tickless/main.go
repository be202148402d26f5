// tickless counts the scheduler ticks the kernel takes while threads spin: first one goroutine
// (GOMAXPROCS=1; the runtime's sysmon still wakes up beside it), then two threads sharing the
// one core. A tick is only armed when another thread waits or something samples on it
// (kernel/timer.go tickAt), so no tick may find nothing to do; two threads that share the core
// must still be preempted for each other, once per 10 ms slice. Last, two threads hand a token
// back and forth (futex ping-pong): the deadline moves at every switch, and the kernel must not
// write the timer each time (kernel/timer.go armTimer).
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
	roundTrips  = 2000
)

// counts returns how many scheduler ticks the kernel has taken, how many of them found nothing
// to do (no other thread waiting to run, nothing sampling on the tick), how many times it has
// written a core's timer, and how many timer interrupts came before anything was due.
func counts() (all, lone, writes, early int) {
	var v [4]uint64
	if _, _, e := syscall.RawSyscall(nrGmposInfo, infoTicks, uintptr(unsafe.Pointer(&v[0])), 4); e != 0 {
		fmt.Println("gmpos_info(ticks):", e)
		os.Exit(1)
	}
	return int(v[0]), int(v[1]), int(v[2]), int(v[3])
}

func ticks() (all, lone int) {
	all, lone, _, _ = counts()
	return all, lone
}

// pingPong passes a token n times there and back between two goroutines, each locked to its own
// thread: every hop is a futex wake of one thread and a futex wait of the other.
func pingPong(n int) {
	ping, pong := make(chan struct{}), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		for range ping {
			pong <- struct{}{}
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for range n {
		ping <- struct{}{}
		<-pong
	}
	close(ping)
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

	runtime.GOMAXPROCS(1)
	_, _, w0, e0 := counts()
	pingPong(roundTrips)
	_, _, w1, e1 := counts()
	fmt.Printf("thread ping-pong, %d round trips: %d timer writes, %d early timer interrupts\n", roundTrips, w1-w0, e1-e0)

	// The shared phase again, one of the two threads making system calls as fast as it can:
	// every way out of the kernel must leave its slice's end in place, not put it off.
	runtime.GOMAXPROCS(2)
	c0, cl0 := ticks()
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			if i == 0 {
				spin(spinFor)
				return
			}
			for end := time.Now().Add(spinFor); time.Now().Before(end); {
				syscall.RawSyscall(syscall.SYS_GETPID, 0, 0, 0)
			}
		}()
	}
	wg.Wait()
	c1, cl1 := ticks()
	fmt.Printf("a thread in system calls sharing the core %v: %d ticks, %d of them preempted nobody\n", spinFor, c1-c0, cl1-cl0)
}
