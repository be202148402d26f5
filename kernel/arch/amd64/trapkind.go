// What a trap was: the portable kernel's view of the vector numbers.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

// TrapKind says why the kernel was entered. The portable kernel dispatches on it and never sees a
// vector number (the arch contract, kernel/arch/doc.go).
type TrapKind uint8

const (
	TrapUnknown  TrapKind = iota // an interrupt vector nobody uses
	TrapSyscall                  // the SYSCALL instruction
	TrapFault                    // a CPU exception (Frame.Fault tells which)
	TrapTimer                    // this core's timer (ArmTimer)
	TrapIPI                      // an inter-processor interrupt; the second result is its IPI kind
	TrapIRQ                      // a device interrupt; the second result is its line
	TrapSpurious                 // a spurious interrupt: no EOI, nothing to do (SDM Vol. 3A §11.9)
)

// IPI is the kind of an inter-processor interrupt (SendIPI).
type IPI uint8

const (
	IPIWake  IPI = iota // work was readied for the target core: leave the idle halt (sched WakeM)
	IPIFlush            // drop cached translations (TLB shootdown after munmap/madvise/mprotect)
)

// FaultKind classifies a CPU exception for the kernel, which turns it into a signal (or, in
// kernel mode, into a fault report).
type FaultKind uint8

const (
	FaultOther      FaultKind = iota // #GP and the rest: SIGSEGV with SI_KERNEL, as Linux reports #GP
	FaultPage                        // #PF: Fault.Addr is the address, Write/Exec the access
	FaultDivide                      // #DE
	FaultFloat                       // #MF, #XM: x87/SIMD floating-point exception
	FaultIllegal                     // #UD
	FaultBreakpoint                  // #BP, #DB
	FaultAlign                       // #AC
	FaultFatal                       // #DF, NMI, #MC: the machine or the kernel's stack is gone
)

// Fault describes a CPU exception.
type Fault struct {
	Kind        FaultKind
	Addr        uintptr // FaultPage: the faulting address (CR2); FaultFatal after #DF: CR2
	Write, Exec bool    // FaultPage: the access was a write / an instruction fetch
}

// Exception vectors (SDM Vol. 3A §6.3.1, Table 6-1).
const (
	VecDivide     = 0
	VecDebug      = 1
	VecNMI        = 2
	VecBreakpoint = 3
	VecOverflow   = 4 // INTO (invalid in 64-bit mode) or INT 4
	VecInvalidOp  = 6
	VecDouble     = 8
	VecGP         = 13
	VecPage       = 14
	VecFPU        = 16
	VecAlign      = 17
	VecMachine    = 18
	VecSIMD       = 19

	// Interrupt vectors chosen by this kernel, above the 32 the CPU reserves. The local APIC
	// delivers a higher vector class first (§11.8.3.1), so IPIs and the timer outrank devices.
	vecIRQBase  = 0x30 // device interrupt line n arrives on vector vecIRQBase+n (IRQVector)
	MaxIRQLines = 64
	vecTimer    = 0xe0
	vecWakeup   = 0xe1
	vecFlush    = 0xe2
	vecSpurious = 0xff

	// VectorSyscall marks frames built by the SYSCALL entry; it is outside the IDT's 0..255.
	VectorSyscall = 0x100
)

// Trap classifies the frame: the kind of entry and, for an IPI, its kind, for a device
// interrupt, its line.
func (f *Frame) Trap() (TrapKind, int) {
	v := f.Vector
	switch {
	case v == VectorSyscall:
		return TrapSyscall, 0
	case v < 32:
		return TrapFault, 0
	case v >= vecIRQBase && v < vecIRQBase+MaxIRQLines:
		return TrapIRQ, int(v - vecIRQBase)
	case v == vecTimer:
		return TrapTimer, 0
	case v == vecWakeup:
		return TrapIPI, int(IPIWake)
	case v == vecFlush:
		return TrapIPI, int(IPIFlush)
	case v == vecSpurious:
		return TrapSpurious, 0
	}
	return TrapUnknown, 0
}

// IRQVector is the vector on which device interrupt line is delivered (the I/O APIC's
// redirection entries point there).
func IRQVector(line int) uint8 { return uint8(vecIRQBase + line) }

// Fault classifies a CPU exception (TrapFault). It reads CR2 for a page fault, so call it before
// anything else can fault.
func (f *Frame) Fault() Fault {
	switch f.Vector {
	case VecPage:
		// #PF error code (SDM Vol. 3A §4.7, Figure 4-12): bit 1 write, bit 4 instruction fetch.
		return Fault{Kind: FaultPage, Addr: readCR2(), Write: f.Err&2 != 0, Exec: f.Err&16 != 0}
	case VecDivide:
		return Fault{Kind: FaultDivide}
	case VecFPU, VecSIMD:
		return Fault{Kind: FaultFloat}
	case VecInvalidOp:
		return Fault{Kind: FaultIllegal}
	case VecBreakpoint, VecDebug:
		return Fault{Kind: FaultBreakpoint}
	case VecAlign:
		return Fault{Kind: FaultAlign}
	case VecDouble, VecNMI, VecMachine:
		return Fault{Kind: FaultFatal, Addr: readCR2()}
	}
	return Fault{Kind: FaultOther}
}

var vectorNames = [32]string{
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow", "#BR bound range",
	"#UD invalid opcode", "#NM device not available", "#DF double fault", "coprocessor overrun",
	"#TS invalid TSS", "#NP segment not present", "#SS stack fault", "#GP general protection",
	"#PF page fault", "reserved 15", "#MF x87 FP error", "#AC alignment check", "#MC machine check",
	"#XM SIMD FP exception", "#VE virtualization", "#CP control protection",
}

// Describe returns the trap's number (the vector) and name, for reports.
func (f *Frame) Describe() (uint64, string) {
	switch {
	case f.Vector < 32:
		if vectorNames[f.Vector] != "" {
			return f.Vector, vectorNames[f.Vector]
		}
		return f.Vector, "reserved exception"
	case f.Vector == VectorSyscall:
		return f.Vector, "SYSCALL"
	}
	return f.Vector, "interrupt"
}

// Registers calls each with every register of the frame, and the fault state that is not in the
// frame (CR2, CR3), in the order of a report. For the kernel's fault report: no allocation.
func (f *Frame) Registers(each func(name string, v uint64)) {
	each("rax", f.AX)
	each("rbx", f.BX)
	each("rcx", f.CX)
	each("rdx", f.DX)
	each("rsi", f.SI)
	each("rdi", f.DI)
	each("rbp", f.BP)
	each("rsp", f.SP)
	each("r8 ", f.R8)
	each("r9 ", f.R9)
	each("r10", f.R10)
	each("r11", f.R11)
	each("r12", f.R12)
	each("r13", f.R13)
	each("r14", f.R14)
	each("r15", f.R15)
	each("rip", f.IP)
	each("rflags", f.Flags)
	each("cs", f.CS)
	each("ss", f.SS)
	each("err", f.Err)
	each("cr2", uint64(readCR2()))
	each("cr3", uint64(readCR3()))
}
