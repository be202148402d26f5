package kernel

// x86-64 Linux system call numbers the kernel implements (arch/x86/entry/syscalls/syscall_64.tbl).
const (
	sysRead             = 0
	sysWrite            = 1
	sysOpen             = 2
	sysClose            = 3
	sysStat             = 4
	sysFstat            = 5
	sysLstat            = 6
	sysLseek            = 8
	sysMmapNr           = 9
	sysMprotect         = 10
	sysMunmap           = 11
	sysBrk              = 12
	sysRtSigaction      = 13
	sysRtSigprocmask    = 14
	sysRtSigreturnNr    = 15
	sysIoctl            = 16
	sysPread64          = 17
	sysAccess           = 21
	sysSchedYield       = 24
	sysMincore          = 27
	sysMadvise          = 28
	sysNanosleep        = 35
	sysGetpid           = 39
	sysClone            = 56
	sysExit             = 60
	sysKill             = 62
	sysUname            = 63
	sysFcntl            = 72
	sysReadlink         = 89
	sysGettimeofday     = 96
	sysGetrlimit        = 97
	sysGetuid           = 102
	sysGetgid           = 104
	sysGeteuid          = 107
	sysGetegid          = 108
	sysGetppid          = 110
	sysSigaltstack      = 131
	sysPrctl            = 157
	sysArchPrctl        = 158
	sysGettid           = 186
	sysTkill            = 200
	sysTime             = 201
	sysFutex            = 202
	sysSchedGetaffinity = 204
	sysClockGettime     = 228
	sysClockGetres      = 229
	sysClockNanosleep   = 230
	sysExitGroup        = 231
	sysEpollWait        = 232
	sysEpollCtl         = 233
	sysTgkill           = 234
	sysOpenat           = 257
	sysNewfstatat       = 262
	sysReadlinkat       = 267
	sysFaccessat        = 269
	sysEpollPwait       = 281
	sysEventfd2         = 290
	sysEpollCreate1     = 291
	sysPrlimit64        = 302
	sysGetrandom        = 318
	sysRseq             = 334
	sysFaccessat2       = 439

	// sysGmposInfo is gmpos's own system call (outside Linux's range): kernel facts for guest
	// programs and tests — boot timestamps, scheduler statistics, a deliberate kernel fault.
	sysGmposInfo = 0x6d70 // "mp"
)
