// Package arch is the contract between the portable kernel (package kernel) and a CPU
// architecture: the exact set of types, constants and functions every architecture provides.
// The kernel calls the CPU only through this package; one small file per architecture
// (arch_amd64.go, arch_arm64.go) selects the package that implements it
// (gmpos/kernel/arch/amd64, gmpos/kernel/arch/arm64) and re-exports its names. contract.go lists every name with its
// signature, so a port that misses one, or gives it another type, does not compile; the kernel's
// TestPortableFiles fails if a portable kernel file names an architecture's package, registers,
// vectors or ports directly.
//
// Everything below may be called in trap context (interrupts off, on the core's kernel stack,
// under the kernel g; no allocation), unless it says "boot".
//
// # Traps (the one way into the kernel)
//
//	Frame                the registers of an interrupted thread, saved on entry, restored on
//	                     resume; a plain value the kernel copies into its thread table
//	NewUserFrame(pc, sp) a frame that starts user code at pc with stack sp, interrupts on
//	f.Trap()             why the kernel was entered — TrapSyscall, TrapFault, TrapTimer,
//	                     TrapIPI (+ kind), TrapIRQ (+ line), TrapSpurious, TrapUnknown
//	f.FromUser()         whether user code was interrupted (else: the kernel itself)
//	f.Syscall()          system call number and six arguments, as the CPU left them
//	f.SetSyscallResult   the result (or -errno) where user code finds it
//	f.SyscallResult      read it back (rt_sigreturn restores it)
//	f.RestartSyscall()   make the thread issue the same system call again when resumed
//	f.EndRestarted(r)    undo that: the call ends with result r after all
//	f.PC, f.SetPC        interrupted instruction pointer
//	f.StackPointer, f.SetStackPointer
//	f.FramePointer()     the interrupted frame pointer (x86 RBP, arm64 R29): where the fault
//	                     report starts walking the callers' frame records
//	f.Fault()            a CPU exception's class (FaultPage, FaultDivide, FaultFloat,
//	                     FaultIllegal, FaultBreakpoint, FaultAlign, FaultFatal, FaultOther), the
//	                     fault address and the access (write, exec); call it first, it may read a
//	                     register the next fault overwrites
//	f.Describe()         trap number and name, for reports
//	f.Registers(each)    every register and fault register, for the fault report
//	EOI(f)               acknowledge the interrupt f is handling (not for TrapSpurious)
//
// The Linux system-call ABI (which register is which argument, the signal frame) is not part of
// this contract: it lives in the kernel's abi_<arch>.go, which may use the architecture's own
// package, because it is as architecture-specific as the registers themselves.
//
// # Resuming threads
//
//	Current()                      this core's CPU; c.ID() its index (0 = the boot core)
//	c.PrepareResume(fpArea, tls)   the FP save area and the TLS register of the thread about
//	                               to be resumed (x86: FS base; arm64: TPIDR_EL0)
//	c.PrepareIdle()                the core halts instead: no thread's state may stay behind
//	c.UseKernelStack(lo, hi)       the stack traps use from the next Enter on
//	Enter(f)                       leave the kernel for the first time on this core; never returns
//	UserEntry()                    the Go program's ELF entry (the runtime's _rt0_<arch>_linux)
//
// # FPU/SIMD state
//
//	FPStateSize, FPStateAlign   size and alignment of a thread's FP save area
//	InitFPState(a)              the state a new Linux process starts with
//	SanitizeFPState(a)          make state read from user memory safe to restore
//	c.SaveFP(a)                 before reading or writing area a: if it belongs to the thread
//	                            that trapped, the part the entry left in the registers (x86:
//	                            the x87 state) is written back first
//
// # Interrupts, timer, clock
//
//	InitInterrupts(mapDevice)   boot: enable this core's interrupt controller (x86: the local
//	                            APIC, whose registers mapDevice identity-maps)
//	MaxIRQLines                 device interrupt lines the trap path can tell apart
//	CalibrateTimer(measure)     boot: measure the per-core timer against the board's clock
//	StartTimer()                put this core's timer in one-shot mode, stopped
//	ArmTimer(ns)                one timer interrupt ns from now (<= 0: stop)
//	TimerRate()                 the timer's measured rate (Hz), for the boot log
//	Cycles()                    the cycle counter the kernel's clock is built on
//	SendIPI(cpu, kind)          interrupt another core: IPIWake (leave the idle halt),
//	SendIPIOthers(kind)         IPIFlush (TLB shootdown); by kind, never by vector
//	Halt(), Pause()             stop until an interrupt; spin-wait hint
//	Fence()                     full memory barrier between cores (smp_mb: MFENCE, DMB ISH)
//
// Interrupts are enabled only in user mode and in the idle halt: the kernel itself always runs
// with them off, so it needs no interrupt-enable call of its own.
//
// # Memory management unit
//
//	SetPageTable(root), PageTable()   load / read the page-table root
//	FlushPage(va), FlushAll()         this core's TLB: one page, all non-global entries
//	SpuriousFault(f)                  a kernel-mode fault on a page just mapped that the walker
//	                                  had not seen yet (arm64): retry, not report
//	SyncICache(va, n)                 code the kernel stored becomes visible to instruction
//	                                  fetch (arm64: cache maintenance; x86: nothing)
//
// The page-table format itself belongs to kernel/mm (pte_<arch>.go).
//
// # User memory that may vanish
//
//	LoadUser32(addr)     (v, ok): the 4-byte word at a user address the caller has checked
//	                     (4-aligned, below the user end), read through the current page table
//	                     as an atomic load (x86 MOV, arm64 LDAR); ok is false if the read
//	                     faulted because the page is not mapped or not readable
//	CopyUser(dst, src, n) ok: n bytes from src to dst, one side or both user memory the caller
//	                     has checked lies below the user end, through the current page table;
//	                     false if a fault on either side ended it (a prefix may have been
//	                     copied)
//	FixupUserAccess(f)   for a fault taken in kernel mode: if it is at one of these routines'
//	                     user accesses (the exception table), point f at the routine's failure
//	                     exit, so that resuming f returns ok = false to its caller, and report
//	                     true; false is a real kernel fault
//	UserFixups()         how many faults FixupUserAccess fixed (atomic, for statistics)
//
// The kernel reads user memory directly (neither x86 SMAP nor arm64 PAN is enabled), which is
// safe while it holds the big kernel lock, since munmap needs it too. An access made without the
// lock — a futex word, a signal frame — races with another core's munmap; LoadUser32 and CopyUser
// are those accesses, with what Linux calls the exception table (arch/x86/mm/extable.c,
// arch/arm64/mm/extable.c): each faulting instruction's address maps to a failure exit. The
// kernel's trap calls FixupUserAccess for a kernel-mode TrapFault after SpuriousFault and before
// reporting the fault, and resumes f in place when it returns true. Each port writes every user
// access as the first instruction of an assembly symbol and the failure exits as other ones with
// the same argument frame, all without a frame of their own, so that the stack (and arm64's link
// register) at the fault is what the failure exit needs to return to the routine's caller.
//
// # Cores
//
//	MaxCPU                    how many cores the kernel can run
//	PrepareCPUs()             boot, on the boot identity map: put the start-up code where the
//	                          other cores can run it
//	SetKernelPageTable(root)  the page table the other cores switch to
//	StartCPUs(wait)           start the other cores; each enters the kernel's apMain(cpu)
//	Online()                  how many cores have checked in, the boot core included
//
// # Miscellaneous
//
//	Random()   a hardware random number, if the CPU has a source
//
// # Upcalls
//
// An architecture package calls three functions of package kernel by symbol name
// (//go:linkname, because it sits below the kernel in the import graph): kernelMain once on
// the boot core, apMain(cpu) once on every other core, and trap(f) *Frame on every entry.
//
// # Porting
//
// A new architecture adds kernel/arch/<arch>/ (its own doc.go says how its traps, stacks and
// per-CPU data work), arch_<arch>.go here, and in package kernel an abi_<arch>.go (the Linux ABI)
// and a generated zsysnum_<arch>.go (go generate in kernel/); kernel/mm needs pte_<arch>.go.
package arch
