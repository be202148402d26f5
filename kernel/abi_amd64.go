// The Linux system-call ABI on x86-64: the layouts and conventions that differ between
// architectures. The portable kernel fills these; it never hard-codes them.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/arch"
	"gmpos/kernel/arch/amd64"
	"gmpos/kernel/elf"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// Facts of the x86-64 Linux ABI (arch/x86/include/uapi/asm/*.h unless noted).
const (
	// unameMachine is struct utsname's machine field (uname -m).
	unameMachine = "x86_64"
	// elfMachine is the e_machine of the executables execve loads (exec.go).
	elfMachine = elf.MachineX86_64
	// minSigStackSize is MINSIGSTKSZ (signal.h): sigaltstack refuses smaller stacks (ENOMEM).
	minSigStackSize = 2048
	// sigRedZone is the System V x86-64 ABI's 128-byte red zone below SP (§3.2.2), which a
	// leaf function may use without moving SP, so a signal frame must skip it.
	sigRedZone = 128
	// statSize is sizeof(struct stat) (asm/stat.h); epollEventSize is sizeof(struct
	// epoll_event), packed on x86-64 (uapi/linux/eventpoll.h: EPOLL_PACKED).
	statSize       = 144
	epollEventSize = 12

	// The open flags whose values differ between architectures (asm/fcntl.h: arm64 swaps
	// O_DIRECTORY/O_NOFOLLOW with O_DIRECT/O_LARGEFILE); the others are asm-generic's.
	oDirect    = 0o40000
	oDirectory = 0o200000
	oNofollow  = 0o400000

	// vdsoELF: the vDSO page is an ELF image the program may look up (AT_SYSINFO_EHDR).
	vdsoELF = true
	// vdsoSigreturn: no signal trampoline in the page (Go's handlers carry SA_RESTORER): vdso=0
	// maps nothing.
	vdsoSigreturn = false

	// How a breakpoint (INT3) and an undefined instruction (#UD) are reported
	// (arch/x86/kernel/traps.c: do_int3_user sends SIGTRAP with SI_KERNEL and no address;
	// handle_invalid_op: SIGILL, ILL_ILLOPN, si_addr = the instruction).
	breakpointCode  = siKernel
	breakpointAtPC  = false
	illegalInsnCode = illIllOpn
)

// syscallArgs returns the system call number and arguments from a thread's frame. The number is
// RAX's low 32 bits, sign-extended: Linux treats it as an int (arch/x86/entry/entry_64.S,
// "movslq %eax, %rsi"), so 1<<32|39 is getpid and a negative number is ENOSYS.
func syscallArgs(f *arch.Frame) (uint64, [6]uint64) {
	nr, a := f.Syscall()
	return uint64(int64(int32(nr))), a
}

// syscallNr is syscallArgs's number and first argument alone, for what runs on every system call:
// the per-call accounting (ktime.go) and the unlocked paths' first look (*_unlocked.go).
func syscallNr(f *arch.Frame) (nr, a0 uint64) { return uint64(int64(int32(f.AX))), f.DI }

// cloneArgs orders clone(2)'s arguments: x86-64 is one of the architectures without
// CONFIG_CLONE_BACKWARDS*, so (flags, stack, parent_tid, child_tid, tls) — kernel/fork.c.
func cloneArgs(a [6]uint64) (flags uint64, stack, ptid, ctid, tls uintptr) {
	return a[0], uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4])
}

// putStat writes struct stat (asm/stat.h, the x86-64 layout: st_mode at 24, not at 16 as on
// arm64's asm-generic layout).
func putStat(p uintptr, st *fileStat) {
	zeroUser(p, statSize)
	store64(p+0, st.dev)      // st_dev
	store64(p+8, st.ino)      // st_ino
	store64(p+16, st.nlink)   // st_nlink
	store32(p+24, st.mode)    // st_mode
	store32(p+28, st.uid)     // st_uid
	store32(p+32, st.gid)     // st_gid
	store64(p+40, st.rdev)    // st_rdev
	store64(p+48, st.size)    // st_size
	store64(p+56, st.blksize) // st_blksize
	store64(p+64, st.blocks)  // st_blocks, 512-byte units
	putTimespec(p+72, st.atime)
	putTimespec(p+88, st.mtime)
	putTimespec(p+104, st.ctime)
}

// putTimespec writes a struct timespec of a time in nanoseconds since the epoch.
func putTimespec(p uintptr, ns int64) {
	store64(p, uint64(ns/1e9))
	store64(p+8, uint64(ns%1e9))
}

