package main

import "syscall"

// sysGetrandom is getrandom's number: the syscall package's arm64 table, newer, has it.
const sysGetrandom = syscall.SYS_GETRANDOM
