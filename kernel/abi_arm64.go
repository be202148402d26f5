// The Linux system-call ABI on arm64: the layouts and conventions that differ between
// architectures. The portable kernel fills these; it never hard-codes them.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/arch"
	"gmpos/kernel/arch/arm64"
	"gmpos/kernel/elf"
	"gmpos/kernel/mm"
	"gmpos/kernel/vdso"
	"gmpos/sched"
)

// Facts of the arm64 Linux ABI (arch/arm64/include/uapi/asm/*.h and the asm-generic headers
// they include, unless noted). The layouts' numbers are in abi_arm64_layout.go, where the
// hosted tests check them against the Go distribution's arm64 definitions.
const (
	// unameMachine is struct utsname's machine field (uname -m; arch/arm64/Makefile UTS_MACHINE).
	unameMachine = "aarch64"
	// elfMachine is the e_machine of the executables execve loads (exec.go).
	elfMachine = elf.MachineAArch64
	// minSigStackSize is MINSIGSTKSZ (asm/signal.h): sigaltstack refuses smaller stacks (ENOMEM).
	minSigStackSize = a64MinSigStkSz
	// sigRedZone: AAPCS64 has no red zone, and arm64 Linux builds the frame right below SP.
	sigRedZone = 0
	// statSize is sizeof(struct stat) (asm-generic/stat.h); epollEventSize is sizeof(struct
	// epoll_event), not packed on arm64: 16 bytes.
	statSize       = a64StatSize
	epollEventSize = a64EpollEventSize

	// atHwcap2 is AT_HWCAP2 (include/uapi/linux/auxvec.h).
	atHwcap2 = 26

	// vdsoELF: the vDSO page is an ELF image the program may look up (AT_SYSINFO_EHDR): the
	// runtime calls its __kernel_clock_gettime for every nanotime and time.Now.
	vdsoELF = true
	// vdsoSigreturn: the page also holds __kernel_rt_sigreturn, where signal handlers return
	// (Go sets no SA_RESTORER on arm64: sigreturnTrampoline), so it is mapped even with vdso=0,
	// which then only leaves AT_SYSINFO_EHDR out.
	vdsoSigreturn = true

	// How a breakpoint and an undefined instruction are reported (arch/arm64/kernel
	// debug-monitors.c brk_handler: SIGTRAP, TRAP_BRKPT, si_addr = pc; traps.c do_el0_undef:
	// SIGILL, ILL_ILLOPC, si_addr = pc).
	breakpointCode  = trapBrkpt
	breakpointAtPC  = true
	illegalInsnCode = illIllOpc
)

// Open flags whose values arm64 redefines (arch/arm64/include/uapi/asm/fcntl.h, over
// asm-generic/fcntl.h's, which x86-64 uses): O_DIRECTORY and O_NOFOLLOW trade places with
// O_DIRECT and O_LARGEFILE. The other O_ flags the kernel knows are the same on both (the
// hosted test checks them all).
const (
	oDirectory = a64ODirectory
	oNofollow  = a64ONofollow
	oDirect    = a64ODirect
)

// syscallArgs returns the system call number and arguments from a thread's frame: the number in
// x8, the arguments in x0..x5 (arch/arm64/kernel/syscall.c). invoke_syscall takes the number as
// an unsigned int, so only x8's low 32 bits count: 1<<32|172 is getpid, and what would be a
// negative number is a large one (ENOSYS).
func syscallArgs(f *arch.Frame) (uint64, [6]uint64) {
	nr, a := f.Syscall()
	return uint64(uint32(nr)), a
}

// syscallNr is syscallArgs's number and first argument alone, for what runs on every system call:
// the per-call accounting (ktime.go) and the unlocked paths' first look (*_unlocked.go).
func syscallNr(f *arch.Frame) (nr, a0 uint64) { return uint64(uint32(f.X[8])), f.X[0] }

// cloneArgs orders clone(2)'s arguments: arm64 selects CONFIG_CLONE_BACKWARDS
// (arch/arm64/Kconfig), so the TLS value comes before child_tid: (flags, stack, parent_tid,
// tls, child_tid) — kernel/fork.c; glibc's and musl's aarch64 clone pass them so.
func cloneArgs(a [6]uint64) (flags uint64, stack, ptid, ctid, tls uintptr) {
	return a[0], uintptr(a[1]), uintptr(a[2]), uintptr(a[4]), uintptr(a[3])
}

