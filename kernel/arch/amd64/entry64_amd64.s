// 64-bit boot path: from the far return in entry32 to Go code (kmain).

#include "textflag.h"
#include "boot_amd64.h"

// entry64 runs in 64-bit mode on the early identity map with interrupts off.
TEXT ·entry64(SB),NOSPLIT|NOFRAME,$0
	MOVL	$0x10, AX
	MOVW	AX, DS
	MOVW	AX, ES
	MOVW	AX, SS
	XORL	AX, AX
	MOVW	AX, FS
	MOVW	AX, GS
	LEAQ	·bootStack+BOOT_STACK_SIZE(SB), SP

	// SSE must work before the first line of Go: the compiler keeps zero in X15 and moves
	// memory with SSE. SDM Vol. 3A §13.1.3: CR0.EM=0, CR0.MP=1, CR4.OSFXSR=1, CR4.OSXMMEXCPT=1.
	// XSAVE/AVX stay off (CR4.OSXSAVE=0), so Go never uses YMM state and FXSAVE covers a thread's
	// whole FP context.
	ENABLE_SSE

	MOVL	EARLY_MAGIC, AX
	MOVL	AX, ·mbMagic(SB)
	MOVL	EARLY_MBINFO, AX
	MOVL	AX, ·mbInfo(SB)

	// Go code reads g from FS:-8 (ABI wrappers, morestack). Point FS at the boot CPU's kernel
	// TLS slot, which holds the address of a kernel g (see cpu.go).
	CALL	·setKernelTLS0(SB)
	CALL	·kmain(SB)
hang:
	CLI
	HLT
	JMP	hang
