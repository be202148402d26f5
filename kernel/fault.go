package kernel

import (
	"runtime"

	kuart "gmpos/drivers/uart"
	"gmpos/kernel/arch/amd64"
	"gmpos/kernel/mm"
)

// Exit code of QEMU's isa-debug-exit write for a kernel fault; the runner maps it (with the
// "panic" control record) to its own exit status 101 (docs/contract.md).
const kernelPanicCode = 101

var vectorNames = [32]string{
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow", "#BR bound range",
	"#UD invalid opcode", "#NM device not available", "#DF double fault", "coprocessor overrun",
	"#TS invalid TSS", "#NP segment not present", "#SS stack fault", "#GP general protection",
	"#PF page fault", "reserved 15", "#MF x87 FP error", "#AC alignment check", "#MC machine check",
	"#XM SIMD FP exception", "#VE virtualization", "#CP control protection",
}

// kernelFault reports an exception taken in kernel mode (or an impossible kernel state) and stops
// the machine: vector, error code, CR2, every register, the faulting instruction's bytes and
// symbol, the core and the thread. The runner disassembles the bytes with x86asm (the kernel
// cannot: decoding allocates, and nothing may allocate here).
//
// A kernel stack overflow hits the guard page below the stack; the #PF cannot be pushed on the
// same stack, the CPU raises #DF, which runs on IST1 and lands here.
func kernelFault(f *amd64.Frame, why string) {
	var k kbuf
	p := &kuart.Stderr
	k.s("\n=== gmpos kernel fault ===\n").to(p)
	if why == "" && (f.Vector == 8 || f.Vector == 14) {
		if i, hit := mm.StackGuardHit(amd64.CR2()); hit {
			k.s("reason: kernel stack overflow (guard page of kernel stack ").d(int64(i)).s(")\n").to(p)
		}
	}
	if why != "" {
		k.s("reason: ").s(why).c('\n').to(p)
	}
	k.s("vector: ").d(int64(f.Vector))
	if f.Vector < 32 {
		k.s(" (").s(vectorNames[f.Vector]).s(")")
	}
	k.s("  error code: ").x(f.Err).s("  cr2: ").hex(uint64(amd64.CR2())).c('\n').to(p)
	cpu := amd64.Current().ID()
	k.s("cpu: ").d(int64(cpu)).s("  thread: ").d(int64(curThread[cpu])).s("  cr3: ").hex(uint64(amd64.PageTable())).c('\n').to(p)
	reg := func(name string, v uint64) { k.s(name).s("=").hex(v).s("  ") }
	reg("rax", f.AX)
	reg("rbx", f.BX)
	reg("rcx", f.CX)
	reg("rdx", f.DX)
	k.c('\n').to(p)
	reg("rsi", f.SI)
	reg("rdi", f.DI)
	reg("rbp", f.BP)
	reg("rsp", f.SP)
	k.c('\n').to(p)
	reg("r8 ", f.R8)
	reg("r9 ", f.R9)
	reg("r10", f.R10)
	reg("r11", f.R11)
	k.c('\n').to(p)
	reg("r12", f.R12)
	reg("r13", f.R13)
	reg("r14", f.R14)
	reg("r15", f.R15)
	k.c('\n').to(p)
	reg("rip", f.IP)
	reg("rflags", f.Flags)
	reg("cs", f.CS)
	reg("ss", f.SS)
	k.c('\n').to(p)

	// Symbolize through the program's own pclntab (no allocation for a plain function name).
	k.s("at: ")
	if fn := runtime.FuncForPC(uintptr(f.IP)); fn != nil {
		k.s(fn.Name()).s("+").x(f.IP - uint64(fn.Entry()))
	} else {
		k.s("?")
	}
	k.c('\n').to(p)
	// The instruction bytes, if the page is mapped and executable (image text); the runner
	// decodes the copy in the panic record.
	var code [16]byte
	readable := false
	if _, flags, ok := mm.Kernel.Lookup(uintptr(f.IP)); ok && flags&mm.PTENoExec == 0 {
		readable = true
		for i := range code {
			code[i] = *(*byte)(ptr(uintptr(f.IP) + uintptr(i)))
		}
	}
	k.s("code:")
	if readable {
		k.hexBytes(code[:], " ")
	} else {
		k.s(" (not readable)")
	}
	k.c('\n').to(p)

	k.s("panic vector=").d(int64(f.Vector)).s(" rip=").x(f.IP).s(" code=")
	if readable {
		k.hexBytes(code[:], "")
	}
	k.record()
	debugExit(kernelPanicCode)
}

// deliberateFault makes the kernel read an unmapped kernel address: the gmpos_info(infoFault)
// request and the fault=read kernel option use it to test the fault report.
//
//go:noinline
func deliberateFault() {
	bad := uintptr(0xffff_f000_dead_0000)
	_ = *(*uint64)(ptr(bad))
}

// kernelRecurse exhausts the kernel stack (gmpos_info(infoFault, 2)): the kernel g's stack bound
// sends the prologue to runtime.morestack, which refuses to grow a g0 stack and aborts; the guard
// page below the stack catches anything that skips the check.
//
//go:noinline
func kernelRecurse(n int) int {
	var pad [256]byte
	pad[n%256] = byte(n)
	return kernelRecurse(n+1) + int(pad[(n+7)%256])
}