// putEpollEvent and getEpollEvent access a packed struct epoll_event: events u32 at 0, data u64
// at 4 (unaligned).
func putEpollEvent(p uintptr, events uint32, data uint64) {
	store32(p, events)
	store32(p+4, uint32(data))
	store32(p+8, uint32(data>>32))
}

func getEpollEvent(p uintptr) (events uint32, data uint64) {
	return load32(p), uint64(load32(p+4)) | uint64(load32(p+8))<<32
}

// archAuxv adds the architecture's auxiliary vector entries: AT_HWCAP, which Linux fills from
// CPUID leaf 1 EDX on x86 (arch/x86/include/asm/elf.h ELF_HWCAP). Go reads CPUID itself on amd64
// and ignores it, but a C program or a tool reading /proc/self/auxv would not.
func archAuxv(out *[2][2]uint64) int {
	_, _, _, edx := amd64.CPUID(1, 0)
	out[0] = [2]uint64{atHwcap, uint64(edx)}
	return 1
}

// The signal frame (arch/x86/include/asm/sigframe.h struct rt_sigframe, uapi/asm/sigcontext.h,
// arch/x86/kernel/signal.c get_sigframe, signal_64.c x64_setup_rt_frame). From the handler's SP up:
//
//	sp+0      pretcode: the restorer the handler returns into (sa_restorer, which calls
//	          rt_sigreturn; x86-64 Linux has no trampoline of its own, so SA_RESTORER is required)
//	sp+8      struct ucontext (304 bytes): uc_flags, uc_link, uc_stack (24), uc_mcontext (struct
//	          sigcontext, 256), uc_sigmask (8)
//	sp+312    struct siginfo (128 bytes)
//	...       the FXSAVE image (struct _fpstate, 512 bytes, 64-byte aligned) followed by
//	          FP_XSTATE_MAGIC2's 4 bytes, pointed to by uc_mcontext.fpstate
const (
	ucStack       = 16
	ucMcontext    = 40
	ucSigmask     = 296
	ucontextSize  = 304
	rtSigframeSz  = 8 + ucontextSize + siginfoSize
	fpFrameSize   = arch.FPStateSize + 4 // fpu__alloc_mathframe: the image and FP_XSTATE_MAGIC2
	ucFlagsValue  = 2 | 4                // UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS, as Linux sets them
	sigFPStateLen = arch.FPStateSize
)

// sigframe is where deliverSignal puts the parts of a signal frame.
type sigframe struct {
	sp, uc, info, fpstate, end uintptr
}

// sigFrameMax bounds a frame's size (end - sp): the FP image, the frame below it, and what the
// alignments of layoutSigframe may leave between them.
const sigFrameMax = (fpFrameSize + 63 + rtSigframeSz + 8 + 15 + 7) &^ 7

// layoutSigframe places a frame below sp (already past the red zone, or the top of the
// alternate stack) as get_sigframe does: the FP image rounded down to 64 bytes, the frame below
// it with the handler's SP ≡ 8 (mod 16), as if the handler had been called.
func layoutSigframe(sp uintptr) sigframe {
	var fr sigframe
	fr.fpstate = (sp - fpFrameSize) &^ 63
	fr.end = fr.fpstate + fpFrameSize
	fr.sp = (fr.fpstate-rtSigframeSz)&^15 - 8
	fr.uc = fr.sp + 8
	fr.info = fr.uc + ucontextSize
	return fr
}

// saveSigcontext stores the interrupted context f in the frame, through w: the registers
// (struct sigcontext: r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags, cs/gs/fs/ss,
// err, trapno, oldmask, cr2, fpstate), the blocked-signal mask to restore, and t's FP state.
func saveSigcontext(w sigWriter, fr *sigframe, f *arch.Frame, t *Thread, mask, trapno uint64, faultAddr uintptr) {
	regs := [...]uint64{f.R8, f.R9, f.R10, f.R11, f.R12, f.R13, f.R14, f.R15,
		f.DI, f.SI, f.BP, f.BX, f.DX, f.AX, f.CX, f.SP, f.IP, f.Flags,
		uint64(amd64.UserCS), 0, trapno, 0, uint64(faultAddr), uint64(fr.fpstate)}
	w.put64(fr.uc, ucFlagsValue)
	for i, v := range regs {
		w.put64(fr.uc+ucMcontext+uintptr(8*i), v)
	}
	w.put64(fr.uc+ucSigmask, mask)
	w.copyIn(fr.fpstate, t.fpState(), sigFPStateLen)
}

// handlerReturn is where the handler of act returns: its sa_restorer. false without
// SA_RESTORER — x86-64 Linux has no trampoline of its own to return through, and
// x64_setup_rt_frame fails the delivery (the thread gets SIGSEGV) — or with a handler that
// cannot be resumed (userPC).
func handlerReturn(t *Thread, act *sigaction) (uint64, bool) {
	return act.restorer, act.flags&saRestorer != 0 && userPC(act.handler)
}

// putReturn stores the handler's return address (pretcode) at the frame's SP, through w.
func putReturn(w sigWriter, fr *sigframe, ret uint64) { w.put64(fr.sp, ret) }

// enterHandler points f at the handler: handler(sig, info, uc) with the return address
// (pretcode, putReturn) at SP, and the direction and trap flags clear as the ABI and Linux
// require.
func enterHandler(fr *sigframe, f *arch.Frame, act *sigaction, sig int, ret uint64) {
	f.IP = act.handler
	f.SP = uint64(fr.sp)
	f.DI = uint64(sig)
	f.SI = uint64(fr.info)
	f.DX = uint64(fr.uc)
	f.AX = 0 // no vector registers used for arguments (variadic-call convention)
	f.Flags &^= amd64.FlagDF | amd64.FlagTF
}

// userPC reports whether pc may be resumed in user mode: IRETQ to a non-canonical RIP raises #GP
// before leaving the kernel (SDM Vol. 2A, IRET: "IF tempRIP is non-canonical THEN #GP(0)") — a
// kernel-mode fault for what Linux turns into the thread's SIGSEGV. So a handler address or a
// restored RIP outside the user half is refused here (TCG happens to raise the #GP in user mode,
// real Intel CPUs do not).
func userPC(pc uint64) bool { return pc < uint64(mm.UserEnd) }

// sigreturnFrame is where rt_sigreturn finds the ucontext: at the user SP of the call, because
// the handler's RET popped pretcode and the restorer made the system call right away.
func sigreturnFrame(f *arch.Frame) uintptr { return f.StackPointer() }

// sigFetchFP is how much FP state sigreturnFetch copies besides the ucontext: the FXSAVE image
// uc_mcontext.fpstate points to.
const sigFetchFP = sigFPStateLen

// scFPState is the index of uc_mcontext.fpstate among struct sigcontext's words.
const scFPState = 23

// sigreturnFetch copies what rt_sigreturn restores into b: the ucontext at user address uc, and
// the FP state its fpstate pointer names (16-aligned, as fxrstor wants; none if 0), each after
// readable says the program may read it. false if it may not, or a copy faulted: under the BKL
// a bad frame (SIGSEGV), without it a frame to look at again under the BKL.
func sigreturnFetch(b *sigBuf, uc uintptr, readable func(p, n uintptr) bool) bool {
	if !fetchUser(b.ucAddr(), uc, ucontextSize, readable) {
		return false
	}
	fp := uintptr(load64(b.ucAddr() + ucMcontext + 8*scFPState))
	return fp == 0 || fp&15 == 0 && fetchUser(b.fpAddr(), fp, sigFPStateLen, readable)
}

// restoreSigcontext reloads the context saved by saveSigcontext from the copy sigreturnFetch
// made in b: the registers into f (the thread's frame, or the trap's own frame on the path
// without the BKL), the mask and the FP state into t. false if the saved RIP could not be
// resumed (userPC): the caller kills the thread with SIGSEGV, as Linux's restore_sigcontext
// failure (or its failed IRET) does. Nothing is changed then.
func restoreSigcontext(t *Thread, f *arch.Frame, b *sigBuf) bool {
	uc := b.ucAddr()
	mc := uc + ucMcontext
	r := func(i int) uint64 { return load64(mc + uintptr(8*i)) }
	if !userPC(r(16)) {
		return false
	}
	f.R8, f.R9, f.R10, f.R11 = r(0), r(1), r(2), r(3)
	f.R12, f.R13, f.R14, f.R15 = r(4), r(5), r(6), r(7)
	f.DI, f.SI, f.BP, f.BX = r(8), r(9), r(10), r(11)
	f.DX, f.AX, f.CX, f.SP = r(12), r(13), r(14), r(15)
	f.IP = r(16)
	// Only the arithmetic, direction, trap, AC and ID flags come from user space; IF stays set and
	// IOPL 0, as in Linux's FIX_EFLAGS (arch/x86/kernel/signal_64.c).
	const userFlags = amd64.FlagCF | amd64.FlagPF | amd64.FlagAF | amd64.FlagZF | amd64.FlagSF |
		amd64.FlagTF | amd64.FlagDF | amd64.FlagOF | amd64.FlagAC | amd64.FlagID
	f.Flags = f.Flags&^userFlags | r(17)&userFlags | amd64.FlagIF | 2
	f.CS = amd64.UserCS
	f.SS = amd64.UserDS
	t.sigmask = load64(uc+ucSigmask) &^ unblockable
	if r(scFPState) != 0 {
		a := t.fpState()
		copyWords(a, b.fpAddr(), sigFPStateLen)
		arch.SanitizeFPState(a)
	}
	return true
}

