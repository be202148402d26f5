// Kernel entry and exit: interrupts, exceptions and SYSCALL all become a Frame (frame.go) on the
// core's kernel stack, then Go's trap() decides which Frame to resume.
//
// Rules for this file: interrupts are off throughout (interrupt gates and IA32_FMASK clear IF);
// GS base always holds the core's CPU struct (Go never uses GS), reached with an explicit 0x65
// segment prefix on absolute-addressed instructions; nothing here may touch a user stack.
//
// Frame offsets (Frame_R15, ..., Frame_SS), selectors and vector numbers come from go_asm.h, which
// the compiler generates from frame.go and trapkind.go: change the Go struct and this file follows.
// The general registers are the first Frame_Vector bytes of the frame: the entry pushes the
// hardware part (SS..IP), the error code and the vector, then reserves Frame_Vector bytes for them.

#include "textflag.h"
#include "go_asm.h"

#define GS	BYTE $0x65
#define MSR_FS_BASE	0xc0000100	// IA32_FS_BASE (SDM Vol. 4, Table 2-2)
#define fxMXCSR	const_fxMXCSR	// FXSAVE image offsets (fpu.go)
#define fxXMM	const_fxXMM

// LOAD_GPRS loads the general registers but SP from the Frame at SP (resume's two ways out).
#define LOAD_GPRS \
	MOVQ	Frame_R15(SP), R15; \
	MOVQ	Frame_R14(SP), R14; \
	MOVQ	Frame_R13(SP), R13; \
	MOVQ	Frame_R12(SP), R12; \
	MOVQ	Frame_R11(SP), R11; \
	MOVQ	Frame_R10(SP), R10; \
	MOVQ	Frame_R9(SP), R9; \
	MOVQ	Frame_R8(SP), R8; \
	MOVQ	Frame_BP(SP), BP; \
	MOVQ	Frame_DI(SP), DI; \
	MOVQ	Frame_SI(SP), SI; \
	MOVQ	Frame_DX(SP), DX; \
	MOVQ	Frame_CX(SP), CX; \
	MOVQ	Frame_BX(SP), BX; \
	MOVQ	Frame_AX(SP), AX;

// SAVE_SSE and LOAD_SSE move XMM0-15 between the registers and their slots of the FXSAVE image
// at AX (16-byte aligned), with plain moves: TCG translates these inline, FXSAVE/FXRSTOR are
// helper calls (fpu.go).
#define SAVE_SSE \
	MOVAPS	X0, (fxXMM+0*16)(AX); \
	MOVAPS	X1, (fxXMM+1*16)(AX); \
	MOVAPS	X2, (fxXMM+2*16)(AX); \
	MOVAPS	X3, (fxXMM+3*16)(AX); \
	MOVAPS	X4, (fxXMM+4*16)(AX); \
	MOVAPS	X5, (fxXMM+5*16)(AX); \
	MOVAPS	X6, (fxXMM+6*16)(AX); \
	MOVAPS	X7, (fxXMM+7*16)(AX); \
	MOVAPS	X8, (fxXMM+8*16)(AX); \
	MOVAPS	X9, (fxXMM+9*16)(AX); \
	MOVAPS	X10, (fxXMM+10*16)(AX); \
	MOVAPS	X11, (fxXMM+11*16)(AX); \
	MOVAPS	X12, (fxXMM+12*16)(AX); \
	MOVAPS	X13, (fxXMM+13*16)(AX); \
	MOVAPS	X14, (fxXMM+14*16)(AX); \
	MOVAPS	X15, (fxXMM+15*16)(AX)
#define LOAD_SSE \
	MOVAPS	(fxXMM+0*16)(AX), X0; \
	MOVAPS	(fxXMM+1*16)(AX), X1; \
	MOVAPS	(fxXMM+2*16)(AX), X2; \
	MOVAPS	(fxXMM+3*16)(AX), X3; \
	MOVAPS	(fxXMM+4*16)(AX), X4; \
	MOVAPS	(fxXMM+5*16)(AX), X5; \
	MOVAPS	(fxXMM+6*16)(AX), X6; \
	MOVAPS	(fxXMM+7*16)(AX), X7; \
	MOVAPS	(fxXMM+8*16)(AX), X8; \
	MOVAPS	(fxXMM+9*16)(AX), X9; \
	MOVAPS	(fxXMM+10*16)(AX), X10; \
	MOVAPS	(fxXMM+11*16)(AX), X11; \
	MOVAPS	(fxXMM+12*16)(AX), X12; \
	MOVAPS	(fxXMM+13*16)(AX), X13; \
	MOVAPS	(fxXMM+14*16)(AX), X14; \
	MOVAPS	(fxXMM+15*16)(AX), X15

