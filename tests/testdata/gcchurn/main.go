// Guest: allocate ≥256 MiB in short-lived objects while keeping a small,
// checksummed live set; the GC must run and must not corrupt live data.
package main

import (
	"fmt"
	"runtime"
)

type node struct {
	next *node
	val  int
	pad  [48]byte
}

func main() {
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	// Live set: a linked list whose checksum is verified at the end.
	var head *node
	for i := 0; i < 10000; i++ {
		head = &node{next: head, val: i}
	}
	var sink [][]byte
	for i := 0; i < 4400; i++ { // 4400 × 64 KiB = 275 MiB
		b := make([]byte, 64<<10)
		b[i%len(b)] = byte(i)
		sink = append(sink, b)
		if len(sink) > 16 {
			sink = sink[1:] // drop the oldest: at most ~1 MiB stays live
		}
		if i%64 == 0 {
			_ = make([]*node, 1000) // pointerful garbage too
		}
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	sum := 0
	for n := head; n != nil; n = n.next {
		sum += n.val
	}
	allocated := (after.TotalAlloc - before.TotalAlloc) >> 20
	fmt.Printf("allocated>=256MiB: %v\n", allocated >= 256)
	fmt.Printf("gc cycles>0: %v\n", after.NumGC > before.NumGC)
	fmt.Printf("live checksum %d want %d\n", sum, 10000*9999/2)
	fmt.Printf("stats: allocated %d MiB, %d GCs, heap in use %d MiB\n", allocated, after.NumGC-before.NumGC, after.HeapInuse>>20)
}
