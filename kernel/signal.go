package kernel

import (
	"gmpos/kernel/arch/amd64"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// Signals, as the Go runtime uses them (runtime-contract §3.6): handlers installed with
// SA_SIGINFO|SA_ONSTACK|SA_RESTORER, delivered on the thread's sigaltstack in a frame laid out
// exactly like Linux's struct rt_sigframe (arch/x86/include/asm/sigframe.h), left through
// rt_sigreturn. Faults become SIGSEGV/SIGBUS/SIGFPE with the si_code/si_addr that turn a nil
// dereference into a Go panic; tgkill(SIGURG) is the runtime's asynchronous preemption.

const (
	sigHUP   = 1
	sigILL   = 4
	sigTRAP  = 5
	sigABRT  = 6
	sigBUS   = 7
	sigFPE   = 8
	sigKILL  = 9
	sigSEGV  = 11
	sigPIPE  = 13
	sigCHLD  = 17
	sigCONT  = 18
	sigSTOP  = 19
	sigURG   = 23
	sigWINCH = 28
	nSig     = 64

	sigDFL = 0
	sigIGN = 1

	saSiginfo   = 0x4
	saOnstack   = 0x08000000
	saRestorer  = 0x04000000
	saNodefer   = 0x40000000
	saResethand = 0x80000000

	ssOnstack = 1
	ssDisable = 2

	// si_code values (include/uapi/asm-generic/siginfo.h).
	siUser     = 0
	siKernel   = 0x80
	siTkill    = -6
	segvMapErr = 1
	segvAccErr = 2
	busAdrAln  = 1
	fpeIntDiv  = 1
	illIllOpn  = 2
)

// sigaction is the kernel's struct sigaction as rt_sigaction passes it on x86-64.
type sigaction struct {
	handler  uint64
	flags    uint64
	restorer uint64
	mask     uint64
}

// Process-wide signal dispositions (CLONE_SIGHAND: shared by all threads).
var sigactions [nSig + 1]sigaction

func sigbit(sig int) uint64 { return 1 << uint(sig-1) }

// Signals that cannot be caught or blocked.
const unblockable = 1<<(sigKILL-1) | 1<<(sigSTOP-1)

// postFault queues a synchronous fault signal for t. A fault while the signal is blocked, or with
// no handler installed, is fatal, as on Linux (force_sig_fault).
func postFault(t *Thread, sig int, code int32, addr uintptr) {
	t.faultCode = code
	t.faultAddr = addr
	if t.sigmask&sigbit(sig) != 0 || sigactions[sig].handler == sigDFL || sigactions[sig].handler == sigIGN {
		fatalSignal(t, sig)
		return
	}
	t.sigpending |= sigbit(sig)
}

// postSignal queues an asynchronous (tgkill) signal for t and interrupts a blocking system call.
func postSignal(t *Thread, gp sched.GID, sig int, cpu int) {
	t.sigpending |= sigbit(sig)
	if t.state == threadBlocked && t.sigmask&sigbit(sig) == 0 {
		wakeThread(gp, -EINTR, cpu)
	}
}

// The offsets Go reads and writes in the frame (runtime-contract §3.6; defs_linux_amd64.go).
const (
	ucFlags     = 0
	ucStack     = 16 // stack_t: ss_sp, ss_flags, ss_size
	ucMcontext  = 40
	ucSigmask   = 296
	ucSize      = 304 + 136 // struct ucontext plus padding to keep the fpstate 64-byte aligned below
	siginfoSize = 128
	fpstateSize = 512

	mcFPState = ucMcontext + 184 // fpregs pointer
)

// mcontext register order (struct sigcontext, arch/x86/include/uapi/asm/sigcontext.h), as offsets
// from uc_mcontext: r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags, cs/gs/fs/ss, err,
// trapno, oldmask, cr2, fpstate.
func saveMcontext(mc uintptr, f *amd64.Frame, err, trapno, cr2 uint64) {
	regs := [...]uint64{f.R8, f.R9, f.R10, f.R11, f.R12, f.R13, f.R14, f.R15,
		f.DI, f.SI, f.BP, f.BX, f.DX, f.AX, f.CX, f.SP, f.IP, f.Flags,
		uint64(amd64.UserCS), err, trapno, 0, cr2}
	for i, v := range regs {
		*(*uint64)(ptr(mc + uintptr(8*i))) = v
	}
}

func loadMcontext(mc uintptr, f *amd64.Frame) {
	r := func(i int) uint64 { return *(*uint64)(ptr(mc + uintptr(8*i))) }
	f.R8, f.R9, f.R10, f.R11 = r(0), r(1), r(2), r(3)
	f.R12, f.R13, f.R14, f.R15 = r(4), r(5), r(6), r(7)
	f.DI, f.SI, f.BP, f.BX = r(8), r(9), r(10), r(11)
	f.DX, f.AX, f.CX, f.SP = r(12), r(13), r(14), r(15)
	f.IP = r(16)
	// Only the arithmetic, direction and trap flags come from user space; IF stays set and IOPL
	// stays 0, as in Linux's FIX_EFLAGS (arch/x86/kernel/signal_64.c).
	const userFlags = 0x1 | 0x4 | 0x10 | 0x40 | 0x80 | 0x400 | 0x800 | 0x100 | 0x40000 | 0x200000
	f.Flags = (f.Flags &^ userFlags) | (r(17) & userFlags) | amd64.FlagIF | 2
	f.CS = amd64.UserCS
	f.SS = amd64.UserDS
}

func store64(a uintptr, v uint64) { *(*uint64)(ptr(a)) = v }
func load64(a uintptr) uint64     { return *(*uint64)(ptr(a)) }
func store32(a uintptr, v uint32) { *(*uint32)(ptr(a)) = v }

// deliverSignals delivers the lowest-numbered deliverable pending signal to t, which is about to
// return to user mode (one at a time: the handler runs with the signal masked, and the next one
// is delivered when it returns through rt_sigreturn).
func deliverSignals(t *Thread, gp sched.GID, cpu int) {
	ready := t.sigpending &^ t.sigmask
	sig := 1
	for ready&1 == 0 {
		ready >>= 1
		sig++
	}
	t.sigpending &^= sigbit(sig)
	act := &sigactions[sig]
	switch act.handler {
	case sigIGN:
		return
	case sigDFL:
		switch sig {
		case sigCHLD, sigURG, sigWINCH, sigCONT:
			return // default action: ignore
		}
		fatalSignal(t, sig)
		return
	}

	f := &t.frame
	sp := uintptr(f.SP) - 128 // skip the red zone
	onAlt := t.altSize != 0 && uintptr(f.SP) > t.altSP && uintptr(f.SP) <= t.altSP+t.altSize
	if act.flags&saOnstack != 0 && t.altFlags&ssDisable == 0 && t.altSize != 0 && !onAlt {
		sp = t.altSP + t.altSize
	}
	sp = (sp - fpstateSize) &^ 63
	fpstate := sp
	sp -= siginfoSize
	info := sp
	// uc must sit right above the return address (rt_sigreturn finds it at the user SP once the
	// handler's RET has popped pretcode), and the handler must start with SP ≡ 8 (mod 16) as if
	// called: so align uc to 16 and put pretcode just below it.
	sp = (sp - ucSize) &^ 15
	uc := sp
	sp -= 8 // pretcode: the handler returns into sa_restorer
	if !mm.Space.UserRange(sp, fpstate+fpstateSize-sp, true) {
		// No room for the frame: Linux forces SIGSEGV (signal_setup_done → force_sigsegv).
		fatalSignal(t, sig)
		return
	}
	for a := info; a < fpstate; a += 8 {
		store64(a, 0)
	}

	// siginfo_t
	store32(info+0, uint32(sig))
	code := int32(siTkill)
	var addr uintptr
	switch sig {
	case sigSEGV, sigBUS, sigFPE, sigILL, sigTRAP:
		if t.faultCode != 0 || t.faultAddr != 0 {
			code, addr = t.faultCode, t.faultAddr
		}
	}
	store32(info+8, uint32(code))
	if code == siTkill {
		store32(info+16, uint32(1)) // si_pid: the process
	} else {
		store64(info+16, uint64(addr))
	}

	// ucontext
	store64(uc+ucStack, uint64(t.altSP))
	ssflags := uint64(0)
	if t.altSize == 0 || t.altFlags&ssDisable != 0 {
		ssflags = ssDisable
	} else if onAlt {
		ssflags = ssOnstack
	}
	store64(uc+ucStack+8, ssflags)
	store64(uc+ucStack+16, uint64(t.altSize))
	trapno := uint64(0)
	if code != siTkill {
		trapno = 14
	}
	saveMcontext(uc+ucMcontext, f, 0, trapno, uint64(addr))
	store64(uc+mcFPState, uint64(fpstate))
	store64(uc+ucSigmask, t.sigmask)
	src := t.fpArea()
	for i := uintptr(0); i < fpstateSize; i += 8 {
		store64(fpstate+i, load64(src+i))
	}
	store64(sp, act.restorer)

	if cmd.klog {
		var k kbuf
		k.s("log signal ").d(int64(sig)).s(" tid=").d(int64(t.tid)).s(" ip=").x(f.IP).s(" sp=").x(f.SP).
			s(" code=").d(int64(code)).s(" addr=").x(uint64(addr)).s(" frame=").x(uint64(sp)).record()
	}
	f.IP = act.handler
	f.SP = uint64(sp)
	f.DI = uint64(sig)
	f.SI = uint64(info)
	f.DX = uint64(uc)
	f.AX = 0
	f.Flags &^= amd64.FlagDF | amd64.FlagTF
	t.sigmask |= act.mask
	if act.flags&saNodefer == 0 {
		t.sigmask |= sigbit(sig)
	}
	t.sigmask &^= unblockable
	t.faultCode, t.faultAddr = 0, 0
	stats.signals++
}

// sysRtSigreturn restores the context saved by deliverSignals: the frame starts at the user SP at
// the time of the call (the restorer was reached by the handler's RET popping pretcode).
func sysRtSigreturn(t *Thread) int64 {
	uc := uintptr(t.frame.SP)
	if !mm.Space.UserRange(uc, ucSize, false) {
		fatalSignal(t, sigSEGV)
		return 0
	}
	loadMcontext(uc+ucMcontext, &t.frame)
	t.sigmask = load64(uc+ucSigmask) &^ unblockable
	if fp := uintptr(load64(uc + mcFPState)); fp != 0 {
		if fp&15 != 0 || !mm.Space.UserRange(fp, fpstateSize, false) {
			fatalSignal(t, sigSEGV)
			return 0
		}
		dst := t.fpArea()
		for i := uintptr(0); i < fpstateSize; i += 8 {
			store64(dst+i, load64(fp+i))
		}
		// MXCSR reserved bits set would make FXRSTOR fault (#GP) in the kernel.
		*(*uint32)(ptr(dst + 24)) &= 0xffff
	}
	return int64(t.frame.AX)
}

// fatalSignal is the default action "terminate (core)": the whole process exits with status
// 128+sig, the way a shell reports a signal death, after a kernel log line naming the signal.
func fatalSignal(t *Thread, sig int) {
	var k kbuf
	k.s("log thread ").d(int64(t.tid)).s(" killed by signal ").d(int64(sig)).s(" at ip=").x(t.frame.IP)
	if t.faultAddr != 0 {
		k.s(" addr=").x(uint64(t.faultAddr))
	}
	k.record()
	exitProcess(128 + sig)
}
