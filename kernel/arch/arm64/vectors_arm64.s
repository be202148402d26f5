// Kernel entry and exit: every exception and interrupt becomes a Frame (frame.go) on the core's
// kernel stack, then Go's trap() decides which Frame to resume.
//
// Rules for this file: interrupts are masked throughout (exception entry sets PSTATE.DAIF, ARM ARM
// D1.10.2); TPIDR_EL1 always holds the core's CPU struct; nothing here touches a user stack. From
// EL0 the CPU switches to SP_EL1, which resume left at the top of the core's kernel stack, so a
// trap from user code always starts on an empty kernel stack (the reason Go code runs at EL0,
// like CPL 3 on amd64).
//
// Frame and CPU offsets come from go_asm.h, generated from frame.go and cpu.go.

#include "textflag.h"
#include "go_asm.h"

#define kgap	16	// room left below a kernel-mode SP (VENTRYK)

// VENTRY is one slot of the vector table: 128 bytes (32 instructions, D1.10.2 Table D1-7). It
// makes room for the Frame, saves X0/X1 to free two registers, and says which group it is. The
// ADD after the jump never runs: it tells the linker's stack-depth check (which reads the slots
// as one straight function) that each slot starts from the same SP.
#define VENTRY(kind) \
	SUB	$Frame__size, RSP; \
	STP	(R0, R1), Frame_X(RSP); \
	MOVD	$kind, R0; \
	B	·trapCommon(SB); \
	ADD	$Frame__size, RSP; \
	PCALIGN	$128

// KSYNC is the slot of a synchronous exception in the kernel. If the kernel stack has less than
// a Frame and some room left, the exception is most likely the overflow itself — an access to the
// guard page below the stack — and pushing a Frame there would fault again, forever. Such an
// exception moves to the core's overflow stack (koverflow). SP_EL0 serves as scratch: in the
// kernel it holds nothing (the entry saved the user's SP in the Frame; resume reloads it).
#define KSYNC \
	MSR	R0, SP_EL0; \
	MRS	TPIDR_EL1, R0; \
	MOVD	CPU_kgs(R0), R0; \
	ADD	$(Frame__size+512), R0; \
	SUB	R0, RSP, R0; \
	TBNZ	$63, R0, koverflow; \
	MRS	SP_EL0, R0; \
	SUB	$(Frame__size+kgap), RSP; \
	STP	(R0, R1), Frame_X(RSP); \
	MOVD	$const_kindSync, R0; \
	B	·trapCommon(SB); \
	ADD	$(Frame__size+kgap), RSP; \
	PCALIGN	$128

// VENTRYK is VENTRY for an exception taken in the kernel: it leaves kgap bytes below the
// interrupted SP untouched, because Go code on arm64 keeps its caller's frame pointer just below
// SP (the prologue's MOVD R29, -8(RSP)): a Frame pushed right under SP would overwrite it and cut
// the fault report's frame-pointer walk.
#define VENTRYK(kind) \
	SUB	$(Frame__size+kgap), RSP; \
	STP	(R0, R1), Frame_X(RSP); \
	MOVD	$kind, R0; \
	B	·trapCommon(SB); \
	ADD	$(Frame__size+kgap), RSP; \
	PCALIGN	$128

// VBAR_EL1 needs 2 KiB alignment (the low 11 bits are RES0).
TEXT ·vectorTable(SB),NOSPLIT|NOFRAME,$0
	PCALIGN	$2048
	// Current EL with SP_EL0: never used (the kernel runs on SP_EL1).
	VENTRY(const_kindSync)
	VENTRY(const_kindIRQ)
	VENTRY(const_kindFIQ)
	VENTRY(const_kindSError)
	// Current EL with SP_EL1: a fault in the kernel, or an interrupt in the idle loop.
	KSYNC
	VENTRYK(const_kindIRQ)
	VENTRYK(const_kindFIQ)
	VENTRYK(const_kindSError)
	// Lower EL, AArch64: the Go program.
	VENTRY(const_kindSync)
	VENTRY(const_kindIRQ)
	VENTRY(const_kindFIQ)
	VENTRY(const_kindSError)
	// Lower EL, AArch32: cannot happen (EL0 is AArch64 only here); reported as faults.
	VENTRY(const_kindSync)
	VENTRY(const_kindIRQ)
	VENTRY(const_kindFIQ)
	VENTRY(const_kindSError)

