// x87 helpers for the x87 mode (x87.go): Go itself never emits x87 instructions, so what these
// leave in the x87 registers stays there unless the kernel loses it.

#include "textflag.h"

// func x87Push(cw uint16, v float64)
TEXT ·x87Push(SB),NOSPLIT,$0-16
	FLDCW	cw+0(FP)
	FMOVD	v+8(FP), F0	// FLD: push v
	RET

// func x87Peek() (cw uint16, v float64)
TEXT ·x87Peek(SB),NOSPLIT,$0-16
	FSTCW	cw+0(FP)
	FMOVD	F0, v+8(FP)	// FST: ST0 without popping
	RET

// func x87Pop()
TEXT ·x87Pop(SB),NOSPLIT,$0-0
	FMOVDP	F0, F0	// FSTP ST0
	RET
