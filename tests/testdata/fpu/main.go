// fpu checks that every thread keeps its own x87/SSE state (FP/SIMD state on arm64): two
// goroutines locked to their own OS threads run long floating-point loops on one core
// (GOMAXPROCS=2), so the kernel preempts one thread for the other many times mid-computation. If
// it failed to save and restore the XMM (V) registers of each thread, results would differ from
// the same loops run alone first. The loops use only a few low registers: the x87 mode
// (x87_amd64.go) and the fpsimd mode (fpsimd_arm64.go) check the rest of each thread's state.
//
// Run it with GODEBUG=asyncpreemptoff=1: otherwise the runtime's own SIGURG preemption saves the
// registers itself (asyncPreempt) before the threads trade places, and a kernel that forgot
// FXRSTOR would still pass.
package main

import (
	"fmt"
	"math"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// work mixes additions, multiplications, divisions and square roots so that intermediate values
// live in XMM registers across many instructions.
func work(seed float64, n int) float64 {
	x, acc := seed, 0.0
	for i := 1; i <= n; i++ {
		x = math.Sqrt(x*1.0000001+float64(i)) / (1 + 1/float64(i))
		acc += x / (seed + float64(i%7))
	}
	return acc
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "signals" {
		signals()
		return
	}
	if len(os.Args) > 1 && os.Args[1] == stateMode { // x87 (x87_amd64.go), fpsimd (fpsimd_arm64.go)
		threadState()
		return
	}
	const n = 3_000_000
	seeds := []float64{1.5, 2.75}
	want := make([]float64, len(seeds))
	for i, s := range seeds {
		want[i] = work(s, n)
	}
	runtime.GOMAXPROCS(2)
	got := make([]float64, len(seeds))
	var wg sync.WaitGroup
	for i, s := range seeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			got[i] = work(s, n)
		}()
	}
	wg.Wait()
	same := true
	for i := range seeds {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			same = false
			fmt.Printf("thread %d: got %v, want %v\n", i, got[i], want[i])
		}
	}
	fmt.Printf("results identical under preemption: %v\n", same)
}

// signals: the computing thread is interrupted by SIGUSR1 every 200 µs (tgkill from another
// thread). The runtime's handler runs Go code on that thread and returns through rt_sigreturn, so
// the kernel must build the signal frame and restore the whole context from it mid-computation
// (a mutation that zeroes R12-R15 on rt_sigreturn crashes this program). What it cannot show is the
// XMM part of that restore: Go's signal path happens not to touch the registers this loop uses
// (on arm64 neither: a kernel that restored no V register from the frame still passes it).
func signals() {
	const n = 3_000_000
	want := work(2.5, n)
	c := make(chan os.Signal, 64)
	signal.Notify(c, syscall.SIGUSR1)
	var got atomic.Uint64
	var tid atomic.Int64
	var done atomic.Bool
	var sent, received atomic.Int64
	go func() {
		for range c {
			received.Add(1)
		}
	}()
	go func() {
		runtime.LockOSThread()
		tid.Store(int64(syscall.Gettid()))
		got.Store(math.Float64bits(work(2.5, n)))
		done.Store(true)
	}()
	for tid.Load() == 0 {
		runtime.Gosched()
	}
	for !done.Load() {
		syscall.Tgkill(syscall.Getpid(), int(tid.Load()), syscall.SIGUSR1)
		sent.Add(1)
		time.Sleep(200 * time.Microsecond)
	}
	fmt.Printf("signals delivered during the loop: %v; result identical: %v\n",
		sent.Load() > 10, got.Load() == math.Float64bits(want))
}
