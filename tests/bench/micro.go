// The micro-benchmarks: thread and goroutine hand-offs, goroutine creation, a system call, a
// mapping's life, and the wake-up latency under spinning threads (wakeup.go).
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"runtime"
	"syscall"
	"time"
)

func runMicro(scale float64) {
	n := func(base int) int { return max(1, int(float64(base)*scale)) }
	report("futex_pingpong", futexPingPong(n(2000)), "ns/roundtrip")
	report("chan_pingpong", chanPingPong(n(200000)), "ns/roundtrip")
	report("goroutine_spawn_join", spawnJoin(n(100000)), "ns/op")
	report("syscall_getpid", getpid(n(200000)), "ns/op")
	report("mmap_touch_munmap", mmapMunmap(n(5000)), "ns/op")
	med, worst := syscallPreempt(n(20))
	report("syscall_preempt_median", med, "ms/round")
	report("syscall_preempt_worst", worst, "ms/round")
}

// futexPingPong bounces a token between two goroutines locked to their own threads
// (runtime.LockOSThread): every hop parks one thread and wakes the other, a futex wait/wake
// pair in each direction per round trip.
func futexPingPong(n int) float64 {
	ping, pong := make(chan struct{}), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for range ping {
			pong <- struct{}{}
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(ping)
	for i := 0; i < 100; i++ { // warm up: both threads exist and have run
		ping <- struct{}{}
		<-pong
	}
	t0 := time.Now()
	for i := 0; i < n; i++ {
		ping <- struct{}{}
		<-pong
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(n)
}

// chanPingPong: the same over unbuffered channels between ordinary goroutines — a scheduler
// hand-off with no system call on the fast path.
func chanPingPong(n int) float64 {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	defer close(ping)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		ping <- i
		<-pong
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(n)
}

// spawnJoin starts a goroutine and waits for it to finish, n times.
func spawnJoin(n int) float64 {
	done := make(chan struct{})
	t0 := time.Now()
	for i := 0; i < n; i++ {
		go func() { done <- struct{}{} }()
		<-done
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(n)
}

// getpid is a system call round trip with no work in the kernel.
func getpid(n int) float64 {
	pid := syscall.Getpid()
	t0 := time.Now()
	for i := 0; i < n; i++ {
		if syscall.Getpid() != pid {
			panic("getpid changed")
		}
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(n)
}

// mmapMunmap maps 16 pages, writes one word to each, and unmaps them, n times: three system
// calls and 16 page faults per op, and on several cores a TLB shootdown per munmap. Only this
// goroutine runs, so the other cores idle meanwhile: a kernel that interrupts them for the
// shootdown (rather than flushing as they wake) pays for waking each one.
func mmapMunmap(n int) float64 {
	const size = 16 << 12
	t0 := time.Now()
	for i := 0; i < n; i++ {
		b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			panic(err)
		}
		for p := 0; p < size; p += 4096 {
			b[p] = byte(i)
		}
		if err := syscall.Munmap(b); err != nil {
			panic(err)
		}
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(n)
}
