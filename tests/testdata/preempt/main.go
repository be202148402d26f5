// preempt checks the two kinds of preemption gmpos must support.
//
// "async": with GOMAXPROCS=1 a goroutine spins in a loop without function calls; main's
// time.Sleep can only return if the runtime preempts the spinner asynchronously — sysmon sends
// SIGURG with tgkill, and the kernel must deliver it (docs/runtime-contract.md §0 fact 4).
//
// "threads": with GOMAXPROCS=2 two goroutines locked to their own OS threads spin; on one core
// both only make progress if the kernel preempts a thread at the end of its time slice.
//
// "wake": one thread spins while another sleeps 2 ms, 50 times, each on a thread of its own;
// it prints how many of the kernel's preemptions were wake-up preemptions (the sleeper, woken,
// preempting the spinner before its slice ended: sched/policy_gmp.go) and how long the sleeps
// took (for the log: a time, not a check).
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"gmpos/sched"
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
	case "wake":
		runtime.GOMAXPROCS(2)
		var stop atomic.Bool
		var spins atomic.Uint64
		go func() {
			runtime.LockOSThread()
			spin(&stop, &spins)
		}()
		for spins.Load() == 0 { // the spinner has the core
			runtime.Gosched()
		}
		done := make(chan time.Duration)
		go func() {
			runtime.LockOSThread()
			t0 := time.Now()
			ts := syscall.Timespec{Nsec: 2_000_000}
			for i := 0; i < 50; i++ {
				syscall.Nanosleep(&ts, nil)
			}
			done <- time.Since(t0)
		}()
		took := <-done
		stop.Store(true)
		var st [sched.NumStats]uint64
		if _, _, e := syscall.Syscall(0x6d70, 2, uintptr(unsafe.Pointer(&st[0])), uintptr(len(st))); e != 0 { // gmpos_info(infoSchedStat)
			fmt.Println("gmpos_info:", e)
			os.Exit(1)
		}
		fmt.Printf("wake-up preemptions: %v\n", st[sched.StatWakePreempt] > 0)
		fmt.Fprintf(os.Stderr, "50 sleeps of 2 ms beside a spinning thread took %v; %d wake-up preemptions of %d\n",
			took.Round(time.Millisecond), st[sched.StatWakePreempt], st[sched.StatPreempt])

	}
}
