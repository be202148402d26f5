package kernel

import "gmpos/kernel/mm"

// sysRtSigactionCall reads or installs a process-wide signal disposition (struct sigaction as the
// x86-64 kernel ABI defines it: handler, flags, restorer, mask; sigsetsize must be 8).
func sysRtSigactionCall(sig int, act, oact, size uintptr) int64 {
	if size != 8 {
		return -EINVAL
	}
	if sig < 1 || sig > nSig {
		return -EINVAL
	}
	if act != 0 && (sig == sigKILL || sig == sigSTOP) {
		return -EINVAL
	}
	if oact != 0 {
		if !mm.Space.UserRange(oact, 32, true) {
			return -EFAULT
		}
		a := &sigactions[sig]
		store64(oact, a.handler)
		store64(oact+8, a.flags)
		store64(oact+16, a.restorer)
		store64(oact+24, a.mask)
	}
	if act != 0 {
		if !mm.Space.UserRange(act, 32, false) {
			return -EFAULT
		}
		a := sigaction{load64(act), load64(act + 8), load64(act + 16), load64(act+24) &^ unblockable}
		// x86-64 has no signal trampoline of its own (no vDSO here): a handler without
		// SA_RESTORER could never return, so refuse it like a kernel that requires one.
		if a.handler > sigIGN && a.flags&saRestorer == 0 {
			return -EINVAL
		}
		sigactions[sig] = a
	}
	return 0
}

// sysRtSigprocmaskCall changes the calling thread's blocked set.
func sysRtSigprocmaskCall(t *Thread, how int, set, oset, size uintptr) int64 {
	const sigBlock, sigUnblock, sigSetmask = 0, 1, 2
	if size != 8 {
		return -EINVAL
	}
	var nset uint64
	if set != 0 {
		if how < sigBlock || how > sigSetmask {
			return -EINVAL
		}
		if !mm.Space.UserRange(set, 8, false) {
			return -EFAULT
		}
		nset = load64(set)
	}
	if oset != 0 {
		if !mm.Space.UserRange(oset, 8, true) {
			return -EFAULT
		}
		store64(oset, t.sigmask)
	}
	if set != 0 {
		switch how {
		case sigBlock:
			t.sigmask |= nset
		case sigUnblock:
			t.sigmask &^= nset
		case sigSetmask:
			t.sigmask = nset
		}
		t.sigmask &^= unblockable
	}
	return 0
}

// sysSigaltstackCall queries and sets the alternate signal stack (stack_t: ss_sp, ss_flags,
// ss_size). Changing it while running on it is EPERM; below MINSIGSTKSZ (2048) is ENOMEM.
func sysSigaltstackCall(t *Thread, ss, oss uintptr) int64 {
	sp := uintptr(t.frame.SP)
	onAlt := t.altSize != 0 && t.altFlags&ssDisable == 0 && sp > t.altSP && sp <= t.altSP+t.altSize
	if oss != 0 {
		if !mm.Space.UserRange(oss, 24, true) {
			return -EFAULT
		}
		flags := uint64(0)
		switch {
		case t.altSize == 0 || t.altFlags&ssDisable != 0:
			flags = ssDisable
		case onAlt:
			flags = ssOnstack
		}
		store64(oss, uint64(t.altSP))
		store64(oss+8, flags)
		store64(oss+16, uint64(t.altSize))
	}
	if ss != 0 {
		if !mm.Space.UserRange(ss, 24, false) {
			return -EFAULT
		}
		if onAlt {
			return -EPERM
		}
		nsp, flags, size := uintptr(load64(ss)), int32(load64(ss+8)), uintptr(load64(ss+16))
		switch {
		case flags == ssDisable:
			t.altSP, t.altSize, t.altFlags = 0, 0, ssDisable
		case flags == 0 || flags == ssOnstack:
			if size < 2048 {
				return -ENOMEM
			}
			t.altSP, t.altSize, t.altFlags = nsp, size, 0
		default:
			return -EINVAL
		}
	}
	return 0
}
