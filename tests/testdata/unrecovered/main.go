// Guest: an unrecovered panic: Go prints the panic and a traceback on
// stderr and exits with status 2.
package main

import "fmt"

//go:noinline
func explode(n int) {
	if n == 0 {
		panic(fmt.Sprintf("boom %d", 42))
	}
	explode(n - 1)
}

func main() {
	fmt.Println("before panic")
	explode(3)
	fmt.Println("not reached")
}
