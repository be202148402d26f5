// Trap, fault and IPI kinds: what the portable kernel sees instead of vectors and syndromes.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

// TrapKind says why the kernel was entered (Frame.Trap).
type TrapKind uint8

const (
	TrapUnknown  TrapKind = iota // an exception or interrupt nobody uses (FIQ, SError, a stray INTID)
	TrapSyscall                  // SVC #0 from EL0
	TrapFault                    // a synchronous exception (Frame.Fault tells which)
	TrapTimer                    // this core's timer (ArmTimer)
	TrapIPI                      // a software-generated interrupt; the second result is its IPI kind
	TrapIRQ                      // a device interrupt; the second result is its line
	TrapSpurious                 // INTID 1023: nothing to acknowledge (GIC v2 §3.2.5, v3 §2.2.1)
)

// IPI is the kind of an inter-processor interrupt: a GIC SGI number (sgiWake, sgiFlush).
type IPI uint8

const (
	IPIWake  IPI = iota // work was readied for the target core: leave the idle wait
	IPIFlush            // drop cached translations (TLB shootdown)
)

// FaultKind classifies a synchronous exception for the kernel's signal mapping.
type FaultKind uint8

const (
	FaultOther      FaultKind = iota // everything else: SIGSEGV with SI_KERNEL
	FaultPage                        // an instruction or data abort: Fault.Addr, Write, Exec
	FaultDivide                      // never on arm64 (integer division by zero gives 0)
	FaultFloat                       // a trapped floating-point exception
	FaultIllegal                     // an undefined instruction
	FaultBreakpoint                  // BRK, a breakpoint or a step
	FaultAlign                       // PC or SP alignment
	FaultFatal                       // SError: the machine is broken
)

// Fault describes a synchronous exception.
type Fault struct {
	Kind        FaultKind
	Addr        uintptr // FaultPage: the faulting address (FAR_EL1)
	Write, Exec bool    // FaultPage: the access was a write / an instruction fetch
}

// The vector group that was taken (vectors_arm64.s stores it in Frame.Kind).
const (
	kindSync   = 0
	kindIRQ    = 1
	kindFIQ    = 2
	kindSError = 3
)

// Exception classes, ESR_EL1.EC (bits 31:26; ARM ARM D17.2.37, Table D17-5).
const (
	ecUnknown     = 0x00
	ecFPTrapped   = 0x07 // FP/SIMD access trapped by CPACR_EL1 (never: FPEN is on)
	ecIllegalExec = 0x0e // illegal execution state
	ecSVC64       = 0x15
	ecSysReg      = 0x18 // MSR/MRS/system instruction trapped
	ecIAbortLower = 0x20
	ecIAbortSame  = 0x21
	ecPCAlign     = 0x22
	ecDAbortLower = 0x24
	ecDAbortSame  = 0x25
	ecSPAlign     = 0x26
	ecFP64        = 0x2c
	ecSError      = 0x2f
	ecBrkptLower  = 0x30
	ecBrkptSame   = 0x31
	ecStepLower   = 0x32
	ecStepSame    = 0x33
	ecWatchLower  = 0x34
	ecWatchSame   = 0x35
	ecBRK64       = 0x3c
)

// Interrupt IDs (GIC architecture v2 §2.2.1, v3 §2.2.1): SGIs 0-15, PPIs 16-31, SPIs 32-1019.
const (
	sgiWake    = 1  // IPIWake
	sgiFlush   = 2  // IPIFlush
	intidTimer = 27 // the EL1 virtual timer's PPI (Arm Server Base System Architecture, §"PPI assignments")
	intidSPI   = 32 // SPI n, the board's line n, is INTID 32+n
	intidSpur  = 1023
	intidMask  = 0x3ff     // the INTID field of a GICv2 acknowledge value (the SGI source CPU is above it)
	intidMask3 = 0xff_ffff // GICv3's: 24 bits (ICC_IAR1_EL1.INTID, IHI 0069 §12.11.12)
	intidLPI   = 8192      // the first LPI (GICv3 §2.2.1): message interrupts through the ITS

	// MaxIRQLines bounds the device interrupt lines the kernel's tables keep (SPIs 0..MaxIRQLines-1).
	MaxIRQLines = 128
)

func (f *Frame) esrClass() uint64 { return f.ESR >> 26 & 0x3f }

// intid is the INTID of the interrupt f acknowledged, without GICv2's source-CPU bits.
func (f *Frame) intid() uint64 {
	if gic.v3 {
		return f.IntID & intidMask3
	}
	return f.IntID & intidMask
}

// Trap classifies the entry. A system call is SVC from EL0; every other synchronous exception
// is a fault. An interrupt's INTID was read from the GIC's acknowledge register by the entry.
func (f *Frame) Trap() (TrapKind, int) {
	switch f.Kind {
	case kindSync:
		if f.esrClass() == ecSVC64 && f.FromUser() {
			return TrapSyscall, 0
		}
		return TrapFault, 0
	case kindIRQ:
		id := f.intid()
		switch {
		case id >= intidLPI && id < intidLPI+uint64(lpi.n):
			return TrapIRQ, lpi.first + int(id-intidLPI)
		case id == intidTimer:
			return TrapTimer, 0
		case id == sgiWake:
			return TrapIPI, int(IPIWake)
		case id == sgiFlush:
			return TrapIPI, int(IPIFlush)
		case id >= intidSPI && id < intidSPI+MaxIRQLines:
			return TrapIRQ, int(id - intidSPI)
		case id >= 1020 && id <= intidSpur:
			return TrapSpurious, 0 // anything else unknown is EOI'd and logged (kernel/trap.go)
		}
	case kindSError:
		return TrapFault, 0
	}
	return TrapUnknown, 0
}

