// Multiboot entry: 32-bit protected mode → 64-bit long mode.
//
// QEMU's multiboot loader (and GRUB) jump here with (Multiboot Specification 0.6.96 §3.2):
//   EAX = 0x2BADB002, EBX = physical address of the multiboot information structure,
//   CS/DS/ES/SS = flat 4 GiB segments, paging OFF, interrupts OFF, A20 on, ESP undefined.
//
// This file is assembled by the Go assembler, which only knows 64-bit mode. The code below therefore
// uses only instructions whose 64-bit encoding decodes identically in 32-bit mode: 32-bit operations
// on the eight legacy registers (no REX prefix), absolute memory operands written as plain constants
// (encoded with a SIB byte, never RIP-relative) and no symbol addresses except through the getPC
// trick at the end. Everything this stage touches lives at fixed low physical addresses (EARLY_*),
// well clear of QEMU's multiboot info at 0x9000 and of the kernel image at 1 MiB.

#include "textflag.h"
#include "boot_amd64.h"

// entry32 is the ELF entry point (linked with -E) and the multiboot entry_addr.
TEXT ·entry32(SB),NOSPLIT|NOFRAME,$0
	CLI
	MOVL	$EARLY_STACK, SP

	// Keep the loader's hand-off for the 64-bit code.
	MOVL	AX, EARLY_MAGIC
	MOVL	BX, EARLY_MBINFO

	// Zero PML4, PDPT and four page directories (6 pages).
	XORL	AX, AX
	MOVL	$EARLY_PML4, DI
	MOVL	$(6*4096/4), CX
	CLD
	REP;	STOSL

	// Intel SDM Vol. 3A §4.5: PML4[0] → PDPT, PDPT[0..3] → PD0..PD3, each PD maps 1 GiB with
	// 2 MiB pages. Present|Writable|User: until the kernel builds its real address space
	// (kernel/mm) everything below 4 GiB is identity mapped.
	MOVL	$(EARLY_PDPT|7), EARLY_PML4
	MOVL	$(EARLY_PD+0x0000|7), EARLY_PDPT
	MOVL	$(EARLY_PD+0x1000|7), EARLY_PDPT+8
	MOVL	$(EARLY_PD+0x2000|7), EARLY_PDPT+16
	MOVL	$(EARLY_PD+0x3000|7), EARLY_PDPT+24
	MOVL	$EARLY_PD, DI
	MOVL	$0x87, AX		// Present|Writable|User|PageSize(2 MiB), physical address 0
pdloop:
	MOVL	AX, (DI)
	ADDL	$0x200000, AX
	ADDL	$8, DI
	CMPL	DI, $(EARLY_PD+0x4000)
	JB	pdloop

	// Temporary GDT: null, 64-bit code (0x08), data (0x10), 32-bit code (0x18). §3.4.5, §5.2.1 (L bit).
	MOVL	$0, EARLY_GDT
	MOVL	$0, EARLY_GDT+4
	MOVL	$0x0000ffff, EARLY_GDT+8
	MOVL	$0x00af9a00, EARLY_GDT+12
	MOVL	$0x0000ffff, EARLY_GDT+16
	MOVL	$0x00cf9200, EARLY_GDT+20
	// 0x18: 32-bit code, used by application processors on their way from real mode (smp.s).
	MOVL	$0x0000ffff, EARLY_GDT+24
	MOVL	$0x00cf9a00, EARLY_GDT+28
	MOVL	$((EARLY_GDT&0xffff)<<16 | 31), EARLY_GDTR	// limit 31, base low 16 bits
	MOVL	$(EARLY_GDT>>16), EARLY_GDTR+4		// base high bits
	MOVL	$EARLY_GDTR, AX
	LGDT	(AX)

	// §9.8.5 Initializing IA-32e mode: PAE, CR3, EFER.LME (+NXE for W^X, SCE for SYSCALL),
	// then CR0.PG activates long mode (compatibility sub-mode until CS.L=1 is loaded).
	ENTER_LONG_MODE

	// Far return to ·entry64 through selector 0x08. Its absolute address comes from the getPC
	// trick: the 64-bit assembler encodes "MOVL $sym(SB), BX" as LEA with a RIP-relative
	// displacement; executed in 32-bit mode the same bytes load the bare displacement
	// (sym − end of the LEA), so adding the LEA's end address gives sym.
	CALL	·getPC<>(SB)
	MOVL	$·entry64(SB), BX		// 6 bytes: 8D 1D disp32
	ADDL	$6, AX
	ADDL	BX, AX
	PUSHQ	$0x08				// 32-bit mode: push imm8 → 4-byte push
	PUSHQ	AX				// push eax
	BYTE	$0xcb				// retf

// getPC returns, in AX, the address of the instruction following the CALL that reached it.
TEXT ·getPC<>(SB),NOSPLIT|NOFRAME,$0
	POPQ	AX	// pop eax (32-bit mode)
	JMP	AX	// jmp eax
