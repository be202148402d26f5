package main

// sysGetrandom is getrandom's number, which the frozen syscall package's amd64 table lacks.
const sysGetrandom = 318
