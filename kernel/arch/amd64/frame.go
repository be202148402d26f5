// The trap frame: an interrupted thread's registers, and what the portable kernel may ask of it.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

// Frame is the register state of an interrupted thread, in the order trap_amd64.s builds it on the
// kernel stack: general registers pushed by the entry stub, then the vector and error code, then
// the interrupt frame the CPU pushed (SDM Vol. 3A §6.14.2, Figure 6-9: 64-bit mode always pushes
// SS:RSP, so the frame has the same shape from CPL0 and CPL3). SYSCALL entries synthesise the same
// shape (RIP from RCX, RFLAGS from R11), so every kernel entry and exit uses one layout and IRETQ.
// trap_amd64.s reads the offsets from go_asm.h (Frame_R15, ..., Frame__size).
type Frame struct {
	R15, R14, R13, R12, R11, R10, R9, R8 uint64
	BP, DI, SI, DX, CX, BX, AX           uint64
	Vector, Err                          uint64
	IP, CS, Flags, SP, SS                uint64
}

// Selectors of the kernel GDT (gdt.go). The user selectors carry RPL 3.
const (
	KernelCS = 0x08
	KernelDS = 0x10
	UserDS   = 0x20 | 3
	UserCS   = 0x28 | 3
	tssSel   = 0x30
)

// RFLAGS bits (SDM Vol. 1 §3.4.3).
const (
	FlagCF = 1 << 0
	FlagPF = 1 << 2
	FlagAF = 1 << 4
	FlagZF = 1 << 6
	FlagSF = 1 << 7
	FlagTF = 1 << 8
	FlagIF = 1 << 9
	FlagDF = 1 << 10
	FlagOF = 1 << 11
	FlagNT = 1 << 14
	FlagRF = 1 << 16
	FlagVM = 1 << 17
	FlagAC = 1 << 18
	FlagID = 1 << 21

	// flagsFixed is bit 1, reserved, always 1.
	flagsFixed = 1 << 1

	// sysretNoFlags are the flags with which resume returns by IRETQ rather than SYSRETQ (as
	// Linux's syscall_return_via_sysret test): SYSRET clears RF and VM instead of loading them,
	// and a pending single step (TF) is delivered as IRET's semantics say.
	sysretNoFlags = FlagTF | FlagRF | FlagVM

	// sysretIPLimit bounds the instruction pointers SYSRETQ may return to: a non-canonical RCX
	// makes SYSRET raise #GP in ring 0 on the user's stack (SDM Vol. 2B SYSRET; the 2012 Intel
	// SYSRET advisory). The user half ends here.
	sysretIPLimit = 0x0000_8000_0000_0000
)

// NewUserFrame returns the frame of a thread that starts at pc with stack pointer sp in user mode
// (CPL 3), interrupts enabled.
func NewUserFrame(pc, sp uintptr) Frame {
	return Frame{IP: uint64(pc), SP: uint64(sp), CS: UserCS, SS: UserDS, Flags: FlagIF | flagsFixed}
}

// FromUser reports whether the frame was interrupted at CPL 3.
func (f *Frame) FromUser() bool { return f.CS&3 == 3 }

// PC and StackPointer are the interrupted instruction and stack pointers; SetPC and
// SetStackPointer change where the thread resumes.
func (f *Frame) PC() uintptr                { return uintptr(f.IP) }
func (f *Frame) StackPointer() uintptr      { return uintptr(f.SP) }
func (f *Frame) SetPC(pc uintptr)           { f.IP = uint64(pc) }
func (f *Frame) SetStackPointer(sp uintptr) { f.SP = uint64(sp) }

// FramePointer is the interrupted RBP: Go code on amd64 keeps it as a frame-pointer chain (each
// frame saves the caller's RBP at [RBP] with the return PC above it, as runtime.fpTracebackPCs
// walks it), so the kernel fault report can list the callers without the runtime's unwinder.
func (f *Frame) FramePointer() uintptr { return uintptr(f.BP) }

// Syscall returns the system call number and its six arguments as the SYSCALL instruction left
// them: number in RAX, arguments in RDI, RSI, RDX, R10, R8, R9 (the x86-64 Linux convention;
// RCX and R11 hold the return RIP and RFLAGS, so R10 replaces the C ABI's RCX).
func (f *Frame) Syscall() (nr uint64, args [6]uint64) {
	return f.AX, [6]uint64{f.DI, f.SI, f.DX, f.R10, f.R8, f.R9}
}

// SetSyscallResult stores a system call's result (or -errno) where the caller finds it: RAX.
// Every other register is preserved, as Linux preserves them.
func (f *Frame) SetSyscallResult(r uint64) { f.AX = r }

// SyscallResult returns the value SetSyscallResult stored.
func (f *Frame) SyscallResult() uint64 { return f.AX }

// syscallInsnLen is the length of the SYSCALL instruction (0F 05, SDM Vol. 2B).
const syscallInsnLen = 2

// RestartSyscall makes the thread issue its system call again when it resumes: the instruction
// pointer goes back over SYSCALL. The number (RAX) and the arguments are still in the frame,
// because a blocked call's result has not been stored (kernel/wait.go).
func (f *Frame) RestartSyscall() { f.IP -= syscallInsnLen }

// EndRestarted undoes RestartSyscall: the call ends with result r instead of running again (the
// instruction pointer goes forward over SYSCALL, where the call would have returned).
func (f *Frame) EndRestarted(r uint64) { f.IP += syscallInsnLen; f.AX = r }
