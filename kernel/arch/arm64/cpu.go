// Per-core state and the kernel g.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

import "unsafe"

// MaxCPU bounds the number of cores (Ms) the kernel brings up.
const MaxCPU = 16

// Sizes of the Go 1.26 runtime's g and m structures on linux/arm64 (the same as on amd64: every
// field is pointer-sized or fixed). The kernel g and m below have exactly these sizes and the few
// fields the runtime's code reads on the kernel's behalf.
const (
	runtimeGSize = 456
	runtimeMSize = 1824
)

// kernelG mimics the head of runtime.g for code that runs in kernel context. On arm64 Go keeps g
// in R28 (the ABI's dedicated g register), so the trap entry simply loads R28 with this core's
// kernel g: no TLS is involved. Its stackguard0 is 0, so no prologue ever calls
// runtime.morestack; a kernel stack overflow runs into the guard page below the stack instead.
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

// CPU is one core's kernel state. TPIDR_EL1 holds its address on that core from boot on (Go
// never uses TPIDR_EL1; EL0 cannot read it), the way GS base does on amd64. The assembly reads
// the fields through go_asm.h offsets (CPU_kstackTop, ...), so keep them plain uintptrs.
type CPU struct {
	self      uintptr // address of this CPU
	kstackTop uintptr // top of the kernel stack: SP_EL1 whenever the core runs user code
	kg        uintptr // &kg, loaded into R28 on every entry
	fpArea    uintptr // FP save area of the thread about to be resumed (and saved on entry)
	userTLS   uintptr // TPIDR_EL0 of the thread about to be resumed
	gicc      uintptr // GICv2 CPU interface base (0: GICv3, system registers)
	irqSrc    uintptr // BCM2836 ARM-local: this core's IRQ source register (0: a GIC; bcmlocal.go)
	id        uintptr // index into cpus
	mpidr     uintptr // MPIDR_EL1 affinity of this core
	gicMask   uintptr // GICv2: this core's CPU-interface bit (GICD_ITARGETSR)
	inKernel  uintptr // nonzero while kernel Go code runs on this core
	emergTop  uintptr // top of this core's overflow stack (vectors_arm64.s, kernel stack overflow)
	faultSP   uintptr // the SP at a kernel stack overflow, for the report (trap)
	faultX1   uintptr // and X1, which the move to the overflow stack needed as scratch
	// The last kernel fault SpuriousFault retried, and how often in a row (mmu.go).
	spuriousPC, spuriousFAR, spuriousN uintptr
	// Kernel stack to switch to on Enter (UseKernelStack).
	nextStackLo, nextStackHi uintptr
	kgs                      kernelG
	km                       kernelM
}

// cpus holds every core's state; cpus[0] is the boot core.
var cpus [MaxCPU]CPU

// overflowStacks are the stacks an exception in the kernel moves to when the kernel stack is
// nearly exhausted (vectors_arm64.s): the role of amd64's #DF IST stack. The fault report runs
// there.
var overflowStacks [MaxCPU][16 << 10]byte

// setKernelStack records the kernel stack [lo, hi) of c and the matching kernel-g bounds.
//
// nosplit: Enter calls it while switching stacks.
//
//go:nosplit
func (c *CPU) setKernelStack(lo, hi uintptr) {
	c.kstackTop = hi
	c.kgs.stackLo = lo
	c.kgs.stackHi = hi
	c.kgs.stackguard0 = 0
	c.kgs.stackguard1 = 0
	c.kgs.m = uintptr(unsafe.Pointer(&c.km))
	c.km.g0 = uintptr(unsafe.Pointer(&c.kgs))
	c.kg = uintptr(unsafe.Pointer(&c.kgs))
	c.self = uintptr(unsafe.Pointer(c))
	s := &overflowStacks[c.id]
	c.emergTop = uintptr(unsafe.Pointer(&s[0])) + uintptr(len(s))
}

// UseKernelStack moves this core's traps onto the kernel stack [lo, hi) from the moment Enter
// leaves for user mode.
func (c *CPU) UseKernelStack(lo, hi uintptr) {
	c.nextStackLo, c.nextStackHi = lo, hi
}

// Current returns the calling core's CPU (TPIDR_EL1).
//
// nosplit: Enter calls it before the stack bounds are right.
//
//go:nosplit
func Current() *CPU { return (*CPU)(ptr(readTPIDR1())) }

// ID is the core's index: 0 for the boot core.
func (c *CPU) ID() int { return int(c.id) }

// PrepareResume records the FP save area and the TLS register (TPIDR_EL0) of the thread whose
// frame trap is about to return; resume loads both. The entry saved the trapped thread's whole
// FP state into its area, so there is nothing to write back first.
func (c *CPU) PrepareResume(fpArea, tls uintptr) {
	c.fpArea = fpArea
	c.userTLS = tls
}

// PrepareIdle records that the core halts: the next entry, from the idle loop, saves no FP
// state.
func (c *CPU) PrepareIdle() { c.fpArea = 0 }

// SaveFP makes area a current. The entry always saves the whole FP/SIMD state of the thread it
// interrupted (kernel Go code uses the vector registers), so an area is never stale: nothing to do.
func (c *CPU) SaveFP(a uintptr) {}

// ptr turns an address the kernel owns (a stack top, an FP area) into a pointer without the
// uintptr→unsafe.Pointer conversion go vet flags: these addresses are not Go heap objects.
//
// nosplit: Enter and Current use it while the stack bounds are being switched.
//
//go:nosplit
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }
