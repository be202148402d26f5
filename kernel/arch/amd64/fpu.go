// Per-thread x87/SSE state: the FXSAVE area.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

// Every thread owns an FXSAVE area (SDM Vol. 1 §10.5.1, Table 10-2): its x87 and SSE state while
// it is not running. AVX is left disabled (CR4.OSXSAVE = 0, see ENABLE_SSE in boot_amd64.h), so
// these 512 bytes are a thread's whole FP context and XSAVE is not needed. Linux's signal frame
// stores the same 512-byte layout as the start of struct _fpstate, so signal delivery copies it
// as is.
//
// # Saving only what the kernel clobbers
//
// Kernel Go code uses the XMM registers and MXCSR (Go's ABI keeps X15 zero; memmove and the
// compiler use the rest) but never x87 or MMX. So trapCommon saves only MXCSR and XMM0–15, with
// plain moves, into the current thread's area, and leaves its x87 state in the registers: the
// area is then incomplete, and CPU.fpLive says which one it is. Returning to that same thread —
// most traps: a system call, a timer tick, an interrupt — resume reloads just the SSE part.
// Under TCG this matters: FXSAVE and FXRSTOR are helper calls that move every field through
// QEMU's soft MMU, and dropping them cut getpid from 3.6–4.8 µs to 2.3–3.0 µs.
//
// The area is completed (fpComplete: reload its SSE part, then FXSAVE everything) before anyone
// may need its x87 part: when the core resumes another thread or goes idle (PrepareResume,
// PrepareIdle; the kernel lets no other core resume the thread before that, kernel/oncpu.go)
// and before the
// kernel reads or writes the area of the thread that trapped (SaveFP: signal frames, sigreturn,
// clone, exec). resume then loads the whole image with FXRSTOR. This is the same bargain as
// Linux's TIF_NEED_FPU_LOAD (arch/x86/include/asm/fpu/sched.h): defer the expensive part to the
// switches that need it.
//
// fpLive belongs to its core: set by the entry, cleared by resume and by the functions below,
// which run on that core with interrupts off.
const (
	FPStateSize  = 512
	FPStateAlign = 16 // FXSAVE/FXRSTOR fault (#GP) on a misaligned area
)

// FXSAVE layout offsets used below.
const (
	fxFCW       = 0   // x87 control word
	fxMXCSR     = 24  // SSE control/status
	fxXMM       = 160 // XMM0..XMM15, 16 bytes each
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

// SaveFP completes the FP area at a if its x87 state is still live on this core (the area of the
// thread whose trap this is): call it before reading or writing a thread's area. The core
// holds that thread (kernel/oncpu.go).
func (c *CPU) SaveFP(a uintptr) {
	if c.fpLive != 0 && c.fpLive == a {
		fpComplete(a)
		c.fpLive = 0
	}
}

// PrepareIdle is PrepareResume for a core about to halt: no thread's x87 state may stay behind
// in its registers, since the next thread may run elsewhere. Called by the core itself, with or
// without the kernel's BKL.
func (c *CPU) PrepareIdle() {
	c.SaveFP(c.fpLive)
}

func fpComplete(a uintptr) // trap_amd64.s
