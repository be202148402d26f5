// The trap frame: an interrupted thread's registers, and what the portable kernel may ask of it.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

// Frame is the register state of an interrupted thread, as vectors_arm64.s saves it on the
// core's kernel stack: the 31 general registers, the interrupted stack pointer (SP_EL0 for user
// code), the exception link and saved program status registers, the syndrome and fault address
// of a synchronous exception (ARM ARM D1.10 "Exception entry"), which vector was taken and, for an
// interrupt, the GIC interrupt ID the entry acknowledged. Its size is a multiple of 16, as SP must
// be (D1.8.2 "SP alignment checking").
type Frame struct {
	X     [31]uint64 // X0..X30; X29 is the frame pointer, X30 the link register
	SP    uint64     // the interrupted SP (SP_EL0 for EL0)
	ELR   uint64     // where to resume (ELR_EL1)
	SPSR  uint64     // PSTATE at the exception (SPSR_EL1)
	ESR   uint64     // syndrome of a synchronous exception (ESR_EL1)
	FAR   uint64     // faulting address of an abort (FAR_EL1)
	Kind  uint64     // the vector: kindSync, kindIRQ, kindFIQ, kindSError
	IntID uint64     // the acknowledged GIC INTID (kindIRQ)
}

// PSTATE bits in SPSR_EL1 (ARM ARM C5.2.18 "SPSR_EL1").
const (
	psrModeMask = 0xf      // M[3:0]: 0 = EL0t, 5 = EL1h
	psrModeEL1h = 0x5      // EL1 with SP_EL1
	psrDAIF     = 0xf << 6 // D, A, I, F masks
	psrNZCV     = 0xf << 28
)

// NewUserFrame returns the frame of a thread that starts at pc with stack pointer sp at EL0,
// interrupts unmasked.
func NewUserFrame(pc, sp uintptr) Frame {
	return Frame{ELR: uint64(pc), SP: uint64(sp), SPSR: 0}
}

// FromUser reports whether the frame was interrupted at EL0.
func (f *Frame) FromUser() bool { return f.SPSR&psrModeMask == 0 }

// PC and StackPointer are the interrupted instruction and stack pointers; SetPC and
// SetStackPointer change where the thread resumes.
func (f *Frame) PC() uintptr                { return uintptr(f.ELR) }
func (f *Frame) StackPointer() uintptr      { return uintptr(f.SP) }
func (f *Frame) SetPC(pc uintptr)           { f.ELR = uint64(pc) }
func (f *Frame) SetStackPointer(sp uintptr) { f.SP = uint64(sp) }

// FramePointer is the interrupted R29: Go on arm64 keeps a frame-pointer chain (each frame saves
// the caller's R29 with the return address above it), which the fault report walks.
func (f *Frame) FramePointer() uintptr { return uintptr(f.X[29]) }

// Syscall returns the system call number and its six arguments as SVC #0 left them (the Linux
// arm64 convention: number in X8, arguments in X0-X5).
func (f *Frame) Syscall() (nr uint64, args [6]uint64) {
	return f.X[8], [6]uint64{f.X[0], f.X[1], f.X[2], f.X[3], f.X[4], f.X[5]}
}

// SetSyscallResult stores a system call's result (or -errno) in X0; the other registers are
// preserved, as Linux preserves them.
func (f *Frame) SetSyscallResult(r uint64) { f.X[0] = r }

// SyscallResult returns the value SetSyscallResult stored.
func (f *Frame) SyscallResult() uint64 { return f.X[0] }

// svcInsnLen is the length of SVC (every A64 instruction is 4 bytes).
const svcInsnLen = 4

// RestartSyscall makes the thread issue its system call again when it resumes: ELR_EL1 holds
// the address after the SVC (D1.10.1, preferred return address of an SVC), so step back over it.
// X0 still holds the first argument, because a blocked call's result has not been stored.
func (f *Frame) RestartSyscall() { f.ELR -= svcInsnLen }

// EndRestarted undoes RestartSyscall: the call ends with result r instead of running again
// (ELR_EL1 goes forward over the SVC, where the call would have returned).
func (f *Frame) EndRestarted(r uint64) { f.ELR += svcInsnLen; f.X[0] = r }
