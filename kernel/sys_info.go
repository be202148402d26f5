package kernel

import (
	"gmpos/kernel/mm"
)

// What the process asks about itself and its limits: CPU set, TLS base, names, rlimits,
// uname, and the random bytes it seeds itself with.

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
