#include "textflag.h"

// func call2(fn, a0, a1 uintptr) uintptr: a C call (System V AMD64 ABI) with two arguments.
// The vDSO's functions use no stack beyond their return address.
TEXT ·call2(SB), NOSPLIT, $0-32
	MOVQ	fn+0(FP), AX
	MOVQ	a0+8(FP), DI
	MOVQ	a1+16(FP), SI
	CALL	AX
	MOVQ	AX, ret+24(FP)
	RET
