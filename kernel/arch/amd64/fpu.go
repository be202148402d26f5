// Per-thread x87/SSE state: the FXSAVE area.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

// Every thread owns an FXSAVE area (SDM Vol. 1 §10.5.1, Table 10-2): trapCommon saves the
// interrupted thread's x87/SSE registers into the current core's CPU.fpArea on entry from user
// mode, and resume restores the resumed thread's (PrepareResume). AVX is left disabled
// (CR4.OSXSAVE = 0, see ENABLE_SSE in boot_amd64.h), so these 512 bytes are a thread's whole FP
// context and XSAVE is not needed. Linux's signal frame stores the same 512-byte layout as the
// start of struct _fpstate, so signal delivery copies it as is.
const (
	FPStateSize  = 512
	FPStateAlign = 16 // FXSAVE/FXRSTOR fault (#GP) on a misaligned area
)

// FXSAVE layout offsets used below.
const (
	fxFCW       = 0  // x87 control word
	fxMXCSR     = 24 // SSE control/status
	fxMXCSRMask = 28
)

// mxcsrValid are the MXCSR bits that may be set: a reserved bit set makes FXRSTOR fault (#GP),
// in the kernel, on the way back to user mode (SDM Vol. 1 §10.2.3.1, MXCSR_MASK 0xffff on every
// CPU QEMU emulates).
const mxcsrValid = 0xffff

// InitFPState writes the FP state a new Linux process starts with into the area at a
// (FPStateSize bytes, aligned to FPStateAlign): x87 control word 0x37f (all exceptions masked,
// 64-bit precision) and MXCSR 0x1f80 (all SIMD exceptions masked, round to nearest).
func InitFPState(a uintptr) {
	for i := uintptr(0); i < FPStateSize; i += 8 {
		*(*uint64)(addr(a + i)) = 0
	}
	*(*uint16)(addr(a + fxFCW)) = 0x37f
	*(*uint32)(addr(a + fxMXCSR)) = 0x1f80
	*(*uint32)(addr(a + fxMXCSRMask)) = mxcsrValid // as FXSAVE reports it
}

// SanitizeFPState makes FP state that came from user memory (rt_sigreturn) safe to load: only
// MXCSR can make FXRSTOR fault, through reserved bits.
func SanitizeFPState(a uintptr) {
	*(*uint32)(addr(a + fxMXCSR)) &= mxcsrValid
}
