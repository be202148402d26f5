// System registers and privileged instructions, one small function each (sysreg.go declares them).

#include "textflag.h"

// func readTPIDR1() uintptr
TEXT ·readTPIDR1(SB),NOSPLIT|NOFRAME,$0-8
	MRS	TPIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func writeTPIDR1(v uintptr)
TEXT ·writeTPIDR1(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, TPIDR_EL1
	RET

// func readMPIDR() uint64
TEXT ·readMPIDR(SB),NOSPLIT|NOFRAME,$0-8
	MRS	MPIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func readMIDR() uint64
TEXT ·readMIDR(SB),NOSPLIT|NOFRAME,$0-8
	MRS	MIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func readISAR0() uint64
TEXT ·readISAR0(SB),NOSPLIT|NOFRAME,$0-8
	MRS	ID_AA64ISAR0_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func readISAR1() uint64
TEXT ·readISAR1(SB),NOSPLIT|NOFRAME,$0-8
	MRS	ID_AA64ISAR1_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func readPFR0() uint64
TEXT ·readPFR0(SB),NOSPLIT|NOFRAME,$0-8
	MRS	ID_AA64PFR0_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func readTTBR0() uint64
TEXT ·readTTBR0(SB),NOSPLIT|NOFRAME,$0-8
	MRS	TTBR0_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// func writeTTBRs(root uintptr)
// Both halves walk the same root (kernel/mm: the kernel's slots are the root's upper half), and
// without ASIDs every old translation must go (D8.13 "TLB maintenance requirements").
TEXT ·writeTTBRs(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	root+0(FP), R0
	DSB	$11		// DSB ISH: the new tables are written
	MSR	R0, TTBR0_EL1
	MSR	R0, TTBR1_EL1
	ISB	$15
	TLBI	VMALLE1
	DSB	$7		// DSB NSH
	ISB	$15
	RET

// func tlbiVA(va uintptr)
// TLBI VAAE1: one page, any ASID, this core (D8.13.5).
TEXT ·tlbiVA(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	va+0(FP), R0
	UBFX	$12, R0, $44, R0	// VA[55:12] → bits 43:0; bits 47:44 (FEAT_TTL's level hint) stay 0
	DSB	$10		// DSB ISHST: the descriptor store comes first
	TLBI	VAAE1, R0
	DSB	$7
	ISB	$15
	RET

// func tlbiAll()
TEXT ·tlbiAll(SB),NOSPLIT|NOFRAME,$0-0
	DSB	$10
	TLBI	VMALLE1
	DSB	$7
	ISB	$15
	RET

// func cntvct() uint64
// ISB first, so the counter is not read early (D11.2.2, "reads of the counter are not ordered").
TEXT ·cntvct(SB),NOSPLIT|NOFRAME,$0-8
	ISB	$15
	MRS	CNTVCT_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func cntfrq() uint64
TEXT ·cntfrq(SB),NOSPLIT|NOFRAME,$0-8
	MRS	CNTFRQ_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func setTimer(cval uint64, ctl uint64)
TEXT ·setTimer(SB),NOSPLIT|NOFRAME,$0-16
	MOVD	cval+0(FP), R0
	MOVD	ctl+8(FP), R1
	MSR	R0, CNTV_CVAL_EL0
	MSR	R1, CNTV_CTL_EL0
	ISB	$15
	RET

// func stopTimer()
TEXT ·stopTimer(SB),NOSPLIT|NOFRAME,$0-0
	MSR	ZR, CNTV_CTL_EL0
	ISB	$15
	RET

// func wfi()
TEXT ·wfi(SB),NOSPLIT|NOFRAME,$0-0
	WFI
	RET

// func yield()
TEXT ·yield(SB),NOSPLIT|NOFRAME,$0-0
	YIELD
	RET

// func dmbISH()
TEXT ·dmbISH(SB),NOSPLIT|NOFRAME,$0-0
	DMB	$11
	RET

// func rndr() (v uint64, ok bool)
// RNDR (FEAT_RNG, D17.2.112): NZCV = 0b0100 when no number could be made.
TEXT ·rndr(SB),NOSPLIT|NOFRAME,$0-9
	MRS	RNDR, R0
	CSET	NE, R1
	MOVD	R0, v+0(FP)
	MOVB	R1, ok+8(FP)
	RET

// func semihost(op uint64, arg uintptr) uint64
// The AArch64 semihosting trap (Arm "Semihosting for AArch32 and AArch64" v2, §2.3: HLT #0xF000,
// operation in W0, parameter block address in X1, result in X0). QEMU answers it when started
// with -semihosting; without, HLT is an undefined instruction.
TEXT ·semihost(SB),NOSPLIT|NOFRAME,$0-24
	MOVD	op+0(FP), R0
	MOVD	arg+8(FP), R1
	HLT	$0xf000
	MOVD	R0, ret+16(FP)
	RET

// func gicv3EOI(v uint64)
TEXT ·gicv3EOI(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, ICC_EOIR1_EL1
	RET

// func gicv3CPUInit()
// ICC_SRE_EL1.SRE (system-register interface), ICC_PMR_EL1 = 0xff (every priority passes),
// ICC_BPR1 left, ICC_IGRPEN1_EL1 = 1 (group 1 interrupts signalled). GICv3 §12.11.
TEXT ·gicv3CPUInit(SB),NOSPLIT|NOFRAME,$0-0
	MRS	ICC_SRE_EL1, R0
	ORR	$1, R0
	MSR	R0, ICC_SRE_EL1
	ISB	$15
	MOVD	$0xff, R0
	MSR	R0, ICC_PMR_EL1
	// ICC_CTLR_EL1 = 0: EOImode 0, so the EOIR write both drops the priority and deactivates
	// (the reset value is UNKNOWN; with EOImode 1 every interrupt would fire once, §12.11.7).
	MSR	ZR, ICC_CTLR_EL1
	MOVD	$1, R0
	MSR	R0, ICC_IGRPEN1_EL1
	ISB	$15
	RET

// func gicv3SGI(v uint64)
TEXT ·gicv3SGI(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	DSB	$11		// stores before the IPI reach the target (it reads them after)
	MSR	R0, ICC_SGI1R_EL1
	ISB	$15
	RET

// func hvcCall(fn, a1, a2, a3 uint64) uint64
// PSCI through HVC (SMC Calling Convention, DEN0028: function ID in W0, arguments X1-X3).
TEXT ·hvcCall(SB),NOSPLIT|NOFRAME,$0-40
	MOVD	fn+0(FP), R0
	MOVD	a1+8(FP), R1
	MOVD	a2+16(FP), R2
	MOVD	a3+24(FP), R3
	HVC	$0
	MOVD	R0, ret+32(FP)
	RET

// func smcCall(fn, a1, a2, a3 uint64) uint64
TEXT ·smcCall(SB),NOSPLIT|NOFRAME,$0-40
	MOVD	fn+0(FP), R0
	MOVD	a1+8(FP), R1
	MOVD	a2+16(FP), R2
	MOVD	a3+24(FP), R3
	SMC	$0
	MOVD	R0, ret+32(FP)
	RET

// func dsb()
// DSB ISH: normal-memory stores before it are visible to other cores first (an IPI's payload).
TEXT ·dsb(SB),NOSPLIT|NOFRAME,$0-0
	DSB	$11
	RET

// func cleanToPoC(va uintptr)
// DC CVAC: write the cache line holding va back to memory, for a reader with caches off.
TEXT ·cleanToPoC(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	va+0(FP), R0
	WORD	$0xd50b7a20	// DC CVAC, X0
	DSB	$15
	RET

// func dsbSY()
// DSB SY: every memory access before it, to any shareability domain, is complete — the BCM2836
// mailbox clear (a Device write) before the IPI's payload is read.
TEXT ·dsbSY(SB),NOSPLIT|NOFRAME,$0-0
	DSB	$15
	RET

// func sev()
// SEV: wake the cores waiting in WFE (the spin table's, smp.go).
TEXT ·sev(SB),NOSPLIT|NOFRAME,$0-0
	DSB	$15
	SEV
	RET

// func CleanInvalidate(va, n uintptr)
// DC CIVAC over [va, va+n) in 64-byte lines (the Cortex-A53's and A72's line size; CTR_EL0
// DminLine would say), then DSB: memory another bus master reads or writes — the VideoCore's
// mailbox buffer — is in RAM, not in this core's cache, before and after it does.
TEXT ·CleanInvalidate(SB),NOSPLIT|NOFRAME,$0-16
	MOVD	va+0(FP), R0
	MOVD	n+8(FP), R1
	ADD	R0, R1
	AND	$~63, R0
civac:
	CMP	R1, R0
	BHS	civacdone
	WORD	$0xd50b7e20	// DC CIVAC, X0
	ADD	$64, R0
	B	civac
civacdone:
	DSB	$15
	RET

// func translates(va uintptr, write bool) bool
// AT S1E1R or S1E1W (D8.11.2: the stage 1 EL1 translation of va for a read or a write), then
// PAR_EL1.F (bit 0) says whether it failed. DSB ISH and ISB after it: the retry that follows
// must see the same descriptor.
TEXT ·translates(SB),NOSPLIT|NOFRAME,$0-17
	MOVD	va+0(FP), R0
	MOVBU	write+8(FP), R1
	CBNZ	R1, atw
	WORD	$0xd5087800	// AT S1E1R, X0
	B	atdone
atw:
	WORD	$0xd5087820	// AT S1E1W, X0
atdone:
	ISB	$15
	MRS	PAR_EL1, R0
	DSB	$11
	ISB	$15
	AND	$1, R0
	EOR	$1, R0
	MOVB	R0, ret+16(FP)
	RET

// func SyncICache(va, n uintptr)
// Make code the kernel just stored at [va, va+n) visible to instruction fetch (ARM ARM B2.4.4,
// "Concurrent modification and execution of instructions"; D7.5.9): DC CVAU writes each data
// line to the point of unification, DSB ISH waits for it, IC IALLUIS drops every core's
// instruction cache (not IVAU by this VA: the Cortex-A53's VIPT I-cache may hold the code under
// another alias, and exec is rare), DSB ISH and ISB make the next fetches see the new code.
// Lines of 64 bytes, the Cortex-A53's and A72's (CTR_EL0.DminLine would say).
TEXT ·SyncICache(SB),NOSPLIT|NOFRAME,$0-16
	MOVD	va+0(FP), R0
	MOVD	n+8(FP), R1
	ADD	R0, R1
	AND	$~63, R0
cvau:
	CMP	R1, R0
	BHS	cvaudone
	WORD	$0xd50b7b20	// DC CVAU, X0
	ADD	$64, R0
	B	cvau
cvaudone:
	DSB	$11
	WORD	$0xd508711f	// IC IALLUIS
	DSB	$11
	ISB	$15
	RET
