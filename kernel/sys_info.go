// What the process asks about itself and its limits: IDs, CPU set, names, resource limits,
// uname, and random bytes.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"math"
	"sync/atomic"

	"gmpos/kernel/mm"
)

// processID is getpid(): the main thread's tid, as on Linux. Immutable after boot.
var processID int32

// sysSchedGetaffinity reports the cores as the CPU set (docs/runtime-contract.md §3.2: NumCPU is
// the popcount), in Linux's order (kernel/sched/syscalls.c): the size must hold every CPU and be a
// multiple of 8, the thread must exist (0: the caller), then the mask is copied. Returns the
// bytes written: gmpos's cpumask is one 64-bit word.
func sysSchedGetaffinity(pid int32, size, mask uintptr) int64 {
	if size*8 < uintptr(ncpu) || size&7 != 0 {
		return -EINVAL
	}
	if pid != 0 {
		if t, _ := threadByTid(pid); t == nil {
			return -ESRCH
		}
	}
	if !userRange(mask, 8, true) {
		return -EFAULT
	}
	store64(mask, uint64(1)<<uint(ncpu)-1)
	return 8
}

// prctl options (include/uapi/linux/prctl.h) that gmpos answers.
const (
	prSetPdeathsig      = 1
	prGetPdeathsig      = 2
	prGetDumpable       = 3
	prSetDumpable       = 4
	prGetKeepcaps       = 7
	prSetKeepcaps       = 8
	prSetName           = 15
	prGetName           = 16
	prGetTiming         = 13
	prGetSeccomp        = 21
	prGetTSC            = 25
	prMCEKillGet        = 34
	prGetTimerslack     = 30
	prSetTimerslack     = 29
	prGetChildSubreaper = 37
	prSetNoNewPrivs     = 38
	prGetNoNewPrivs     = 39
	prGetTHPDisable     = 42
	prSetVMA            = 0x53564d41
	defaultTimerslackNS = 50_000
	threadNameSize      = 16 // TASK_COMM_LEN
)

// prctlState is the process's prctl settings. BKL.
var prctlState struct {
	dumpable   uint64
	keepcaps   uint64
	pdeathsig  uint64
	noNewPrivs uint64
	timerslack uint64
	names      [MaxThreads][threadNameSize]byte // per-thread comm, PR_SET_NAME
	nameSet    [MaxThreads]bool
}

// sysPrctl answers the process-control options a Go program or its libraries use
// (kernel/sys.c prctl). PR_SET_VMA (naming anonymous mappings, Go 1.25+) gets EINVAL, as from a
// kernel built without CONFIG_ANON_VMA_NAME, which stops the runtime from retrying
// (docs/runtime-contract.md §3.2). Unknown options are EINVAL, as in Linux.
func sysPrctl(t *Thread, option int32, a2, a3, a4, a5 uint64) int64 {
	switch option {
	case prSetName:
		var name [threadNameSize]byte
		for i := 0; i < threadNameSize-1; i++ {
			if !userRange(uintptr(a2)+uintptr(i), 1, false) {
				return -EFAULT
			}
			c := *(*byte)(ptr(uintptr(a2) + uintptr(i)))
			if c == 0 {
				break
			}
			name[i] = c
		}
		t.name, t.named = name, true
		return 0
	case prGetName:
		if !userRange(uintptr(a2), threadNameSize, true) {
			return -EFAULT
		}
		name := t.name
		if !t.named { // Linux: the executable's base name, until PR_SET_NAME
			copy(name[:threadNameSize-1], cmd.argv0Base())
		}
		copyOut(uintptr(a2), name[:])
		return 0
	case prGetDumpable:
		return int64(dumpableOr1())
	case prSetDumpable:
		if a2 > 1 {
			return -EINVAL
		}
		prctlState.dumpable = a2 | 2 // 2: "explicitly set" (0 would read back as the default 1)
		return 0
	case prGetKeepcaps:
		return int64(prctlState.keepcaps)
	case prSetKeepcaps:
		if a2 > 1 {
			return -EINVAL
		}
		prctlState.keepcaps = a2
		return 0
	case prSetPdeathsig:
		if a2 > nSig {
			return -EINVAL
		}
		prctlState.pdeathsig = a2
		return 0
	case prGetPdeathsig:
		if !userRange(uintptr(a2), 4, true) {
			return -EFAULT
		}
		store32(uintptr(a2), uint32(prctlState.pdeathsig))
		return 0
	case prGetSeccomp, prGetTiming:
		return 0 // no seccomp filter; PR_TIMING_STATISTICAL
	case prGetTHPDisable, prMCEKillGet:
		if a2 != 0 || a3 != 0 || a4 != 0 || a5 != 0 {
			return -EINVAL
		}
		if option == prMCEKillGet {
			return 2 // PR_MCE_KILL_DEFAULT
		}
		return 0
	case prGetTSC:
		if !userRange(uintptr(a2), 4, true) {
			return -EFAULT
		}
		store32(uintptr(a2), 1) // PR_TSC_ENABLE: RDTSC works in user mode
		return 0
	case prGetTimerslack:
		if prctlState.timerslack == 0 {
			return defaultTimerslackNS
		}
		return int64(prctlState.timerslack)
	case prSetTimerslack:
		atomic.StoreUint64(&prctlState.timerslack, a2) // 0: the default (Linux: the thread's default_timer_slack_ns)
		return 0
	case prGetChildSubreaper:
		if !userRange(uintptr(a2), 4, true) {
			return -EFAULT
		}
		store32(uintptr(a2), 0)
		return 0
	case prSetNoNewPrivs:
		if a2 != 1 || a3 != 0 || a4 != 0 || a5 != 0 {
			return -EINVAL
		}
		prctlState.noNewPrivs = 1
		return 0
	case prGetNoNewPrivs:
		if a2 != 0 || a3 != 0 || a4 != 0 || a5 != 0 {
			return -EINVAL
		}
		return int64(prctlState.noNewPrivs)
	}
	return -EINVAL
}

