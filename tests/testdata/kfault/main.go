// kfault asks the gmpos kernel to fault on purpose (its gmpos_info system call, request 3):
// "read" makes kernel code read an unmapped kernel address, "overflow" exhausts the kernel stack.
// Either way the kernel must print its fault report and stop the machine: the line after the
// system call is never reached.
package main

import (
	"fmt"
	"os"
	"syscall"
)

const (
	sysGmposInfo = 0x6d70
	infoFault    = 3
)

func main() {
	kind := uintptr(1)
	if len(os.Args) > 1 && os.Args[1] == "overflow" {
		kind = 2
	}
	fmt.Println("faulting the kernel")
	syscall.Syscall(sysGmposInfo, infoFault, kind, 0)
	fmt.Println("the kernel survived its own fault")
}
