// faultsig: one thread dereferences nil over and over (each fault is a SIGSEGV the Go runtime
// turns into a recovered panic) while another thread keeps sending it SIGUSR1, a lower-numbered
// signal. When both are pending at once the fault's signal must still arrive with its siginfo
// (SEGV_MAPERR, the address): Linux delivers synchronous signals first. A kernel that delivered
// SIGUSR1 first and lost the fault's details made the runtime see a SIGSEGV "sent by kill",
// which is fatal.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
)

var sink *int

func fault() (recovered bool) {
	defer func() { recovered = recover() != nil }()
	_ = *sink
	return false
}

func main() {
	const faults = 20000
	tid := make(chan int)
	var done atomic.Bool
	var sent atomic.Int64
	go func() {
		runtime.LockOSThread()
		tid <- syscall.Gettid()
		for i := 0; i < faults; i++ {
			if !fault() {
				fmt.Println("a fault was not recovered")
				os.Exit(1)
			}
		}
		done.Store(true)
	}()
	t := <-tid
	go func() {
		runtime.LockOSThread()
		for !done.Load() {
			syscall.Tgkill(os.Getpid(), t, syscall.SIGUSR1)
			sent.Add(1)
		}
	}()
	for !done.Load() {
		runtime.Gosched()
	}
	fmt.Printf("%d faults recovered while SIGUSR1 arrived: %v\n", faults, sent.Load() > 0)
}
