// The kernel command line: options and the program's arguments.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/kernel/mm"

// The kernel command line (docs/contract.md): space-separated tokens, bytes outside
// [A-Za-z0-9._/=:,+-] written %XX; "KEY=VALUE" kernel options, then "--", then argv[1:].
//
// Decoded strings are kept in one static arena, before there is any allocator; writeProcessImage
// (stack.go) copies argv and envp onto the initial user stack, where they must stay for good —
// the Go runtime never copies argv (docs/runtime-contract.md §1.3) — which they do because that
// stack's VMA is pinned (kernel/mm: RegisterFixed).

const (
	maxArgs = 64
	maxEnv  = 64
)

// defaultFaultAround is the fault-around window in pages: 64 KiB, Linux's fault_around_bytes.
// What it saves a program that grows its heap: README, Benchmarks.
const defaultFaultAround = 16

type strRef struct{ off, n int }

// cmdState is the decoded command line.
type cmdState struct {
	arena   [8192]byte
	used    int
	argv0   strRef
	args    [maxArgs]strRef
	nargs   int
	env     [maxEnv]strRef
	nenv    int
	sched   strRef
	klog    bool
	strace  bool   // strace=1: log every system call and its result
	trace   bool   // trace=1: record the scheduler's events and send them at exit (trace.go)
	faultT  strRef // fault=KIND: deliberately fault in the kernel (tests of the fault report)
	ip      strRef // ip=...: the network configuration (ipconfig.go)
	noVDSO  bool   // vdso=0: no vDSO; every clock read is a system call (vdso.go)
	wakeBKL bool   // wakebkl=1: idle wake-ups take the BKL too, as before the split (wake_unlocked.go)
	// futexbkl=1: the runtime's futex calls take the BKL too, as before the split (futex_unlocked.go)
	futexBKL bool
	// sigbkl=1: the runtime's tgkill, signal deliveries and rt_sigreturn take the BKL too, as
	// before the split (signal_unlocked.go)
	sigBKL bool
	// sleepbkl=1: sleeps, yields, getpid, gettid and the timer interrupt take the BKL too
	// (sleep_unlocked.go, self_unlocked.go)
	sleepBKL bool
	faultBKL bool // faultbkl=1: page faults take the BKL too (fault_unlocked.go)
	mmBKL    bool // mmbkl=1: mmap, munmap, mprotect and madvise take the BKL too (mm_unlocked.go)
	conBKL   bool // conbkl=1: writes to the console take the BKL too (console_unlocked.go)
	// pollbkl=1: epoll_wait and eventfd reads and writes take the BKL too (poll_unlocked.go)
	pollBKL bool
	// lazytlb=0: TLB shootdowns interrupt idle cores too, as before lazy TLB (smp.go)
	noLazyTLB bool
	// netpoll=0: the network poller never looks at the devices (net_poller.go Waiters): frames
	// and 9P replies are noticed by their interrupts alone, as the paths without the BKL rely on
	noNetPoll bool
	cwd       strRef // cwd=PATH: the program's working directory at start (fs_boot.go)
	// wakegrain=US: under gmp, a woken thread preempts one that has run US µs (0: never, the
	// runtime's behaviour); unset, sched.DefaultWakeGrain (sched/policy_gmp.go)
	wakeGrainUS  uint64
	wakeGrainSet bool
	tscHz        uint64 // tsc_hz=N: the cycle counter's rate as the runner measured it (calibrate.go)
	bad          bool   // the command line was malformed (reported once the console is up)
}

// cmd is the decoded command line. Immutable after boot (parseCmdline).
var cmd cmdState

func (r strRef) bytes() []byte { return cmd.arena[r.off : r.off+r.n] }

func (r strRef) equals(s string) bool {
	if r.n != len(s) {
		return false
	}
	for i := 0; i < r.n; i++ {
		if cmd.arena[r.off+i] != s[i] {
			return false
		}
	}
	return true
}

// argv0Base is the base name of argv[0]: what Linux calls the process's comm.
func (c *cmdState) argv0Base() []byte {
	b := []byte("gmpos")
	if c.argv0.n > 0 {
		b = c.argv0.bytes()
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '/' {
			return b[i+1:]
		}
	}
	return b
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeToken %-decodes tok into the arena (NUL-terminated for C-style argv) and returns it.
func decodeToken(tok []byte) (strRef, bool) {
	start := cmd.used
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c == '%' {
			if i+2 >= len(tok) {
				return strRef{}, false
			}
			hi, ok1 := unhex(tok[i+1])
			lo, ok2 := unhex(tok[i+2])
			if !ok1 || !ok2 {
				return strRef{}, false
			}
			c = hi<<4 | lo
			i += 2
		}
		if cmd.used >= len(cmd.arena)-1 {
			return strRef{}, false
		}
		cmd.arena[cmd.used] = c
		cmd.used++
	}
	cmd.arena[cmd.used] = 0
	cmd.used++
	return strRef{start, cmd.used - 1 - start}, true
}

func hasPrefix(b []byte, p string) bool {
	if len(b) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if b[i] != p[i] {
			return false
		}
	}
	return true
}

