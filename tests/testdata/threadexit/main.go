// threadexit: a goroutine that exits while locked to its OS thread takes the thread with it
// (runtime: the M exits; kernel: exit(2) of one thread). 200 such goroutines must each get a fresh
// thread and must not leak any: the kernel's thread table would fill up otherwise.
package main

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
)

func main() {
	tids := map[int]bool{}
	var mu sync.Mutex
	for round := 0; round < 20; round++ {
		var wg sync.WaitGroup
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
				mu.Lock()
				tids[syscall.Gettid()] = true
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	fmt.Printf("200 locked goroutines ran on %d distinct threads; main still alive: true\n", len(tids))
}
