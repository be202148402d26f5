// QEMU tests of the kernel's own failure paths: the fault report and the exit status.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"testing"
	"time"

	"gmpos/qemu/runner"
)

// TestGuestKernelFault makes kernel code read an unmapped address: the report must name the
// vector, CR2, the registers, the symbolized faulting instruction and the thread, and the runner
// must return the kernel-panic status.
func TestGuestKernelFault(t *testing.T) {
	if native() {
		t.Skip("kernel faults exist only under gmpos")
	}
	g := boot(t, pkg("kfault"), opts{args: []string{"read"}})
	g.wantCode(t, runner.ExitKernelPanic)
	g.wantStdout(t, "faulting the kernel\n")
	wantContains(t, g, "stderr", g.stderr,
		"=== gmpos kernel fault ===",
		"vector: 14 (#PF page fault)",
		"cr2: 0xfffff000dead0000",
		"rip=", "rsp=", "r15=",
		"at: gmpos/kernel.deliberateFault+",
		"thread: 1",
		"code: ",
	)
}

// TestGuestKernelStackOverflow exhausts a kernel stack: the guard page below it must turn the
// overflow into a #DF report instead of silent corruption.
func TestGuestKernelStackOverflow(t *testing.T) {
	if native() {
		t.Skip("kernel faults exist only under gmpos")
	}
	g := boot(t, pkg("kfault"), opts{args: []string{"overflow"}})
	g.wantCode(t, runner.ExitKernelPanic)
	wantContains(t, g, "stderr", g.stderr,
		"reason: kernel stack overflow (guard page of kernel stack 0)",
		"vector: 8 (#DF double fault)",
		"at: gmpos/kernel.kernelRecurse+",
	)
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