// parseCmdline fills cmd from line. Multiboot loaders (QEMU, GRUB) put the kernel image's path
// first, so the first token is skipped.
func parseCmdline(line []byte) {
	mm.SetFaultAround(defaultFaultAround) // unless faultaround= says otherwise
	inArgs := false
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	for i < len(line) && line[i] != ' ' {
		i++
	}
	for i < len(line) {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' {
			j++
		}
		if i == j {
			break
		}
		tok := line[i:j]
		i = j
		if !inArgs && len(tok) == 2 && tok[0] == '-' && tok[1] == '-' {
			inArgs = true
			continue
		}
		r, ok := decodeToken(tok)
		if !ok {
			cmd.bad = true
			continue
		}
		if inArgs {
			if cmd.nargs < maxArgs {
				cmd.args[cmd.nargs] = r
				cmd.nargs++
			} else {
				cmd.bad = true
			}
			continue
		}
		b := r.bytes()
		switch {
		case hasPrefix(b, "argv0="):
			cmd.argv0 = strRef{r.off + 6, r.n - 6}
		case hasPrefix(b, "env="):
			if cmd.nenv < maxEnv {
				cmd.env[cmd.nenv] = strRef{r.off + 4, r.n - 4}
				cmd.nenv++
			} else {
				cmd.bad = true // dropped: said at boot, as for arguments beyond maxArgs
			}
		case hasPrefix(b, "sched="):
			cmd.sched = strRef{r.off + 6, r.n - 6}
		case hasPrefix(b, "klog="):
			cmd.klog = r.n > 5 && b[5] == '1'
		case hasPrefix(b, "profile="):
			profParse(b[8:]) // profile=HZ: the sampling profiler (profile.go)
		case hasPrefix(b, "trace="):
			cmd.trace = r.n > 6 && b[6] == '1'
		case hasPrefix(b, "strace="):
			cmd.strace = r.n > 7 && b[7] == '1'
		case hasPrefix(b, "vdso="):
			cmd.noVDSO = r.n > 5 && b[5] == '0'
		case hasPrefix(b, "wakebkl="):
			cmd.wakeBKL = r.n > 8 && b[8] == '1'
		case hasPrefix(b, "futexbkl="):
			cmd.futexBKL = r.n > 9 && b[9] == '1'
		case hasPrefix(b, "sigbkl="):
			cmd.sigBKL = r.n > 7 && b[7] == '1'
		case hasPrefix(b, "sleepbkl="):
			cmd.sleepBKL = r.n > 9 && b[9] == '1'
		case hasPrefix(b, "faultbkl="):
			cmd.faultBKL = r.n > 9 && b[9] == '1'
		case hasPrefix(b, "mmbkl="):
			cmd.mmBKL = r.n > 6 && b[6] == '1'
		case hasPrefix(b, "conbkl="):
			cmd.conBKL = r.n > 7 && b[7] == '1'
		case hasPrefix(b, "pollbkl="):
			cmd.pollBKL = r.n > 8 && b[8] == '1'
		case hasPrefix(b, "netpoll="):
			cmd.noNetPoll = r.n > 8 && b[8] == '0'
		case hasPrefix(b, "lazytlb="):
			cmd.noLazyTLB = r.n > 8 && b[8] == '0'
		case hasPrefix(b, "wakegrain="):
			v := b[10:]
			cmd.wakeGrainUS, cmd.wakeGrainSet = parseDecimal(v), true
			if cmd.wakeGrainUS == 0 && !(len(v) == 1 && v[0] == '0') || cmd.wakeGrainUS > 1_000_000 {
				cmd.bad, cmd.wakeGrainSet = true, false // not a number of µs up to a second
			}
		case hasPrefix(b, "faultaround="):
			// faultaround=N: a first touch of anonymous memory maps the aligned window
			// of N pages around it (kernel/mm/faultaround.go; 1: the touched page only)
			if !mm.SetFaultAround(uintptr(parseDecimal(b[12:]))) {
				cmd.bad = true // not a power of two in [1, 512]: the default stays
			}
		case hasPrefix(b, "ip="):
			cmd.ip = strRef{r.off + 3, r.n - 3}
		case hasPrefix(b, "fault="):
			cmd.faultT = strRef{r.off + 6, r.n - 6}
		case hasPrefix(b, "tsc_hz="):
			cmd.tscHz = parseDecimal(b[7:])
		case hasPrefix(b, "cwd="):
			cmd.cwd = strRef{r.off + 4, r.n - 4}
		case hasPrefix(b, "share="):
			p9Opt(strRef{r.off + 6, r.n - 6}) // share=TAG:DIR (fs9p.go)
		default:
			// Unknown options are ignored, like Linux's handling of unknown boot parameters,
			// but not silently: kernelMain logs them.
		}
	}
}

// parseDecimal reads an unsigned decimal number; 0 if b is empty, has another byte or overflows.
func parseDecimal(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' || v > (1<<64-1-9)/10 {
			return 0
		}
		v = v*10 + uint64(c-'0')
	}
	return v
}
