// Boot path: from the loader's jump to the first Go code (kmain), on the boot core.
//
// Entry state (Linux Documentation/arch/arm64/booting.rst §4, which QEMU's -kernel and the
// Raspberry Pi firmware both follow): MMU off, caches off, interrupts masked, at EL2 or EL1 (EL3
// if the machine has no firmware below us), x0 = physical address of the device tree.

#include "textflag.h"
#include "go_asm.h"

// EL2/EL3 system registers the Go assembler does not name, as MSR Xt encodings
// (ARM ARM C6.2.250 MSR (register): 0xd5100000 | o0<<19 | op1<<16 | CRn<<12 | CRm<<8 | op2<<5 | Rt).
#define MSR_HCR_EL2_X1		WORD $0xd51c1101	// op1=4 CRn=1 CRm=1 op2=0
#define MSR_CPTR_EL2_X1		WORD $0xd51c1141	// op1=4 CRn=1 CRm=1 op2=2
#define MSR_HSTR_EL2_XZR	WORD $0xd51c117f	// op1=4 CRn=1 CRm=1 op2=3
#define MSR_SCTLR_EL1_X1	WORD $0xd5181001	// (named, but kept next to the others)
#define MSR_CNTHCTL_EL2_X1	WORD $0xd51ce101	// op1=4 CRn=14 CRm=1 op2=0
#define MSR_CNTVOFF_EL2_XZR	WORD $0xd51ce07f	// op1=4 CRn=14 CRm=0 op2=3
#define MSR_SPSR_EL2_X1		WORD $0xd51c4001	// op1=4 CRn=4 CRm=0 op2=0
#define MSR_ELR_EL2_X1		WORD $0xd51c4021	// op1=4 CRn=4 CRm=0 op2=1
#define MSR_ICC_SRE_EL2_X1	WORD $0xd51cc9a1	// op0=3 op1=4 CRn=12 CRm=9 op2=5
#define MSR_SCR_EL3_X1		WORD $0xd51e1101	// op1=6 CRn=1 CRm=1 op2=0
#define MSR_SPSR_EL3_X1		WORD $0xd51e4001	// op1=6 CRn=4 CRm=0 op2=0
#define MSR_ELR_EL3_X1		WORD $0xd51e4021	// op1=6 CRn=4 CRm=0 op2=1

// Register values, explained in boot.go (const block "early machine state").
#define SPSR_EL1H_MASKED	0x3c5	// EL1h, D A I F masked
#define SCTLR_EL1_OFF		0x30d00800	// RES1 bits only: MMU, caches off, little endian

// entry is the image's entry point (the Image header's branch and the ELF's e_entry).
TEXT ·entry(SB),NOSPLIT|NOFRAME,$0
	MOVD	R0, R19			// the device tree, kept across the EL changes
	MRS	CurrentEL, R1
	UBFX	$2, R1, $2, R1
	CMP	$2, R1
	BEQ	fromEL2
	CMP	$3, R1
	BEQ	fromEL3
	B	·el1(SB)

fromEL3:
	// SCR_EL3: RW (bit 10, EL2/EL1 are AArch64), NS (bit 0, non-secure), SMD (bit 7, no SMC
	// from below: there is no secure monitor behind us), bits 5:4 RES1. ARM ARM D17.2.117.
	// Untested: QEMU's virt enters at EL1 or EL2, and so do the Raspberry Pi's firmware stubs;
	// a core with EL2 entered at EL3 would need EL2 set up first (HCR_EL2.RW) — not done.
	MOVD	$0x4b1, R1
	MSR_SCR_EL3_X1
	MOVD	$SCTLR_EL1_OFF, R1
	MSR_SCTLR_EL1_X1
	MOVD	$SPSR_EL1H_MASKED, R1
	MSR_SPSR_EL3_X1
	MOVD	$·el1(SB), R1
	MSR_ELR_EL3_X1
	ERET

fromEL2:
	// HCR_EL2.RW (bit 31): EL1 is AArch64; everything else 0: no stage 2, nothing trapped to EL2.
	MOVD	$(1<<31), R1
	MSR_HCR_EL2_X1
	// CNTHCTL_EL2.EL1PCTEN|EL1PCEN: EL1 may use the physical counter and timer; CNTVOFF_EL2 = 0,
	// so the virtual counter EL1 reads equals the physical one (D11.2.4).
	MOVD	$3, R1
	MSR_CNTHCTL_EL2_X1
	MSR_CNTVOFF_EL2_XZR
	// CPTR_EL2: RES1 bits 13:12, 9:0 only, TFP (bit 10) clear: FP/SIMD not trapped to EL2.
	MOVD	$0x33ff, R1
	MSR_CPTR_EL2_X1
	MSR_HSTR_EL2_XZR
	// A GICv3 CPU interface: let EL1 use its system registers (ICC_SRE_EL2.SRE|Enable). The
	// register exists only when ID_AA64PFR0_EL1.GIC (bits 27:24) says so.
	MRS	ID_AA64PFR0_EL1, R1
	UBFX	$24, R1, $4, R1
	CBZ	R1, nogic3
	MOVD	$9, R1
	MSR_ICC_SRE_EL2_X1
