// The wake-up latency benchmark: how long a woken thread waits for a core while others spin.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"runtime"
	"sort"
	"sync/atomic"
	"time"
	_ "unsafe" // go:linkname
)

// The runtime's TestPreemptionAfterSyscall, as a measurement: goroutines that spend their lives
// in spinning "system calls" (entersyscall; busy; exitsyscall — the runtime's fakeSyscall), so
// that sysmon retakes their Ps and there are more busy threads than cores, while main, woken by
// channel sends, must get a P and a core to stop them. Every step of that is a thread woken on
// a core another thread is spinning on: the figure is the operating system's wake-up latency
// times the number of hand-offs. Linux's scheduler lets a woken thread preempt one that has run
// its wake-up granularity (~1 ms); a policy that waits for the running thread's time slice
// multiplies the slice instead (docs: README "Benchmarks").

//go:linkname entersyscall runtime.entersyscall
func entersyscall()

//go:linkname exitsyscall runtime.exitsyscall
func exitsyscall()

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// fakeSyscall is the runtime's (export_test.go): no stack growth between entersyscall and
// exitsyscall, hence nosplit and nanotime.
//
//go:nosplit
func fakeSyscall(ns int64) {
	entersyscall()
	for start := nanotime(); nanotime()-start < ns; {
	}
	exitsyscall()
}

// syscallPreempt runs rounds of the test at GOMAXPROCS 2 with 8 goroutines and 100 µs calls and
// returns the median and the worst round in ms.
func syscallPreempt(rounds int) (median, worst float64) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const nroutines = 8
	var took []float64
	for i := 0; i < rounds; i++ {
		c := make(chan bool, nroutines)
		var stop atomic.Uint32
		t0 := time.Now()
		for g := 0; g < nroutines; g++ {
			go func() {
				c <- true
				for stop.Load() == 0 {
					fakeSyscall(100_000)
				}
				c <- true
			}()
		}
		for g := 0; g < nroutines; g++ {
			<-c
		}
		stop.Store(1)
		for g := 0; g < nroutines; g++ {
			<-c
		}
		took = append(took, ms(time.Since(t0)))
	}
	sort.Float64s(took)
	return took[len(took)/2], took[len(took)-1]
}
