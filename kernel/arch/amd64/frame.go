package amd64

// Frame is the register state of an interrupted thread, in the order trap_amd64.s builds it on the
// kernel stack: general registers pushed by the entry stub, then the vector and error code, then
// the interrupt frame the CPU pushed (SDM Vol. 3A §6.14.2, Figure 6-9: 64-bit mode always pushes
// SS:RSP, so the frame has the same shape from CPL0 and CPL3). SYSCALL entries synthesise the same
// shape (RIP from RCX, RFLAGS from R11), so every kernel entry and exit uses one layout and IRETQ.
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

// VectorSyscall marks frames built by the SYSCALL entry; it is outside the IDT's 0..255.
const VectorSyscall = 0x100

// FromUser reports whether the frame was interrupted at CPL 3.
//
//go:nosplit
func (f *Frame) FromUser() bool { return f.CS&3 == 3 }

// RFLAGS bits (SDM Vol. 1 §3.4.3).
const (
	FlagIF = 1 << 9
	FlagDF = 1 << 10
	FlagTF = 1 << 8
	FlagAC = 1 << 18
)
