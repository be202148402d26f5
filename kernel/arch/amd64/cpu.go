package amd64

import "unsafe"

// MaxCPU bounds the number of cores (Ms) the kernel brings up.
const MaxCPU = 16

// Sizes of the Go 1.26 runtime's g and m structures (generated go_asm.h of go1.26.8; see
// docs/runtime-contract.md §2.3). The kernel g and m below have exactly these sizes and the few
// fields the runtime's code reads on the kernel's behalf; runtime_layout_test.go fails when the
// installed Go's structures differ.
const (
	runtimeGSize = 456
	runtimeMSize = 1824
)

// kernelG mimics the head of runtime.g for code that runs in kernel context.
//
// Every Go function prologue compares SP with g.stackguard0, and the ABI0→Go wrappers that assembly
// calls go through reload g from FS:-8. While the CPU is in the kernel, FS therefore points at the
// per-CPU kernel TLS whose only slot holds this g. Its stackguard0 is 0, so no prologue ever calls
// runtime.morestack: the runtime's "morestack on g0" crash path needs a real m and would fault in
// its turn. A kernel stack overflow instead runs into the unmapped guard page below the stack; the
// CPU cannot push the #PF frame there and raises #DF, which has its own IST stack and reports the
// overflow (kernel/fault.go). Kernel functions therefore keep their frames well below one page.
// stack.lo/hi still describe the stack, for tracebacks and reports.
type kernelG struct {
	stackLo     uintptr // g.stack.lo
	stackHi     uintptr // g.stack.hi
	stackguard0 uintptr // g.stackguard0
	stackguard1 uintptr // g.stackguard1
	_           [2]uintptr
	m           uintptr // g.m (offset 48)
	_           [runtimeGSize - 56]byte
}

// kernelM mimics runtime.m: morestack reads m.g0 (offset 0).
type kernelM struct {
	g0 uintptr
	_  [runtimeMSize - 8]byte
}

// CPU is one core's kernel state. GS base holds its address on that core from boot on: Go never
// touches GS on linux/amd64 (docs/runtime-contract.md §2.1), so the kernel needs no SWAPGS.
// Assembly reads the fields through the offsets in go_asm.h (CPU_kstackTop, ...), so keep them
// uintptr-sized and plain.
type CPU struct {
	self      uintptr // address of this CPU, for GS-relative loads of the whole struct
	kstackTop uintptr // top of the kernel stack: TSS.RSP0 and the SYSCALL stack
	userSP    uintptr // SYSCALL entry scratch: the interrupted RSP
	kernelFS  uintptr // FS base while in the kernel: &ktls[1]
	userFS    uintptr // FS base of the thread about to be resumed
	fpArea    uintptr // FXSAVE area (512 bytes, 16-aligned) of the thread about to be resumed/saved
	fpLive    uintptr // the area whose x87 state is still in the registers, SSE part saved (fpu.go)
	inKernel  uintptr // nonzero while kernel Go code runs on this CPU
	id        uintptr // index into cpus
	// Kernel stack to switch to on Enter (UseKernelStack).
	nextStackLo, nextStackHi uintptr
	ktls                     [2]uintptr
	kg                       kernelG
	km                       kernelM
}

// cpus holds every core's state; cpus[0] is the bootstrap processor.
var cpus [MaxCPU]CPU

// setKernelStack records the kernel stack [lo, hi) of c and the matching kernel-g bounds.
//
// nosplit: Enter calls it while switching stacks (see Enter).
//
//go:nosplit
func (c *CPU) setKernelStack(lo, hi uintptr) {
	c.kstackTop = hi
	c.kg.stackLo = lo
	c.kg.stackHi = hi
	c.kg.stackguard0 = 0
	c.kg.stackguard1 = 0
	c.kg.m = uintptr(unsafe.Pointer(&c.km))
	c.km.g0 = uintptr(unsafe.Pointer(&c.kg))
	c.self = uintptr(unsafe.Pointer(c))
	c.ktls[0] = uintptr(unsafe.Pointer(&c.kg))
	c.kernelFS = uintptr(unsafe.Pointer(&c.ktls[1]))
}

// UseKernelStack moves this core's traps onto the kernel stack [lo, hi) (TSS.RSP0, the SYSCALL
// stack and the kernel g's bounds) from the moment Enter leaves for user mode: until then the
// caller keeps running on its current stack, whose bounds the kernel g must keep describing.
func (c *CPU) UseKernelStack(lo, hi uintptr) {
	c.nextStackLo, c.nextStackHi = lo, hi
}

// Current returns the calling core's CPU (read through GS base).
//
// nosplit: Enter calls it before the stack bounds are right.
//
//go:nosplit
func Current() *CPU { return currentCPU() }

func currentCPU() *CPU // trap_amd64.s

// ID is the core's index: 0 for the bootstrap processor, then in the order the others checked in.
func (c *CPU) ID() int { return int(c.id) }

// PrepareResume records the FP save area and the TLS base (FS base) of the thread whose frame
// trap is about to return; resume (trap_amd64.s) loads both. fpArea must be aligned to
// FPStateAlign (FXRSTOR faults otherwise, SDM Vol. 2A).
//
// A thread other than the one that trapped gets its whole saved state, so the trapped thread's
// x87 state, still in the registers, is written back to its area first (fpu.go).
func (c *CPU) PrepareResume(fpArea, tls uintptr) {
	if c.fpLive != fpArea {
		c.SaveFP(c.fpLive)
	}
	c.fpArea = fpArea
	c.userFS = tls
}
