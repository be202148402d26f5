// syscalls checks how the kernel answers bad input: the errno Linux would return, never a crash.
// Each line prints the call, what came back, and whether it is what Linux returns.
package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

const sysGmposInfo = 0x6d70 // gmpos's own system call

func check(name string, errno syscall.Errno, want syscall.Errno) {
	fmt.Printf("%-32s %-28v ok=%v\n", name, errno, errno == want)
}

func main() {
	bad := uintptr(0xdead0000) // canonical, never mapped
	var buf [64]byte
	p := uintptr(unsafe.Pointer(&buf[0]))
	var word uint32 // a 4-byte-aligned futex word holding 0
	w := uintptr(unsafe.Pointer(&word))

	checkRegs() // regs_amd64.go, regs_arm64.go
	checkFlags()

	_, _, e := syscall.Syscall(syscall.SYS_WRITE, 1, bad, 10)
	check("write(1, unmapped)", e, syscall.EFAULT)
	_, _, e = syscall.Syscall(syscall.SYS_WRITE, 99, p, 1)
	check("write(99)", e, syscall.EBADF)
	_, _, e = syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, bad, 0)
	check("clock_gettime(unmapped)", e, syscall.EFAULT)
	_, _, e = syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 99, p, 0)
	check("clock_gettime(bad clock)", e, syscall.EINVAL)
	_, _, e = syscall.Syscall6(syscall.SYS_FUTEX, w+1, 0, 0, 0, 0, 0)
	check("futex(unaligned)", e, syscall.EINVAL)
	_, _, e = syscall.Syscall6(syscall.SYS_FUTEX, w, 128, 1, 0, 0, 0) // word is 0, not 1
	check("futex_wait(value changed)", e, syscall.EAGAIN)
	_, _, e = syscall.Syscall6(syscall.SYS_RT_SIGACTION, 10, 0, p, 4, 0, 0)
	check("rt_sigaction(sigsetsize 4)", e, syscall.EINVAL)
	_, _, e = syscall.Syscall6(syscall.SYS_RT_SIGACTION, 9, p, 0, 8, 0, 0)
	check("rt_sigaction(SIGKILL)", e, syscall.EINVAL)
	_, _, e = syscall.Syscall6(syscall.SYS_MMAP, 0, 4096, 3, 0x02, 1, 0) // MAP_PRIVATE of stdout
	check("mmap(write-only console)", e, syscall.EACCES)                 // do_mmap: FMODE_READ first
	_, _, e = syscall.Syscall6(syscall.SYS_MMAP, 0, 4096, 1, 0x02, 0, 0) // MAP_PRIVATE of stdin
	check("mmap(read-only console)", e, syscall.ENODEV)                  // no mmap for a terminal
	_, _, e = syscall.Syscall6(syscall.SYS_MMAP, 0, 4096, 3, 0x02, 77, 0)
	check("mmap(closed fd)", e, syscall.EBADF)
	_, _, e = syscall.Syscall6(syscall.SYS_MMAP, 0, 0, 3, 0x22, ^uintptr(0), 0)
	check("mmap(length 0)", e, syscall.EINVAL)
	_, _, e = syscall.Syscall(syscall.SYS_MUNMAP, (p | 1), 4096, 0)
	check("munmap(unaligned)", e, syscall.EINVAL)
	_, _, e = syscall.Syscall(syscall.SYS_NANOSLEEP, bad, 0, 0)
	check("nanosleep(unmapped)", e, syscall.EFAULT)
	_, _, e = syscall.Syscall(sysGetrandom, p, 64, 0x100)
	check("getrandom(bad flags)", e, syscall.EINVAL)
	n, _, e := syscall.Syscall(sysGetrandom, p, 64, 0)
	check("getrandom(64)", e, 0)
	nonzero := 0
	for _, b := range buf {
		if b != 0 {
			nonzero++
		}
	}
	fmt.Printf("getrandom filled %d bytes, %v non-zero\n", n, nonzero > 32)
	// gmpos_info with a count whose n*8 wraps to a small number: it once passed the user-range
	// check and made the kernel write past the buffer into non-canonical addresses (#GP, exit
	// 101).
	for _, req := range []uintptr{2, 5, 7} {
		_, _, e = syscall.Syscall(sysGmposInfo, req, p, 1<<61)
		check(fmt.Sprintf("gmpos_info(%d, n=1<<61)", req), e, syscall.EFAULT)
	}
	// An unimplemented system call: ENOSYS each time, logged once by name.
	for i := 0; i < 3; i++ {
		_, _, e = syscall.Syscall(syscall.SYS_ACCT, 0, 0, 0)
	}
	check("acct (unimplemented)", e, syscall.ENOSYS)
	var u syscall.Utsname
	if err := syscall.Uname(&u); err == nil {
		fmt.Printf("uname release has gmpos: %v\n", contains(u.Release[:], "gmpos"))
	}
	if _, err := os.Open("/etc/no-such-file"); err != nil {
		fmt.Println("open:", err)
	}
}

func contains(field []int8, s string) bool {
	var b []byte
	for _, c := range field {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return true
		}
	}
	return false
}
