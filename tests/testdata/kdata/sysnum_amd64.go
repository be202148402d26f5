package main

const sysGetrandom = 318 // x86-64; package syscall's table predates getrandom
