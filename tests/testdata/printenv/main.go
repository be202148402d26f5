// printenv prints its environment, one variable per line, sorted; then it collects garbage
// once, so that GODEBUG=gctrace=1 shows whether the runtime saw GODEBUG.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
)

func main() {
	env := os.Environ()
	sort.Strings(env)
	for _, kv := range env {
		fmt.Println(kv)
	}
	runtime.GC()
}
