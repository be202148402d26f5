// FP/SIMD helpers for the fpsimd mode (fpsimd_arm64.go): what fpsimdTrap loads before its SVC
// must still be in the registers after it, because nothing but the kernel runs in between.

#include "go_asm.h"
#include "textflag.h"

// func fpsimdTrap(in, out *fpsimdState, nr, a0, a1, a2 uintptr) uintptr
TEXT ·fpsimdTrap(SB),NOSPLIT,$0-56
	MOVD	in+0(FP), R9
	MOVD	fpsimdState_fpsr(R9), R10
	MOVD	R10, FPSR
	VLD1.P	64(R9), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1.P	64(R9), [V4.D2, V5.D2, V6.D2, V7.D2]
	VLD1.P	64(R9), [V8.D2, V9.D2, V10.D2, V11.D2]
	VLD1.P	64(R9), [V12.D2, V13.D2, V14.D2, V15.D2]
	VLD1.P	64(R9), [V16.D2, V17.D2, V18.D2, V19.D2]
	VLD1.P	64(R9), [V20.D2, V21.D2, V22.D2, V23.D2]
	VLD1.P	64(R9), [V24.D2, V25.D2, V26.D2, V27.D2]
	VLD1.P	64(R9), [V28.D2, V29.D2, V30.D2, V31.D2]
	MOVD	nr+16(FP), R8
	MOVD	a0+24(FP), R0
	MOVD	a1+32(FP), R1
	MOVD	a2+40(FP), R2
	SVC
	MOVD	R0, ret+48(FP)
	MOVD	out+8(FP), R9
	MOVD	FPSR, R10
	MOVD	R10, fpsimdState_fpsr(R9)
	MOVD	FPCR, R10
	MOVD	R10, fpsimdState_fpcr(R9)
	VST1.P	[V0.D2, V1.D2, V2.D2, V3.D2], 64(R9)
	VST1.P	[V4.D2, V5.D2, V6.D2, V7.D2], 64(R9)
	VST1.P	[V8.D2, V9.D2, V10.D2, V11.D2], 64(R9)
	VST1.P	[V12.D2, V13.D2, V14.D2, V15.D2], 64(R9)
	VST1.P	[V16.D2, V17.D2, V18.D2, V19.D2], 64(R9)
	VST1.P	[V20.D2, V21.D2, V22.D2, V23.D2], 64(R9)
	VST1.P	[V24.D2, V25.D2, V26.D2, V27.D2], 64(R9)
	VST1.P	[V28.D2, V29.D2, V30.D2, V31.D2], 64(R9)
	RET

// func setFPCR(v uint64)
TEXT ·setFPCR(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MOVD	R0, FPCR
	RET

// func clobber()
// Entered by the kernel as handler(sig, info, uc) on the signal stack, X30 pointing at the
// trampoline that calls rt_sigreturn. The general registers it uses come back from the frame too.
TEXT ·clobber(SB),NOSPLIT|NOFRAME,$0-0
	MOVD	$0x5a5a5a5a5a5a5a5a, R9
	VDUP	R9, V0.D2
	VDUP	R9, V1.D2
	VDUP	R9, V2.D2
	VDUP	R9, V3.D2
	VDUP	R9, V4.D2
	VDUP	R9, V5.D2
	VDUP	R9, V6.D2
	VDUP	R9, V7.D2
	VDUP	R9, V8.D2
	VDUP	R9, V9.D2
	VDUP	R9, V10.D2
	VDUP	R9, V11.D2
	VDUP	R9, V12.D2
	VDUP	R9, V13.D2
	VDUP	R9, V14.D2
	VDUP	R9, V15.D2
	VDUP	R9, V16.D2
	VDUP	R9, V17.D2
	VDUP	R9, V18.D2
	VDUP	R9, V19.D2
	VDUP	R9, V20.D2
	VDUP	R9, V21.D2
	VDUP	R9, V22.D2
	VDUP	R9, V23.D2
	VDUP	R9, V24.D2
	VDUP	R9, V25.D2
	VDUP	R9, V26.D2
	VDUP	R9, V27.D2
	VDUP	R9, V28.D2
	VDUP	R9, V29.D2
	VDUP	R9, V30.D2
	VDUP	R9, V31.D2
	MOVD	$(3<<22), R9	// RMode 11, towards zero: neither thread's
	MOVD	R9, FPCR
	MOVD	$0x9f, R9	// every cumulative exception flag
	MOVD	R9, FPSR
	RET

// func clobberPC() uintptr
TEXT ·clobberPC(SB),NOSPLIT,$0-8
	MOVD	$·clobber(SB), R0
	MOVD	R0, ret+0(FP)
	RET