func dumpableOr1() uint64 {
	if prctlState.dumpable == 0 {
		return 1
	}
	return prctlState.dumpable & 1
}

// Resource limits (include/uapi/asm-generic/resource.h). gmpos keeps the values a program sets
// and reads them back, as root's would be (raising a hard limit is allowed: the program runs with
// every capability); RLIMIT_NOFILE is also enforced, capped by the fd table's size (maxFDs).
const (
	rlimitStack  = 3
	rlimitNofile = 7
	rlimNlimits  = 16
	rlimInfinity = ^uint64(0)
	nrOpenMax    = 1 << 20 // fs.nr_open: the highest RLIMIT_NOFILE Linux accepts (EPERM above)
)

// rlimits[r] = {soft, hard}. BKL.
var rlimits = [rlimNlimits][2]uint64{
	0:            {rlimInfinity, rlimInfinity}, // CPU
	1:            {rlimInfinity, rlimInfinity}, // FSIZE
	2:            {rlimInfinity, rlimInfinity}, // DATA
	rlimitStack:  {userStackSize, rlimInfinity},
	4:            {0, rlimInfinity},            // CORE
	5:            {rlimInfinity, rlimInfinity}, // RSS
	6:            {rlimInfinity, rlimInfinity}, // NPROC
	rlimitNofile: {maxFDs, maxFDs},
	8:            {8 << 20, 8 << 20},           // MEMLOCK
	9:            {rlimInfinity, rlimInfinity}, // AS
	10:           {rlimInfinity, rlimInfinity}, // LOCKS
	11:           {rlimInfinity, rlimInfinity}, // SIGPENDING
	12:           {819200, 819200},             // MSGQUEUE
	13:           {0, 0},                       // NICE
	14:           {0, 0},                       // RTPRIO
	15:           {rlimInfinity, rlimInfinity}, // RTTIME
}

// sysPrlimit reads and sets a resource limit, in Linux's order (kernel/sys.c prlimit64,
// do_prlimit): read the new limit, find the process, check the resource and the new values, set,
// then write the old limit.
func sysPrlimit(pid int32, resource uint32, newp, oldp uintptr) int64 {
	var cur, max uint64
	if newp != 0 {
		if !userRange(newp, 16, false) {
			return -EFAULT
		}
		cur, max = load64(newp), load64(newp+8)
	}
	if pid != 0 {
		if t, _ := threadByTid(pid); t == nil {
			return -ESRCH
		}
	}
	if resource >= rlimNlimits {
		return -EINVAL
	}
	old := rlimits[resource]
	if newp != 0 {
		if cur > max {
			return -EINVAL
		}
		if resource == rlimitNofile && max > nrOpenMax {
			return -EPERM
		}
		rlimits[resource] = [2]uint64{cur, max}
	}
	if oldp != 0 {
		if !userRange(oldp, 16, true) {
			return -EFAULT
		}
		store64(oldp, old[0])
		store64(oldp+8, old[1])
	}
	return 0
}

// sysGetrlimit and sysSetrlimit are the older single-resource calls (x86-64 has them, arm64
// only prlimit64).
func sysGetrlimit(resource uint32, p uintptr) int64 {
	if resource >= rlimNlimits {
		return -EINVAL
	}
	if !userRange(p, 16, true) {
		return -EFAULT
	}
	return sysPrlimit(0, resource, 0, p)
}

