// The kernel fault report: what the kernel prints when it faults itself.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"unsafe"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
)

// Exit code of QEMU's isa-debug-exit write for a kernel fault; the runner maps it (with the
// "panic" control record) to its own exit status 101 (docs/contract.md).
const kernelPanicCode = 101

// imageText is the loaded image's executable segment, recorded at boot (imageSegments): the
// only kernel memory whose bytes the report may read as instructions. Immutable after boot.
var imageText struct{ lo, hi uintptr }

// kernelFault reports an exception taken in kernel mode (or an impossible kernel state) and stops
// the machine: the trap, every register, the core and the thread, the faulting instruction's bytes.
// The runner symbolizes the PC and disassembles the bytes on the host, where the ELF file is and
// where decoding may allocate.
//
// The report must work whatever the kernel was doing: it may run with the BKL held by this core
// or by another one, in the middle of mm with the mm lock held, with the heap in any state. So it
// takes no lock (it reads mm's state only through StackGuardHit, which is arithmetic, and decides
// whether the PC may be read from imageText), allocates nothing (no runtime.FuncForPC, which
// allocates for inlined functions), and writes straight to the console.
//
// A kernel stack overflow hits the guard page below the stack; the CPU cannot push the fault's
// frame on the same stack and escalates (x86: #DF, which runs on its own stack and lands here).
func kernelFault(f *arch.Frame, why string) {
	vconFault() // a fault in the virtio console, or during a report, reports on the UART
	var k kbuf
	flt := f.Fault()
	k.s("\n=== gmpos kernel fault ===\n").to(consoleStderr)
	if why == "" && flt.Addr != 0 {
		if i, hit := mm.StackGuardHit(flt.Addr); hit {
			k.s("reason: kernel stack overflow (guard page of kernel stack ").d(int64(i)).s(")\n").to(consoleStderr)
		}
	}
	if why != "" {
		k.s("reason: ").s(why).c('\n').to(consoleStderr)
	}
	num, name := f.Describe()
	k.s("trap: ").d(int64(num)).s(" (").s(name).s(")")
	if flt.Kind == arch.FaultPage || flt.Kind == arch.FaultFatal {
		k.s("  address: ").hex(uint64(flt.Addr))
	}
	k.c('\n').to(consoleStderr)
	cpu := arch.Current().ID()
	k.s("cpu: ").d(int64(cpu)).s("  thread: ").d(int64(cpus[cpu].cur)).c('\n').to(consoleStderr)
	col := 0
	f.Registers(func(name string, v uint64) {
		k.s(name).s("=").hex(v).s("  ")
		if col++; col == 4 {
			k.c('\n').to(consoleStderr)
			col = 0
		}
	})
	if col != 0 {
		k.c('\n').to(consoleStderr)
	}

	// The instruction bytes, if the PC is in the image's text (mapped and executable for good);
	// the runner decodes the copy in the panic record.
	pc := f.PC()
	var code [16]byte
	readable := pc >= imageText.lo && pc+uintptr(len(code)) <= imageText.hi
	k.s("pc: ").x(uint64(pc)).s("  code:")
	if readable {
		for i := range code {
			code[i] = *(*byte)(ptr(pc + uintptr(i)))
		}
		k.hexBytes(code[:], " ")
	} else {
		k.s(" (not in the kernel image's text)")
	}
	k.c('\n').to(consoleStderr)
	var callers [maxFaultCallers]uintptr
	n := faultCallers(f, callers[:])
	if n > 0 {
		k.s("callers:")
		for _, pc := range callers[:n] {
			k.c(' ').x(uint64(pc))
		}
		k.c('\n').to(consoleStderr)
	}
	k.s("=== end of kernel fault report ===\n").to(consoleStderr)

	k.s("panic trap=").d(int64(num)).s(" pc=").x(uint64(pc)).s(" code=")
	if readable {
		k.hexBytes(code[:], "")
	}
	if n > 0 {
		k.s(" callers=")
		for i, pc := range callers[:n] {
			if i > 0 {
				k.c(',')
			}
			k.x(uint64(pc))
		}
	}
	k.record()
	board.Exit(kernelPanicCode)
}

