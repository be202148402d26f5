// usertrap: user code raises the two exceptions x86 lets it raise on purpose. INT3 (what a
// debugger plants, and the runtime's debug-call protocol) must reach the program as SIGTRAP,
// INT 4 as SIGSEGV (Linux: do_int3_user, do_error_trap "overflow"); a gate the CPU refuses to
// user mode would make both a #GP, i.e. SIGSEGV. On arm64 the pair is BRK, SIGTRAP (Linux:
// brk_handler), and UDF, SIGILL (trap_arm64.go). The runtime prints the signal's name and
// exits 2.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Println("raising", os.Args[1])
	if raise, ok := traps[os.Args[1]]; ok {
		raise()
	}
	fmt.Println("returned")
}
