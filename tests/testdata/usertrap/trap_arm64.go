package main

func brk() // trap_arm64.s
func udf()

// traps are the exceptions the program can raise, by the name the test passes. arm64 has no
// INT n: BRK is its INT3, and it has no instruction that traps on overflow like INT 4 (INTO). The
// nearest deliberate exception is an undefined instruction, UDF, which Linux reports as SIGILL
// (do_el0_undef: ILL_ILLOPC) where x86's INT 4 is SIGSEGV.
var traps = map[string]func(){"brk": brk, "udf": udf}
