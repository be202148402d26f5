// LoadUser32 and its failure exit (uaccess.go): the one kernel read of user memory that may fault.
// SPDX-License-Identifier: BSD-3-Clause
//
// All three routines are NOFRAME leaves: nothing is pushed and LR (R30) is never written, so
// from LoadUser32's entry to its RET, RSP is the caller's and the ABI0 argument frame is above
// the caller's saved-LR slot: addr+0(FP) = 8(RSP), v+8(FP) = 16(RSP), ok+12(FP) = 20(RSP). A
// fault at the load leaves RSP and LR so; the fault handler resumes them unchanged at
// loadUser32Fail, which fills the same result slots and returns to the same caller.

#include "textflag.h"

// func LoadUser32(addr uintptr) (v uint32, ok bool)
TEXT ·LoadUser32(SB),NOSPLIT|NOFRAME,$0-13
	MOVD	addr+0(FP), R0
	B	·loadUser32Insn(SB)

// func loadUser32Insn(addr uintptr) (v uint32, ok bool), with addr in R0.
// The load must stay the first instruction: FixupUserAccess compares the faulting ELR_EL1 with
// this symbol's address.
TEXT ·loadUser32Insn(SB),NOSPLIT|NOFRAME,$0-13
	LDARW	(R0), R1
	MOVW	R1, v+8(FP)
	MOVD	$1, R2
	MOVB	R2, ok+12(FP)
	RET

// func loadUser32Fail(addr uintptr) (v uint32, ok bool)
TEXT ·loadUser32Fail(SB),NOSPLIT|NOFRAME,$0-13
	MOVW	ZR, v+8(FP)
	MOVB	ZR, ok+12(FP)
	RET

// The two addresses FixupUserAccess needs, as data: $·sym(SB) in assembly is the ABI0 symbol
// itself, the code above, never an ABI wrapper.
DATA	·loadUser32InsnPC+0(SB)/8, $·loadUser32Insn(SB)
GLOBL	·loadUser32InsnPC(SB), RODATA, $8
DATA	·loadUser32FailPC+0(SB)/8, $·loadUser32Fail(SB)
GLOBL	·loadUser32FailPC(SB), RODATA, $8
