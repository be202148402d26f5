// Calling machine code with the C ABI from Go (ccall.go).
// SPDX-License-Identifier: BSD-3-Clause

#include "textflag.h"

#define SAVED_BX  $0x1111111111111111
#define SAVED_R12 $0x1212121212121212
#define SAVED_R13 $0x1313131313131313
#define SAVED_R15 $0x1515151515151515

// func Call2(fn, a0, a1 uintptr) (r uintptr, saved bool)
TEXT ·Call2(SB), NOSPLIT, $0-33
	MOVQ	fn+0(FP), AX
	MOVQ	a0+8(FP), DI
	MOVQ	a1+16(FP), SI
	MOVQ	SAVED_BX, BX
	MOVQ	SAVED_R12, R12
	MOVQ	SAVED_R13, R13
	MOVQ	SAVED_R15, R15
	CALL	AX
	MOVQ	AX, r+24(FP)
	MOVB	$0, saved+32(FP)
	MOVQ	SAVED_BX, CX
	CMPQ	BX, CX
	JNE	done
	MOVQ	SAVED_R12, CX
	CMPQ	R12, CX
	JNE	done
	MOVQ	SAVED_R13, CX
	CMPQ	R13, CX
	JNE	done
	MOVQ	SAVED_R15, CX
	CMPQ	R15, CX
	JNE	done
	MOVB	$1, saved+32(FP)
done:
	RET

// func Cycles() uint64
TEXT ·Cycles(SB), NOSPLIT, $0-8
	LFENCE
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET
