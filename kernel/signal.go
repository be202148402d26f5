// Signals: posting them, and delivering them on the way back to user mode.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"unsafe"

	"gmpos/kernel/arch"
	"gmpos/sched"
)

// Signals, as the Go runtime uses them (docs/runtime-contract.md §3.6): handlers installed with
// SA_SIGINFO|SA_ONSTACK|SA_RESTORER, delivered on the thread's alternate stack in a frame laid out
// exactly like Linux's struct rt_sigframe (the layout is the architecture's: abi_<arch>.go), left
// through rt_sigreturn. Faults become SIGSEGV/SIGBUS/SIGFPE with the si_code/si_addr that turn a
// nil dereference into a Go panic; tgkill(SIGURG) is the runtime's asynchronous preemption.
//
// Everything here is protected by the BKL, but for one thing: the runtime's tgkill posts its
// signal without it (signal_unlocked.go), so a thread's pending set may gain a bit at any time —
// sigpending is atomic — and a sender without the BKL decides whether to interrupt or kick the
// thread from a mask and a wait state it reads unlocked. What makes that sound is one rule,
// Dekker's: a sender stores the pending bit, fences, then reads the thread's mask and wait; the
// thread, before it returns to user mode or goes to sleep, stores its new mask or wait, fences,
// then reads its pending set (deliverable, setTemporarySigmask, wait.go pendingInterrupts,
// wake_unlocked.go's way out: needsKernel after its fence). So either the sender sees a mask
// that lets the signal in and a wait to end or a core to kick, or the thread sees the bit.

// Signal numbers (asm-generic/signal.h; x86 and arm64 agree on the ones used here).
const (
	sigHUP   = 1
	sigINT   = 2
	sigQUIT  = 3
	sigILL   = 4
	sigTRAP  = 5
	sigABRT  = 6
	sigBUS   = 7
	sigFPE   = 8
	sigKILL  = 9
	sigSEGV  = 11
	sigPIPE  = 13
	sigTERM  = 15
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
	saRestart   = 0x10000000
	saNodefer   = 0x40000000
	saResethand = 0x80000000

	ssOnstack    = 1
	ssDisable    = 2
	ssAutodisarm = 1 << 31 // disarm the alternate stack while a handler runs on it

	// si_code values (include/uapi/asm-generic/siginfo.h).
	siUser     = 0
	siKernel   = 0x80
	siTkill    = -6
	segvMapErr = 1
	segvAccErr = 2
	busAdrAln  = 1
	fpeIntDiv  = 1
	illIllOpc  = 1
	illIllOpn  = 2
	trapBrkpt  = 1

	// siginfoSize is sizeof(siginfo_t): 128 bytes on every Linux architecture.
	siginfoSize = 128
)

// sigaction is a signal's disposition as rt_sigaction passes it (struct sigaction of the kernel
// ABI, the same on x86-64 and arm64: handler, flags, restorer, mask).
type sigaction struct {
	handler  uint64
	flags    uint64
	restorer uint64
	mask     uint64
}

// Signal dispositions are the process's (proc.go: process.sigactions, shared by its threads as
// CLONE_SIGHAND wants). Protected by the BKL.

func sigbit(sig int) uint64 { return 1 << uint(sig-1) }

// Signals that cannot be caught or blocked.
const unblockable = 1<<(sigKILL-1) | 1<<(sigSTOP-1)

// postFault queues a synchronous fault signal for t. A fault while the signal is blocked, or with
// no handler installed, is fatal, as on Linux (force_sig_fault).
func postFault(t *Thread, sig int, code int32, addr uintptr) {
	t.faultSig = sig
	t.faultCode = code
	t.faultAddr = addr
	t.faultTrap, _ = t.frame.Describe()
	if t.sigmask&sigbit(sig) != 0 || procOf(t).sigactions[sig].handler == sigDFL || procOf(t).sigactions[sig].handler == sigIGN {
		fatalSignal(t, sig)
		return
	}
	t.sigpending.Or(sigbit(sig))
}

// postSignal queues an asynchronous (kill, tgkill) signal for t and interrupts a blocking system
// call with EINTR if t does not block the signal.
func postSignal(t *Thread, gp sched.GID, sig int, cpu int) {
	t.sigpending.Or(sigbit(sig))
	if t.sigmask&sigbit(sig) == 0 {
		interruptWait(gp, sig, cpu)
		kickThread(gp, cpu)
	}
}

// kickThread makes thread gp, if it runs in user mode on another core, enter the kernel soon:
// that core takes a wake-up IPI and, on its way back out, looks at gp (a signal to deliver, a
// kill) — Linux's kick_process. Without it the thread would run on until its next trap, which
// a core without ticks (timer.go tickAt) may not take for a long time. The IPI goes out when
// this core releases the BKL (smp.go), or on the way out of a path without it
// (sendDeferredWakes). BKL held, or futexQ's lock (signal_unlocked.go).
//
// The caller has just changed what gp must see (a signal, a kill); the fence orders that store
// before the loads of cur, as an idle core's wake-up without the BKL orders its store of cur
// before its loads of the thread's state (wake_unlocked.go): one of the two sees the other.
func kickThread(gp sched.GID, cpu int) {
	arch.Fence()
	for c := 0; c < ncpu; c++ {
		if c != cpu && cpus[c].cur == gp {
			cpus[cpu].wakeIPIs |= 1 << c
		}
	}
}