koverflow:
	// The kernel stack is exhausted (KSYNC): record the SP for the report, move to the overflow
	// stack, and enter as any kernel fault; the report names the guard page (FAR_EL1).
	MRS	TPIDR_EL1, R0
	MOVD	R1, CPU_faultX1(R0)	// X1 is needed as scratch below: trap puts it back in the Frame
	MOVD	RSP, R1
	MOVD	R1, CPU_faultSP(R0)
	MOVD	CPU_emergTop(R0), R1
	MOVD	R1, RSP
	MRS	SP_EL0, R0
	SUB	$(Frame__size+kgap), RSP
	STP	(R0, R1), Frame_X(RSP)
	MOVD	$const_kindSync, R0
	B	·trapCommon(SB)

// trapCommon completes the Frame (R0 = the vector group, X0/X1 saved), saves the interrupted
// thread's FP/SIMD state into its area, acknowledges an interrupt at the GIC, loads the kernel g
// and calls trap(frame); then resumes the Frame trap returns (nil: idle this core).
TEXT ·trapCommon(SB),NOSPLIT|NOFRAME,$0
	STP	(R2, R3), (Frame_X+2*8)(RSP)
	STP	(R4, R5), (Frame_X+4*8)(RSP)
	STP	(R6, R7), (Frame_X+6*8)(RSP)
	STP	(R8, R9), (Frame_X+8*8)(RSP)
	STP	(R10, R11), (Frame_X+10*8)(RSP)
	STP	(R12, R13), (Frame_X+12*8)(RSP)
	STP	(R14, R15), (Frame_X+14*8)(RSP)
	STP	(R16, R17), (Frame_X+16*8)(RSP)
	STP	(R18_PLATFORM, R19), (Frame_X+18*8)(RSP)
	STP	(R20, R21), (Frame_X+20*8)(RSP)
	STP	(R22, R23), (Frame_X+22*8)(RSP)
	STP	(R24, R25), (Frame_X+24*8)(RSP)
	STP	(R26, R27), (Frame_X+26*8)(RSP)
	STP	(g, R29), (Frame_X+28*8)(RSP)
	MOVD	R30, (Frame_X+30*8)(RSP)
	MOVD	R0, Frame_Kind(RSP)
	MRS	ELR_EL1, R1
	MOVD	R1, Frame_ELR(RSP)
	MRS	SPSR_EL1, R2
	MOVD	R2, Frame_SPSR(RSP)
	MRS	ESR_EL1, R3
	MOVD	R3, Frame_ESR(RSP)
	MRS	FAR_EL1, R3
	MOVD	R3, Frame_FAR(RSP)
	MOVD	ZR, Frame_IntID(RSP)
	MRS	TPIDR_EL1, R4
	AND	$const_psrModeMask, R2, R5
	CBNZ	R5, fromkernel

	MRS	SP_EL0, R3
	MOVD	R3, Frame_SP(RSP)
	// The thread's FP/SIMD state: kernel Go code uses V0-V31 freely (memmove, the compiler), so
	// all of it is saved, into the area PrepareResume named when the thread was resumed.
	MOVD	CPU_fpArea(R4), R6
	CBZ	R6, saved
	FSTPQ	(F0, F1), (0*32)(R6)
	FSTPQ	(F2, F3), (1*32)(R6)
	FSTPQ	(F4, F5), (2*32)(R6)
	FSTPQ	(F6, F7), (3*32)(R6)
	FSTPQ	(F8, F9), (4*32)(R6)
	FSTPQ	(F10, F11), (5*32)(R6)
	FSTPQ	(F12, F13), (6*32)(R6)
	FSTPQ	(F14, F15), (7*32)(R6)
	FSTPQ	(F16, F17), (8*32)(R6)
	FSTPQ	(F18, F19), (9*32)(R6)
	FSTPQ	(F20, F21), (10*32)(R6)
	FSTPQ	(F22, F23), (11*32)(R6)
	FSTPQ	(F24, F25), (12*32)(R6)
	FSTPQ	(F26, F27), (13*32)(R6)
	FSTPQ	(F28, F29), (14*32)(R6)
	FSTPQ	(F30, F31), (15*32)(R6)
	MRS	FPSR, R7
	MOVW	R7, const_fpFPSR(R6)
	MRS	FPCR, R7
	MOVW	R7, const_fpFPCR(R6)
	// Go's code assumes the default FPCR: round to nearest, no traps, no flush to zero.
	MSR	ZR, FPCR
	B	saved
