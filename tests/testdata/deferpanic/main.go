// Guest: defer order, panic/recover, re-panic, runtime errors raised by Go
// itself (index out of range, bad type assertion).
package main

import (
	"errors"
	"fmt"
)

func order() (s string) {
	for i := 0; i < 3; i++ {
		defer func() { s += fmt.Sprint(i) }()
	}
	return "defers:"
}

func catch(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

func main() {
	fmt.Println(order())
	fmt.Println("recovered:", catch(func() { panic("boom") }))
	fmt.Println("recovered:", catch(func() {
		defer func() {
			r := recover()
			panic(fmt.Sprint("re-panic of ", r))
		}()
		panic("first")
	}))
	var idx = 5
	fmt.Println("recovered:", catch(func() { _ = []int{1, 2, 3}[idx] }))
	var x any = "str"
	fmt.Println("recovered:", catch(func() { _ = x.(int) }))
	err := errors.New("wrapped")
	r := catch(func() { panic(fmt.Errorf("ctx: %w", err)) })
	fmt.Println("errors.Is:", errors.Is(r.(error), err))
}
