// Package kernel is the gmpos kernel. Linked into an ordinary Go program (the runner injects
// import _ "gmpos/kernel"), it boots the machine and then plays Linux for the Go runtime: the
// program's threads — the runtime's Ms — are the kernel's schedulable entities, the Gs of package
// sched, and every system call the runtime makes is answered here.
//
// # Boot path
//
//	QEMU -kernel (multiboot)  → arch/amd64 entry32   32-bit protected mode, paging off
//	                          → entry64              long mode on an early identity map, SSE on
//	                          → kmain (arch)         serial ports, GDT/TSS/IDT, SYSCALL MSRs
//	                          → kernelMain (here)    memory (mm), clock, LAPIC timer, scheduler,
//	                                                 the first thread and its process image
//	                          → _rt0_amd64_linux     the Go runtime starts, at CPL 3
//
// # The one entry point
//
// After boot the kernel only ever runs inside trap (trap.go): an interrupt, an exception or a
// SYSCALL instruction saved the thread's registers in a Frame on this core's kernel stack, and
// trap returns the Frame to resume — the same thread, another one (the scheduler's choice), or
// nil to halt the core until the next interrupt. The kernel never blocks and is never preempted:
// a system call that must wait parks its thread (block → sched.Park) and another thread's frame is
// returned; the waker (futex wake, timer tick, eventfd write, signal) makes it runnable again
// (wakeThread → sched.Ready) with the system call's result stored in its frame.
//
// # Rules for code in this package (trap context)
//
// Everything here runs either before the Go runtime exists (kernelMain) or in trap context: on a
// kernel stack of 32 KiB with interrupts off, under the per-CPU kernel g (arch/amd64 cpu.go), with
// no P. Therefore:
//   - no heap allocation: no fmt/strconv (klog.go formats by hand), no append to nil, no
//     interface conversions of non-pointer values, no closures that escape, no maps;
//   - no write barriers: kernel tables hold GIDs, indices and uintptrs, never Go pointers that a
//     store into a global could publish while the GC runs;
//   - no stack growth: the kernel g's stackguard is 0, an overflow hits the guard page (→ #DF →
//     report); keep frames small (well under a page);
//   - no package init() may be relied on: all tables are statically initialised;
//   - user memory is touched only after mm.Space.UserRange has checked (and pre-faulted) it;
//     bad pointers give EFAULT, never a kernel fault.
//
// # Cores and locks
//
// Every core is an M with its own P (smp.go). The kernel is serialised by one big kernel lock
// taken at the top of trap: lock order BKL → the scheduler's locks (sched/doc.go) → the mm lock
// (kernel/mm/doc.go) → the console. Two paths never take it: a TLB-shootdown IPI (its sender holds
// the BKL and waits for the acknowledgement) and an exception in kernel mode (the faulting core may
// hold it; the report needs no lock). Splitting the BKL (futex table, thread table, fds, mm) is the
// natural next step.
//
// # Files
//
// main.go boot sequence; trap.go dispatch, scheduling on the way out, timeouts; syscall.go the
// system-call table (sysnum.go numbers, zsysnames_amd64.go names for the unknown-syscall log);
// sys_*.go the calls by family; signal.go delivery and rt_sigreturn with Linux's rt_sigframe
// layout; epoll.go the netpoller's epoll/eventfd; thread.go the thread table; clock.go
// CLOCK_MONOTONIC/REALTIME; stack.go the initial process image; fault.go the kernel fault report;
// cmdline.go and multiboot.go the loader's inputs; acpi.go the processor count; smp.go the
// big kernel lock, TLB shootdowns and application-processor start-up; timer.go the one-shot timer;
// klog.go allocation-free output.
package kernel
