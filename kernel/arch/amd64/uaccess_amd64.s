// LoadUser32, CopyUser and their failure exits (uaccess.go): the kernel's accesses to user memory
// that may fault.
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

// func CopyUser(dst, src, n uintptr) (ok bool)
// Words first (REP MOVSQ: under TCG each iteration of a REP string instruction is a pass of its
// own, so eight bytes a pass beat one), then the n%8 bytes left (REP MOVSB). The count of bytes
// left waits in DX; the direction flag is clear (trap's entry clears it: CLD).
TEXT ·CopyUser(SB),NOSPLIT,$0-25
	MOVQ	dst+0(FP), DI
	MOVQ	src+8(FP), SI
	MOVQ	n+16(FP), CX
	MOVQ	CX, DX
	SHRQ	$3, CX
	ANDQ	$7, DX
	JMP	·copyUserWords(SB)

// func copyUserWords(dst, src, n uintptr) (ok bool): REP MOVSQ must stay the first
// instruction. A fault leaves RIP at it (a REP string instruction faults restartably, with RCX,
// RSI and RDI at the faulting element: SDM Vol. 2B, REP).
TEXT ·copyUserWords(SB),NOSPLIT,$0-25
	REP;	MOVSQ
	MOVQ	DX, CX
	JMP	·copyUserBytes(SB)

// func copyUserBytes(dst, src, n uintptr) (ok bool): REP MOVSB must stay the first instruction.
TEXT ·copyUserBytes(SB),NOSPLIT,$0-25
	REP;	MOVSB
	MOVB	$1, ok+24(FP)
	RET

// func copyUserFail(dst, src, n uintptr) (ok bool)
TEXT ·copyUserFail(SB),NOSPLIT,$0-25
	MOVB	$0, ok+24(FP)
	RET

// The exception table (uaccess.go fixups): each instruction that may touch user memory and
// fault, and the failure exit to resume instead. $·sym(SB) in assembly is the ABI0 symbol
// itself, the code above, never an ABI wrapper.
DATA	·fixups+0(SB)/8, $·loadUser32Insn(SB)
DATA	·fixups+8(SB)/8, $·loadUser32Fail(SB)
DATA	·fixups+16(SB)/8, $·copyUserWords(SB)
DATA	·fixups+24(SB)/8, $·copyUserFail(SB)
DATA	·fixups+32(SB)/8, $·copyUserBytes(SB)
DATA	·fixups+40(SB)/8, $·copyUserFail(SB)
GLOBL	·fixups(SB), RODATA, $48
