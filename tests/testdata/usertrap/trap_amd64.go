package main

func int3() // trap_amd64.s
func int4()

// traps are the exceptions the program can raise, by the name the test passes.
var traps = map[string]func(){"int3": int3, "int4": int4}
