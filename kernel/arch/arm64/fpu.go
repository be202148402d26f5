// Per-thread FP/SIMD state.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

// Every thread owns an FP area: V0-V31 (32 x 128 bits), then FPSR and FPCR — the same order as
// the vregs/fpsr/fpcr of Linux's struct user_fpsimd_state, which the signal frame's
// fpsimd_context carries (arch/arm64/include/uapi/asm/ptrace.h). The entry saves all of it on
// every trap from EL0 and resume reloads it (vectors_arm64.s): kernel Go code uses the vector
// registers, and under TCG 16 paired stores are cheap next to the trap itself.
const (
	FPStateSize  = 528
	FPStateAlign = 16 // the entry stores Q registers in pairs: keep each pair in one cache line
	fpFPSR       = 512
	fpFPCR       = 516
)

// Valid FPSR and FPCR bits (ARM ARM C5.2.8 FPCR, C5.2.9 FPSR): the cumulative exception flags,
// QC and NZCV; the rounding mode, flush-to-zero, default NaN, half-precision, and the trap
// enables. Everything else is RES0.
const (
	fpsrValid = 0xf800_009f
	fpcrValid = 0x07ff_9f00
)

// InitFPState gives area a the state a new Linux thread starts with: every register zero, FPCR
// zero (round to nearest, no traps).
func InitFPState(a uintptr) {
	clear((*[FPStateSize]byte)(ptr(a))[:])
}

// SanitizeFPState clears reserved FPSR and FPCR bits of state read from user memory (a signal
// frame): writing RES0 bits is CONSTRAINED UNPREDICTABLE.
func SanitizeFPState(a uintptr) {
	fpsr := (*uint32)(ptr(a + fpFPSR))
	fpcr := (*uint32)(ptr(a + fpFPCR))
	*fpsr &= fpsrValid
	*fpcr &= fpcrValid
}
