// Fixed physical addresses used before the kernel has a memory allocator (see entry32_amd64.s).
// Conventional memory 0x10000-0x17fff is free on the pc/q35 machines once the firmware is done;
// QEMU's multiboot information structure lives at 0x9000.
#define EARLY_PML4	0x10000
#define EARLY_PDPT	0x11000
#define EARLY_PD	0x12000
#define EARLY_GDT	0x16000
#define EARLY_GDTR	0x16100
#define EARLY_MAGIC	0x16200
#define EARLY_MBINFO	0x16208
#define EARLY_STACK	0x17f00

// Application processor start-up (smp_amd64.s): the real-mode trampoline is copied to AP_TRAMPOLINE
// (the SIPI vector is its page number), and AP_FARPTR holds the m16:32 pointer to apEntry64.
#define AP_TRAMPOLINE	0x8000
#define AP_FARPTR	0x16310

// Size of the boot stack (bootStack in boot.go).
#define BOOT_STACK_SIZE 65536

// ENTER_LONG_MODE, in 32-bit protected mode (SDM Vol. 3A §9.8.5 Initializing IA-32e mode): PAE,
// CR3 = the early page tables, EFER.LME (+NXE for W^X, SCE for SYSCALL), then CR0.PG activates long
// mode — the compatibility sub-mode, until a far jump loads a code segment with L=1. Used by the
// bootstrap processor (entry32) and by every application processor (apEntry32). Clobbers AX, CX, DX.
#define ENTER_LONG_MODE \
	MOVL	CR4, AX; \
	ORL	$(1<<5), AX; \
	MOVL	AX, CR4; \
	MOVL	$EARLY_PML4, AX; \
	MOVL	AX, CR3; \
	MOVL	$0xc0000080, CX; \
	RDMSR; \
	ORL	$(1<<0 | 1<<8 | 1<<11), AX; \
	WRMSR; \
	MOVL	CR0, AX; \
	ORL	$(1<<31 | 1<<16 | 1<<0), AX; \
	MOVL	AX, CR0

// ENABLE_SSE, in 64-bit mode before the first Go code on a core (SDM Vol. 3A §13.1.3): CR0.EM=0,
// CR0.MP=1, CR4.OSFXSR=1, CR4.OSXMMEXCPT=1, then FNINIT. CR4.OSXSAVE stays 0, so Go never uses YMM
// state and FXSAVE covers a thread's whole FP context. Clobbers AX.
#define ENABLE_SSE \
	MOVQ	CR0, AX; \
	ANDQ	$~(1<<2), AX; \
	ORQ	$(1<<1), AX; \
	MOVQ	AX, CR0; \
	MOVQ	CR4, AX; \
	ORQ	$(1<<9 | 1<<10), AX; \
	MOVQ	AX, CR4; \
	BYTE	$0xdb; BYTE $0xe3