fromkernel:
	ADD	$(Frame__size+kgap), RSP, R3
	MOVD	R3, Frame_SP(RSP)
saved:
	CMP	$const_kindIRQ, R0
	BNE	call
	// Acknowledge the interrupt: GICv2's GICC_IAR (offset 0x0C) or GICv3's ICC_IAR1_EL1. The
	// value is kept whole: GICv2 wants it back in GICC_EOIR, SGI source CPU included (EOI).
	// Without a GIC (the Raspberry Pi 3's BCM2836 ARM-local controller) trap names the source
	// in Go (bcmlocal.go).
	MOVD	CPU_irqSrc(R4), R6
	CBNZ	R6, bcmlocal
	MOVD	CPU_gicc(R4), R6
	CBZ	R6, gicv3
	MOVWU	0x0c(R6), R7
	DMB	$9		// DMB ISHLD: an IPI's payload is read after its acknowledge (as Linux's GICv2)
	B	acked
gicv3:
	MRS	ICC_IAR1_EL1, R7
	DSB	$15		// the same for GICv3's system-register acknowledge (Linux gic_read_iar)
	B	acked
bcmlocal:
	MOVD	$const_intidLocal, R7
acked:
	MOVD	R7, Frame_IntID(RSP)
call:
	MOVD	$1, R5
	MOVD	R5, CPU_inKernel(R4)
	MOVD	CPU_kg(R4), g
	MOVD	RSP, R0
	SUB	$32, RSP
	MOVD	R0, 8(RSP)
	BL	·trap(SB)
	MOVD	16(RSP), R0
	B	·resume(SB)

// resume(R0 = *Frame) returns to the context the frame describes; R0 = 0 idles the core. A user
// frame is always at the top of the kernel stack (trap puts it there), so once it is popped SP_EL1
// is the empty kernel stack the next trap from EL0 starts on.
TEXT ·resume(SB),NOSPLIT|NOFRAME,$0
	// resume never returns to its caller, so R29 is not a frame pointer here; the read below only
	// tells go vet's framepointer check that loading the thread's R29 later is intended.
	MOVD	R29, R5
	MRS	TPIDR_EL1, R4
	CBZ	R0, idle
	MOVD	Frame_SPSR(R0), R2
	AND	$const_psrModeMask, R2, R5
	CBNZ	R5, restore
	MOVD	CPU_fpArea(R4), R6
	CBZ	R6, nofp
	FLDPQ	(0*32)(R6), (F0, F1)
	FLDPQ	(1*32)(R6), (F2, F3)
	FLDPQ	(2*32)(R6), (F4, F5)
	FLDPQ	(3*32)(R6), (F6, F7)
	FLDPQ	(4*32)(R6), (F8, F9)
	FLDPQ	(5*32)(R6), (F10, F11)
	FLDPQ	(6*32)(R6), (F12, F13)
	FLDPQ	(7*32)(R6), (F14, F15)
	FLDPQ	(8*32)(R6), (F16, F17)
	FLDPQ	(9*32)(R6), (F18, F19)
	FLDPQ	(10*32)(R6), (F20, F21)
	FLDPQ	(11*32)(R6), (F22, F23)
	FLDPQ	(12*32)(R6), (F24, F25)
	FLDPQ	(13*32)(R6), (F26, F27)
	FLDPQ	(14*32)(R6), (F28, F29)
	FLDPQ	(15*32)(R6), (F30, F31)
	MOVWU	const_fpFPSR(R6), R7
	MSR	R7, FPSR
	MOVWU	const_fpFPCR(R6), R7
	MSR	R7, FPCR
