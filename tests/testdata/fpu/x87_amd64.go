package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func x87Push(cw uint16, v float64)
func x87Peek() (cw uint16, v float64)
func x87Pop()

// stateMode is threadState's mode on the command line.
const stateMode = "x87"

// threadState (mode x87): two threads locked to their goroutines share the core (GOMAXPROCS=2
// on one vCPU), each with its own x87 control word and a value of its own on the x87 stack, and
// trade places through sched_yield, short sleeps and signals while the other thread keeps
// trapping with getpid. The kernel's entry saves only the SSE registers and leaves the x87 state
// in the registers until a thread switch or a signal frame needs it (kernel/arch/amd64 fpu.go):
// a switch that failed to write it back would hand one thread the other's x87 state, or a stale
// one.
func threadState() {
	runtime.GOMAXPROCS(2)
	c := make(chan os.Signal, 64)
	signal.Notify(c, syscall.SIGUSR1)
	go func() {
		for range c {
		}
	}()
	const rounds = 3000
	var wg sync.WaitGroup
	var bad, signals atomic.Int64
	var first atomic.Value
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			cw := uint16(0x37f | (i+1)<<10) // rounding control 01 or 10: not the initial 00
			v := 1000.25 * float64(i+1)
			x87Push(cw, v)
			defer x87Pop()
			for n := range rounds {
				switch n % 4 {
				case 0:
					syscall.Getpid() // a trap that resumes the same thread
				case 1:
					syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) // a switch to the other
				case 2:
					if n%64 == 2 {
						time.Sleep(20 * time.Microsecond)
					}
				case 3:
					if n%16 == 3 { // a signal frame and rt_sigreturn on this thread
						syscall.Tgkill(syscall.Getpid(), syscall.Gettid(), syscall.SIGUSR1)
						signals.Add(1)
					}
				}
				if gcw, gv := x87Peek(); gcw != cw || gv != v {
					if bad.Add(1) == 1 {
						first.Store(fmt.Sprintf("thread %d round %d: cw %#x value %v, want cw %#x value %v", i, n, gcw, gv, cw, v))
					}
				}
			}
		}()
	}
	wg.Wait()
	if s, ok := first.Load().(string); ok {
		fmt.Println(s)
	}
	fmt.Printf("x87 state kept: %v (%d signals)\n", bad.Load() == 0, signals.Load())
}
