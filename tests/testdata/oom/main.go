// oom holds ever more memory, touching every page, until the machine has no more: under gmpos
// the kernel ends it with status 137 (what Linux's OOM killer's SIGKILL gives) and says so.
package main

import "fmt"

func main() {
	var keep [][]byte
	for {
		b := make([]byte, 32<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		keep = append(keep, b)
		fmt.Println("holding", len(keep)*32, "MiB")
	}
}