nofp:
	MOVD	CPU_userTLS(R4), R7
	MSR	R7, TPIDR_EL0
	MOVD	Frame_SP(R0), R7
	MSR	R7, SP_EL0
	// Page-table stores the kernel made must reach the table walker before user code runs
	// (D8.2.6 "Ordering of memory accesses from translation table walks").
	DSB	$11
restore:
	// R5 is the frame's mode: 0 for EL0, whose Frame is popped alone; a kernel frame pops kgap
	// too. The comparison's flags survive the loads below (none of them sets flags).
	CMP	$0, R5
	MOVD	ZR, CPU_inKernel(R4)
	MOVD	Frame_ELR(R0), R7
	MSR	R7, ELR_EL1
	MSR	R2, SPSR_EL1
	MOVD	R0, RSP
	LDP	(Frame_X+2*8)(RSP), (R2, R3)
	LDP	(Frame_X+4*8)(RSP), (R4, R5)
	LDP	(Frame_X+6*8)(RSP), (R6, R7)
	LDP	(Frame_X+8*8)(RSP), (R8, R9)
	LDP	(Frame_X+10*8)(RSP), (R10, R11)
	LDP	(Frame_X+12*8)(RSP), (R12, R13)
	LDP	(Frame_X+14*8)(RSP), (R14, R15)
	LDP	(Frame_X+16*8)(RSP), (R16, R17)
	LDP	(Frame_X+18*8)(RSP), (R18_PLATFORM, R19)
	LDP	(Frame_X+20*8)(RSP), (R20, R21)
	LDP	(Frame_X+22*8)(RSP), (R22, R23)
	LDP	(Frame_X+24*8)(RSP), (R24, R25)
	LDP	(Frame_X+26*8)(RSP), (R26, R27)
	LDP	(Frame_X+28*8)(RSP), (g, R29)
	MOVD	(Frame_X+30*8)(RSP), R30
	BNE	popkernel
	LDP	Frame_X(RSP), (R0, R1)
	ADD	$Frame__size, RSP
	ERET
popkernel:
	LDP	Frame_X(RSP), (R0, R1)
	ADD	$(Frame__size+kgap), RSP
	ERET

idle:
	// Wait for an interrupt on the empty kernel stack. WFI wakes on a pending interrupt even
	// while it is masked (D1.16.2); unmasking then takes it here, through the current-EL vector,
	// and trap never returns into this loop.
	MOVD	ZR, CPU_inKernel(R4)
	MOVD	CPU_kstackTop(R4), R5
	MOVD	R5, RSP
idleloop:
	WFI
	MSR	$2, DAIFClr
	MSR	$2, DAIFSet
	B	idleloop

// func enterFirst(f *Frame)
TEXT ·enterFirst(SB),NOSPLIT,$0-8
	MOVD	f+0(FP), R0
	B	·resume(SB)

// func rt0Addr() uintptr
TEXT ·rt0Addr(SB),NOSPLIT,$0-8
	MOVD	$_rt0_arm64_linux(SB), R0
	MOVD	R0, ret+0(FP)
	RET
