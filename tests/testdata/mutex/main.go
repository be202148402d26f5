// Guest: sync.Mutex under contention from many goroutines, plus RWMutex and atomics.
package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

func main() {
	const workers, iters = 16, 20000
	var mu sync.Mutex
	var rw sync.RWMutex
	var counter, reads int
	var atomicCounter atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < iters; i++ {
				mu.Lock()
				counter++
				if i%1000 == 0 {
					runtime.Gosched() // yield while holding the lock: others must queue
				}
				mu.Unlock()
				atomicCounter.Add(1)
				if i%100 == 0 {
					rw.RLock()
					_ = counter
					rw.RUnlock()
					rw.Lock()
					reads++
					rw.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	fmt.Printf("counter=%d atomic=%d rwwrites=%d want=%d,%d\n", counter, atomicCounter.Load(), reads, workers*iters, workers*iters/100)
}
