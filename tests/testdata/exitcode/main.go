// Guest: os.Exit with the code given as the first argument; echoes its
// arguments first (they travel through the kernel command line).
package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	fmt.Printf("args %q\n", os.Args[1:])
	code, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: exitcode N [ARGS...]")
		os.Exit(99)
	}
	defer fmt.Println("deferred calls do not run on os.Exit")
	os.Exit(code)
}
