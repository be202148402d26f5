// System calls of signal handling: rt_sigaction, rt_sigprocmask, sigaltstack, rt_sigreturn.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// sigsetSize is the only sigset size the kernel ABI accepts (sizeof(sigset_t) in the kernel: 64
// signals).
const sigsetSize = 8

// sysRtSigaction reads or installs a process-wide signal disposition, in Linux's order
// (kernel/signal.c rt_sigaction, do_sigaction): sigsetsize, reading the new action, the signal
// number, then writing the old action — after the new one is installed.
func sysRtSigaction(sig int32, act, oact, size uintptr) int64 {
	if size != sigsetSize {
		return -EINVAL
	}
	var a sigaction
	if act != 0 {
		if !userRange(act, 32, false) {
			return -EFAULT
		}
		a = sigaction{load64(act), load64(act + 8), load64(act + 16), load64(act+24) &^ unblockable}
	}
	if sig < 1 || sig > nSig || (act != 0 && (sig == sigKILL || sig == sigSTOP)) {
		return -EINVAL
	}
	old := cur().sigactions[sig]
	if act != 0 {
		setSigaction(cur(), sig, a)
		if ignoredAction(old.handler, int(sig)) && !ignoredAction(a.handler, int(sig)) {
			timersUnignore(int(sig), currentCPU()) // parked timers send their signal (ptimer.go)
		}
	}
	if oact != 0 {
		if !userRange(oact, 32, true) {
			return -EFAULT
		}
		store64(oact, old.handler)
		store64(oact+8, old.flags)
		store64(oact+16, old.restorer)
		store64(oact+24, old.mask)
	}
	return 0
}

// sysRtSigprocmask changes the calling thread's blocked set (kernel/signal.c rt_sigprocmask):
// the new set is applied before the old one is written back, as in Linux.
func sysRtSigprocmask(t *Thread, how int32, set, oset, size uintptr) int64 {
	const sigBlock, sigUnblock, sigSetmask = 0, 1, 2
	if size != sigsetSize {
		return -EINVAL
	}
	old := t.sigmask
	if set != 0 {
		if !userRange(set, 8, false) {
			return -EFAULT
		}
		nset := load64(set) &^ unblockable
		switch how {
		case sigBlock:
			t.sigmask |= nset
		case sigUnblock:
			t.sigmask &^= nset
		case sigSetmask:
			t.sigmask = nset
		default:
			return -EINVAL
		}
	}
	if oset != 0 {
		if !userRange(oset, 8, true) {
			return -EFAULT
		}
		store64(oset, old)
	}
	return 0
}

// sysSigaltstack queries and sets the alternate signal stack (kernel/signal.c sigaltstack,
// do_sigaltstack; stack_t: ss_sp, ss_flags, ss_size), in Linux's order: read the new stack,
// check it (EPERM while running on the current one, EINVAL for unknown flags, ENOMEM below
// MINSIGSTKSZ), then write the old one back if all went well.
func sysSigaltstack(t *Thread, ss, oss uintptr) int64 {
	sp := t.frame.StackPointer()
	var nsp, size uintptr
	var flags uint32
	if ss != 0 {
		if !userRange(ss, 24, false) {
			return -EFAULT
		}
		nsp, flags, size = uintptr(load64(ss)), uint32(load64(ss+8)), uintptr(load64(ss+16))
	}
	oldSP, oldSize, oldFlags := t.altSP, t.altSize, altStackFlags(t, sp)|uint64(t.altFlags&ssAutodisarm)
	if ss != 0 {
		if onAltStack(t, sp) {
			return -EPERM
		}
		switch mode := flags &^ ssAutodisarm; {
		case mode == ssDisable:
			t.altSP, t.altSize, t.altFlags = 0, 0, flags
		case mode == 0 || mode == ssOnstack:
			if size < minSigStackSize {
				return -ENOMEM
			}
			t.altSP, t.altSize, t.altFlags = nsp, size, flags
		default:
			return -EINVAL
		}
	}
	if oss != 0 {
		if !userRange(oss, 24, true) {
			return -EFAULT
		}
		store64(oss, uint64(oldSP))
		store64(oss+8, oldFlags)
		store64(oss+16, uint64(oldSize))
	}
	return 0
}