nogic3:
	MOVD	$SCTLR_EL1_OFF, R1
	MSR_SCTLR_EL1_X1
	MOVD	$SPSR_EL1H_MASKED, R1
	MSR_SPSR_EL2_X1
	MOVD	$·el1(SB), R1
	MSR_ELR_EL2_X1
	ERET

// el1 continues at EL1 with the MMU off.
TEXT ·el1(SB),NOSPLIT|NOFRAME,$0
	// The early identity map (boot.go; the board's layout in early_<board>.go): an L0 table
	// with one entry, pointing at an L1 table of four 1 GiB blocks — or, where a board's first
	// GiB mixes RAM and devices (earlySplit != 0), an L2 table of 2 MiB blocks for it, Normal
	// below earlySplit and Device from there. The tables are carved out of earlyPT at its first
	// 4 KiB boundary.
	MOVD	$·earlyPT(SB), R1
	ADD	$4095, R1
	AND	$~4095, R1		// L0
	ADD	$4096, R1, R2		// L1
	ORR	$3, R2, R3		// table descriptor
	MOVD	R3, (R1)
	MOVD	$const_earlySplit, R5
	CBZ	R5, gib0block
	ADD	$8192, R1, R6		// L2
	ORR	$3, R6, R3
	MOVD	R3, (R2)		// 0-1 GiB: through L2
	MOVD	ZR, R7			// the block's address
	MOVD	$512, R9
l2loop:
	MOVD	$const_earlyNormal, R3
	CMP	R5, R7
	BLO	l2put
	MOVD	$const_earlyDevice, R3
l2put:
	ORR	R7, R3
	MOVD.P	R3, 8(R6)
	ADD	$(1<<21), R7
	SUB	$1, R9
	CBNZ	R9, l2loop
	B	gib1
gib0block:
	MOVD	$const_earlyGiB0, R3
	MOVD	R3, (R2)		// 0-1 GiB
gib1:
	MOVD	$(1<<30), R4
	MOVD	$const_earlyGiB1, R3
	ADD	R4, R3
	MOVD	R3, 8(R2)		// 1-2 GiB
	MOVD	$const_earlyGiB2, R3
	ADD	R4, R3
	ADD	R4, R3
	MOVD	R3, 16(R2)		// 2-3 GiB
	MOVD	$const_earlyGiB3, R3
	ADD	R4, R3
	ADD	R4, R3
	ADD	R4, R3
	MOVD	R3, 24(R2)		// 3-4 GiB
	DSB	$15
	// The tables went straight to memory (MMU off: Device accesses); once the MMU is on the
	// walker reads them through the caches, which may still hold stale lines of that memory —
	// the firmware's, or speculative fills. Invalidate them to the point of coherency (Linux
	// head.S does the same for its early tables: dcache_inval_poc).
	MOVD	R1, R5
	ADD	$(3*4096), R1, R6
inval:
	WORD	$0xd5087625		// DC IVAC, X5
	ADD	$64, R5
	CMP	R6, R5
	BLO	inval
	DSB	$15

	MOVD	$const_mairValue, R3
	MSR	R3, MAIR_EL1
	MRS	ID_AA64MMFR0_EL1, R4	// PARange, bits 3:0, becomes TCR_EL1.IPS
	AND	$7, R4
	LSL	$32, R4
	MOVD	$const_tcrValue, R3
	ORR	R4, R3
	MSR	R3, TCR_EL1
	MSR	R1, TTBR0_EL1
	MSR	R1, TTBR1_EL1
	ISB	$15
	TLBI	VMALLE1
	DSB	$15
	ISB	$15
	MOVD	$const_cpacrValue, R3	// FP/SIMD on before the first Go instruction
	MSR	R3, CPACR_EL1
	MOVD	$const_cntkctlValue, R3
	MSR	R3, CNTKCTL_EL1
	MOVD	$const_sctlrValue, R3
	MSR	R3, SCTLR_EL1
	ISB	$15

	MOVD	$·bootStack+const_bootStackSize(SB), R3
	MOVD	R3, RSP
	MOVD	$·vectorTable(SB), R3
	MSR	R3, VBAR_EL1
	MOVD	$·cpus(SB), R3
	MSR	R3, TPIDR_EL1
	MOVD	R19, ·bootDTB(SB)
	// Go code finds g in R28: the boot core's kernel g (stackguard0 = 0: no stack checks fire).
	MOVD	$·cpus+CPU_kgs(SB), g
	ISB	$15
	BL	·kmain(SB)
