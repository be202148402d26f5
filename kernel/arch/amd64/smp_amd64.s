// Application processor (AP) start-up: real mode → protected mode → long mode → Go (apMain).
//
// The bootstrap processor copies apTrampoline to AP_TRAMPOLINE and sends INIT-SIPI-SIPI (SDM Vol. 3A
// §9.4.4 "MP Initialization Example", §11.6.1 ICR); every AP then starts in real mode at
// CS:IP = 0800:0000. All APs start at once and share the early GDT and page tables that entry32
// left in low memory (the frame allocator never hands out the first MiB), so nothing here may use
// a shared stack: the first stack an AP touches is its own, chosen after it has taken a CPU index.

#include "textflag.h"
#include "go_asm.h"
#include "boot_amd64.h"

#define MSR_FS_BASE	0xc0000100
#define MSR_GS_BASE	0xc0000101

// apTrampoline is 16-bit code, spelled as bytes (the Go assembler has no 16-bit mode).
// Offset 22 holds the 32-bit address of apEntry32, patched when the trampoline is copied.
TEXT ·apTrampoline(SB),NOSPLIT|NOFRAME,$0
	BYTE $0xfa			// cli
	BYTE $0xfc			// cld
	BYTE $0xb8; BYTE $0x00; BYTE $0x10	// mov ax, 0x1000
	BYTE $0x8e; BYTE $0xd8		// mov ds, ax
	BYTE $0x0f; BYTE $0x01; BYTE $0x16; BYTE $0x00; BYTE $0x61	// lgdt [0x6100] = EARLY_GDTR
	BYTE $0x0f; BYTE $0x20; BYTE $0xc0	// mov eax, cr0
	BYTE $0x0c; BYTE $0x01		// or al, 1 (PE)
	BYTE $0x0f; BYTE $0x22; BYTE $0xc0	// mov cr0, eax
	BYTE $0x66; BYTE $0xea		// jmp dword 0x18:apEntry32
	LONG $0				// offset, patched (byte 22)
	BYTE $0x18; BYTE $0x00		// selector: 32-bit code
	BYTE $0xcc; BYTE $0xcc; BYTE $0xcc; BYTE $0xcc

// apEntry32 runs in 32-bit protected mode, paging off (encodings valid in 32-bit mode, as in
// entry32): it enables long mode on the early page tables and jumps to apEntry64 through the
// far pointer at AP_FARPTR — an indirect jump needs no stack.
TEXT ·apEntry32(SB),NOSPLIT|NOFRAME,$0
	MOVL	$0x10, AX
	MOVW	AX, DS
	MOVW	AX, ES
	MOVW	AX, SS
	ENTER_LONG_MODE
	BYTE $0xff; BYTE $0x2d; LONG $AP_FARPTR	// ljmp *AP_FARPTR (m16:32 → 0x08:apEntry64)

// apEntry64: long mode on the early identity map. Take a CPU index, switch to this CPU's boot
// stack and to the kernel's page table, point FS/GS at its CPU struct, and call apMain(index).
TEXT ·apEntry64(SB),NOSPLIT|NOFRAME,$0
	MOVL	$1, AX
	LOCK
	XADDL	AX, ·apNext(SB)			// AX = this AP's CPU index (the BSP is 0)
	CMPL	AX, $const_MaxCPU
	JAE	park
	MOVQ	AX, R12
	MOVQ	R12, BX
	INCQ	BX
	SHLQ	$14, BX				// (index+1) * 16 KiB
	LEAQ	·apBootStacks(SB), SP
	ADDQ	BX, SP

	ENABLE_SSE

	MOVQ	·kernelCR3(SB), AX
	MOVQ	AX, CR3

	// BX = &cpus[index]; ktls[0] = &kg; FS = &ktls[1]; GS = BX.
	MOVQ	R12, AX
	IMULQ	$CPU__size, AX
	LEAQ	·cpus(SB), BX
	ADDQ	AX, BX
	LEAQ	CPU_kg(BX), AX
	MOVQ	AX, CPU_ktls(BX)
	LEAQ	(CPU_ktls+8)(BX), AX
	MOVQ	AX, DX
	SHRQ	$32, DX
	MOVL	$MSR_FS_BASE, CX
	WRMSR
	MOVQ	BX, AX
	MOVQ	BX, DX
	SHRQ	$32, DX
	MOVL	$MSR_GS_BASE, CX
	WRMSR

	SUBQ	$16, SP
	MOVQ	R12, 0(SP)
	CALL	·apMain(SB)
park:
	CLI
	HLT
	JMP	park

// func apTrampolineAddr() uintptr
TEXT ·apTrampolineAddr(SB),NOSPLIT,$0-8
	LEAQ	·apTrampoline(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func apEntryAddrs() (e32, e64 uintptr)
TEXT ·apEntryAddrs(SB),NOSPLIT,$0-16
	LEAQ	·apEntry32(SB), AX
	MOVQ	AX, e32+0(FP)
	LEAQ	·apEntry64(SB), AX
	MOVQ	AX, e64+8(FP)
	RET