// Fault decodes the syndrome of a synchronous exception (ARM ARM D17.2.37 ESR_EL1; the ISS of
// data and instruction aborts: WnR is bit 6, the fault status code bits 5:0).
func (f *Frame) Fault() Fault {
	if f.Kind == kindSError {
		return Fault{Kind: FaultFatal}
	}
	switch f.esrClass() {
	case ecDAbortLower, ecDAbortSame, ecIAbortLower, ecIAbortSame:
		return f.abort()
	case ecUnknown, ecIllegalExec, ecSysReg:
		return Fault{Kind: FaultIllegal}
	case ecPCAlign, ecSPAlign:
		return Fault{Kind: FaultAlign, Addr: uintptr(f.FAR)}
	case ecFP64:
		return Fault{Kind: FaultFloat}
	case ecBRK64, ecBrkptLower, ecBrkptSame, ecStepLower, ecStepSame, ecWatchLower, ecWatchSame:
		return Fault{Kind: FaultBreakpoint}
	case ecSError:
		return Fault{Kind: FaultFatal}
	}
	return Fault{Kind: FaultOther}
}

// Fault status codes of an abort, ISS bits 5:0 (D17.2.37, DFSC/IFSC): the level is in bits 1:0.
const (
	fscTranslation = 0b0001_00 // translation fault, levels 0-3
	fscAccessFlag  = 0b0010_00 // access flag fault
	fscPermission  = 0b0011_00 // permission fault
	fscAlignment   = 0b10_0001 // alignment fault (an unaligned exclusive or atomic access)
)

// abort decodes an instruction or data abort. Only translation, access-flag and permission
// faults are page faults, which the memory manager may resolve: anything else — an alignment
// fault, an external abort, an address-size fault — on a mapped page would otherwise be retried
// forever as a spurious fault.
func (f *Frame) abort() Fault {
	exec := f.esrClass() == ecIAbortLower || f.esrClass() == ecIAbortSame
	switch fsc := f.ESR & 0x3f; {
	case fsc&^3 == fscTranslation, fsc&^3 == fscAccessFlag, fsc&^3 == fscPermission:
		// A cache-maintenance or translation-table access reports WnR=1 too (CM, bit 8);
		// Linux counts it as a write as well.
		return Fault{Kind: FaultPage, Addr: uintptr(f.FAR), Write: !exec && f.ESR&(1<<6) != 0, Exec: exec}
	case fsc == fscAlignment:
		return Fault{Kind: FaultAlign, Addr: uintptr(f.FAR)}
	}
	return Fault{Kind: FaultOther, Addr: uintptr(f.FAR)}
}

// ecNames names the exception classes a report may show.
var ecNames = [64]string{
	ecUnknown: "unknown reason (undefined instruction)", ecFPTrapped: "FP/SIMD access trapped",
	ecIllegalExec: "illegal execution state", ecSVC64: "SVC", ecSysReg: "system register access",
	ecIAbortLower: "instruction abort from EL0", ecIAbortSame: "instruction abort in the kernel",
	ecPCAlign: "PC alignment fault", ecDAbortLower: "data abort from EL0",
	ecDAbortSame: "data abort in the kernel", ecSPAlign: "SP alignment fault",
	ecFP64: "floating-point exception", ecSError: "SError", ecBrkptLower: "breakpoint from EL0",
	ecBrkptSame: "breakpoint in the kernel", ecStepLower: "software step from EL0",
	ecStepSame: "software step in the kernel", ecWatchLower: "watchpoint from EL0",
	ecWatchSame: "watchpoint in the kernel", ecBRK64: "BRK instruction",
}

// Describe returns the trap's number and name for reports: the exception class for a synchronous
// exception, 0x100+INTID for an interrupt.
func (f *Frame) Describe() (uint64, string) {
	switch f.Kind {
	case kindSync:
		ec := f.esrClass()
		if ecNames[ec] != "" {
			return ec, ecNames[ec]
		}
		return ec, "exception"
	case kindIRQ:
		return 0x100 + f.intid(), "interrupt"
	case kindFIQ:
		return 0x200, "FIQ"
	}
	return 0x300, "SError"
}

var regNames = [31]string{"x0 ", "x1 ", "x2 ", "x3 ", "x4 ", "x5 ", "x6 ", "x7 ", "x8 ", "x9 ",
	"x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22",
	"x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30"}

// Registers lists every register of the frame and the translation state, for the fault report.
func (f *Frame) Registers(each func(name string, v uint64)) {
	for i, v := range f.X {
		each(regNames[i], v)
	}
	each("sp", f.SP)
	each("pc", f.ELR)
	each("pstate", f.SPSR)
	each("esr", f.ESR)
	each("far", f.FAR)
	each("ttbr0", readTTBR0())
}
