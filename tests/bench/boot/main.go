// Benchmark guest: reaches main and exits. The runner (or benchrun, for the
// host peer) timestamps the first output byte: boot-to-main.
package main

import "fmt"

func main() { fmt.Println("main reached") }
