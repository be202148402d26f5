// The arm64 vDSO page: the signal trampoline only, so far.
// SPDX-License-Identifier: BSD-3-Clause

package vdso

// Image is the arm64 vDSO page's contents. Not yet an ELF with clock functions (mkvdso builds
// x86-64 only): just __kernel_rt_sigreturn, the code every signal handler returns to. Go's
// runtime sets no SA_RESTORER on arm64 (runtime/os_linux.go setsig; _SA_RESTORER is 0 in
// defs_linux_arm64.go), so Linux — and gmpos — points x30 at the vDSO's trampoline
// (arch/arm64/kernel/signal.c setup_return, arch/arm64/kernel/vdso/sigreturn.S):
//
//	mov x8, #139   // __NR_rt_sigreturn   0xd2801168
//	svc #0         //                     0xd4000001
//
// The kernel maps the page even with vdso=0, and announces no AT_SYSINFO_EHDR: the program's
// clock reads are system calls.
const Image = "\x68\x11\x80\xd2" + "\x01\x00\x00\xd4"

// SigreturnOffset is __kernel_rt_sigreturn's offset in the page.
const SigreturnOffset = 0
