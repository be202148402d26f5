// Guest: 10,000 goroutines alive at once, all joined; results summed.
package main

import (
	"fmt"
	"runtime"
	"sync"
)

func main() {
	const n = 10000
	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make(chan int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start // all n are alive before any finishes
			results <- i
		}(i)
	}
	alive := runtime.NumGoroutine()
	close(start)
	wg.Wait()
	close(results)
	sum := 0
	for v := range results {
		sum += v
	}
	fmt.Printf("alive>=%d: %v\n", n, alive >= n)
	fmt.Printf("sum=%d want=%d\n", sum, n*(n-1)/2)
}
