// QEMU tests of the kernel's own failure paths: the fault report and the exit status.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"gmpos/qemu/runner"
)

// TestGuestKernelFault makes kernel code read an unmapped kernel address: the report must name the
// trap, the address, the registers, the faulting instruction's bytes and the thread, and the
// runner must symbolize and disassemble the instruction and return the kernel-panic status.
func TestGuestKernelFault(t *testing.T) {
	if native() {
		t.Skip("kernel faults exist only under gmpos")
	}
	g := boot(t, pkg("kfault"), opts{args: []string{"read"}})
	g.wantCode(t, runner.ExitKernelPanic)
	g.wantStdout(t, "faulting the kernel\n")
	trap := []string{"trap: 14 (#PF page fault)  address: 0xfffff000dead0000",
		"rip=", "rsp=", "r15=", "cr2=0xfffff000dead0000"}
	if testArch() == "arm64" {
		trap = []string{"trap: 37 (data abort in the kernel)  address: 0xfffff000dead0000",
			"pc=", "sp=", "x30=", "far=0xfffff000dead0000"}
	}
	wantContains(t, g, "stderr", g.stderr, trap...)
	wantContains(t, g, "stderr", g.stderr,
		"=== gmpos kernel fault ===",
		"thread: 1",
		"code: ",
		"callers: 0x",
		"=== end of kernel fault report ===",
	)
	// The call chain, from the frame pointers, symbolized by the runner: the system call that
	// asked for the fault, back to the trap entry.
	wantContains(t, g, "runner's explanation", g.why, "(gmpos/kernel.deliberateFault+", "kernel/fault.go:",
		"called from:", " gmpos/kernel.sysGmposInfo+", "kernel/sys_gmpos.go:", " gmpos/kernel.syscall+",
		" gmpos/kernel.trap+")
}

// TestGuestKernelStackOverflow exhausts a kernel stack: the guard page below it must turn the
// overflow into a #DF report instead of silent corruption.
func TestGuestKernelStackOverflow(t *testing.T) {
	if native() {
		t.Skip("kernel faults exist only under gmpos")
	}
	g := boot(t, pkg("kfault"), opts{args: []string{"overflow"}})
	g.wantCode(t, runner.ExitKernelPanic)
	trap := "trap: 8 (#DF double fault)" // amd64: the #PF could not be pushed; IST1 took the #DF
	if testArch() == "arm64" {
		trap = "trap: 37 (data abort in the kernel)" // taken on the overflow stack (vectors_arm64.s)
	}
	wantContains(t, g, "stderr", g.stderr,
		"reason: kernel stack overflow (guard page of kernel stack ", // the faulting core's stack
		trap,
		"=== end of kernel fault report ===",
	)
	wantContains(t, g, "runner's explanation", g.why, "(gmpos/kernel.kernelRecurse+")
}

// TestGuestKernelFaultAnywhere: the report must come out whole wherever the kernel faults. Inside
// the memory manager, with its lock held, a report that asked mm whether the faulting page is
// readable died with "mm: re-entered"; in an inlined function, a report that symbolized the PC
// with runtime.FuncForPC allocated (for the inlined frame) and took a second fault in the
// allocator. The report now takes no lock and allocates nothing; the runner symbolizes.
func TestGuestKernelFaultAnywhere(t *testing.T) {
	if native() {
		t.Skip("kernel faults exist only under gmpos")
	}
	for kind, where := range map[string][]string{
		"mm":      {"kernel/mm/"},
		"inlined": {"(gmpos/kernel.deliberateFault+", "kernel/fault.go:"},
	} {
		t.Run(kind, func(t *testing.T) {
			g := boot(t, pkg("kfault"), opts{args: []string{kind}})
			g.wantCode(t, runner.ExitKernelPanic)
			trap := "trap: 14 (#PF page fault)"
			if testArch() == "arm64" {
				trap = "trap: 37 (data abort in the kernel)"
			}
			wantContains(t, g, "stderr", g.stderr, trap, "=== end of kernel fault report ===")
			if strings.Count(g.stderr, "=== gmpos kernel fault ===") != 1 || strings.Contains(g.stderr+g.log, "re-entered") {
				g.dump(t)
				t.Fatal("the report faulted in its turn")
			}
			wantContains(t, g, "runner's explanation", g.why, where...)
		})
	}
}

