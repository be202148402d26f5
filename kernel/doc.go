// Package kernel is the gmpos kernel. Linked into an ordinary Go program (the runner injects
// import _ "gmpos/kernel"), it boots the machine and then plays Linux for the Go runtime: the
// program's threads — the runtime's Ms — are the kernel's schedulable entities, the Gs of package
// sched, and every system call the runtime makes is answered here, as docs/runtime-contract.md
// describes.
//
// # Concepts
//
//   - Thread: a kernel-schedulable context (Linux's task, the runtime's M), thread i being sched
//     G i (thread.go). Its state is the G's status in the scheduler.
//   - Process: a thread group with an address space, fd table, signal dispositions and working
//     directory (proc.go). Process 0 is the program; os/exec's vfork and execve make children
//     (exec.go), whose memory is a second address space in the exec region (docs/processes.md).
//   - Trap: the one way into the kernel after boot — an interrupt, an exception or a system call —
//     and the frame of registers it saved (arch.Frame).
//   - Wait: a system call that cannot finish parks its thread (block); a waker ends it with a
//     result or by running the call again (wait.go).
//   - File: an open file description; fds refer to files, and each kind of file implements
//     fileOps (fd.go).
//   - Line: a device interrupt line with a registered handler (irq.go).
//   - Socket: the kernel's half of a socket — its data rings, readiness, addresses and accept
//     queue (socket.go) — behind a socket fd; the protocols live in the network stack, which runs
//     as goroutines of the program and reaches the kernel through gmpos_net (net_svc.go; the
//     contract and the cost of each path are in kernel/netabi/doc.go).
//   - Poller: the kernel's network poller (net_poller.go), sched.Poller over the NIC: the
//     scheduler asks it for threads whose network I/O completed, as findRunnable asks netpoll.
//
// # Seams
//
// The portable files name no CPU and no board (TestPortableFiles checks it):
//
//	gmpos/kernel/arch     the CPU contract (its doc.go): traps and frames, FPU state, the
//	                      per-core timer and IPIs, TLB and page-table root, starting cores;
//	                      arch_amd64.go selects gmpos/kernel/arch/amd64, arch_arm64.go
//	                      gmpos/kernel/arch/arm64
//	Board (board.go)      the machine around the CPU: the loader's hand-off, processors,
//	                      console, reference and wall clocks, device interrupt routing, exit;
//	                      board_pc.go selects gmpos/kernel/board/pc (amd64), board_virt.go
//	                      gmpos/kernel/board/virt (arm64: QEMU's virt machine)
//	abi_<arch>.go         the Linux ABI of the architecture: system-call registers, clone's
//	                      argument order, struct stat, epoll_event, the signal frame, auxv,
//	                      uname's machine, MINSIGSTKSZ, arch-only calls (arch_prctl)
//	zsysnum_<arch>.go     the architecture's system-call numbers, generated (mksysnum.go)
//	kernel/mm             memory: frames, page tables (pte_<arch>.go), VMAs, demand paging
//
// # The one entry point
//
// After boot the kernel only ever runs inside trap (trap.go). The architecture saved the
// interrupted thread's registers in a frame on this core's kernel stack; trap handles the event
// and returns the frame to resume — the same thread, another one (the scheduler's choice), or nil
// to halt the core until the next interrupt. The kernel never blocks and is never preempted. A
// core about to halt first polls briefly without the BKL (idle.go): a deadline due within
// microseconds, or another core's wake-up within the halt-poll window, is then handled as its
// interrupt would be, with no interrupt. On every way out, armTimer (timer.go) arms the core's
// one-shot timer for the nearest deadline, and for the running thread's slice end only if
// another thread waits (tickAt): a thread that has its core to itself takes no interrupt, so
// whatever another core has for it — a signal, a kill — kicks its core with an IPI (kickThread,
// signal.go). The timer is written only when that deadline comes sooner than the armed one: a
// later one leaves the armed one to fire early and find nothing due, since each write to the
// emulated local APIC costs tens of µs under QEMU's big lock.
//
// # Contexts
//
//   - boot: kernelMain (main.go) and apMain (smp.go), before the Go runtime exists: static data
//     only, nothing may rely on package init().
//   - trap: everything under trap — system calls, faults, the timer — with interrupts off, under
//     the BKL, on a 32 KiB kernel stack, under the per-CPU kernel g (kernel/arch/amd64 cpu.go),
//     with no P.
//   - unlocked: trap context without the BKL — an idle core's wake-up and a running one's kick
//     (wake_unlocked.go), the Go runtime's futex calls (futex_unlocked.go), nanosleep,
//     sched_yield and the timer interrupt when nothing of the BKL's is due (sleep_unlocked.go),
//     getpid and gettid (self_unlocked.go), a page's first touch (fault_unlocked.go), madvise
//     and the mmap, munmap and mprotect calls that take no checked page away (mm_unlocked.go),
//     a TLB shootdown sent by either of the last two (under mm's lock, as every shootdown), tgkill to
//     a thread of the caller's process, a caught signal's delivery and rt_sigreturn
//     (signal_unlocked.go), the idle poll, a TLB-shootdown IPI.
//     It writes only its core's own state, the scheduler's, data under a lock below the BKL (the
//     futex queue) and atomics (a thread's pending signals among them); it reads the thread it picks after
//     arch.Fence and resumes it only once no other core holds it (oncpu.go), the machine-wide
//     timer inputs from unlockedView and futexQ.next (timer.go unlockedNext), user memory only
//     through arch.LoadUser32 and arch.CopyUser (a fault there is a failed access, not a kernel
//     fault) after the page table says the program may make the access, and a few
//     BKL data racily on purpose (wake_unlocked.go says which).
//   - interrupt: a device interrupt's handler (irq.go): trap context, and moreover short — it
//     acknowledges the device, records, wakes; nothing else.
//   - report: the kernel fault report (fault.go) runs whatever the kernel was doing: no lock at
//     all, not even the BKL.
//
// Rules for all of them:
//   - no heap allocation: no fmt/strconv (klog.go formats by hand), no append to nil, no
//     interface conversions of non-pointer values, no closures that escape, no maps, no interface
//     calls with stack buffers (the compiler must assume they escape: the Board is called through
//     its concrete type);
//   - no write barriers: kernel tables hold GIDs, indices and uintptrs, never Go pointers that a
//     store into a global could publish while the runtime's GC runs (the only pointer stores —
//     the IRQ table's handlers and a few more — happen at boot). A struct with a string or slice
//     field copied into a table or through a pointer is a barrier too: the barrier then looks
//     the destination up in the heap's tables and faults on a kernel address. The compiler
//     lists every barrier it emits (-d=wb); TestNoWriteBarrierAfterBoot allows them only in the
//     boot functions it names;
//   - no stack growth: the kernel g's stackguard is 0, an overflow hits the guard page (→ #DF →
//     report); keep frames small (well under a page);
//   - user memory is touched only after userRange/userArray has checked (and pre-faulted) it
//     (util.go); bad pointers give EFAULT, never a kernel fault.
//
// # Ownership
//
// The words of sched/doc.go: "protected by the BKL" (most kernel data: the thread and process
// tables, the fd tables and open files — whose slots and identities readers without it may
// also read, under fdSeq (fd.go) —, signal state but the pending sets — a thread's
// own mask, alternate stack and frame are also its core's while it runs there — the IRQ
// table's counts); "under
// futexQ's lock" (the futex waiters, sleepers and epoll waits without a temporary mask, and
// their wait fields: futex.go); "under epollLock" (epoll's instances and items, the files'
// watcher links, the eventfds' counters: epoll.go); "owned by the core"
// (cpuState's fields, written only by that core); "held by a core" (a thread's x87 state and
// frame while it runs or its core switches away: oncpu.go); "atomic" (bkl, smpGo,
// cpuState.flushReq, cpuState.tlbState, cpuState.polling, unlockedView, onCPU, CPU times, ktime,
// a thread's sigpending — under signal.go's rule — and the stats counters the unlocked paths
// count); "immutable after boot" (clock, bootTimes,
// ncpu, processID, imageText, vdsoState, the board's hand-off). Each global says which.
//
// # Lock order
//
// A lock may be taken only while every lock the core already holds ranks lower (outermost
// first). The kernel's own locks check it as they are taken (spinlock.go): a violation stops the
// machine with a report.
//
//	rank 1  BKL (smp.go)          taken at the top of trap, released on the way out
//	rank 2  epollLock (epoll.go)   epoll's instances and items, the files' watcher links, the
//	                               eventfds' counters; with or without the BKL; never while a
//	                               file is released (putFile takes it) or fileNotify runs
//	rank 3  futexQ.lock (futex.go) the futex, sleep and epoll_wait queue; with or without the BKL
//	rank 4  vconLock (vconsole.go)  the virtio console; with or without the BKL, never with
//	                               futexQ's; kernel text takes it for a bounded time from
//	                               anywhere (spinLock.lockWithin), a wait that cannot deadlock
//	  → sched's locks              sched/doc.go, "Lock order" (its poll try-lock, held across
//	                               Poller.Poll, is above epollLock and futexQ's: the network
//	                               poller's wake-ups take them; a try-lock never waits)
//	    → the mm lock              kernel/mm/doc.go; a leaf; under futexQ.lock only when a load
//	                               there faults a dropped page in (mm_unlocked.go); with or
//	                               without the BKL (fault_unlocked.go, mm_unlocked.go); its holder
//	                               sends every shootdown (smp.go) and may wait for the
//	                               acknowledgements, which its waiters give (mm's Relax hook)
//
// The UARTs have no lock: only the BKL holder writes to them, and the fault report, which
// writes regardless; the virtio console has vconLock. Some paths never take the BKL: a TLB-shootdown IPI (its sender holds the BKL and
// waits for the acknowledgement), an exception or system call in kernel mode (the faulting core
// may hold it), the idle poll, an idle core's wake-up, unless the thread it picks needs the kernel
// (wake_unlocked.go; it takes the scheduler's locks only), a kick to a running core with nothing
// to deliver (the same file), the runtime's futex calls (futex_unlocked.go: futexQ's lock and the
// scheduler's), its sleeps and yields and the timer interrupts that end the sleeps
// (sleep_unlocked.go: the same), getpid and gettid, a page fault's first touch of a page
// (fault_unlocked.go: mm's lock alone), madvise and the mm calls that take no checked page away
// (mm_unlocked.go: mm's lock alone), and the runtime's signals — tgkill, delivery,
// rt_sigreturn (signal_unlocked.go: futexQ's lock and the scheduler's), a write to the
// virtio console (console_unlocked.go: vconLock, the fd tables read under their sequence count,
// fdSeq in fd.go), and the netpoller's epoll_wait and eventfd reads and writes
// (poll_unlocked.go: epollLock, futexQ's lock inside it, fdSeq). Every wait for a lock or for a thread another core holds
// acknowledges shootdowns, whose sender may hold what it waits for. The rest of the split
// (threads, fds, munmap and mprotect of checked pages, the blocking calls) is the next step;
// smp.go says what it needs.
//
// # Invariants
//
//   - A thread is blocked (wait != waitNone) exactly when its G is Gwaiting and it is on a
//     waiter list (futexQ's for waitFutex, waitSleep and waitEpoll, waiters for the rest);
//     only unblock takes it off.
//   - No core resumes a thread another core holds (onCPU): a core lets go of its thread before
//     it asks the scheduler for the next one.
//   - A blocked thread's system-call result is written by its waker, never by the call itself.
//   - An open file's refs counts the fds that refer to it plus the waits that hold it (a read
//     or write's, waitFile; epoll's waits hold none); it is released (kind's release, epoll
//     items removed) when refs reaches 0. Its waiting counts the threads parked on it on
//     waiters (waitFile, waitEpollMasked).
//   - An epoll item is on its instance's ready list at most once (onReady).
//   - A thread's sigTimer and sigKernel bits are pending signals (subsets of sigpending); a
//     POSIX timer is queued at thread gp exactly when gp's sigTimer holds its signal.
//
// # Files
//
// main.go boot; trap.go dispatch and the way out; wait.go blocking and waking; futex.go;
// timer.go the one-shot timer; clock.go; smp.go the BKL, shootdowns, the other cores;
// wake_unlocked.go an idle core's wake-up without the BKL; futex_unlocked.go the runtime's futex
// calls without it; sleep_unlocked.go its sleeps, yields and timer interrupts; self_unlocked.go
// getpid and gettid; fault_unlocked.go a page's first touch; mm_unlocked.go madvise, mmap,
// munmap and mprotect where they may, and a checked page faulted in again; signal_unlocked.go tgkill,
// delivery and rt_sigreturn;
// oncpu.go which core holds a thread; spinlock.go locks below the BKL;
// percpu.go; platform.go sched.Platform; thread.go; signal.go delivery and rt_sigreturn;
// sigsource.go the siginfo of timer and kernel signals; cputime.go CPU-time accounting;
// ptimer.go POSIX timers; itimer.go setitimer's timers;
// syscall.go the table; sys_*.go the calls by family (sys_wait.go: wait4 and waitid);
// proc.go processes (vfork, exit, the table), exec.go execve (kernel/elf decodes the headers),
// fd.go the fd table and fileOps; fd_console.go (and console_input.go: stdin and forwarded
// signals; vconsole.go the virtio console: stdout and stderr as one framed stream), fd_eventfd.go, fd_pipe.go, fd_dev.go (/dev/null and co.), epoll.go (and poll_unlocked.go:
// epoll_wait and the eventfd without the BKL), fd_socket.go,
// fd_file.go (the tree's files and getdents64) the kinds; sys_path.go the calls that name files
// by path; fs_boot.go the tree at boot (initramfs, /dev, /etc, /proc; kernel/vfs); fs9p.go,
// fs9p_ops.go, fd_9p.go the shares (host directories over virtio-9p, the kernel the 9P client);
// pci_devices.go the PCI functions the drivers claim; irq.go the
// interrupt table and its self-test; nic.go the virtio-net NIC and its file; net_poller.go
// the network poller; net_svc.go gmpos_net, the stack's events and requests; socket.go,
// sys_socket.go sockets; netlink.go, fd_netlink.go, sys_netlink.go NETLINK_ROUTE sockets (the
// interfaces); ipconfig.go the addresses (ip=); stack.go the initial process image
// (args_module.go: argv and envp from the runner); vdso.go the
// vDSO's pages (kernel/vdso); fault.go the fault report; cmdline.go,
// klog.go, trace.go, ktime.go (where the kernel's time goes), profile.go (the whole-machine
// sampling profiler: profile=HZ), util.go (user memory), uio.go
// (buffers and iovec arrays of one transfer), errno.go; board.go the Board contract; abi_amd64.go,
// board_pc.go, zsysnum_amd64.go (mksysnum.go) for x86-64 and the PC; abi_arm64.go (its
// layouts in abi_arm64_layout.go, checked on any host), board_virt.go, zsysnum_arm64.go for
// arm64 and QEMU virt.
//
// # Cross-reading (Linux)
//
//	trap, syscall         arch/x86/entry/common.c do_syscall_64, kernel/entry/common.c
//	sysVfork, procExit    kernel/fork.c copy_process, kernel/exit.c do_exit, exit_notify
//	sysExecve             fs/exec.c do_execveat_common, fs/binfmt_elf.c load_elf_binary
//	sysWait4, sysWaitid   kernel/exit.c do_wait
//	block, wakeThread     kernel/sched/core.c schedule(), try_to_wake_up()
//	wakeToRestart         kernel/signal.c + arch/x86/kernel/signal.c: -ERESTARTSYS
//	sysFutex              kernel/futex/{syscalls,waitwake,requeue}.c
//	deliverSignal         arch/x86/kernel/signal.c get_sigframe, signal_64.c
//	chargeUser, charge    kernel/sched/cputime.c (vtime accounting), account_steal_time
//	ptimer.go             kernel/time/posix-timers.c, posix-cpu-timers.c
//	itimer.go             kernel/time/itimer.c
//	fd table, file        fs/file.c, include/linux/fs.h struct file, file_operations
//	epoll                 fs/eventpoll.c (ep_insert, ep_poll_callback, ep_send_events)
//	eventfd               fs/eventfd.c
//	socket, sys_socket    net/socket.c (sys_socket, __sys_accept4, move_addr_to_user),
//	                      include/net/sock.h (struct socket vs struct sock: the same split)
//	nicIRQ, netPoller     net/core/dev.c NAPI: napi_schedule, net_rx_action (interrupt off,
//	                      poll the ring dry, interrupt on)
//	netlink sockets       net/netlink/af_netlink.c, net/core/rtnetlink.c (and kernel/rtnetlink)
//	irqRegister           kernel/irq/manage.c request_irq
//	kernelFault           arch/x86/kernel/dumpstack.c __die
//
// # References
//
// docs/runtime-contract.md (what the runtime expects), docs/contract.md (runner ↔ kernel),
// Linux man-pages (2) for each call, the Linux sources cited at each function.
package kernel
