#include "textflag.h"

// func call2(fn, a0, a1 uintptr) uintptr: a C call (AAPCS64) with two arguments, in x0 and x1,
// the result in x0. The frame is there to save the link register, which BL overwrites; the
// vDSO's functions use no stack and keep x19–x29 (Go's g is x28), as the C ABI requires.
TEXT ·call2(SB), NOSPLIT, $16-32
	MOVD	fn+0(FP), R9
	MOVD	a0+8(FP), R0
	MOVD	a1+16(FP), R1
	CALL	(R9)
	MOVD	R0, ret+24(FP)
	RET