// func vectorStubs() uintptr
TEXT ·vectorStubs(SB),NOSPLIT,$0-8
	LEAQ	·vectorStubTable(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func syscallEntryAddr() uintptr
TEXT ·syscallEntryAddr(SB),NOSPLIT,$0-8
	LEAQ	·syscallEntry(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func reloadSegments()
// Reload CS with a far return and the data segments after LGDT.
TEXT ·reloadSegments(SB),NOSPLIT,$0-0
	MOVL	$const_KernelDS, AX
	MOVW	AX, DS
	MOVW	AX, ES
	MOVW	AX, SS
	POPQ	AX		// return address
	PUSHQ	$const_KernelCS
	PUSHQ	AX
	BYTE	$0x48; BYTE $0xcb	// retfq
	
// syscallEntry is IA32_LSTAR. SYSCALL (SDM Vol. 2B) saved RIP in RCX and RFLAGS in R11, cleared
// the IA32_FMASK bits and switched to CPL 0 — but did not switch stacks, so the first thing is to
// leave the user stack for the core's kernel stack, then build an interrupt-shaped frame.
TEXT ·syscallEntry(SB),NOSPLIT|NOFRAME,$0
	// SYSCALL from kernel code (the runtime's crash path reached from a kernel g: morestack,
	// throw → write) must not reset SP to the top of the stack it is running on: keep the
	// current stack and let trap() report a kernel fault.
	GS; CMPQ	CPU_inKernel, $0
	JNE	fromkernel
	GS; MOVQ	SP, CPU_userSP
	GS; MOVQ	CPU_kstackTop, SP
	PUSHQ	$const_UserDS		// SS
	GS; PUSHQ	CPU_userSP	// RSP
	PUSHQ	R11			// RFLAGS
	PUSHQ	$const_UserCS		// CS
	PUSHQ	CX			// RIP
	PUSHQ	$0			// error code
	PUSHQ	$const_VectorSyscall	// vector
	JMP	·trapCommon(SB)
fromkernel:
	GS; MOVQ	SP, CPU_userSP
	ANDQ	$~15, SP
	PUSHQ	$const_KernelDS		// SS
	GS; PUSHQ	CPU_userSP	// RSP
	PUSHQ	R11			// RFLAGS
	PUSHQ	$const_KernelCS		// CS
	PUSHQ	CX			// RIP
	PUSHQ	$0			// error code
	PUSHQ	$const_VectorSyscall	// vector
	JMP	·trapCommon(SB)

// trapCommon completes the Frame, saves the interrupted FP state, switches FS to the kernel TLS,
// calls trap(frame) and resumes the Frame it returns (nil: idle this core).
TEXT ·trapCommon(SB),NOSPLIT|NOFRAME,$0
	SUBQ	$Frame_Vector, SP
	MOVQ	R15, Frame_R15(SP)
	MOVQ	R14, Frame_R14(SP)
	MOVQ	R13, Frame_R13(SP)
	MOVQ	R12, Frame_R12(SP)
	MOVQ	R11, Frame_R11(SP)
	MOVQ	R10, Frame_R10(SP)
	MOVQ	R9, Frame_R9(SP)
	MOVQ	R8, Frame_R8(SP)
	MOVQ	BP, Frame_BP(SP)
	MOVQ	DI, Frame_DI(SP)
	MOVQ	SI, Frame_SI(SP)
	MOVQ	DX, Frame_DX(SP)
	MOVQ	CX, Frame_CX(SP)
	MOVQ	BX, Frame_BX(SP)
	MOVQ	AX, Frame_AX(SP)
	CLD

	// The interrupted thread's SSE state belongs to it: kernel Go code uses XMM registers and
	// MXCSR, never x87/MMX, so only those are saved here, into their FXSAVE-layout slots; the
	// x87 state stays live in the registers (CPU.fpLive) until fpFlush or resume (fpu.go).
	// From CPL 0 nothing is saved: the idle loop has no FP state, and the one kernel code that
	// may fault and be resumed, LoadUser32's load (uaccess.go), is the first instruction of an
	// ABI0 routine reached by a call, where Go's ABI lets every XMM register but X15 be
	// clobbered; trap's Go code leaves X15 zero and MXCSR at its default, as it found them.
	TESTQ	$3, Frame_CS(SP)	// from CPL 3?
	JZ	kernelmode
	GS; MOVQ	CPU_fpArea, AX
	STMXCSR	fxMXCSR(AX)
	SAVE_SSE
	GS; MOVQ	AX, CPU_fpLive
kernelmode:
	// FS → kernel TLS, so Go code finds the kernel g at FS:-8.
	GS; MOVQ	CPU_kernelFS, AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	MOVL	$MSR_FS_BASE, CX
	WRMSR
	GS; MOVQ	$1, CPU_inKernel
	XORPS	X15, X15
	SUBQ	$8, SP
	MOVL	$0x1f80, 0(SP)	// MXCSR: all exceptions masked, round to nearest
	LDMXCSR	0(SP)	// Go ABI: round-to-nearest, exceptions masked
	ADDQ	$8, SP

	MOVQ	SP, AX
	SUBQ	$16, SP
	MOVQ	AX, 0(SP)
	CALL	·trap(SB)
	MOVQ	8(SP), AX
	JMP	·resume(SB)

// resume(AX = *Frame) returns to the interrupted context described by the frame: it restores the
// FP state (CPU.fpArea), FS base (CPU.userFS) and general registers, then IRETQ. AX = 0 idles the
// core: wait for an interrupt on an empty kernel stack, which re-enters trapCommon.
TEXT ·resume(SB),NOSPLIT|NOFRAME,$0
	// resume never returns to its caller, so BP is not a frame pointer here; the read below only
	// tells go vet's framepointer check that loading the thread's BP later is intended.
	MOVQ	BP, R15
	TESTQ	AX, AX
	JZ	idle
	MOVQ	AX, BX
	TESTQ	$3, Frame_CS(BX)
	JZ	restore
	// The same thread whose x87 state is still live (fpu.go): reload its SSE state only.
	// Anything else — another thread, or state fpFlush completed — is the whole FXSAVE image.
	GS; MOVQ	CPU_fpArea, AX
	GS; CMPQ	AX, CPU_fpLive
	JNE	fullfp
	LDMXCSR	fxMXCSR(AX)
	LOAD_SSE
	JMP	fpdone
fullfp:
	FXRSTOR64	(AX)
fpdone:
	GS; MOVQ	$0, CPU_fpLive
	GS; MOVQ	CPU_userFS, AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	MOVL	$MSR_FS_BASE, CX
	WRMSR
	// SYSRETQ is far cheaper than IRETQ (no descriptor loads: CS and SS come from IA32_STAR) and
	// makes the same state when the frame is what SYSCALL left — RCX = RIP, R11 = RFLAGS, the
	// user selectors — as after every system call that did not switch threads or deliver a signal.
	CMPQ	Frame_CS(BX), $const_UserCS
	JNE	restore
	CMPQ	Frame_SS(BX), $const_UserDS
	JNE	restore
	MOVQ	Frame_IP(BX), AX
	CMPQ	AX, Frame_CX(BX)
	JNE	restore
	MOVQ	$const_sysretIPLimit, DX
	CMPQ	AX, DX
	JAE	restore
	MOVQ	Frame_Flags(BX), AX
	CMPQ	AX, Frame_R11(BX)
	JNE	restore
	TESTQ	$const_sysretNoFlags, AX
	JNZ	restore
	GS; MOVQ	$0, CPU_inKernel
	MOVQ	BX, SP
	LOAD_GPRS
	// The user's stack from here on, in ring 0 with interrupts off until SYSRET loads RFLAGS:
	// nothing can trap in between (no NMIs are used).
	MOVQ	Frame_SP(SP), SP
	BYTE	$0x48; BYTE $0x0f; BYTE $0x07	// SYSRETQ (REX.W: return to 64-bit code)
restore:
	// inKernel tells syscallEntry whether a SYSCALL comes from kernel code, still on this kernel
	// stack. A kernel frame resumes kernel Go code — after a fault FixupUserAccess fixed, or
	// the runtime's SYSCALL from a kernel g — so the flag stays set for it; the idle loop, a
	// kernel frame too, clears it itself.
	GS; MOVQ	$0, CPU_inKernel
	TESTQ	$3, Frame_CS(BX)
	JNZ	popframe
	GS; MOVQ	$1, CPU_inKernel
popframe:
	MOVQ	BX, SP
	LOAD_GPRS
	ADDQ	$Frame_IP, SP	// pop GPRs, vector, error code: IRETQ's frame is left
	IRETQ

idle:
	GS; MOVQ	CPU_kstackTop, SP
idleloop:
	GS; MOVQ	$0, CPU_inKernel	// every round: resume sets it for a resumed idle frame
	STI
	HLT
	CLI
	JMP	idleloop

// func enterFirst(f *Frame)
TEXT ·enterFirst(SB),NOSPLIT,$0-8
	MOVQ	f+0(FP), AX
	JMP	·resume(SB)

// func rt0Addr() uintptr
TEXT ·rt0Addr(SB),NOSPLIT,$0-8
	LEAQ	_rt0_amd64_linux(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func currentCPU() *CPU
TEXT ·currentCPU(SB),NOSPLIT,$0-8
	GS; MOVQ	CPU_self, AX
	MOVQ	AX, ret+0(FP)
	RET

// func fpComplete(a uintptr)
// Completes area, whose SSE part the entry saved while its x87 part is still in the registers:
// reload the saved SSE state, then FXSAVE everything. Then Go's state again: X15 = 0, MXCSR
// 0x1f80 (the other X registers are scratch in Go's ABI).
TEXT ·fpComplete(SB),NOSPLIT,$8-8
	MOVQ	a+0(FP), AX
	LDMXCSR	fxMXCSR(AX)
	LOAD_SSE
	FXSAVE64	(AX)
	XORPS	X15, X15
	MOVL	$0x1f80, 0(SP)
	LDMXCSR	0(SP)
	RET
