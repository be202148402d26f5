// Guest: hardware faults that Go turns into panics: a nil-pointer
// dereference (page fault → SIGSEGV) and an integer division by zero
// (#DE → SIGFPE), both recovered.
package main

import "fmt"

type T struct{ x int }

//go:noinline
func deref(p *T) int { return p.x }

//go:noinline
func div(a, b int) int { return a / b }

func catch(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

func main() {
	fmt.Println("recovered:", catch(func() { deref(nil) }))
	fmt.Println("recovered:", catch(func() { div(1, 0) }))
	fmt.Println("recovered again:", catch(func() { deref(nil) }))
	fmt.Println("still running")
}
