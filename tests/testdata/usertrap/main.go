// usertrap: user code raises the two exceptions x86 lets it raise on purpose. INT3 (what a
// debugger plants, and the runtime's debug-call protocol) must reach the program as SIGTRAP,
// INT 4 as SIGSEGV (Linux: do_int3_user, do_error_trap "overflow"); a gate the CPU refuses to
// user mode would make both a #GP, i.e. SIGSEGV. The runtime prints the signal's name and
// exits 2.
package main

import (
	"fmt"
	"os"
)

func int3()
func int4()

func main() {
	fmt.Println("raising", os.Args[1])
	switch os.Args[1] {
	case "int3":
		int3()
	case "int4":
		int4()
	}
	fmt.Println("returned")
}
