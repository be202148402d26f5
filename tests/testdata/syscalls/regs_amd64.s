// The register side of the system-call ABI, seen from user code.
// SPDX-License-Identifier: BSD-3-Clause

#include "textflag.h"

// func syscallRegs(nr uintptr, out *[16]uint64)
// Makes system call nr (no arguments it reads) with every register that x86-64 Linux preserves
// across SYSCALL set to a value of its own, then stores those registers, RCX, R11, RFLAGS and
// RAX (the result) into out, in the order regNames gives.
TEXT ·syscallRegs(SB),NOSPLIT,$32-16
	MOVQ	BP, 0(SP)
	MOVQ	R14, 8(SP)
	MOVQ	R15, 16(SP)
	MOVQ	nr+0(FP), AX
	MOVQ	$0x1111, BX
	MOVQ	$0x2222, DX
	MOVQ	$0x3333, SI
	MOVQ	$0x4444, DI
	MOVQ	$0x5555, R8
	MOVQ	$0x6666, R9
	MOVQ	$0x7777, R10
	MOVQ	$0x8888, R12
	MOVQ	$0x9999, R13
	MOVQ	$0xaaaa, R14
	MOVQ	$0xbbbb, R15
	MOVQ	$0xcccc, BP
	SYSCALL
	MOVQ	AX, 24(SP)
	MOVQ	out+8(FP), AX
	MOVQ	BX, 0(AX)
	MOVQ	DX, 8(AX)
	MOVQ	SI, 16(AX)
	MOVQ	DI, 24(AX)
	MOVQ	R8, 32(AX)
	MOVQ	R9, 40(AX)
	MOVQ	R10, 48(AX)
	MOVQ	R12, 56(AX)
	MOVQ	R13, 64(AX)
	MOVQ	R14, 72(AX)
	MOVQ	R15, 80(AX)
	MOVQ	BP, 88(AX)
	MOVQ	CX, 96(AX)
	MOVQ	R11, 104(AX)
	PUSHFQ
	POPQ	BX
	MOVQ	BX, 112(AX)
	MOVQ	24(SP), BX
	MOVQ	BX, 120(AX)
	MOVQ	0(SP), BP
	MOVQ	8(SP), R14
	MOVQ	16(SP), R15
	RET

// func syscallNT(nr, a1, a2, a3 uintptr) uintptr
// Makes system call nr with RFLAGS.NT set, which user code may set with POPFQ (it means nothing
// in 64-bit mode but makes IRETQ raise #GP if it is set when IRETQ runs), and clears it again.
TEXT ·syscallNT(SB),NOSPLIT,$0-40
	MOVQ	nr+0(FP), AX
	MOVQ	a1+8(FP), DI
	MOVQ	a2+16(FP), SI
	MOVQ	a3+24(FP), DX
	PUSHFQ
	ORQ	$0x4000, 0(SP)
	POPFQ
	SYSCALL
	PUSHFQ
	ANDQ	$~0x4000, 0(SP)
	POPFQ
	MOVQ	AX, ret+32(FP)
	RET
