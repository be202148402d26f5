// LoadUser32, CopyUser and their failure exits (uaccess.go): the kernel's accesses to user memory
// that may fault.
// SPDX-License-Identifier: BSD-3-Clause
//
// All the routines are NOFRAME leaves: nothing is pushed and LR (R30) is never written, so
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

// func CopyUser(dst, src, n uintptr) (ok bool)
// A loop of 8-byte words, then single bytes: dst in R0, src in R1, the bytes left in R2, the
// datum in flight in R3. Its four user accesses sit at fixed offsets from the symbol's start,
// which the exception table names (copyUser+4, +8, +20, +24: instructions are 4 bytes, and a
// NOFRAME NOSPLIT routine gets no prologue) — one routine, because branches between symbols
// that form a loop are an infinite call cycle to the linker's nosplit check. Unaligned words are
// fine: SCTLR_EL1.A is clear and user memory is Normal memory (ARM ARM B2.5.2).
TEXT ·CopyUser(SB),NOSPLIT|NOFRAME,$0-25
	MOVD	dst+0(FP), R0
	MOVD	src+8(FP), R1
	MOVD	n+16(FP), R2
	B	·copyUser(SB)

// func copyUser(dst, src, n uintptr) (ok bool): CopyUser's loop. Keep the first seven
// instructions where they are: the exception table points into them.
TEXT ·copyUser(SB),NOSPLIT|NOFRAME,$0-25
	B	next		// +0
word:
	MOVD.P	8(R1), R3	// +4: load a word
	MOVD.P	R3, 8(R0)	// +8: store it
	SUB	$8, R2		// +12
	B	next		// +16
byte:
	MOVBU.P	1(R1), R3	// +20: load a byte
	MOVB.P	R3, 1(R0)	// +24: store it
	SUB	$1, R2
next:
	CBZ	R2, done
	CMP	$8, R2
	BHS	word
	B	byte
done:
	MOVD	$1, R3
	MOVB	R3, ok+24(FP)
	RET

// func copyUserFail(dst, src, n uintptr) (ok bool)
TEXT ·copyUserFail(SB),NOSPLIT|NOFRAME,$0-25
	MOVB	ZR, ok+24(FP)
	RET

// The exception table (uaccess.go fixups): each instruction that may touch user memory and
// fault, and the failure exit to resume instead. $·sym(SB) in assembly is the ABI0 symbol
// itself, the code above, never an ABI wrapper.
DATA	·fixups+0(SB)/8, $·loadUser32Insn(SB)
DATA	·fixups+8(SB)/8, $·loadUser32Fail(SB)
DATA	·fixups+16(SB)/8, $·copyUser+4(SB)
DATA	·fixups+24(SB)/8, $·copyUserFail(SB)
DATA	·fixups+32(SB)/8, $·copyUser+8(SB)
DATA	·fixups+40(SB)/8, $·copyUserFail(SB)
DATA	·fixups+48(SB)/8, $·copyUser+20(SB)
DATA	·fixups+56(SB)/8, $·copyUserFail(SB)
DATA	·fixups+64(SB)/8, $·copyUser+24(SB)
DATA	·fixups+72(SB)/8, $·copyUserFail(SB)
GLOBL	·fixups(SB), RODATA, $80