func sysSetrlimit(resource uint32, p uintptr) int64 {
	if !userRange(p, 16, false) {
		return -EFAULT
	}
	return sysPrlimit(0, resource, p, 0)
}

// fdLimit is the number of fds the process may have: RLIMIT_NOFILE, capped by the table.
func fdLimit() int {
	if l := rlimits[rlimitNofile][0]; l < maxFDs {
		return int(l)
	}
	return maxFDs
}

// sysUname fills struct utsname (six 65-byte fields). gmpos speaks the Linux system-call ABI, so
// sysname is "Linux" (as gVisor reports); release and version name gmpos; machine is the
// architecture's (abi_<arch>.go).
func sysUname(buf uintptr) int64 {
	if !userRange(buf, 6*65, true) {
		return -EFAULT
	}
	fields := [6]string{"Linux", "gmpos", "6.1.0-gmpos", "#1 gmpos", unameMachine, "(none)"}
	zeroUser(buf, 6*65)
	for i, s := range fields {
		copyOut(buf+uintptr(65*i), []byte(s))
	}
	return 0
}

// getrandom flags (include/uapi/linux/random.h).
const (
	grndNonblock = 1
	grndRandom   = 2
	grndInsecure = 4
)

// maxRWCount is the most one read, write or getrandom transfers (Linux MAX_RW_COUNT: INT_MAX
// rounded down to a page).
const maxRWCount = 0x7ffff000

// sysGetrandom fills buf from the CPU's random source (drivers/char/random.c getrandom): flags
// are checked first (GRND_INSECURE with GRND_RANDOM is EINVAL), then the buffer must be user
// memory (access_ok: EFAULT). The hardware source never blocks, so GRND_NONBLOCK and GRND_RANDOM
// change nothing. Like Linux it copies page by page and returns how much it copied before the
// first page that cannot be written (EFAULT only if that is the first).
func sysGetrandom(buf, n uintptr, flags uint32) int64 {
	if flags&^(grndNonblock|grndRandom|grndInsecure) != 0 || flags&(grndInsecure|grndRandom) == grndInsecure|grndRandom {
		return -EINVAL
	}
	n = min(n, maxRWCount)
	if n == 0 {
		return 0
	}
	if end := buf + n; end < buf || end > mm.UserEnd {
		return -EFAULT
	}
	done := uintptr(0)
	for done < n {
		chunk := min(n-done, mm.PageSize-(buf+done)&(mm.PageSize-1))
		if !userRange(buf+done, chunk, true) {
			break
		}
		for i := uintptr(0); i < chunk; i += 8 {
			v := entropy()
			for j := uintptr(0); j < 8 && i+j < chunk; j++ {
				store8(buf+done+i+j, byte(v>>(8*j)))
			}
		}
		done += chunk
	}
	if done == 0 {
		return -EFAULT
	}
	return int64(done)
}

// timerSlack is how much later than asked a sleep may end (prctl PR_SET_TIMERSLACK): Linux's
// timer_slack_ns, 50 µs unless set. Linux lets an hrtimer sleep (nanosleep, clock_nanosleep, a
// futex wait's timeout) expire anywhere in [deadline, deadline+slack] so that wake-ups coalesce,
// and an isolated one fires at the end of that range (hrtimer_reprogram programs the hard
// expiry). gmpos adds the slack the same way, for the same reason, and one more: the Go
// runtime's spinning M sleeps 3 µs (runqgrab's usleep(3)) whenever a P's runnext is too fresh to
// steal: on Linux that takes ~55 µs. On gmpos it took 3 µs plus the trap, and once such sleeps
// were also cheap (polled for, idle.go) the spinning M came back into the kernel, and took the
// BKL from the core running the program, 4.4 times as often: 14,499 nanosleeps per 100,000
// round trips of a 2-vCPU channel ping-pong against 3,281 before; with the slack, 2,755.
// Callable without the BKL (sleep_unlocked.go): the setting is stored atomically.
func timerSlack() int64 {
	v := atomic.LoadUint64(&prctlState.timerslack)
	if v == 0 || v > 1<<62 {
		return defaultTimerslackNS
	}
	return int64(v)
}

// withSlack is deadline plus the timer slack, saturating: a timeout near 2^62 ns (readTimespec's
// clamp) plus a slack near 2^62 would otherwise wrap into the past and expire at once.
func withSlack(deadline int64) int64 {
	s := timerSlack()
	if deadline > math.MaxInt64-s {
		return math.MaxInt64
	}
	return deadline + s
}
