// badhandler installs a signal handler at a non-canonical address and sends itself the signal.
// Linux kills the process with SIGSEGV (its IRET to that address fails and it forces the signal);
// a kernel that resumed the thread there would take a general-protection fault inside the
// kernel on real Intel CPUs. The program dies either way: the test checks how.
package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

func main() {
	const saSiginfo, saRestorer = 0x4, 0x04000000
	act := struct{ handler, flags, restorer, mask uint64 }{
		handler:  1 << 63, // non-canonical
		flags:    saSiginfo | saRestorer,
		restorer: 0x1000,
	}
	_, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGUSR2), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	fmt.Println("sigaction:", e == 0)
	syscall.RawSyscall(syscall.SYS_TGKILL, uintptr(os.Getpid()), uintptr(syscall.Gettid()), uintptr(syscall.SIGUSR2))
	fmt.Println("survived")
}
