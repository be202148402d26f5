// The contract, checked by the compiler for every architecture that builds this package.
// SPDX-License-Identifier: BSD-3-Clause

package arch

// Each line names one element of the contract (doc.go) with the type it must have: a port that
// lacks it, or gives it another signature, fails to compile here rather than somewhere in the
// kernel.
var (
	_ func(pc, sp uintptr) Frame         = NewUserFrame
	_ func(*Frame) (TrapKind, int)       = (*Frame).Trap
	_ func(*Frame) bool                  = (*Frame).FromUser
	_ func(*Frame) (uint64, [6]uint64)   = (*Frame).Syscall
	_ func(*Frame, uint64)               = (*Frame).SetSyscallResult
	_ func(*Frame) uint64                = (*Frame).SyscallResult
	_ func(*Frame)                       = (*Frame).RestartSyscall
	_ func(*Frame, uint64)               = (*Frame).EndRestarted
	_ func(*Frame) uintptr               = (*Frame).PC
	_ func(*Frame, uintptr)              = (*Frame).SetPC
	_ func(*Frame) uintptr               = (*Frame).StackPointer
	_ func(*Frame, uintptr)              = (*Frame).SetStackPointer
	_ func(*Frame) uintptr               = (*Frame).FramePointer
	_ func(*Frame) Fault                 = (*Frame).Fault
	_ func(*Frame) (uint64, string)      = (*Frame).Describe
	_ func(*Frame, func(string, uint64)) = (*Frame).Registers
	_ func(*Frame)                       = EOI

	_ func() *CPU                  = Current
	_ func(*CPU) int               = (*CPU).ID
	_ func(*CPU, uintptr, uintptr) = (*CPU).PrepareResume
	_ func(*CPU)                   = (*CPU).PrepareIdle
	_ func(*CPU, uintptr)          = (*CPU).SaveFP
	_ func(*CPU, uintptr, uintptr) = (*CPU).UseKernelStack
	_ func(*Frame)                 = Enter
	_ func() uintptr               = UserEntry

	_ func(uintptr) = InitFPState
	_ func(uintptr) = SanitizeFPState

	_ func(func(pa, size uintptr) bool) bool          = InitInterrupts
	_ func(func(read func() uint64, ns int64) uint64) = CalibrateTimer
	_ func()                                          = StartTimer
	_ func(int64)                                     = ArmTimer
	_ func() uint64                                   = TimerRate
	_ func() uint64                                   = Cycles
	_ func(int, IPI)                                  = SendIPI
	_ func(IPI)                                       = SendIPIOthers
	_ func()                                          = Halt
	_ func()                                          = Pause
	_ func()                                          = Fence

	_ func(uintptr)  = SetPageTable
	_ func() uintptr = PageTable
	_ func(uintptr)  = FlushPage
	_ func()         = FlushAll

	_ func()               = PrepareCPUs
	_ func(uintptr)        = SetKernelPageTable
	_ func(func(ns int64)) = StartCPUs
	_ func() int           = Online

	_ func() (uint64, bool) = Random

	_ func(uintptr) (uint32, bool)         = LoadUser32
	_ func(uintptr, uintptr, uintptr) bool = CopyUser
	_ func(*Frame) bool                    = FixupUserAccess
	_ func() uint64                        = UserFixups
)

// The constants of the contract, with the kinds they must have.
var (
	_ = [...]TrapKind{TrapUnknown, TrapSyscall, TrapFault, TrapTimer, TrapIPI, TrapIRQ, TrapSpurious}
	_ = [...]IPI{IPIWake, IPIFlush}
	_ = [...]FaultKind{FaultOther, FaultPage, FaultDivide, FaultFloat, FaultIllegal, FaultBreakpoint, FaultAlign, FaultFatal}
	_ = [...]int{MaxCPU, MaxIRQLines, FPStateSize, FPStateAlign}
)
