// LoadUser32 and its failure exit (uaccess.go): the one kernel read of user memory that may fault.
// SPDX-License-Identifier: BSD-3-Clause
//
// Neither routine has a frame (frame size 0: the assembler saves no BP, and NOSPLIT omits the
// stack check), so from LoadUser32's entry to its RET, RSP points at the return address and the
// ABI0 argument frame is above it: addr+0(FP) = 8(SP), v+8(FP) = 16(SP), ok+12(FP) = 20(SP).
// A fault at the load leaves RSP so; the fault handler resumes the same RSP at loadUser32Fail,
// which fills the same result slots and returns to the same caller.

#include "textflag.h"

// func LoadUser32(addr uintptr) (v uint32, ok bool)
TEXT ·LoadUser32(SB),NOSPLIT,$0-13
	MOVQ	addr+0(FP), AX
	JMP	·loadUser32Insn(SB)

// func loadUser32Insn(addr uintptr) (v uint32, ok bool), with addr in AX.
// The load must stay the first instruction: FixupUserAccess compares the faulting RIP with
// this symbol's address.
TEXT ·loadUser32Insn(SB),NOSPLIT,$0-13
	MOVL	(AX), AX
	MOVL	AX, v+8(FP)
	MOVB	$1, ok+12(FP)
	RET

// func loadUser32Fail(addr uintptr) (v uint32, ok bool)
TEXT ·loadUser32Fail(SB),NOSPLIT,$0-13
	MOVL	$0, v+8(FP)
	MOVB	$0, ok+12(FP)
	RET

// The two addresses FixupUserAccess needs, as data: $·sym(SB) in assembly is the ABI0 symbol
// itself, the code above, never an ABI wrapper.
DATA	·loadUser32InsnPC+0(SB)/8, $·loadUser32Insn(SB)
GLOBL	·loadUser32InsnPC(SB), RODATA, $8
DATA	·loadUser32FailPC+0(SB)/8, $·loadUser32Fail(SB)
GLOBL	·loadUser32FailPC(SB), RODATA, $8