// maxFaultCallers bounds the report's call chain: enough to reach the system call or trap that
// led to the fault from any kernel depth seen so far, short enough for one panic record.
const maxFaultCallers = 16

// faultCallers fills pcs with the return PCs of the frames that called the faulting function,
// innermost first, by walking the frame-pointer chain from the trapped frame pointer. A trap
// from user mode has no kernel callers. The walk trusts nothing: each frame pointer must be
// 8-byte aligned, inside the kernel stack that the trapped SP is in, and above the previous one
// (stacks grow down, so callers' frames are higher); each PC must be in the kernel's text. The
// first failed check ends the chain, so a smashed stack shortens the list instead of faulting
// the fault report.
func faultCallers(f *arch.Frame, pcs []uintptr) int {
	if f.FromUser() {
		return 0
	}
	lo, hi, ok := mm.KernelStackBounds(f.StackPointer())
	if !ok {
		return 0
	}
	fp, n := f.FramePointer(), 0
	for n < len(pcs) && fp%8 == 0 && fp >= lo && fp+16 <= hi {
		pc := *(*uintptr)(ptr(fp + 8))
		if pc < imageText.lo || pc >= imageText.hi {
			break
		}
		pcs[n] = pc
		n++
		next := *(*uintptr)(ptr(fp))
		if next <= fp {
			break
		}
		fp = next
	}
	return n
}

// deliberateFault makes the kernel fault on purpose, to test the report (gmpos_info(infoFault)
// and the fault=boot kernel option); kind is one of the fault* constants of sys_gmpos.go.
//
//go:noinline
func deliberateFault(kind int) {
	switch kind {
	case faultOverflow:
		kernelRecurse(0)
	case faultInMM:
		// A kernel bug inside mm: a page table whose root lies beyond RAM makes mm read
		// through an unmapped direct-map address, with the mm lock held.
		mm.PageTable{Root: 0x7000_0000_0000}.Map(0x1000, 0x1000, 0)
	case faultInlined:
		_ = peekInlined(0xffff_f000_dead_0000)
	default:
		_ = *(*uint64)(ptr(0xffff_f000_dead_0000))
	}
}

// peekInlined is small enough to be inlined into deliberateFault: a fault in it has a PC whose
// function, for the runtime's symbolizer, is an inlined frame (runtime.FuncForPC then
// allocates, which the report must not do).
func peekInlined(p uintptr) uint64 { return *(*uint64)(ptr(p)) }

// kernelRecurse exhausts the kernel stack: the kernel g's stack guard is 0, so no prologue calls
// morestack, and the recursion runs into the guard page below the stack.
//
//go:noinline
func kernelRecurse(n int) int {
	var pad [256]byte
	pad[n%256] = byte(n)
	return kernelRecurse(n+1) + int(pad[(n+7)%256])
}

// checkUserFixup reads user address 0, never mapped, through arch.LoadUser32 once at boot, and
// copies from it and to it with arch.CopyUser (a word and a byte each way: every entry of the
// exception table). The kernel relies on those accesses failing cleanly (the paths without the
// BKL read futex words and signal frames, and another core may unmap them meanwhile), but the
// race that needs it is rare: this exercises the fixups on every boot, on every architecture
// (klog's user-fixups counts them: 5), and a broken one stops the boot with the kernel's fault
// report. The kernel side is a word on the boot stack.
func checkUserFixup() {
	if _, ok := arch.LoadUser32(0); ok {
		bootPanic("reading unmapped user address 0 succeeded")
	}
	var w [2]uint64
	k := uintptr(unsafe.Pointer(&w[0]))
	for _, n := range []uintptr{8, 1} {
		if arch.CopyUser(k, 0, n) {
			bootPanic("copying from unmapped user address 0 succeeded")
		}
		if arch.CopyUser(0, k, n) {
			bootPanic("copying to unmapped user address 0 succeeded")
		}
	}
}
