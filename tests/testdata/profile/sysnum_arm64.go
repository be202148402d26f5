package main

// arm64 system call numbers (include/uapi/asm-generic/unistd.h).
const (
	sysGetitimer   = 102
	sysSetitimer   = 103
	sysTimerCreate = 107
	sysTimerGet    = 108
	sysTimerOver   = 109
	sysTimerSet    = 110
	sysTimerDelete = 111
	sysClockGet    = 113
)
