// The arm64 implementation of the contract: gmpos/kernel/arch/arm64.
// SPDX-License-Identifier: BSD-3-Clause

package arch

import "gmpos/kernel/arch/arm64"

type (
	Frame     = arm64.Frame
	CPU       = arm64.CPU
	TrapKind  = arm64.TrapKind
	IPI       = arm64.IPI
	FaultKind = arm64.FaultKind
	Fault     = arm64.Fault
)

const (
	TrapUnknown  = arm64.TrapUnknown
	TrapSyscall  = arm64.TrapSyscall
	TrapFault    = arm64.TrapFault
	TrapTimer    = arm64.TrapTimer
	TrapIPI      = arm64.TrapIPI
	TrapIRQ      = arm64.TrapIRQ
	TrapSpurious = arm64.TrapSpurious

	IPIWake  = arm64.IPIWake
	IPIFlush = arm64.IPIFlush

	FaultOther      = arm64.FaultOther
	FaultPage       = arm64.FaultPage
	FaultDivide     = arm64.FaultDivide
	FaultFloat      = arm64.FaultFloat
	FaultIllegal    = arm64.FaultIllegal
	FaultBreakpoint = arm64.FaultBreakpoint
	FaultAlign      = arm64.FaultAlign
	FaultFatal      = arm64.FaultFatal

	MaxCPU       = arm64.MaxCPU
	MaxIRQLines  = arm64.MaxIRQLines
	FPStateSize  = arm64.FPStateSize
	FPStateAlign = arm64.FPStateAlign
)

// The functions are one-line forwards, which the compiler inlines.

func NewUserFrame(pc, sp uintptr) Frame { return arm64.NewUserFrame(pc, sp) }
func EOI(f *Frame)                      { arm64.EOI(f) }

func Current() *CPU             { return arm64.Current() }
func Enter(f *Frame)            { arm64.Enter(f) }
func UserEntry() uintptr        { return arm64.UserEntry() }
func InitFPState(a uintptr)     { arm64.InitFPState(a) }
func SanitizeFPState(a uintptr) { arm64.SanitizeFPState(a) }

func InitInterrupts(mapDevice func(pa, size uintptr) bool) bool {
	return arm64.InitInterrupts(mapDevice)
}
func CalibrateTimer(measure func(read func() uint64, ns int64) uint64) {
	arm64.CalibrateTimer(measure)
}
func StartTimer()       { arm64.StartTimer() }
func ArmTimer(ns int64) { arm64.ArmTimer(ns) }
func TimerRate() uint64 { return arm64.TimerRate() }

func Cycles() uint64 { return arm64.Cycles() }

func SendIPI(cpu int, k IPI) { arm64.SendIPI(cpu, k) }
func SendIPIOthers(k IPI)    { arm64.SendIPIOthers(k) }
func Halt()                  { arm64.Halt() }

func Pause() { arm64.Pause() }
func Fence() { arm64.Fence() }

func SetPageTable(root uintptr) { arm64.SetPageTable(root) }
func PageTable() uintptr        { return arm64.PageTable() }
func FlushPage(va uintptr)      { arm64.FlushPage(va) }

func FlushAll() { arm64.FlushAll() }

func SpuriousFault(f *Frame) bool { return arm64.SpuriousFault(f) }

func SyncICache(va, n uintptr) { arm64.SyncICache(va, n) }

func PrepareCPUs()                    { arm64.PrepareCPUs() }
func SetKernelPageTable(root uintptr) { arm64.SetKernelPageTable(root) }
func StartCPUs(wait func(ns int64))   { arm64.StartCPUs(wait) }
func Online() int                     { return arm64.Online() }

func Random() (uint64, bool) { return arm64.Random() }

func LoadUser32(addr uintptr) (uint32, bool) { return arm64.LoadUser32(addr) }
func CopyUser(dst, src, n uintptr) bool      { return arm64.CopyUser(dst, src, n) }
func FixupUserAccess(f *Frame) bool          { return arm64.FixupUserAccess(f) }
func UserFixups() uint64                     { return arm64.UserFixups() }
