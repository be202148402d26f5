// kdata points system calls at the kernel's own variables — which share the image's data pages
// with the program's globals — and checks that each call is refused with EFAULT, while the same
// calls on the program's own global succeed. The addresses come from the kernel's symbols: the
// program is linked together with the kernel (gmpos only; it does not link natively).
package main

import (
	"fmt"
	"syscall"
	"unsafe"
)

// The thread table, the scheduler, the VMA table and the CPU package's per-core state.
//
//go:linkname kthreads gmpos/kernel.threads
var kthreads byte

//go:linkname ksched gmpos/kernel.S
var ksched byte

//go:linkname kspace gmpos/kernel/mm.Space
var kspace byte

//go:linkname kcpus gmpos/kernel/arch/amd64.cpus
var kcpus byte

var own [64]byte // the program's global: fair game

const sysGmposInfo = 0x6d70

func main() {
	targets := []struct {
		name string
		p    uintptr
	}{
		{"thread table", uintptr(unsafe.Pointer(&kthreads))},
		{"scheduler", uintptr(unsafe.Pointer(&ksched))},
		{"VMA table", uintptr(unsafe.Pointer(&kspace))},
		{"per-CPU state", uintptr(unsafe.Pointer(&kcpus))},
		{"program global", uintptr(unsafe.Pointer(&own[0]))},
	}
	for _, tg := range targets {
		_, _, e1 := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 1, tg.p, 0) // writes 16 bytes
		_, _, e2 := syscall.RawSyscall(syscall.SYS_WRITE, 1, tg.p, 0)         // reads 0 bytes: fine
		_, _, e3 := syscall.RawSyscall(sysGmposInfo, 2, tg.p, 4)              // writes 32 bytes
		_, _, e4 := syscall.RawSyscall(sysGetrandom, tg.p, 16, 0)             // writes 16 bytes
		fmt.Printf("%s: clock_gettime %v, write 0 bytes %v, gmpos_info %v, getrandom %v\n", tg.name, e1, e2, e3, e4)
	}
}