// putStat writes struct stat in asm-generic/stat.h's layout. st_nlink and st_blksize are 32
// bits wide here (Linux's cp_new_stat returns EOVERFLOW for a link count that does not fit; no
// gmpos file comes near).
func putStat(p uintptr, st *fileStat) {
	zeroUser(p, statSize)
	store64(p+a64StDev, st.dev)
	store64(p+a64StIno, st.ino)
	store32(p+a64StMode, st.mode)
	store32(p+a64StNlink, uint32(st.nlink))
	store32(p+a64StUID, st.uid)
	store32(p+a64StGID, st.gid)
	store64(p+a64StRdev, st.rdev)
	store64(p+a64StSize, st.size)
	store32(p+a64StBlksize, uint32(st.blksize))
	store64(p+a64StBlocks, st.blocks) // 512-byte units
	putTimespec(p+a64StAtime, st.atime)
	putTimespec(p+a64StMtime, st.mtime)
	putTimespec(p+a64StCtime, st.ctime)
}

// putTimespec writes a struct timespec of a time in nanoseconds since the epoch.
func putTimespec(p uintptr, ns int64) {
	store64(p, uint64(ns/1e9))
	store64(p+8, uint64(ns%1e9))
}

// putEpollEvent and getEpollEvent access struct epoll_event: events u32 at 0, data u64 at 8.
// The padding between them is left as the program wrote it, as Linux's ep_send_events does.
func putEpollEvent(p uintptr, events uint32, data uint64) {
	store32(p+a64EpollEvents, events)
	store64(p+a64EpollData, data)
}

func getEpollEvent(p uintptr) (events uint32, data uint64) {
	return load32(p + a64EpollEvents), load64(p + a64EpollData)
}

// archAuxv adds the architecture's auxiliary vector entries: AT_HWCAP and AT_HWCAP2, which Go's
// internal/cpu (and golang.org/x/sys/cpu) read instead of the ID registers — an MRS of those at
// EL0 is UNDEFINED (Linux emulates it, and says so with HWCAP_CPUID; gmpos does not).
func archAuxv(out *[2][2]uint64) int {
	hw, hw2 := hwcaps()
	out[0] = [2]uint64{atHwcap, hw}
	out[1] = [2]uint64{atHwcap2, hw2}
	return 2
}

// hwcaps reads this core's ID registers (a64Hwcaps says which features count).
func hwcaps() (hwcap, hwcap2 uint64) {
	return a64Hwcaps(arm64.PFR0(), arm64.ISAR0(), arm64.ISAR1())
}

// The signal frame: abi_arm64_layout.go draws it (arch/arm64/kernel/signal.c setup_rt_frame,
// setup_sigframe, setup_return). The handler is entered as handler(sig, &info, &uc) with SP at
// the frame, x29 at the frame record and x30 at the code that calls rt_sigreturn; rt_sigreturn
// finds the frame at its caller's SP.
const (
	ucStack      = a64UcStack
	ucontextSize = a64UcontextSize
)

// The thread's FP save area as kernel/arch/arm64 lays it out (FPStateSize bytes): V0..V31 at 0,
// 16 bytes each, then FPSR and FPCR as 32-bit words.
const (
	fpAreaVregs = 0
	fpAreaFPSR  = 512
	fpAreaFPCR  = 516
	fpVregsSize = 32 * 16
)

// The area must hold what the fpsimd_context record carries (a compile-time check).
const _ uint = arch.FPStateSize - (fpAreaFPCR + 4)

// sigframe is where deliverSignal puts the parts of a signal frame.
type sigframe struct {
	sp, info, uc, fpsimd, record, end uintptr
}

// sigFrameMax is a frame's size (end - sp): the rt_sigframe and the frame record.
const sigFrameMax = a64SigframeSize + a64FrameRecordSize

// layoutSigframe places a frame below sp (the interrupted SP, or the top of the alternate
// stack) as get_sigframe does: the frame record, then the rt_sigframe, whose __reserved area
// starts with the fpsimd_context.
func layoutSigframe(sp uintptr) sigframe {
	var fr sigframe
	fr.sp, fr.record = a64SigframeAt(sp)
	fr.end = fr.record + a64FrameRecordSize
	fr.info = fr.sp + a64SigframeInfo
	fr.uc = fr.sp + a64SigframeUc
	fr.fpsimd = fr.uc + a64UcMcontext + a64ScReserved
	return fr
}

