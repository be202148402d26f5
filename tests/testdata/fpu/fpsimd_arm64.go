package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// fpsimdState is what Linux's fpsimd_context carries (arch/arm64/include/uapi/asm/sigcontext.h).
type fpsimdState struct {
	v    [64]uint64 // V0-V31, the low then the high half of each
	fpsr uint64
	fpcr uint64 // fpsimdTrap reports it but does not set it
}

// fpsimdTrap loads V0-V31 and FPSR from in, makes system call nr(a0, a1, a2) by SVC, and stores
// the V0-V31, FPSR and FPCR it comes back with into out, returning X0. The registers must be held
// across the trap within one assembly function: Go's ABI treats every V register as scratch.
func fpsimdTrap(in, out *fpsimdState, nr, a0, a1, a2 uintptr) uintptr

// setFPCR writes FPCR. Go code never does, so the value stays with the thread.
func setFPCR(v uint64)

// clobber is a signal handler that is not Go code: it overwrites V0-V31, FPSR and FPCR and
// returns (to the vDSO's rt_sigreturn trampoline). It is never called from Go.
func clobber()

// clobberPC is clobber's entry address, for sigaction (a Go func value of an assembly function
// would name its ABI wrapper, which expects Go's calling convention).
func clobberPC() uintptr

// stateMode is threadState's mode on the command line.
const stateMode = "fpsimd"

// fpsrFlags are the FPSR each thread loads before its traps: cumulative exception flags (and QC)
// of its own, which nothing in the round itself raises.
var fpsrFlags = [2]uint64{
	1<<27 | 1<<0,       // QC, IOC
	1<<7 | 1<<4 | 1<<1, // IDC, IXC, DZC
}

// sleep20us is nanosleep's argument: a global, which no stack move can take from under the
// system call.
var sleep20us = syscall.Timespec{Nsec: 20_000}

// threadState (mode fpsimd) is the arm64 counterpart of the x87 mode (x87_amd64.go), and prints
// the same line with "fpsimd" for "x87": two threads locked to their goroutines share the core
// (GOMAXPROCS=2 on one vCPU) and trade places through sched_yield, short sleeps and signals while
// the other keeps trapping with getpid. Each sets an FPCR of its own once — a rounding mode Go
// code never selects, and one the kernel's entry replaces with 0 for itself (vectors_arm64.s) —
// and before every trap loads V0-V31 and FPSR with values of its own thread and round; after
// the trap all of them must be as they were, as Linux keeps the whole FP/SIMD state across
// system calls, switches and signal handlers. Half of the signals go to the runtime's handler
// (os/signal); the other half to clobber, which overwrites V0-V31, FPSR and FPCR before it
// returns, so that only rt_sigreturn's restore of the frame's fpsimd_context can bring them
// back.
func threadState() {
	runtime.GOMAXPROCS(2)
	c := make(chan os.Signal, 64)
	signal.Notify(c, syscall.SIGUSR1)
	go func() {
		for range c {
		}
	}()
	installClobber(syscall.SIGUSR2)
	const rounds = 3000
	pid := uintptr(syscall.Getpid())
	var wg sync.WaitGroup
	var bad, signals atomic.Int64
	var first atomic.Value
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			fpcr := uint64(i+1) << 22 // RMode 01 (towards +Inf) or 10 (towards -Inf): not the initial 00
			setFPCR(fpcr)
			defer setFPCR(0)
			tid := uintptr(syscall.Gettid())
			var in, out fpsimdState
			in.fpsr = fpsrFlags[i]
			for n := range rounds {
				for r := range in.v { // this thread's and this round's: a stale or foreign value shows
					in.v[r] = uint64(i+1)<<56 | uint64(n)<<16 | uint64(r)
				}
				nr, a0, a1, a2 := uintptr(syscall.SYS_GETPID), uintptr(0), uintptr(0), uintptr(0)
				switch {
				case n%4 == 1:
					nr = syscall.SYS_SCHED_YIELD // a switch to the other
				case n%64 == 2:
					nr, a0 = syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&sleep20us))
				case n%16 == 3: // a signal frame and rt_sigreturn on this thread
					sig := syscall.SIGUSR1
					if n%32 == 19 {
						sig = syscall.SIGUSR2
					}
					nr, a0, a1, a2 = syscall.SYS_TGKILL, pid, tid, uintptr(sig)
					signals.Add(1)
				}
				r := fpsimdTrap(&in, &out, nr, a0, a1, a2)
				if why := compareFPSIMD(&in, &out, fpcr, nr, r); why != "" {
					if bad.Add(1) == 1 {
						first.Store(fmt.Sprintf("thread %d round %d (system call %d): %s", i, n, nr, why))
					}
				}
			}
		}()
	}
	wg.Wait()
	if s, ok := first.Load().(string); ok {
		fmt.Println(s)
	}
	fmt.Printf("fpsimd state kept: %v (%d signals)\n", bad.Load() == 0, signals.Load())
}

// compareFPSIMD says how out differs from in and the thread's fpcr ("" if it does not), or that
// system call nr failed (r, -errno). A sleep may end early with EINTR: a handler that runs
// during nanosleep makes it fail rather than restart, on Linux as here, and the runtime's
// preemption signal (SIGURG) comes whenever this loop has run without telling the runtime for
// 10ms.
func compareFPSIMD(in, out *fpsimdState, fpcr uint64, nr, r uintptr) string {
	e := syscall.Errno(-int64(r))
	if int64(r) < 0 && !(nr == syscall.SYS_NANOSLEEP && e == syscall.EINTR) {
		return fmt.Sprintf("failed: %v", e)
	}
	for i := 0; i < len(in.v); i += 2 {
		if out.v[i] != in.v[i] || out.v[i+1] != in.v[i+1] {
			return fmt.Sprintf("v%d %#x:%#x, want %#x:%#x", i/2, out.v[i+1], out.v[i], in.v[i+1], in.v[i])
		}
	}
	if out.fpsr != in.fpsr {
		return fmt.Sprintf("fpsr %#x, want %#x", out.fpsr, in.fpsr)
	}
	if out.fpcr != fpcr {
		return fmt.Sprintf("fpcr %#x, want %#x", out.fpcr, fpcr)
	}
	return ""
}

// installClobber makes clobber sig's handler, with rt_sigaction directly (os/signal only installs
// the runtime's own handler). SA_ONSTACK puts it on the thread's signal stack, which the runtime
// set up, not on a goroutine stack too small for a signal frame.
func installClobber(sig syscall.Signal) {
	const saSiginfo, saOnstack, saRestart = 0x4, 0x0800_0000, 0x1000_0000
	act := struct{ handler, flags, restorer, mask uint64 }{ // struct sigaction, arm64's kernel layout
		handler: uint64(clobberPC()),
		flags:   saSiginfo | saOnstack | saRestart,
	}
	_, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	if e != 0 {
		fmt.Println("rt_sigaction:", e)
		os.Exit(1)
	}
}
