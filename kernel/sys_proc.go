package kernel

import (
	"gmpos/drivers/uart"
	"gmpos/kernel/arch/amd64"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// Clone flags (include/uapi/linux/sched.h). The Go runtime always passes cloneThread|[cloneSettls]
// (runtime-contract §3.4); gmpos has one address space, so only thread-creating clones exist.
const (
	cloneVM            = 0x100
	cloneFS            = 0x200
	cloneFiles         = 0x400
	cloneSighand       = 0x800
	cloneThread        = 0x10000
	cloneSysvsem       = 0x40000
	cloneSettls        = 0x80000
	cloneParentSettid  = 0x100000
	cloneChildCleartid = 0x200000
	cloneChildSettid   = 0x1000000

	cloneRequired = cloneVM | cloneSighand | cloneThread
	cloneAllowed  = cloneRequired | cloneFS | cloneFiles | cloneSysvsem | cloneSettls | 0xff /* exit signal */
)

// sysCloneCall creates a thread sharing everything with its parent; the child resumes at the same
// instruction with RAX = 0 on the given stack (runtime-contract §3.4: the Go runtime relies on all
// other registers being inherited).
func sysCloneCall(t *Thread, cpu int, flags uint64, stack, ptid, ctid, tls uintptr) int64 {
	if flags&cloneRequired != cloneRequired || flags&^cloneAllowed != 0 {
		return -EINVAL
	}
	if flags&cloneSettls != 0 && !userCanonical(tls) {
		return -EINVAL
	}
	child, cgp := newThread(cpu)
	if child == nil {
		return -EAGAIN
	}
	child.frame = t.frame
	child.frame.AX = 0
	if stack != 0 {
		child.frame.SP = uint64(stack)
	}
	child.fsbase = t.fsbase
	if flags&cloneSettls != 0 {
		child.fsbase = tls
	}
	child.copyFP(t)
	child.sigmask = t.sigmask // signals stay blocked in the child until its minit unblocks them
	startThread(cgp, cpu)
	stats.threads++
	return int64(child.tid)
}

// userCanonical reports whether va is a user-half address.
func userCanonical(va uintptr) bool { return va < mm.UserEnd }

// threadExit ends the calling thread (exit(2)). Nothing of the user stack is touched: the runtime
// may already be reusing it (runtime-contract §0 risk 9).
func threadExit(t *Thread, gp sched.GID, cpu int) {
	t.state = threadDead
	S.Exit(cpu)
	*t = Thread{}
	if S.Live() == 0 {
		exitProcess(0)
	}
}

// exitProcess ends the whole program: exit_group(2), or a fatal signal. It reports the status on
// the control channel and stops QEMU through the isa-debug-exit device (docs/contract.md).
func exitProcess(code int) {
	var k kbuf
	if cmd.klog {
		k.s("log stats syscalls=").d(int64(stats.syscalls)).s(" signals=").d(int64(stats.signals)).
			s(" preemptions=").d(int64(stats.preemptions)).s(" threads=").d(int64(stats.threads)).s(" timer-arms=").d(int64(stats.timerArms)).record()
	}
	k.s("exit ").d(int64(code)).record()
	debugExit(uint8(code & 0x7f))
}

// debugExit writes v to QEMU's isa-debug-exit port (iobase 0xf4): QEMU exits with status
// (v<<1)|1. On a machine without the device the write is ignored, so halt forever after it.
func debugExit(v uint8) {
	// Let the UARTs finish sending (LSR bit 6, TEMT: transmitter and holding register empty;
	// PC16550D datasheet §8.4) so that QEMU has every byte before it exits.
	for _, base := range [...]uint16{0x3f8, 0x2f8, 0x3e8} {
		for i := 0; i < 100000 && amd64.Inb(base+5)&0x40 == 0; i++ {
		}
	}
	amd64.Outb(0xf4, v)
	for {
		amd64.Halt()
	}
}

// sysTgkillCall sends sig to thread tid of process tgid.
func sysTgkillCall(cpu int, tgid, tid, sig int) int64 {
	if sig < 0 || sig > nSig {
		return -EINVAL
	}
	if tgid != int(processID) || tid <= 0 || tid >= MaxThreads {
		return -ESRCH
	}
	t := &threads[tid]
	if t.state == threadFree || t.state == threadDead {
		return -ESRCH
	}
	if sig == 0 {
		return 0
	}
	postSignal(t, sched.GID(tid), sig, cpu)
	return 0
}

// sysKillCall: kill(getpid(), sig) targets the process; Linux picks a thread that does not block
// the signal, gmpos picks the first such thread.
func sysKillCall(cpu int, pid, sig int) int64 {
	if pid != int(processID) && pid != 0 && pid != -1 {
		return -ESRCH
	}
	if sig < 0 || sig > nSig {
		return -EINVAL
	}
	if sig == 0 {
		return 0
	}
	for i := 1; i < MaxThreads; i++ {
		t := &threads[i]
		if (t.state == threadRunning || t.state == threadRunnable || t.state == threadBlocked) && t.sigmask&sigbit(sig) == 0 {
			postSignal(t, sched.GID(i), sig, cpu)
			return 0
		}
	}
	threads[processID].sigpending |= sigbit(sig)
	return 0
}

// sysSchedGetaffinityCall reports the cores as the CPU set (runtime-contract §3.2: NumCPU is the
// popcount). Linux returns the size of its cpumask, 8 bytes here.
func sysSchedGetaffinityCall(size, mask uintptr) int64 {
	if size < 8 {
		return -EINVAL
	}
	if !mm.Space.UserRange(mask, 8, true) {
		return -EFAULT
	}
	store64(mask, uint64(1)<<uint(ncpu)-1)
	return 8
}

// ncpu is the number of cores in use.
var ncpu = 1

const (
	archSetGS = 0x1001
	archSetFS = 0x1002
	archGetFS = 0x1003
	archGetGS = 0x1004
)

// sysArchPrctlCall: ARCH_SET_FS is how the runtime installs its TLS (runtime-contract §2.1). GS
// belongs to the kernel, so ARCH_SET_GS is refused.
func sysArchPrctlCall(t *Thread, code int, addr uintptr) int64 {
	switch code {
	case archSetFS:
		if !userCanonical(addr) {
			return -EPERM
		}
		t.fsbase = addr
		return 0
	case archGetFS:
		if !mm.Space.UserRange(addr, 8, true) {
			return -EFAULT
		}
		store64(addr, uint64(t.fsbase))
		return 0
	case archGetGS:
		if !mm.Space.UserRange(addr, 8, true) {
			return -EFAULT
		}
		store64(addr, 0)
		return 0
	case archSetGS:
		return -EPERM
	}
	return -EINVAL
}

// sysPrctlCall: PR_SET_VMA (naming anonymous mappings, Go 1.25+) gets EINVAL, as from a kernel built
// without CONFIG_ANON_VMA_NAME, which stops the runtime from retrying (runtime-contract §3.2).
func sysPrctlCall(option int) int64 {
	const prSetName, prGetName = 15, 16
	switch option {
	case prSetName, prGetName:
		return 0
	}
	return -EINVAL
}

// sysPrlimitCall reports resource limits: RLIMIT_NOFILE is the fd table, RLIMIT_STACK the initial
// stack; everything else is unlimited. Raising beyond the hard limit is EPERM; other sets are
// accepted and ignored (gmpos enforces the limits structurally).
func sysPrlimitCall(pid, resource int, newp, oldp uintptr) int64 {
	const rlimitStack, rlimitNofile, rlimInfinity = 3, 7, ^uint64(0)
	if pid != 0 && pid != int(processID) {
		return -ESRCH
	}
	if resource < 0 || resource >= 16 {
		return -EINVAL
	}
	cur, max := rlimInfinity, rlimInfinity
	switch resource {
	case rlimitNofile:
		cur, max = maxFDs, maxFDs
	case rlimitStack:
		cur, max = userStackSize, userStackSize
	}
	if newp != 0 {
		if !mm.Space.UserRange(newp, 16, false) {
			return -EFAULT
		}
		if c, m := load64(newp), load64(newp+8); c > m || m > max {
			if c > m {
				return -EINVAL
			}
			return -EPERM
		}
	}
	if oldp != 0 {
		if !mm.Space.UserRange(oldp, 16, true) {
			return -EFAULT
		}
		store64(oldp, cur)
		store64(oldp+8, max)
	}
	return 0
}

// sysUnameCall fills struct utsname (six 65-byte fields). gmpos speaks the Linux system call ABI,
// so sysname is "Linux" (as gVisor reports); release and version name gmpos.
func sysUnameCall(buf uintptr) int64 {
	if !mm.Space.UserRange(buf, 6*65, true) {
		return -EFAULT
	}
	fields := [6]string{"Linux", "gmpos", "6.1.0-gmpos", "#1 gmpos", "x86_64", "(none)"}
	for i, s := range fields {
		p := buf + uintptr(65*i)
		for j := 0; j < 65; j++ {
			var c byte
			if j < len(s) {
				c = s[j]
			}
			*(*byte)(ptr(p + uintptr(j))) = c
		}
	}
	return 0
}

// sysGetrandomCall fills buf from RDSEED/RDRAND (getrandom(2); flags GRND_NONBLOCK, GRND_RANDOM,
// GRND_INSECURE are all satisfied the same way: the hardware source never blocks).
func sysGetrandomCall(buf, n uintptr, flags uint32) int64 {
	if flags&^7 != 0 {
		return -EINVAL
	}
	if n > 33554431 {
		n = 33554431 // Linux caps one call at INT_MAX >> 6 bytes… at most 32 MiB
	}
	if !mm.Space.UserRange(buf, n, true) {
		return -EFAULT
	}
	for i := uintptr(0); i < n; i += 8 {
		v := entropy()
		for j := uintptr(0); j < 8 && i+j < n; j++ {
			*(*byte)(ptr(buf + i + j)) = byte(v >> (8 * j))
		}
	}
	return int64(n)
}

// gmpos_info requests.
const (
	infoBootTimes = 1 // buf ← [kernel entry ns, user entry ns] on the CLOCK_MONOTONIC scale
	infoSchedStat = 2 // buf ← scheduler counters (sched.Stat order), n entries
	infoFault     = 3 // deliberately fault in kernel mode (tests of the fault report)
	infoPolicy    = 4 // buf ← policy name (NUL-terminated), n bytes
	infoCPUs      = 5 // buf ← per-core count of thread dispatches, n entries; returns the core count
)

func sysGmposInfoCall(req int, buf, n uintptr) int64 {
	switch req {
	case infoBootTimes:
		if !mm.Space.UserRange(buf, 16, true) {
			return -EFAULT
		}
		store64(buf, uint64(bootTimes.kernelEntry))
		store64(buf+8, uint64(bootTimes.userEntry))
		return 0
	case infoSchedStat:
		if !mm.Space.UserRange(buf, n*8, true) {
			return -EFAULT
		}
		for i := uintptr(0); i < n && i < uintptr(sched.NumStats); i++ {
			store64(buf+8*i, S.Total(sched.Stat(i)))
		}
		return 0
	case infoFault:
		if buf == 2 {
			kernelRecurse(0)
		}
		deliberateFault()
		return 0
	case infoCPUs:
		if !mm.Space.UserRange(buf, n*8, true) {
			return -EFAULT
		}
		for i := uintptr(0); i < n && int(i) < ncpu; i++ {
			store64(buf+8*i, cpuDispatches[i])
		}
		return int64(ncpu)
	case infoPolicy:
		name := S.Policy().Name()
		if n == 0 || !mm.Space.UserRange(buf, n, true) {
			return -EFAULT
		}
		i := uintptr(0)
		for ; i < n-1 && int(i) < len(name); i++ {
			*(*byte)(ptr(buf + i)) = name[i]
		}
		*(*byte)(ptr(buf + i)) = 0
		return int64(i)
	}
	return -EINVAL
}

var _ = uart.Stdout