// TestGuestAsyncPreempt needs the runtime's SIGURG preemption: tgkill from sysmon, delivered by the
// kernel on the spinning thread's way back to user mode.
func TestGuestAsyncPreempt(t *testing.T) {
	g := boot(t, pkg("preempt"), opts{args: []string{"async"}, timeout: 60 * time.Second})
	g.wantCode(t, 0)
	g.wantStdout(t, "main resumed while a goroutine spun: true (slept >= 30ms: true)\n")
}

// TestGuestThreadPreempt needs the kernel's own time slicing: two spinning threads, one core.
func TestGuestThreadPreempt(t *testing.T) {
	g := boot(t, pkg("preempt"), opts{args: []string{"threads"}, timeout: 60 * time.Second})
	g.wantCode(t, 0)
	g.wantStdout(t, "both threads progressed: true\n")
}

// TestGuestWakePreempt: on one core, a thread woken from its sleeps while another spins
// preempts the spinner before its 10 ms slice ends (gmp's wake-up preemption,
// sched/policy_gmp.go), which the scheduler counts apart; with wakegrain=0, the runtime's rule,
// it waits for the slice and the count stays 0. The first boot takes the kernel's default.
// (Deleting the rule's check in gmp.Tick: the default boot counts none.)
func TestGuestWakePreempt(t *testing.T) {
	if native() {
		t.Skip("reads gmpos's scheduler counters")
	}
	for _, c := range []struct {
		kopt string
		want bool
	}{{"", true}, {"wakegrain=0", false}} { // "": the default, sched.DefaultWakeGrain
		name, kopts := "default", []string(nil)
		if c.kopt != "" {
			name, kopts = c.kopt, []string{c.kopt}
		}
		t.Run(name, func(t *testing.T) {
			g := boot(t, pkg("preempt"), opts{smp: 1, kopts: kopts, args: []string{"wake"}, timeout: 60 * time.Second})
			g.wantCode(t, 0)
			g.wantStdout(t, fmt.Sprintf("wake-up preemptions: %v\n", c.want))
			t.Log(strings.TrimSpace(g.stderr))
		})
	}
}

// TestGuestSyscallErrors: bad input gets the errno Linux would return — EFAULT for unmapped
// pointers, EINVAL/EBADF/ENODEV/EAGAIN for bad arguments — and an unimplemented system call gets
// ENOSYS every time but is logged only once, by name.
func TestGuestSyscallErrors(t *testing.T) {
	if native() {
		t.Skip("checks gmpos's kernel log")
	}
	g := boot(t, pkg("syscalls"), opts{kopts: []string{"klog=1", "strace=1"}})
	g.wantCode(t, 0)
	lines := strings.Split(strings.TrimSpace(g.stdout), "\n")
	checked := 0
	for _, l := range lines {
		if strings.Contains(l, "ok=") {
			checked++
			if !strings.HasSuffix(l, "ok=true") {
				t.Errorf("wrong answer: %s", l)
			}
		}
	}
	if checked < 16 {
		t.Errorf("only %d checks ran:\n%s", checked, g.stdout)
	}
	wantContains(t, g, "stdout", g.stdout,
		"getrandom filled 64 bytes, true non-zero",
		"uname release has gmpos: true",
		"open: open /etc/no-such-file: no such file or directory")
	// ... and strace shows a file call's path: a wrong path does not look like a missing file.
	if !strings.Contains(g.log, `"/etc/no-such-file" = -2`) {
		t.Errorf("strace=1 did not show the path of the failed open:\n%.2000s", g.log)
	}
	// The runtime's first open names a string constant that ends a few bytes before kernel
	// variables in the image's data pages: the path is read up to its NUL, not refused (EFAULT)
	// for the page it is on.
	if !strings.Contains(g.log, `hpage_pmd_size" = -2`) {
		t.Errorf("the runtime's transparent_hugepage probe did not get ENOENT:\n%.3000s", g.log)
	}
	acct := "unimplemented syscall acct (163) -> ENOSYS"
	if testArch() == "arm64" {
		acct = "unimplemented syscall acct (89) -> ENOSYS" // asm-generic/unistd.h numbers
	}
	if n := strings.Count(g.log, acct); n != 1 {
		t.Errorf("acct logged %d times, want once:\n%s", n, g.log)
	}
	// strace=1 logs each call with its arguments and result: write(99, ...) = -EBADF.
	if !strings.Contains(g.log, "] write(0x63, ") || !strings.Contains(g.log, ") = -9") {
		t.Errorf("strace=1 did not log write(99) = -9:\n%.2000s", g.log)
	}
}

