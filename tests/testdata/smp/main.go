// smp runs one CPU-bound goroutine per core and then asks the kernel (gmpos_info request 5) how
// many threads each core started: with one P per core and work stealing, every core must have run
// threads, and the runtime must see every core (NumCPU, GOMAXPROCS).
package main

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

const (
	sysGmposInfo = 0x6d70
	infoCPUs     = 5
)

func main() {
	n := runtime.NumCPU()
	fmt.Printf("NumCPU=%d GOMAXPROCS=%d\n", n, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	sums := make([]uint64, 4*n)
	for w := 0; w < 4*n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			x := uint64(w)
			for i := 0; i < 20_000_000; i++ {
				x = x*6364136223846793005 + 1442695040888963407
			}
			sums[w] = x
		}(w)
	}
	wg.Wait()
	var runs [16]uint64
	r, _, e := syscall.Syscall(sysGmposInfo, infoCPUs, uintptr(unsafe.Pointer(&runs[0])), uintptr(len(runs)))
	if e != 0 {
		fmt.Println("gmpos_info:", e)
		return
	}
	all := true
	for i := 0; i < int(r); i++ {
		if runs[i] == 0 {
			all = false
		}
	}
	fmt.Printf("kernel cores=%d, every core ran threads: %v\n", r, all)
}
