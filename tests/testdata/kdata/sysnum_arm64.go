package main

const sysGetrandom = 278 // arm64 (asm-generic/unistd.h); package syscall's table predates getrandom
