// kfault asks the gmpos kernel to fault on purpose (its gmpos_info system call, request 3), to
// test the kernel's fault report:
//
//	read      kernel code reads an unmapped kernel address (#PF)
//	overflow  kernel code exhausts its stack (#DF on the guard page)
//	mm        kernel code faults inside the memory manager, with the mm lock held
//	inlined   kernel code faults in a function the compiler inlined
//
// Either way the kernel must print its whole report and stop the machine: the line after the
// system call is never reached.
package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// init locks the main goroutine to the main thread (thread 1), which the test expects the
// report to name: on two cores the console write before the fault could otherwise leave main
// on another thread (CI once saw "thread: 4").
func init() { runtime.LockOSThread() }

const (
	sysGmposInfo = 0x6d70
	infoFault    = 3
)

func main() {
	kinds := map[string]uintptr{"read": 0, "overflow": 2, "mm": 3, "inlined": 4}
	kind, ok := kinds[os.Args[1]]
	if len(os.Args) != 2 || !ok {
		fmt.Fprintln(os.Stderr, "usage: kfault read|overflow|mm|inlined")
		os.Exit(2)
	}
	fmt.Println("faulting the kernel")
	syscall.Syscall(sysGmposInfo, infoFault, kind, 0)
	fmt.Println("the kernel survived its own fault")
}