// saveSigcontext stores the interrupted context in the frame (already zeroed, so uc_flags,
// uc_link and the end record after the fpsimd_context are 0): struct sigcontext — the fault
// address, x0..x30, sp, pc, pstate — the blocked-signal mask, the FP/SIMD state as an
// fpsimd_context record, and the frame record {x29, x30}. Everything rt_sigreturn gives back is
// saved exactly: the Go runtime reads pc, sp, lr and x28 (g) here, moves them to push a call for
// asynchronous preemption (runtime/signal_arm64.go pushCall) and to inject sigpanic, and reads
// fault_address, not si_addr, for a fault's address (runtime/signal_linux_arm64.go fault()):
// below 0x1000 it is a nil dereference. trapno has no place in arm64's frame (Linux's optional
// esr_context record is not written).
func saveSigcontext(w sigWriter, fr *sigframe, f *arch.Frame, t *Thread, mask, trapno uint64, faultAddr uintptr) {
	mc := fr.uc + a64UcMcontext
	w.put64(mc+a64ScFaultAddress, uint64(faultAddr))
	for i := range f.X {
		w.put64(mc+a64ScRegs+uintptr(8*i), f.X[i])
	}
	w.put64(mc+a64ScSP, f.SP)
	w.put64(mc+a64ScPC, f.ELR)
	w.put64(mc+a64ScPstate, f.SPSR)
	w.put64(fr.uc+a64UcSigmask, mask)

	a := t.fpState()
	w.put32(fr.fpsimd, a64FpsimdMagic)
	w.put32(fr.fpsimd+4, a64FpsimdSize)
	w.put32(fr.fpsimd+a64FpsimdFpsr, load32(a+fpAreaFPSR))
	w.put32(fr.fpsimd+a64FpsimdFpcr, load32(a+fpAreaFPCR))
	w.copyIn(fr.fpsimd+a64FpsimdVregs, a+fpAreaVregs, fpVregsSize)

	w.put64(fr.record, f.X[29])
	w.put64(fr.record+8, f.X[30])
}

// enterHandler points f at the handler, as setup_return does: x0 = sig, x1 = &info, x2 = &uc,
// SP at the frame, x29 at the frame record, and x30 — where the handler returns — ret
// (handlerReturn: the sa_restorer if SA_RESTORER is set, else the vDSO's trampoline; Go sets no
// restorer on arm64 — runtime/os_linux.go setsig sets one on 386 and amd64 only — so a Go
// handler always returns through the trampoline). PSTATE keeps the flags, DIT and SSBS; BTYPE
// is cleared, as setup_return does (the handler is not the target of an indirect branch), and
// so is anything else, as handle_signal's valid_user_regs would.
func enterHandler(fr *sigframe, f *arch.Frame, act *sigaction, sig int, ret uint64) {
	f.X[0] = uint64(sig)
	f.X[1] = uint64(fr.info)
	f.X[2] = uint64(fr.uc)
	f.X[29] = uint64(fr.record)
	f.X[30] = ret
	f.SP = uint64(fr.sp)
	f.ELR = act.handler
	f.SPSR &= a64PsrUser &^ a64PsrBtype
}

// handlerReturn is where the handler of act returns (x30): the sa_restorer with SA_RESTORER,
// else the vDSO's trampoline. false if there is none, or the handler is not a user address: the
// thread gets SIGSEGV.
func handlerReturn(t *Thread, act *sigaction) (uint64, bool) {
	ret := act.restorer
	if act.flags&saRestorer == 0 {
		ret = sigreturnTrampoline(t)
	}
	return ret, ret != 0 && userPC(act.handler)
}

// putReturn: the return address goes in x30 (enterHandler), not in the frame.
func putReturn(w sigWriter, fr *sigframe, ret uint64) {}

// sigreturnTrampoline is where a handler installed without SA_RESTORER returns: the vDSO's
// __kernel_rt_sigreturn ("mov x8, #139; svc #0", Linux's arch/arm64/kernel/vdso/sigreturn.S),
// in t's address space — the program's vDSO (vdso.go) or an exec'd child's (exec.go). 0 when
// no vDSO image was mapped.
func sigreturnTrampoline(t *Thread) uint64 {
	if vdsoState.text == 0 {
		return 0
	}
	base := uint64(vdsoAddr)
	if procOf(t).space != 0 {
		base = uint64(execVdso)
	}
	return base + vdso.SigreturnOffset
}

// userPC reports whether pc may be resumed in user mode. An ERET to any address is harmless on
// arm64 (a bad one faults at EL0, after the return), but a handler or a restored PC outside
// the user half can only be a mistake, refused here as on x86-64: the thread gets SIGSEGV.
func userPC(pc uint64) bool { return pc < uint64(mm.UserEnd) }

// sigreturnFrame is where rt_sigreturn finds the ucontext: in the rt_sigframe at the caller's
// SP — the handler has popped everything it pushed, and the trampoline made the call at once.
func sigreturnFrame(f *arch.Frame) uintptr { return f.StackPointer() + a64SigframeUc }

// sigFetchFP: sigreturnFetch copies nothing besides the ucontext, whose __reserved area holds
// the fpsimd_context record.
const sigFetchFP = 0

