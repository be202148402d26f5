// The register side of the x86-64 system-call ABI.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"runtime"
	"syscall"
)

func syscallRegs(nr uintptr, out *[16]uint64)  // regs_amd64.s
func syscallNT(nr, a1, a2, a3 uintptr) uintptr // regs_amd64.s

// regNames names syscallRegs's results; the first 12 must come back as they were set.
var regNames = [16]string{"rbx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r12", "r13", "r14", "r15", "rbp", "rcx", "r11", "rflags", "rax"}

// checkRegs makes a system call from assembly and checks what x86-64 Linux promises on the way
// back (arch/x86/entry/entry_64.S): every register but RAX, RCX and R11 as it was, RCX the address
// after the SYSCALL instruction, R11 the RFLAGS it was made with, RAX the result. The kernel may
// return by SYSRETQ or IRETQ (kernel/arch/amd64 resume); both must leave the same state.
func checkRegs() {
	var out [16]uint64
	syscallRegs(syscall.SYS_GETPID, &out)
	bad := ""
	for i := 0; i < 12; i++ {
		if want := uint64(0x1111 * (i + 1)); out[i] != want {
			bad += fmt.Sprintf(" %s=%#x(want %#x)", regNames[i], out[i], want)
		}
	}
	if f := runtime.FuncForPC(uintptr(out[12])); f == nil || f.Name() != "main.syscallRegs" {
		bad += fmt.Sprintf(" rcx=%#x(not in syscallRegs)", out[12])
	}
	if out[13] != out[14] {
		bad += fmt.Sprintf(" r11=%#x(rflags %#x)", out[13], out[14])
	}
	if int(out[15]) != syscall.Getpid() {
		bad += fmt.Sprintf(" rax=%d(pid %d)", out[15], syscall.Getpid())
	}
	if bad == "" {
		bad = " as Linux leaves them"
	}
	fmt.Printf("%-32s %-28s ok=%v\n", "registers after a system call", bad[1:], bad == " as Linux leaves them")
}

// checkFlags makes a system call with RFLAGS.NT set that delivers a signal on its way out (SIGURG,
// which the Go runtime handles), so that the kernel cannot return by SYSRETQ. Linux clears NT on
// SYSCALL (IA32_FMASK): a kernel that ran on with it set would fault in its own IRETQ.
func checkFlags() {
	r := syscallNT(syscall.SYS_TGKILL, uintptr(syscall.Getpid()), uintptr(syscall.Gettid()), uintptr(syscall.SIGURG))
	fmt.Printf("%-32s %-28v ok=%v\n", "tgkill(self, SIGURG) with NT set", syscall.Errno(-int64(r)), r == 0)
}
