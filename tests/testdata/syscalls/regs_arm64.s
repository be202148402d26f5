// The register side of the system-call ABI, seen from user code.
// SPDX-License-Identifier: BSD-3-Clause

#include "go_asm.h"
#include "textflag.h"

// func syscallRegs(in, out *regState)
// Loads X0-X30 (but X28, the runtime's g), NZCV, FPSR, FPCR and V0-V31 from in and makes system
// call in.x[8] by SVC; then stores all of them, and SP before and after the call, into out. The
// epilogue recomputes X29 from SP, but this is a leaf, whose epilogue does not reload X30: it
// is put back by hand, as are X18, which Go never uses, and FPCR.
TEXT ·syscallRegs(SB),NOSPLIT,$32-16
	MOVD	R30, 32(RSP)
	MOVD	R18_PLATFORM, 8(RSP)
	MOVD	FPCR, R0
	MOVD	R0, 16(RSP)
	MOVD	out+8(FP), R1
	MOVD	RSP, R0
	MOVD	R0, regState_sp0(R1)
	MOVD	in+0(FP), R0
	MOVD	regState_fpsr(R0), R1
	MOVD	R1, FPSR
	MOVD	regState_fpcr(R0), R1
	MOVD	R1, FPCR
	ADD	$regState_v, R0, R1
	VLD1.P	64(R1), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1.P	64(R1), [V4.D2, V5.D2, V6.D2, V7.D2]
	VLD1.P	64(R1), [V8.D2, V9.D2, V10.D2, V11.D2]
	VLD1.P	64(R1), [V12.D2, V13.D2, V14.D2, V15.D2]
	VLD1.P	64(R1), [V16.D2, V17.D2, V18.D2, V19.D2]
	VLD1.P	64(R1), [V20.D2, V21.D2, V22.D2, V23.D2]
	VLD1.P	64(R1), [V24.D2, V25.D2, V26.D2, V27.D2]
	VLD1.P	64(R1), [V28.D2, V29.D2, V30.D2, V31.D2]
	MOVD	regState_nzcv(R0), R1
	MOVD	R1, NZCV	// nothing below sets the flags
	LDP	(1*8)(R0), (R1, R2)
	LDP	(3*8)(R0), (R3, R4)
	LDP	(5*8)(R0), (R5, R6)
	LDP	(7*8)(R0), (R7, R8)
	LDP	(9*8)(R0), (R9, R10)
	LDP	(11*8)(R0), (R11, R12)
	LDP	(13*8)(R0), (R13, R14)
	LDP	(15*8)(R0), (R15, R16)
	LDP	(17*8)(R0), (R17, R18_PLATFORM)
	LDP	(19*8)(R0), (R19, R20)
	LDP	(21*8)(R0), (R21, R22)
	LDP	(23*8)(R0), (R23, R24)
	LDP	(25*8)(R0), (R25, R26)
	MOVD	(27*8)(R0), R27
	LDP	(29*8)(R0), (R29, R30)
	MOVD	(0*8)(R0), R0
	SVC
	MOVD	R0, 24(RSP)
	MOVD	out+8(FP), R0
	STP	(R1, R2), (1*8)(R0)
	STP	(R3, R4), (3*8)(R0)
	STP	(R5, R6), (5*8)(R0)
	STP	(R7, R8), (7*8)(R0)
	STP	(R9, R10), (9*8)(R0)
	STP	(R11, R12), (11*8)(R0)
	STP	(R13, R14), (13*8)(R0)
	STP	(R15, R16), (15*8)(R0)
	STP	(R17, R18_PLATFORM), (17*8)(R0)
	STP	(R19, R20), (19*8)(R0)
	STP	(R21, R22), (21*8)(R0)
	STP	(R23, R24), (23*8)(R0)
	STP	(R25, R26), (25*8)(R0)
	STP	(R27, g), (27*8)(R0)
	STP	(R29, R30), (29*8)(R0)
	MOVD	NZCV, R1
	MOVD	R1, regState_nzcv(R0)
	MOVD	24(RSP), R1
	MOVD	R1, (0*8)(R0)
	MOVD	RSP, R1
	MOVD	R1, regState_sp(R0)
	MOVD	FPSR, R1
	MOVD	R1, regState_fpsr(R0)
	MOVD	FPCR, R1
	MOVD	R1, regState_fpcr(R0)
	ADD	$regState_v, R0, R1
	VST1.P	[V0.D2, V1.D2, V2.D2, V3.D2], 64(R1)
	VST1.P	[V4.D2, V5.D2, V6.D2, V7.D2], 64(R1)
	VST1.P	[V8.D2, V9.D2, V10.D2, V11.D2], 64(R1)
	VST1.P	[V12.D2, V13.D2, V14.D2, V15.D2], 64(R1)
	VST1.P	[V16.D2, V17.D2, V18.D2, V19.D2], 64(R1)
	VST1.P	[V20.D2, V21.D2, V22.D2, V23.D2], 64(R1)
	VST1.P	[V24.D2, V25.D2, V26.D2, V27.D2], 64(R1)
	VST1.P	[V28.D2, V29.D2, V30.D2, V31.D2], 64(R1)
	MOVD	16(RSP), R1
	MOVD	R1, FPCR
	MOVD	8(RSP), R18_PLATFORM
	MOVD	32(RSP), R30
	RET

// func syscallNZCV(nr, a1, a2, a3, nzcv uintptr) (r, flags uintptr)
// Makes system call nr with the condition flags set to nzcv and returns X0 and the flags it
// comes back with.
TEXT ·syscallNZCV(SB),NOSPLIT,$0-56
	MOVD	nr+0(FP), R8
	MOVD	a1+8(FP), R0
	MOVD	a2+16(FP), R1
	MOVD	a3+24(FP), R2
	MOVD	nzcv+32(FP), R3
	MOVD	R3, NZCV
	SVC
	MOVD	NZCV, R3
	MOVD	R0, r+40(FP)
	MOVD	R3, flags+48(FP)
	RET