// sigreturnFetch copies the ucontext at user address uc into b, after readable says the program
// may read it; the frame must be 16-byte aligned ("if (regs->sp & 15) goto badframe"). false if
// not, or the copy faulted: under the BKL a bad frame (SIGSEGV), without it a frame to look at
// again under the BKL.
func sigreturnFetch(b *sigBuf, uc uintptr, readable func(p, n uintptr) bool) bool {
	return (uc-a64SigframeUc)&15 == 0 && fetchUser(b.ucAddr(), uc, ucontextSize, readable)
}

// restoreSigcontext reloads the context saved by saveSigcontext from the copy sigreturnFetch
// made in b, as Linux's sys_rt_sigreturn and restore_sigframe do: the registers into f (the
// thread's frame, or the trap's own frame on the path without the BKL), the mask and the FP
// state into t. Its PSTATE must be a user one (a64UserPSTATE: never EL1, never masked
// interrupts), its records well-formed with an fpsimd_context of the right size (a64FindFpsimd).
// Nothing is changed unless all of that holds; false: the caller kills the thread with SIGSEGV,
// as Linux's badframe path does. x0 comes back with the other registers: rt_sigreturn's result
// is the interrupted thread's x0.
func restoreSigcontext(t *Thread, f *arch.Frame, b *sigBuf) bool {
	uc := b.ucAddr()
	mc := uc + a64UcMcontext
	pc := load64(mc + a64ScPC)
	pstate, ok := a64UserPSTATE(load64(mc + a64ScPstate))
	if !ok || !userPC(pc) {
		return false
	}
	fp := a64FindFpsimd(mc + a64ScReserved)
	if fp == 0 || load32(fp+4) != a64FpsimdSize { // restore_fpsimd_context wants it exact
		return false
	}
	for i := range f.X {
		f.X[i] = load64(mc + a64ScRegs + uintptr(8*i))
	}
	f.SP = load64(mc + a64ScSP)
	f.ELR = pc
	f.SPSR = pstate
	t.sigmask = load64(uc+a64UcSigmask) &^ unblockable
	a := t.fpState()
	copyWords(a+fpAreaVregs, fp+a64FpsimdVregs, fpVregsSize)
	store32(a+fpAreaFPSR, load32(fp+a64FpsimdFpsr))
	store32(a+fpAreaFPCR, load32(fp+a64FpsimdFpcr))
	arch.SanitizeFPState(a)
	return true
}

// archSyscall handles the system calls only this architecture has: none. arm64 Linux has no
// arch_prctl — a thread's TLS register (TPIDR_EL0) is set by clone's CLONE_SETTLS or by the
// thread itself with MSR, which EL0 may do — and its other private calls (the numbers from
// __NR_arch_specific_syscall) are unused.
func archSyscall(t *Thread, gp sched.GID, cpu int, nr uint64, a [6]uint64) (int64, bool) {
	return 0, false
}

// archCPUInfo writes core cpu's entry of /proc/cpuinfo in arm64 Linux's format
// (arch/arm64/kernel/cpuinfo.c c_show): BogoMIPS — twice the generic timer's rate in MHz, as
// Linux derives loops_per_jiffy from it — the Features of AT_HWCAP and AT_HWCAP2, and MIDR_EL1's
// fields. Boot (procInit, on the boot core): every core is described by the boot core's
// registers, which holds on the symmetric machines gmpos runs on.
func archCPUInfo(k *kbuf, cpu int) {
	midr := arm64.MIDR()
	hw, hw2 := hwcaps()
	k.s("processor\t: ").d(int64(cpu))
	k.s("\nBogoMIPS\t: ").d(int64(clock.hz / 500_000)).c('.')
	hundredths := clock.hz / 5_000 % 100
	k.c(byte('0' + hundredths/10)).c(byte('0' + hundredths%10))
	k.s("\nFeatures\t:")
	for i := 0; i < 64; i++ {
		if hw&(1<<uint(i)) != 0 {
			k.c(' ').s(a64Word(a64HwcapNames, i))
		}
	}
	for i := 0; i < 64; i++ {
		if hw2&(1<<uint(i)) != 0 {
			k.c(' ').s(a64Word(a64Hwcap2Names, i))
		}
	}
	k.s("\nCPU implementer\t: ")
	hexDigits(k, midr>>24&0xff, 2)
	k.s("\nCPU architecture: 8\nCPU variant\t: ").x(midr >> 20 & 0xf)
	k.s("\nCPU part\t: ")
	hexDigits(k, midr>>4&0xfff, 3)
	k.s("\nCPU revision\t: ").d(int64(midr & 0xf)).s("\n\n")
}

// hexDigits appends v as 0x and exactly n hexadecimal digits (C's %0*x with the 0x written out).
func hexDigits(k *kbuf, v uint64, n int) {
	k.s("0x")
	for i := n - 1; i >= 0; i-- {
		k.c("0123456789abcdef"[v>>(4*uint(i))&0xf])
	}
}
