// The x86-64 implementation of the contract: gmpos/kernel/arch/amd64.
// SPDX-License-Identifier: BSD-3-Clause

package arch

import "gmpos/kernel/arch/amd64"

type (
	Frame     = amd64.Frame
	CPU       = amd64.CPU
	TrapKind  = amd64.TrapKind
	IPI       = amd64.IPI
	FaultKind = amd64.FaultKind
	Fault     = amd64.Fault
)

const (
	TrapUnknown  = amd64.TrapUnknown
	TrapSyscall  = amd64.TrapSyscall
	TrapFault    = amd64.TrapFault
	TrapTimer    = amd64.TrapTimer
	TrapIPI      = amd64.TrapIPI
	TrapIRQ      = amd64.TrapIRQ
	TrapSpurious = amd64.TrapSpurious

	IPIWake  = amd64.IPIWake
	IPIFlush = amd64.IPIFlush

	FaultOther      = amd64.FaultOther
	FaultPage       = amd64.FaultPage
	FaultDivide     = amd64.FaultDivide
	FaultFloat      = amd64.FaultFloat
	FaultIllegal    = amd64.FaultIllegal
	FaultBreakpoint = amd64.FaultBreakpoint
	FaultAlign      = amd64.FaultAlign
	FaultFatal      = amd64.FaultFatal

	MaxCPU       = amd64.MaxCPU
	MaxIRQLines  = amd64.MaxIRQLines
	FPStateSize  = amd64.FPStateSize
	FPStateAlign = amd64.FPStateAlign
)

// The functions are one-line forwards, which the compiler inlines.

func NewUserFrame(pc, sp uintptr) Frame { return amd64.NewUserFrame(pc, sp) }
func EOI(f *Frame)                      { amd64.EOI(f) }

func Current() *CPU             { return amd64.Current() }
func Enter(f *Frame)            { amd64.Enter(f) }
func UserEntry() uintptr        { return amd64.UserEntry() }
func InitFPState(a uintptr)     { amd64.InitFPState(a) }
func SanitizeFPState(a uintptr) { amd64.SanitizeFPState(a) }

func InitInterrupts(mapDevice func(pa, size uintptr) bool) bool {
	return amd64.InitInterrupts(mapDevice)
}
func CalibrateTimer(measure func(read func() uint64, ns int64) uint64) {
	amd64.CalibrateTimer(measure)
}
func StartTimer()       { amd64.StartTimer() }
func ArmTimer(ns int64) { amd64.ArmTimer(ns) }
func TimerRate() uint64 { return amd64.TimerRate() }

func Cycles() uint64 { return amd64.Cycles() }

func SendIPI(cpu int, k IPI) { amd64.SendIPI(cpu, k) }
func SendIPIOthers(k IPI)    { amd64.SendIPIOthers(k) }
func Halt()                  { amd64.Halt() }

func Pause() { amd64.Pause() }
func Fence() { amd64.Fence() }

func SetPageTable(root uintptr) { amd64.SetPageTable(root) }
func PageTable() uintptr        { return amd64.PageTable() }
func FlushPage(va uintptr)      { amd64.FlushPage(va) }

func FlushAll() { amd64.FlushAll() }

func SpuriousFault(f *Frame) bool { return amd64.SpuriousFault(f) }

func SyncICache(va, n uintptr) { amd64.SyncICache(va, n) }

func PrepareCPUs()                    { amd64.PrepareAPs() }
func SetKernelPageTable(root uintptr) { amd64.SetKernelPageTable(root) }
func StartCPUs(wait func(ns int64))   { amd64.StartCPUs(wait) }
func Online() int                     { return amd64.Online() }

func Random() (uint64, bool) { return amd64.Random() }

func LoadUser32(addr uintptr) (uint32, bool) { return amd64.LoadUser32(addr) }
func CopyUser(dst, src, n uintptr) bool      { return amd64.CopyUser(dst, src, n) }
func FixupUserAccess(f *Frame) bool          { return amd64.FixupUserAccess(f) }
func UserFixups() uint64                     { return amd64.UserFixups() }