// deliverable reports whether t has a pending signal its mask lets in, on its way back to user
// mode (schedule): after a fence, so that a mask it just changed is visible to senders without
// the BKL before it reads what they posted (see above).
func deliverable(t *Thread) bool {
	arch.Fence()
	return t.sigpending.Load()&^t.sigmask != 0
}

// setTemporarySigmask makes mask t's blocked set for the duration of a wait, remembering the
// current one (Linux's set_user_sigmask). It reports whether a pending signal is now deliverable,
// in which case the caller returns EINTR at once.
func setTemporarySigmask(t *Thread, mask uint64) bool {
	t.savedSigmask, t.restoreSigmask = t.sigmask, true
	t.sigmask = mask &^ unblockable
	arch.Fence() // the mask before pending: see deliverable
	return t.sigpending.Load()&^t.sigmask != 0
}

// sigmaskToSave is the blocked set a signal frame records, for rt_sigreturn to restore: the
// saved one while a temporary mask is in force (it ends with this delivery), as Linux's
// sigmask_to_save.
func sigmaskToSave(t *Thread) uint64 {
	if t.restoreSigmask {
		t.restoreSigmask = false
		return t.savedSigmask
	}
	return t.sigmask
}

// onAltStack reports whether sp is on t's alternate signal stack — Linux's on_sig_stack: the
// stack grows down, so its top address belongs to it and its base does not; the difference is
// compared, not the sum, which could overflow; a disabled stack has no size, so nothing is on it;
// and with SS_AUTODISARM Linux answers "no". sigaltstack and signal delivery both use this one
// definition (they used to compute it two ways).
func onAltStack(t *Thread, sp uintptr) bool {
	if t.altFlags&ssAutodisarm != 0 {
		return false
	}
	return t.altSize != 0 && sp > t.altSP && sp-t.altSP <= t.altSize
}

// altStackFlags is the ss_flags value that sigaltstack and the signal frame report for sp
// (Linux's sas_ss_flags): SS_DISABLE without a stack, SS_ONSTACK while on it, else 0.
func altStackFlags(t *Thread, sp uintptr) uint64 {
	switch {
	case t.altSize == 0:
		return ssDisable
	case onAltStack(t, sp):
		return ssOnstack
	}
	return 0
}

// deliverSignal delivers one deliverable pending signal to t, which is about to return to user
// mode: the synchronous fault signal if there is one — it describes the instruction t is on, and
// Linux delivers it before anything else (dequeue_synchronous_signal) — else the lowest-numbered.
func deliverSignal(t *Thread, gp sched.GID, cpu int) {
	ready := t.sigpending.Load() &^ t.sigmask
	sig := 1
	if t.faultSig != 0 && ready&sigbit(t.faultSig) != 0 {
		sig = t.faultSig
	} else {
		for ready&1 == 0 {
			ready >>= 1
			sig++
		}
	}
	t.sigpending.And(^sigbit(sig))
	src := takeSigSource(t, gp, sig) // a timer's or the kernel's siginfo, or kill's (sigsource.go)
	act := &procOf(t).sigactions[sig]
	switch act.handler {
	case sigIGN:
		return
	case sigDFL:
		if sigDefaultIgnored(sig) {
			return
		}
		fatalSignal(t, sig)
		return
	}

	f := &t.frame
	userSP := f.StackPointer()
	nested := onAltStack(t, userSP)
	sp := userSP - sigRedZone
	entering := act.flags&saOnstack != 0 && altStackFlags(t, sp) == 0
	if entering {
		sp = t.altSP + t.altSize // switch to the alternate stack
	}
	fr := layoutSigframe(sp)
	overflow := (nested || entering) && !(fr.sp > t.altSP && fr.sp-t.altSP <= t.altSize)
	if overflow || !userRange(fr.sp, fr.end-fr.sp, true) {
		// No room for the frame (or it would overflow the alternate stack): Linux's
		// get_sigframe returns a bogus address and signal_setup_done forces SIGSEGV.
		forceSigsegv(t, sig)
		return
	}
	zeroUser(fr.sp, fr.end-fr.sp)

	// siginfo_t (asm-generic/siginfo.h): si_signo at 0, si_errno at 4, si_code at 8, then the
	// union: si_addr at 16 for faults, si_pid/si_uid at 16/20 for kill and tgkill, the timer's
	// fields for SI_TIMER (storeSigSource).
	code := src.code
	var addr uintptr
	trapno := uint64(0)
	fault := sig == t.faultSig
	if fault {
		code, addr, trapno = t.faultCode, t.faultAddr, t.faultTrap
	}
	store32(fr.info+0, uint32(sig))
	store32(fr.info+8, uint32(code))
	switch {
	case code == siTkill:
		store32(fr.info+16, uint32(processID)) // si_pid: the sender, this process
	case fault:
		store64(fr.info+16, uint64(addr))
	default:
		storeSigSource(fr.info, src)
	}

	// struct ucontext begins the same on every architecture: uc_flags, uc_link, then uc_stack
	// (stack_t: ss_sp, ss_flags, ss_size) describing the alternate stack as it was.
	store64(fr.uc+ucStack, uint64(t.altSP))
	store64(fr.uc+ucStack+8, altStackFlags(t, userSP)|uint64(t.altFlags&ssAutodisarm))
	store64(fr.uc+ucStack+16, uint64(t.altSize))
	if t.altFlags&ssAutodisarm != 0 {
		t.altSP, t.altSize, t.altFlags = 0, 0, ssDisable // __save_altstack: sas_ss_reset
	}
	saveSigcontext(&fr, t, trapno, addr)

	if cmd.klog {
		var k kbuf
		k.s("log signal ").d(int64(sig)).s(" tid=").d(int64(t.tid)).s(" pc=").x(uint64(f.PC())).s(" sp=").x(uint64(userSP)).
			s(" code=").d(int64(code)).s(" addr=").x(uint64(addr)).s(" frame=").x(uint64(fr.sp)).record()
	}
	if !enterHandler(&fr, t, act, sig) {
		forceSigsegv(t, sig) // a handler that cannot be entered or returned from (abi_<arch>.go)
		return
	}
	t.sigmask |= act.mask
	if act.flags&saNodefer == 0 {
		t.sigmask |= sigbit(sig)
	}
	t.sigmask &^= unblockable
	if act.flags&saResethand != 0 {
		*act = sigaction{}
	}
	if fault {
		t.faultSig, t.faultCode, t.faultAddr, t.faultTrap = 0, 0, 0, 0
	}
	stats.signals++
}

