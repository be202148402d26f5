// Signals: posting them, and delivering them on the way back to user mode.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"
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

// setSigaction changes p's disposition of sig, under a sequence count: a delivery without the
// BKL (signal_unlocked.go) reads the four words of a disposition while a BKL holder may be
// changing them, and must not take half of each (Linux: sighand->siglock). BKL held.
func setSigaction(p *process, sig int32, a sigaction) {
	p.sigactSeq.Add(1) // odd: a change is under way
	arch.Fence()       // ... before the stores (arm64: a release does not order later stores)
	p.sigactions[sig] = a
	arch.Fence() // the stores before the count is even again
	p.sigactSeq.Add(1)
}

// loadSigaction reads p's disposition of sig without the BKL: a copy taken between two equal,
// even values of the sequence count, retried otherwise. With the BKL, read p.sigactions
// directly.
func loadSigaction(p *process, sig int) sigaction {
	for {
		s := p.sigactSeq.Load()
		a := p.sigactions[sig]
		arch.Fence() // the copy before the second look (arm64: an acquire does not order earlier loads)
		if s&1 == 0 && p.sigactSeq.Load() == s {
			return a
		}
		arch.Pause()
	}
}

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
// BKL held.
func deliverSignal(t *Thread, gp sched.GID, cpu int) {
	sig := nextSignal(t)
	t.sigpending.And(^sigbit(sig))
	src := takeSigSource(t, gp, sig) // a timer's or the kernel's siginfo, or kill's (sigsource.go)
	act := procOf(t).sigactions[sig]
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
	info := sigInfo{code: src.code, src: src}
	fault := sig == t.faultSig
	if fault {
		info.code, info.addr, info.trapno = t.faultCode, t.faultAddr, t.faultTrap
	}
	pc, userSP := t.frame.PC(), t.frame.StackPointer()
	fr, ok := setupSigframe(t, &t.frame, cpu, &act, sig, &info, userWritable)
	if !ok {
		// No room for the frame (or it would overflow the alternate stack): Linux's
		// get_sigframe returns a bogus address and signal_setup_done forces SIGSEGV. So does a
		// handler that cannot be entered or returned from (abi_<arch>.go).
		forceSigsegv(t, sig)
		return
	}
	if cmd.klog {
		var k kbuf
		k.s("log signal ").d(int64(sig)).s(" tid=").d(int64(t.tid)).s(" pc=").x(uint64(pc)).s(" sp=").x(uint64(userSP)).
			s(" code=").d(int64(info.code)).s(" addr=").x(uint64(info.addr)).s(" frame=").x(uint64(fr.sp)).record()
	}
	if act.flags&saResethand != 0 {
		setSigaction(procOf(t), int32(sig), sigaction{})
	}
	if fault {
		t.faultSig, t.faultCode, t.faultAddr, t.faultTrap = 0, 0, 0, 0
	}
	sigDelivered(t, &act, sig)
}

// nextSignal is the signal deliverSignal takes next: t's fault signal if it is deliverable,
// else the lowest-numbered deliverable one. t has one (deliverable).
func nextSignal(t *Thread) int {
	ready := t.sigpending.Load() &^ t.sigmask
	if t.faultSig != 0 && ready&sigbit(t.faultSig) != 0 {
		return t.faultSig
	}
	sig := 1
	for ready&1 == 0 {
		ready >>= 1
		sig++
	}
	return sig
}

// sigInfo is what a delivery's siginfo_t says: si_code, and for a fault the address and the
// architecture's trap number (sigcontext's trapno), else the sender's details (src).
type sigInfo struct {
	code   int32
	addr   uintptr
	trapno uint64
	src    sigSource
}

// sigWriter writes a signal frame into a core's buffer (sigOut) instead of the user stack: each
// store names the frame's user address and lands delta bytes away, in the buffer, while the
// values that are addresses (the handler's arguments, uc_mcontext.fpstate) stay user addresses.
// setupSigframe then copies the buffer out with arch.CopyUser — one copy that may fault, which
// is what the path without the BKL needs (another core's munmap may take the stack away).
type sigWriter struct{ delta uintptr }

func (w sigWriter) put64(a uintptr, v uint64)  { store64(a+w.delta, v) }
func (w sigWriter) put32(a uintptr, v uint32)  { store32(a+w.delta, v) }
func (w sigWriter) copyIn(a, src, n uintptr)   { copyWords(a+w.delta, src, n) }
func (w sigWriter) get32(a uintptr) (v uint32) { return load32(a + w.delta) }

// sigOut is each core's buffer for the signal frame it builds (sigFrameMax bytes: abi_<arch>.go).
// Owned by the core; words, for alignment.
var sigOut [arch.MaxCPU][sigFrameMax / 8]uint64

// userWritable is setupSigframe's check under the BKL: userRange faults the pages in, and nothing
// can unmap them before the copy.
func userWritable(p, n uintptr) bool { return userRange(p, n, true) }

