// The 32-bit port instructions for portio.go (the 8-bit ones are in cpu_amd64.s).
// SPDX-License-Identifier: BSD-3-Clause

#include "textflag.h"

// func outl(port uint16, v uint32)
TEXT ·outl(SB),NOSPLIT,$0-8
	MOVW	port+0(FP), DX
	MOVL	v+4(FP), AX
	OUTL
	RET

// func inl(port uint16) uint32
TEXT ·inl(SB),NOSPLIT,$0-12
	MOVW	port+0(FP), DX
	INL
	MOVL	AX, ret+8(FP)
	RET