hang:
	WFI
	B	hang

// func secondaryEntryAddr() uintptr
TEXT ·secondaryEntryAddr(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	$·secondaryEntry(SB), R0
	MOVD	R0, ret+0(FP)
	RET

// func spinEntryAddr() uintptr
TEXT ·spinEntryAddr(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	$·spinEntry(SB), R0
	MOVD	R0, ret+0(FP)
	RET

// spinEntry is where the spin table sends the other cores (smp.go, startSpinning): MMU off, EL2,
// x0 = 0. The CPU index is the core's MPIDR Aff0, as UseSpinTable numbered them.
TEXT ·spinEntry(SB),NOSPLIT|NOFRAME,$0
	MRS	MPIDR_EL1, R0
	AND	$0xff, R0
	B	·secondaryEntry(SB)

// secondaryEntry is where PSCI CPU_ON starts the other cores (smp.go): MMU off, EL2 or EL1,
// x0 = the core's CPU index.
TEXT ·secondaryEntry(SB),NOSPLIT|NOFRAME,$0
	MOVD	R0, R19
	MRS	CurrentEL, R1
	UBFX	$2, R1, $2, R1
	CMP	$2, R1
	BEQ	secEL2
	B	·secondaryEL1(SB)
secEL2:
	MOVD	$(1<<31), R1
	MSR_HCR_EL2_X1
	MOVD	$3, R1
	MSR_CNTHCTL_EL2_X1
	MSR_CNTVOFF_EL2_XZR
	MOVD	$0x33ff, R1
	MSR_CPTR_EL2_X1
	MSR_HSTR_EL2_XZR
	MRS	ID_AA64PFR0_EL1, R1
	UBFX	$24, R1, $4, R1
	CBZ	R1, secnogic3
	MOVD	$9, R1
	MSR_ICC_SRE_EL2_X1
secnogic3:
	MOVD	$SCTLR_EL1_OFF, R1
	MSR_SCTLR_EL1_X1
	MOVD	$SPSR_EL1H_MASKED, R1
	MSR_SPSR_EL2_X1
	MOVD	$·secondaryEL1(SB), R1
	MSR_ELR_EL2_X1
	ERET

TEXT ·secondaryEL1(SB),NOSPLIT|NOFRAME,$0
	MOVD	$const_mairValue, R3
	MSR	R3, MAIR_EL1
	MRS	ID_AA64MMFR0_EL1, R4
	AND	$7, R4
	LSL	$32, R4
	MOVD	$const_tcrValue, R3
	ORR	R4, R3
	MSR	R3, TCR_EL1
	MOVD	·kernelRoot(SB), R1
	MSR	R1, TTBR0_EL1
	MSR	R1, TTBR1_EL1
	ISB	$15
	TLBI	VMALLE1
	DSB	$15
	ISB	$15
	MOVD	$const_cpacrValue, R3
	MSR	R3, CPACR_EL1
	MOVD	$const_cntkctlValue, R3
	MSR	R3, CNTKCTL_EL1
	MOVD	$const_sctlrValue, R3
	MSR	R3, SCTLR_EL1
	ISB	$15

	// SP = the top of apBootStacks[R19]; TPIDR_EL1 = &cpus[R19]; g = &cpus[R19].kg.
	MOVD	$const_apBootStackLen, R3
	ADD	$1, R19, R4
	MUL	R3, R4
	MOVD	$·apBootStacks(SB), R5
	ADD	R4, R5
	MOVD	R5, RSP
	MOVD	$·vectorTable(SB), R3
	MSR	R3, VBAR_EL1
	MOVD	$CPU__size, R3
	MUL	R19, R3
	MOVD	$·cpus(SB), R5
	ADD	R3, R5
	MSR	R5, TPIDR_EL1
	ADD	$CPU_kgs, R5, g
	ISB	$15
	SUB	$16, RSP
	MOVD	R19, 8(RSP)
	BL	·apMain(SB)
sechang:
	WFI
	B	sechang