// TestGuestSMP boots 2 and 4 cores: the runtime must see them all (sched_getaffinity), and with
// one P per core and stealing, every core must run threads of a CPU-bound program.
func TestGuestSMP(t *testing.T) {
	if native() {
		t.Skip("asks gmpos's kernel for per-core counts")
	}
	for _, n := range []int{2, 4} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			g := boot(t, pkg("smp"), opts{smp: n})
			g.wantCode(t, 0)
			g.wantStdout(t, fmt.Sprintf("NumCPU=%d GOMAXPROCS=%d\nkernel cores=%d, every core ran threads: true\n", n, n, n))
		})
	}
}

// TestGuestArm64EL2 boots at EL2, as a Raspberry Pi's firmware enters the kernel (QEMU virt with
// virtualization=on): the entry must configure EL2 and drop to EL1, the secondary cores too, and
// PSCI is then reached with SMC (the device tree says so) instead of HVC.
func TestGuestArm64EL2(t *testing.T) {
	if native() || testArch() != "arm64" {
		t.Skip("the arm64 kernel's EL2 entry")
	}
	m := os.Getenv("GMPOS_TEST_MACHINE")
	if m == "" {
		m = "virt"
	}
	g := boot(t, pkg("smp"), opts{smp: 2, machine: m + ",virtualization=on"})
	g.wantCode(t, 0)
	g.wantStdout(t, "NumCPU=2 GOMAXPROCS=2\nkernel cores=2, every core ran threads: true\n")
}