// archSyscall handles the system calls only this architecture has: arch_prctl.
func archSyscall(t *Thread, gp sched.GID, cpu int, nr uint64, a [6]uint64) (int64, bool) {
	if nr == nrArchPrctl {
		return sysArchPrctl(t, int32(a[0]), uintptr(a[1])), true
	}
	return 0, false
}

// arch_prctl codes (asm/prctl.h).
const (
	archSetGS        = 0x1001
	archSetFS        = 0x1002
	archGetFS        = 0x1003
	archGetGS        = 0x1004
	archGetCPUID     = 0x1011
	archSetCPUID     = 0x1012
	archGetXcompSupp = 0x1021
	archGetXcompPerm = 0x1022
	archReqXcompPerm = 0x1023

	// xfeaturesFXSR: the XSAVE feature bits of the state gmpos keeps per thread, x87 and SSE
	// (FXSAVE only, see kernel/arch/amd64 fpu.go).
	xfeaturesFXSR = 0x3
)

// sysArchPrctl: ARCH_SET_FS is how the Go runtime installs its TLS (docs/runtime-contract.md
// §2.1); the value becomes the thread's TLS register, loaded by resume. GS belongs to the kernel
// (it holds the per-core CPU struct), so ARCH_SET_GS is refused and ARCH_GET_GS reads 0.
func sysArchPrctl(t *Thread, code int32, addr uintptr) int64 {
	switch code {
	case archSetFS:
		if !userAddress(addr) {
			return -EPERM
		}
		t.tls = addr
		return 0
	case archGetFS, archGetGS:
		if !userRange(addr, 8, true) {
			return -EFAULT
		}
		v := uint64(t.tls)
		if code == archGetGS {
			v = 0
		}
		store64(addr, v)
		return 0
	case archSetGS:
		return -EPERM
	case archGetCPUID:
		return 1 // CPUID is allowed in user mode (no CPUID faulting)
	case archGetXcompSupp, archGetXcompPerm:
		if !userRange(addr, 8, true) {
			return -EFAULT
		}
		store64(addr, xfeaturesFXSR)
		return 0
	}
	return -EINVAL
}

// archCPUInfo writes core cpu's entry of /proc/cpuinfo in x86's format
// (arch/x86/kernel/cpu/proc.c): the fields programs parse — processor, vendor_id, model name,
// cpu MHz, flags' absence is allowed — from CPUID leaves 0 and 0x80000002-4 (SDM Vol. 2A, CPUID).
func archCPUInfo(k *kbuf, cpu int) {
	var vendor [12]byte
	_, b, c, d := amd64.CPUID(0, 0)
	for i := range 4 {
		vendor[i], vendor[4+i], vendor[8+i] = byte(b>>(8*i)), byte(d>>(8*i)), byte(c>>(8*i))
	}
	var model [48]byte
	n := 0
	if max, _, _, _ := amd64.CPUID(0x80000000, 0); max >= 0x80000004 {
		for leaf := uint32(0x80000002); leaf <= 0x80000004; leaf++ {
			a, b, c, d := amd64.CPUID(leaf, 0)
			for _, r := range [4]uint32{a, b, c, d} {
				for i := range 4 {
					model[n] = byte(r >> (8 * i))
					n++
				}
			}
		}
	}
	for n > 0 && (model[n-1] == 0 || model[n-1] == ' ') {
		n--
	}
	k.s("processor\t: ").d(int64(cpu)).s("\nvendor_id\t: ").bytes(vendor[:]).s("\nmodel name\t: ").bytes(model[:n])
	k.s("\ncpu MHz\t\t: ").d(int64(clock.hz / 1e6)).s("\nsiblings\t: ").d(int64(ncpu)).s("\ncore id\t\t: ").d(int64(cpu))
	k.s("\ncpu cores\t: ").d(int64(ncpu)).s("\n\n")
}
