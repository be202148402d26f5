// Privileged instructions for Go code, one tiny function each.

#include "textflag.h"
#include "go_asm.h"

#define MSR_FS_BASE	0xc0000100
#define MSR_GS_BASE	0xc0000101

// setKernelTLS0 points FS and GS at the bootstrap CPU before any Go code runs. The kernel g has
// zero stack bounds here (stackguard0 = 0 lets every prologue pass) until kmain sets real ones.
TEXT ·setKernelTLS0(SB),NOSPLIT|NOFRAME,$0
	LEAQ	·cpus+CPU_kg(SB), AX
	MOVQ	AX, ·cpus+CPU_ktls(SB)
	LEAQ	·cpus+CPU_ktls+8(SB), AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	MOVL	$MSR_FS_BASE, CX
	WRMSR
	LEAQ	·cpus(SB), AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	MOVL	$MSR_GS_BASE, CX
	WRMSR
	RET

// func rdmsr(msr uint32) uint64
TEXT ·rdmsr(SB),NOSPLIT,$0-16
	MOVL	msr+0(FP), CX
	RDMSR
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+8(FP)
	RET

// func wrmsr(msr uint32, val uint64)
TEXT ·wrmsr(SB),NOSPLIT,$0-16
	MOVL	msr+0(FP), CX
	MOVQ	val+8(FP), AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	WRMSR
	RET

// func outb(port uint16, val uint8)
TEXT ·outb(SB),NOSPLIT,$0-3
	MOVW	port+0(FP), DX
	MOVB	val+2(FP), AX
	OUTB
	RET

// func inb(port uint16) uint8
TEXT ·inb(SB),NOSPLIT,$0-9
	MOVW	port+0(FP), DX
	INB
	MOVB	AX, ret+8(FP)
	RET

// func rdtsc() uint64
TEXT ·rdtsc(SB),NOSPLIT,$0-8
	LFENCE
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET

// func halt()
TEXT ·halt(SB),NOSPLIT,$0-0
	HLT
	RET

// func readCR2() uintptr
TEXT ·readCR2(SB),NOSPLIT,$0-8
	MOVQ	CR2, AX
	MOVQ	AX, ret+0(FP)
	RET

// func readCR3() uintptr
TEXT ·readCR3(SB),NOSPLIT,$0-8
	MOVQ	CR3, AX
	MOVQ	AX, ret+0(FP)
	RET

// func writeCR3(v uintptr)
TEXT ·writeCR3(SB),NOSPLIT,$0-8
	MOVQ	v+0(FP), AX
	MOVQ	AX, CR3
	RET

// func invlpg(va uintptr)
TEXT ·invlpg(SB),NOSPLIT,$0-8
	MOVQ	va+0(FP), AX
	INVLPG	(AX)
	RET

// func lgdt(p uintptr)
TEXT ·lgdt(SB),NOSPLIT,$0-8
	MOVQ	p+0(FP), AX
	LGDT	(AX)
	RET

// func lidt(p uintptr)
TEXT ·lidt(SB),NOSPLIT,$0-8
	MOVQ	p+0(FP), AX
	LIDT	(AX)
	RET

// func ltr(sel uint16)
TEXT ·ltr(SB),NOSPLIT,$0-2
	MOVW	sel+0(FP), AX
	LTR	AX
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB),NOSPLIT,$0-24
	MOVL	leaf+0(FP), AX
	MOVL	sub+4(FP), CX
	CPUID
	MOVL	AX, a+8(FP)
	MOVL	BX, b+12(FP)
	MOVL	CX, c+16(FP)
	MOVL	DX, d+20(FP)
	RET

// func hwrandom() (uint64, bool)
// RDSEED (0F C7 /7) draws from the entropy source, RDRAND (0F C7 /6) from the DRBG; CF=1 means a
// valid value. Retry a few times as the SDM recommends (Vol. 1 §7.3.17.1), RDSEED first.
TEXT ·hwrandom(SB),NOSPLIT,$0-9
	MOVL	$7, AX
	XORL	CX, CX
	CPUID
	BTL	$18, BX		// CPUID.(EAX=7,ECX=0):EBX.RDSEED
	JCC	tryrdrand
	MOVL	$16, CX
seedloop:
	BYTE $0x48; BYTE $0x0f; BYTE $0xc7; BYTE $0xf8	// rdseed rax
	JCS	ok
	DECL	CX
	JNZ	seedloop
tryrdrand:
	MOVL	$1, AX
	CPUID
	BTL	$30, CX		// CPUID.1:ECX.RDRAND
	JCC	fail
	MOVL	$16, CX
randloop:
	BYTE $0x48; BYTE $0x0f; BYTE $0xc7; BYTE $0xf0	// rdrand rax
	JCS	ok
	DECL	CX
	JNZ	randloop
fail:
	MOVQ	$0, ret+0(FP)
	MOVB	$0, ret1+8(FP)
	RET
ok:
	MOVQ	AX, ret+0(FP)
	MOVB	$1, ret1+8(FP)
	RET

// func mmioRead32(addr uintptr) uint32
// Device registers are read in assembly so that the access is exactly one 32-bit load.
TEXT ·mmioRead32(SB),NOSPLIT,$0-12
	MOVQ	addr+0(FP), AX
	MOVL	(AX), AX
	MOVL	AX, ret+8(FP)
	RET

// func mmioWrite32(addr uintptr, v uint32)
TEXT ·mmioWrite32(SB),NOSPLIT,$0-12
	MOVQ	addr+0(FP), AX
	MOVL	v+8(FP), BX
	MOVL	BX, (AX)
	RET

// func pause()
TEXT ·pause(SB),NOSPLIT,$0-0
	PAUSE
	RET

// func mfence()
TEXT ·mfence(SB),NOSPLIT,$0-0
	MFENCE
	RET