// setupSigframe builds the frame of a delivery of sig to t, whose registers are f (its saved
// frame under the BKL, the trap's frame without it), with act the disposition: it places the
// frame on the stack or the alternate stack as Linux's get_sigframe does, fills it in core cpu's
// buffer — siginfo, the ucontext with the interrupted context and the mask to restore, the FP
// state — copies it out once writable says the program may write there, and points f at the
// handler. false, with nothing changed in t or f, if there is no room for the frame, the
// handler cannot be entered or returned from, or the frame could not be written.
func setupSigframe(t *Thread, f *arch.Frame, cpu int, act *sigaction, sig int, info *sigInfo, writable func(p, n uintptr) bool) (sigframe, bool) {
	userSP := f.StackPointer()
	nested := onAltStack(t, userSP)
	sp := userSP - sigRedZone
	entering := act.flags&saOnstack != 0 && altStackFlags(t, sp) == 0
	if entering {
		sp = t.altSP + t.altSize // switch to the alternate stack
	}
	fr := layoutSigframe(sp)
	size := fr.end - fr.sp
	overflow := (nested || entering) && !(fr.sp > t.altSP && fr.sp-t.altSP <= t.altSize)
	if overflow || fr.sp > fr.end || size > sigFrameMax || !writable(fr.sp, size) {
		return fr, false
	}
	ret, ok := handlerReturn(t, act)
	if !ok {
		return fr, false
	}
	buf := uintptr(unsafe.Pointer(&sigOut[cpu]))
	for i := uintptr(0); i < size; i += 8 { // whole words: sigFrameMax has room for the last one
		store64(buf+i, 0)
	}
	w := sigWriter{delta: buf - fr.sp}

	// siginfo_t (asm-generic/siginfo.h): si_signo at 0, si_errno at 4, si_code at 8, then the
	// union: si_addr at 16 for faults, si_pid/si_uid at 16/20 for kill and tgkill, the timer's
	// fields for SI_TIMER (storeSigSource).
	w.put32(fr.info+0, uint32(sig))
	w.put32(fr.info+8, uint32(info.code))
	switch {
	case info.code == siTkill:
		w.put32(fr.info+16, uint32(processID)) // si_pid: the sender, this process
	case sig == t.faultSig:
		w.put64(fr.info+16, uint64(info.addr))
	default:
		storeSigSource(w, fr.info, info.src)
	}

	// struct ucontext begins the same on every architecture: uc_flags, uc_link, then uc_stack
	// (stack_t: ss_sp, ss_flags, ss_size) describing the alternate stack as it was.
	w.put64(fr.uc+ucStack, uint64(t.altSP))
	w.put64(fr.uc+ucStack+8, altStackFlags(t, userSP)|uint64(t.altFlags&ssAutodisarm))
	w.put64(fr.uc+ucStack+16, uint64(t.altSize))
	// The mask rt_sigreturn restores: the saved one while a temporary mask is in force (it ends
	// with this delivery), as Linux's sigmask_to_save.
	mask := t.sigmask
	if t.restoreSigmask {
		mask = t.savedSigmask
	}
	// An epoll_wait woken to run again (epoll.go) does not run after the handler: it ends with
	// EINTR, as Linux's does when a signal comes before it returns; the events stay ready for
	// the next call. The context saved is the ended call's — unless the signal is a fault's,
	// whose context must name the instruction that faulted.
	var undo arch.Frame
	ended := t.epollAgain && sig != t.faultSig
	if ended {
		undo = *f
		r := int64(-EINTR)
		f.EndRestarted(uint64(r))
	}
	saveSigcontext(w, &fr, f, t, mask, info.trapno, info.addr)
	putReturn(w, &fr, ret)
	if !copyUserChecked(fr.sp, buf, size, fr.sp, writable) {
		if ended {
			*f = undo
		}
		return fr, false
	}

	// The frame is in place: the delivery happens.
	t.restoreSigmask = false
	t.epollAgain = false
	if t.altFlags&ssAutodisarm != 0 {
		t.altSP, t.altSize, t.altFlags = 0, 0, ssDisable // __save_altstack: sas_ss_reset
	}
	enterHandler(&fr, f, act, sig, ret)
	return fr, true
}

// sigDelivered is what follows a delivery of sig with disposition act: the handler runs with
// its mask added, and sig itself unless SA_NODEFER. With or without the BKL.
func sigDelivered(t *Thread, act *sigaction, sig int) {
	t.sigmask |= act.mask
	if act.flags&saNodefer == 0 {
		t.sigmask |= sigbit(sig)
	}
	t.sigmask &^= unblockable
	atomic.AddUint64(&stats.signals, 1)
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
	return readable(p, n) && copyUserChecked(dst, p, n, p, readable)
}

// copyUserChecked is arch.CopyUser(dst, src, n) where user (dst or src) is the user range whose
// check has just passed: if the copy faults, the range is checked again and the copy retried, a few
// times. Under the BKL the check (userRange) faults the pages in, and an madvise without the
// BKL may drop one between the check and the copy (mm_unlocked.go), which Linux's copy would
// fault in again; a range that is really gone fails its check. Without the BKL the check only
// reads the page table (PeekUserRange), and a dropped page fails it: the caller's fallback.
func copyUserChecked(dst, src, n, user uintptr, check func(p, n uintptr) bool) bool {
	for try := 0; try < 3; try++ {
		if arch.CopyUser(dst, src, n) {
			return true
		}
		if !check(user, n) {
			return false
		}
	}
	return false
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