// TestGuestSchedTrace records the kernel scheduler's events on two cores (kernel option trace=1)
// and checks the timeline the runner makes of them: runs on both cores, and never two runs at
// once on one core.
func TestGuestSchedTrace(t *testing.T) {
	if native() {
		t.Skip("the trace comes from gmpos's kernel")
	}
	g := boot(t, pkg("smp"), opts{smp: 2, kopts: []string{"trace=1"}})
	g.wantCode(t, 0)
	var b bytes.Buffer
	st, err := runner.WriteTrace(&b, g.res.Records, "smp", "gmp")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("trace: %+v", st)
	var f struct {
		TraceEvents []struct {
			Ph       string  `json:"ph"`
			Cat      string  `json:"cat"`
			Tid      int     `json:"tid"`
			Ts       float64 `json:"ts"`
			DurField float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	end := map[int]float64{}
	perCore := map[int]int{}
	for _, e := range f.TraceEvents {
		if e.Ph != "X" || e.Cat != "run" { // a readied mark with an arrow is an X too
			continue
		}
		if e.Ts < end[e.Tid] {
			t.Fatalf("two runs at once on track %d: one starts at %.3fµs before the previous ends at %.3fµs", e.Tid, e.Ts, end[e.Tid])
		}
		end[e.Tid] = e.Ts + e.DurField
		perCore[e.Tid]++
	}
	if len(perCore) != 2 {
		t.Errorf("runs on %d core tracks, want 2: %v", len(perCore), perCore)
	}
}

// TestGuestSignals: os/signal with kill(2) to the process — delivered to a thread that does not
// block the signal, forwarded by the runtime's handler — and an ignored signal.
func TestGuestSignals(t *testing.T) {
	g := boot(t, pkg("signals"), opts{})
	g.wantCode(t, 0)
	g.wantStdout(t, "received user defined signal 1\nreceived user defined signal 2\nignored SIGUSR1, still running\n")
}

// TestGuestThreadExit: goroutines that exit while locked to their OS thread take it with them
// (exit(2) of one thread); 200 of them need 200 threads with 200 distinct thread IDs — a tid is
// never handed out again right away, as on Linux — and the kernel must not leak the slots.
func TestGuestThreadExit(t *testing.T) {
	g := boot(t, pkg("threadexit"), opts{})
	g.wantCode(t, 0)
	g.wantStdout(t, "200 locked goroutines ran on 200 distinct threads; main still alive: true\n")
}

// TestGuestPolicyImbalance shows the simulator's lesson on real cores: with 2 cores and work
// created on one P, the policies that balance (gmp steals, global shares one queue, fair steals)
// run threads on both cores, while local — per-P queues, no stealing — leaves the second core idle.
func TestGuestPolicyImbalance(t *testing.T) {
	if native() {
		t.Skip("kernel scheduler policies exist only under gmpos")
	}
	for policy, balanced := range map[string]bool{"gmp": true, "global": true, "fair": true, "local": false} {
		t.Run(policy, func(t *testing.T) {
			g := boot(t, pkg("smp"), opts{smp: 2, kopts: []string{"sched=" + policy}})
			g.wantCode(t, 0)
			g.wantStdout(t, fmt.Sprintf("NumCPU=2 GOMAXPROCS=2\nkernel cores=2, every core ran threads: %v\n", balanced))
		})
	}
}

// TestGuestFPUState: each thread's XMM registers survive the kernel's time slicing (saved on
// entry, restored on resume). With the runtime's async preemption off, the threads trade the core
// only through kernel preemption; without the FXRSTOR in resume (on arm64 the FLDPQ of the low V
// registers) the results come out wrong.
func TestGuestFPUState(t *testing.T) {
	if native() {
		t.Skip("needs the kernel option env=")
	}
	g := boot(t, pkg("fpu"), opts{kopts: []string{"env=GODEBUG=asyncpreemptoff=1"}})
	g.wantCode(t, 0)
	g.wantStdout(t, "results identical under preemption: true\n")
}

// TestGuestFPUx87: each thread's x87 state survives system calls, switches between threads and
// signal frames. The entry saves only the SSE registers and leaves the x87 state in the
// registers until a switch needs it (kernel/arch/amd64 fpu.go); two threads on one core, each
// with its own x87 control word and stack value, check theirs after every trap. Writing nothing
// back on a switch fails it in the first rounds. arm64 has no x87: there the test runs the
// counterpart, mode fpsimd, in which each thread holds its own FPCR, FPSR and V0-V31 across the
// same traps, half of its signals going to a handler that overwrites all of them
// (testdata/fpu/fpsimd_arm64.go).
func TestGuestFPUx87(t *testing.T) {
	mode := "x87"
	if testArch() == "arm64" {
		mode = "fpsimd"
	}
	g := boot(t, pkg("fpu"), opts{args: []string{mode}})
	g.wantCode(t, 0)
	g.wantStdout(t, mode+" state kept: true (376 signals)\n")
}

// TestGuestSignalsMidComputation: a thread in the middle of a floating-point loop is interrupted by
// SIGUSR1 every 200 µs (tgkill from another thread, os/signal handler, rt_sigreturn); its result
// must come out exactly as without signals.
func TestGuestSignalsMidComputation(t *testing.T) {
	if native() {
		t.Skip("needs the kernel option env=")
	}
	// Two cores, so that the sender runs while the loop does (on one core it would only run
	// between the loop's time slices).
	g := boot(t, pkg("fpu"), opts{smp: 2, args: []string{"signals"}, kopts: []string{"env=GODEBUG=asyncpreemptoff=1"}})
	g.wantCode(t, 0)
	g.wantStdout(t, "signals delivered during the loop: true; result identical: true\n")
}

// TestGuestIRQ drives a device interrupt through the whole path — the board's interrupt
// controller (the PC's I/O APIC), the vector, the kernel's interrupt table, a handler — to a
// thread the handler wakes: the RTC's periodic interrupt, which the program starts through
// gmpos_info. On two cores the interrupt arrives on core 0 whichever core the waiter ran on.
func TestGuestIRQ(t *testing.T) {
	skipOnArm64(t, "virt has no device that interrupts at a chosen rate (the board's TestIRQ is -1)")
	if native() {
		t.Skip("the interrupt self-test is gmpos's")
	}
	for _, smp := range []int{1, 2} {
		t.Run(strconv.Itoa(smp), func(t *testing.T) {
			g := boot(t, pkg("irq"), opts{smp: smp})
			g.wantCode(t, 0)
			g.wantStdout(t, "waited for 64 interrupts: got 64 (errno 0)\n"+
				"handler counted them on the line: true\n"+
				"they took at least 31 periods: true\n"+
				"another goroutine ran meanwhile: true\n"+
				"a second concurrent test: resource temporarily unavailable\n"+
				"again: got 8 (errno 0)\n")
		})
	}
}

// TestGuestFDOps: the semantics of fds and epoll behind the Go runtime's netpoller and the
// os package — blocking and semaphore eventfds, dup sharing one open file, epoll's level,
// edge-triggered and one-shot modes, a blocked epoll_wait woken from another thread, nested
// instances, close removing an item. The same program natively prints the same lines.
func TestGuestFDOps(t *testing.T) {
	g := boot(t, pkg("fdops"), opts{})
	g.wantCode(t, 0)
	lines := strings.Split(strings.TrimSpace(g.stdout), "\n")
	if len(lines) != 17 {
		g.dump(t)
		t.Fatalf("%d result lines, want 17", len(lines))
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, " true") {
			g.dump(t)
			t.Errorf("failed: %s", l)
		}
	}
}

// TestGuestBadHandler: a signal handler at a non-canonical address cannot be entered — IRETQ
// would fault inside the kernel on a real Intel CPU — so the kernel turns the delivery into a
// SIGSEGV for the program, as Linux does (force_sigsegv), and the Go runtime's handler ends the
// program with a fatal error: exit status 2, as natively; never a kernel fault (101).
func TestGuestBadHandler(t *testing.T) {
	g := boot(t, pkg("badhandler"), opts{})
	g.wantCode(t, 2)
	g.wantStdout(t, "sigaction: true\n")
	wantContains(t, g, "stderr", g.stderr, "fatal error")
}

// TestGuestFaultSignalFirst: nil dereferences on one core while another core sends the faulting
// thread SIGUSR1. When both signals are pending, the fault's SIGSEGV must be delivered first and
// with its siginfo (Linux: dequeue_synchronous_signal); delivering SIGUSR1 first used to clear
// the fault's details, and the runtime died of a SIGSEGV it took for one sent by kill.
func TestGuestFaultSignalFirst(t *testing.T) {
	g := boot(t, pkg("faultsig"), opts{smp: 2})
	g.wantCode(t, 0)
	g.wantStdout(t, "20000 faults recovered while SIGUSR1 arrived: true\n")
}

// TestGuestKernelDataRefused: the kernel's variables share the image's data pages with the
// program's globals, so a system call whose buffer is a kernel variable must be refused (EFAULT)
// — the fuzzer once had gmpos_info write 2 MiB from its own globals over the thread table —
// while the same calls on the program's own global succeed.
func TestGuestKernelDataRefused(t *testing.T) {
	if native() {
		t.Skip("the program links the kernel's symbols")
	}
	g := boot(t, pkg("kdata"), opts{})
	g.wantCode(t, 0)
	refused := ": clock_gettime bad address, write 0 bytes errno 0, gmpos_info bad address, getrandom bad address\n"
	g.wantStdout(t, "thread table"+refused+"scheduler"+refused+"VMA table"+refused+"per-CPU state"+refused+
		"program global: clock_gettime errno 0, write 0 bytes errno 0, gmpos_info errno 0, getrandom errno 0\n")
}

// TestGuestOutOfMemory: a program that holds more than the guest's RAM ends with status 137 —
// what Linux's OOM killer's SIGKILL gives, in README's table — and the kernel says why on
// stderr, after the program got about as far as the RAM allows.
func TestGuestOutOfMemory(t *testing.T) {
	if native() {
		t.Skip("would exhaust the host")
	}
	g := boot(t, pkg("oom"), opts{mem: "256M"})
	g.wantCode(t, 137)
	wantContains(t, g, "stderr", g.stderr, "gmpos: out of memory: thread ")
	if !strings.Contains(g.stdout, "holding 96 MiB") || strings.Contains(g.stdout, "holding 256 MiB") {
		t.Errorf("the program held too little or too much before the end:\n%s", g.stdout)
	}
}
