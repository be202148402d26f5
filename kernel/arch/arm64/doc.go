//go:build arm64

// Package arm64 is gmpos's AArch64 CPU: the boot path from the loader's jump to Go code, the
// exception vectors, the kernel entry and exit for every exception and interrupt, the generic
// timer, the interrupt controllers' per-core side (the GIC v2 and v3: each core's interface, the
// distributor, IPIs; the Raspberry Pi 3's BCM2836 ARM-local controller, bcmlocal.go), starting
// the other cores (PSCI CPU_ON, or a spin table), paging control and semihosting. It implements
// the architecture contract of gmpos/kernel/arch (whose doc.go lists it); the portable kernel
// reaches it only through that package. The machine around the CPU — the device tree, UARTs,
// the RTC, PCI — is the board's (gmpos/kernel/board/virt, gmpos/kernel/board/rpi), which calls
// the few board-facing functions here (UseGICv2/UseGICv3/UseBCM2836, InitGICDistributor,
// GICEnableSPI, GICEdgeSPI, BCMEnableLine, UsePSCI/UseSpinTable, BootDTB, CounterFreq,
// SemihostExit).
//
// # Exception levels and stacks
//
// The Go program — runtime included — runs at EL0; the kernel at EL1 (ARM ARM D1.1 "Exception
// levels"). As with CPL 3 on amd64, the point is the stack: an exception from EL0 switches to
// SP_EL1, which always holds the top of the core's kernel stack while user code runs (resume pops
// the frame it restores there), so no kernel frame is ever pushed on a small, short-lived Go stack.
// Entered at EL2 (QEMU virt with virtualization=on, the Raspberry Pi firmware) or EL3, the entry
// configures the level above (AArch64 EL1, no traps, the counter readable, CNTVOFF = 0) and drops
// to EL1 with an exception return (D1.11). As on amd64, the program and kernel are one image
// mapped EL0-accessible: EL0 is about stacks and whose fault a fault is, not protection.
//
// # Entry and exit (vectors_arm64.s)
//
// VBAR_EL1 points at a table of 16 slots (D1.10.2): {current EL with SP_EL0, current EL with
// SP_EL1, lower EL AArch64, lower EL AArch32} × {synchronous, IRQ, FIQ, SError}. Each slot makes
// room for a Frame and jumps to trapCommon, which saves X0-X30, SP_EL0, ELR_EL1, SPSR_EL1,
// ESR_EL1 and FAR_EL1; from EL0 it also saves the whole FP/SIMD state (V0-V31, FPSR, FPCR) into
// the thread's area, because kernel Go code uses the vector registers; for an IRQ it reads the
// GIC's acknowledge register (without a GIC, trap names the source in Go: bcmlocal.go). It then loads R28 — Go's g register — with the core's kernel g and
// calls trap. resume restores the frame trap returns and leaves with ERET. No TLS register needs
// switching for the kernel: Go on arm64 keeps g in R28, not in thread-local storage, and the
// program's TPIDR_EL0 is restored from CPU.userTLS.
//
// Frame.Trap classifies an entry from its group and syndrome: SVC from EL0 (ESR_EL1.EC = 0x15)
// is a system call, any other synchronous exception a fault (Fault decodes the syndrome), and an
// IRQ is the timer (PPI 27), an IPI (SGI 1, 2), a device line (SPI n = INTID 32+n) or spurious.
//
// # Memory
//
// With the MMU off every data access is Device memory, where Go's unaligned loads fault, so the
// entry turns the MMU on before any Go code with an identity map of 1 GiB blocks — or 2 MiB
// blocks for a first GiB that mixes RAM and devices — whose layout is the board's, chosen at
// build time (early_virt.go: devices below 1 GiB, RAM above; early_rpi.go with -tags rpi: RAM
// from 0, the Pi 3's peripherals at 0x3f00_0000, the Pi 4's above 3 GiB). kernel/mm then builds the real tables: one root per address
// space loaded into both TTBR0_EL1 and TTBR1_EL1 (mmu.go explains why one root serves both
// halves), MAIR_EL1 indices as in boot.go. Without ASIDs a root switch flushes the TLB. Page-table
// stores are made visible to the walker with DSB before the flush or the return to EL0.
//
// # Interrupts and time
//
// The kernel runs with PSTATE.I set (exception entry sets it); only EL0 code and the idle loop
// (WFI, then unmask, which takes the pending interrupt) run with interrupts unmasked. The
// generic timer gives both the clock (CNTVCT_EL0 at CNTFRQ_EL0 Hz, identical on every core) and
// each core's one-shot timer (the EL1 virtual timer, PPI 27). Its interrupt is a level held while
// the deadline has passed, so trap disables a timer that fired before the kernel sees it: the
// kernel expects a one-shot timer that is quiet once it has fired, like the local APIC's.
//
// # Go code in kernel context
//
// The kernel g (cpu.go) has stack bounds but stackguard 0, and a kernel m whose g0 is itself;
// every Go prologue compares SP with g.stackguard0 through R28, so the entry sets R28 before the
// first call. The runtime's g and m sizes on linux/arm64 are those of go1.26 (cpu.go).
//
// # Upcalls
//
// kernelMain (once at boot) and trap (every entry) are bound by symbol name with //go:linkname.
//
// # Not yet
//
// What QEMU's TCG forgives
// but real cores need: DSB/ISB after mapping a page the kernel touches at once, I-cache
// maintenance for code the kernel writes, cache invalidation of the early tables. TPIDR_EL0 is
// restored on every resume but not saved on entry: a program that writes it directly (musl's
// __set_thread_area; Go does not) would lose the value.
//
// # Files
//
// entry_arm64.s (the entry, EL2/EL3 → EL1, the early map, MMU on), boot.go (kmain, the early
// register values), cpu.go (per-CPU state, the kernel g), frame.go, trapkind.go (trap, fault and
// IPI kinds, the syndrome), trap.go/vectors_arm64.s (entry, exit, Enter), fpu.go, gic.go,
// timer.go, mmu.go, misc.go (halt, RNDR, semihosting), smp.go, sysreg.go/sysreg_arm64.s
// (system registers and privileged instructions), uaccess.go/uaccess_arm64.s (LoadUser32, the
// user read a data abort may end, and its fixup).
package arm64
