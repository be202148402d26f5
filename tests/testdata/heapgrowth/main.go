// Guest: grow the live heap past the first 64 MiB heap arena (to 160 MiB)
// and verify every byte.
package main

import (
	"fmt"
	"runtime"
)

func main() {
	const chunk, chunks = 1 << 20, 160
	live := make([][]byte, chunks)
	for i := range live {
		live[i] = make([]byte, chunk)
		for j := 0; j < chunk; j += 4096 {
			live[i][j] = byte(i + j/4096)
		}
	}
	runtime.GC()
	bad := 0
	for i := range live {
		for j := 0; j < chunk; j += 4096 {
			if live[i][j] != byte(i+j/4096) {
				bad++
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("heap alloc>=160MiB: %v\n", ms.HeapAlloc>>20 >= chunks)
	fmt.Printf("corrupt pages: %d\n", bad)
	runtime.KeepAlive(live)
}
