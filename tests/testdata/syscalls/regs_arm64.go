// The register side of the arm64 system-call ABI.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"syscall"
)

// regState is the state syscallRegs loads before its SVC (in) and finds after it (out).
type regState struct {
	x          [31]uint64 // X0-X30; in.x[8] is the system call number
	sp0, sp    uint64     // out: SP before and after the call
	nzcv       uint64     // PSTATE's condition flags, bits 31:28
	fpsr, fpcr uint64
	v          [64]uint64 // V0-V31, the low then the high half of each
}

func syscallRegs(in, out *regState)                               // regs_arm64.s
func syscallNZCV(nr, a1, a2, a3, nzcv uintptr) (r, flags uintptr) // regs_arm64.s

// checkRegs makes a system call from assembly and checks what arm64 Linux promises on the way
// back: only X0, the result, is written (arch/arm64/kernel/syscall.c invoke_syscall); X1-X30
// — X8, the number, included — SP, the condition flags and the whole FP/SIMD state, V0-V31,
// FPSR and FPCR, are as they were. X28 is left alone: it is the runtime's g, which a signal
// handler run on the way out would read.
func checkRegs() {
	var in, out regState
	for i := range in.x {
		in.x[i] = 0x1111 * uint64(i)
	}
	in.x[8] = syscall.SYS_GETPID
	in.nzcv = 0b1010 << 28
	in.fpsr = 1<<27 | 0x9f          // QC and every cumulative exception flag
	in.fpcr = 1<<25 | 1<<24 | 3<<22 // default NaN, flush to zero, round towards zero
	for i := range in.v {
		in.v[i] = 0x0101_0101_0000_0000*uint64(i/2+1) | uint64(i)
	}
	syscallRegs(&in, &out)
	bad := ""
	for i := 1; i < len(in.x); i++ {
		if i != 28 && out.x[i] != in.x[i] {
			bad += fmt.Sprintf(" x%d=%#x(want %#x)", i, out.x[i], in.x[i])
		}
	}
	if out.sp != out.sp0 {
		bad += fmt.Sprintf(" sp=%#x(want %#x)", out.sp, out.sp0)
	}
	if out.nzcv != in.nzcv {
		bad += fmt.Sprintf(" nzcv=%#x(want %#x)", out.nzcv, in.nzcv)
	}
	if out.fpsr != in.fpsr {
		bad += fmt.Sprintf(" fpsr=%#x(want %#x)", out.fpsr, in.fpsr)
	}
	if out.fpcr != in.fpcr {
		bad += fmt.Sprintf(" fpcr=%#x(want %#x)", out.fpcr, in.fpcr)
	}
	for i := 0; i < len(in.v); i += 2 {
		if out.v[i] != in.v[i] || out.v[i+1] != in.v[i+1] {
			bad += fmt.Sprintf(" v%d=%#x:%#x(want %#x:%#x)", i/2, out.v[i+1], out.v[i], in.v[i+1], in.v[i])
		}
	}
	if int(out.x[0]) != syscall.Getpid() {
		bad += fmt.Sprintf(" x0=%d(pid %d)", out.x[0], syscall.Getpid())
	}
	if bad == "" {
		bad = " as Linux leaves them"
	}
	fmt.Printf("%-32s %-28s ok=%v\n", "registers after a system call", bad[1:], bad == " as Linux leaves them")
}

// checkFlags makes a system call that delivers a signal on its way out (SIGURG, which the Go
// runtime handles) with each condition flag set once and clear once. The handler's own
// comparisons change the flags: only the PSTATE rt_sigreturn takes back from the frame can
// return the caller's (Linux's restore_sigframe keeps the NZCV bits of a user pstate).
func checkFlags() {
	pid, tid := uintptr(syscall.Getpid()), uintptr(syscall.Gettid())
	got, ok := fmt.Sprint(syscall.Errno(0)), true
	for _, nzcv := range []uintptr{0b1010 << 28, 0b0101 << 28} {
		r, flags := syscallNZCV(syscall.SYS_TGKILL, pid, tid, uintptr(syscall.SIGURG), nzcv)
		if r != 0 {
			got, ok = fmt.Sprint(syscall.Errno(-int64(r))), false
			break
		}
		if flags != nzcv {
			got, ok = fmt.Sprintf("nzcv=%#x(want %#x)", flags, nzcv), false
			break
		}
	}
	fmt.Printf("%-32s %-28s ok=%v\n", "tgkill(self, SIGURG) keeps NZCV", got, ok)
}
