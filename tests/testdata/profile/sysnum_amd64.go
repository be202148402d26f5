package main

// x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl).
const (
	sysGetitimer   = 36
	sysSetitimer   = 38
	sysTimerCreate = 222
	sysTimerSet    = 223
	sysTimerGet    = 224
	sysTimerOver   = 225
	sysTimerDelete = 226
	sysClockGet    = 228
)