// forceSigsegv is Linux's force_sigsegv, for a signal sig that could not be delivered: SIGSEGV
// itself is then fatal; any other signal turns into a SIGSEGV (si_code SI_KERNEL), delivered to
// the program's handler if it has one and does not block it, else fatal (force_sig).
func forceSigsegv(t *Thread, sig int) {
	if sig == sigSEGV {
		fatalSignal(t, sigSEGV)
		return
	}
	postFault(t, sigSEGV, siKernel, 0)
}

// sysRtSigreturn restores the context deliverSignal saved. A frame that cannot be read or
// resumed gets SIGSEGV, as Linux's badframe path does (signal_fault → force_sig).
func sysRtSigreturn(t *Thread, cpu int) {
	b := &sigBufs[cpu]
	if !sigreturnFetch(b, sigreturnFrame(&t.frame), userReadable) || !restoreSigcontext(t, &t.frame, b) {
		postFault(t, sigSEGV, siKernel, 0)
	}
}

// sigBuf is a core's copy of what rt_sigreturn restores: the ucontext (on arm64 with the FP/SIMD
// record inside it), then, on amd64, the FP state uc_mcontext.fpstate points to (the abi_<arch>.go
// sigreturnFetch). rt_sigreturn copies it in first and decodes only the copy, so that the same
// code serves the BKL's path and the one without it (signal_unlocked.go), where the frame's pages
// may vanish under another core's munmap and only arch.CopyUser may touch them. Owned by the core;
// words, for alignment.
type sigBuf struct {
	uc [(ucontextSize + 7) / 8]uint64
	fp [(sigFetchFP + 7) / 8]uint64
}

var sigBufs [arch.MaxCPU]sigBuf

// ucAddr and fpAddr are the addresses of the buffer's parts, for the loads that decode them.
func (b *sigBuf) ucAddr() uintptr { return uintptr(unsafe.Pointer(&b.uc)) }
func (b *sigBuf) fpAddr() uintptr { return uintptr(unsafe.Pointer(&b.fp)) }

// userReadable is sigreturnFetch's check under the BKL: userRange faults the pages in, and
// nothing can unmap them before the copy.
func userReadable(p, n uintptr) bool { return userRange(p, n, false) }

// fetchUser copies n bytes of user memory at p into the kernel at dst, if readable says the
// program may read them, through arch.CopyUser: false if not, or if the copy faulted.
func fetchUser(dst, p, n uintptr, readable func(p, n uintptr) bool) bool {
	return readable(p, n) && arch.CopyUser(dst, p, n)
}

// fatalSignal is the default action "terminate (core)": the whole process ends, after a kernel
// log line naming the signal. The program's end stops the machine with status 128+sig, the way
// a shell reports a signal death; a child's parent sees WIFSIGNALED (proc.go).
func fatalSignal(t *Thread, sig int) {
	var k kbuf
	k.s("log thread ").d(int64(t.tid)).s(" killed by signal ").d(int64(sig)).s(" at pc=").x(uint64(t.frame.PC()))
	if t.faultAddr != 0 {
		k.s(" addr=").x(uint64(t.faultAddr))
	}
	k.record()
	procExit(int(t.proc), waitStatusSignal(sig), arch.Current().ID())
}
