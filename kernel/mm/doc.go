// Package mm is gmpos's memory manager: the physical frame allocator, x86-64
// 4-level page tables, the kernel's own mappings, and the Linux-compatible
// user address space (mmap, munmap, madvise, mprotect, demand paging) that
// the Go runtime runs on.
//
// # Memory map
//
// One address space is shared by the kernel (CPL0) and the Go program
// (CPL3); there is a single PML4 (Kernel == Space.PT).
//
//	0xffff_ffff_ffff_ffff ┌──────────────────────────────────────────┐
//	                      │ (unused)                                 │
//	0xffff_c000_0000_0000 ├──────────────────────────────────────────┤ KernelStackBase
//	                      │ kernel stacks: [guard 4K][stack 32K] ... │ supervisor RW NX G
//	0xffff_8000_0000_0000 ├──────────────────────────────────────────┤ DirectMapBase
//	                      │ direct map of RAM: va = base + pa        │ supervisor RW NX G,
//	                      │ (2 MiB pages)                            │ 2 MiB pages
//	                      ├──────────────────────────────────────────┤
//	                      │ non-canonical hole (SDM §4.5)            │
//	0x0000_8000_0000_0000 ├──────────────────────────────────────────┤
//	0x0000_7fff_ffff_f000 │ UserEnd (Linux TASK_SIZE)                │
//	                      │ top-down mmap area above/below MmapBase  │ user, demand-zero,
//	0x0000_7f00_0000_0000 │ MmapBase                                 │ 4 KiB pages
//	                      │ Go heap arenas (random 64 MiB hints)     │
//	                      │ ...                                      │
//	                      │ image: text R+X, rodata R, data/bss RW   │ user, identity mapped,
//	0x0000_0000_0010_0000 │ (pinned VMAs, link address 1 MiB)        │ W^X from ELF flags
//	0x0000_0000_0001_0000 │ MinAddr (lowest mmap address)            │
//	0x0000_0000_0000_0000 │ page 0: never mapped (nil checks)        │
//	                      └──────────────────────────────────────────┘
//
// # Components (one file each)
//
//   - phys.go: constants, PhysToVirt (a variable offset: 0 on the boot
//     identity map, DirectMapBase afterwards, a []byte arena in tests).
//   - frame.go: the frame allocator: a LIFO free list threaded through the
//     free frames themselves plus a bump cursor over never-used RAM; O(1)
//     alloc/free, and Init does not touch RAM.
//   - pte.go, pagetable.go: entry format (SDM Vol. 3A §4.5, Tables
//     4-14..4-19), Map/Map2M/Unmap/Unmap2M/Lookup/Protect. Intermediate
//     tables come from the frame allocator and are never freed.
//   - kernelspace.go: BuildKernelSpace (direct map + image with W^X),
//     MapKernelStack/FreeKernelStack (guard page below each stack).
//   - mmio.go: MapMMIO, uncached supervisor mappings of device registers
//     (LAPIC, I/O APIC) next to the direct map.
//   - vma.go, mmap.go, madvise.go, fault.go: the user address space.
//   - hooks.go: FlushTLB/FlushAll, which the kernel points at INVLPG and a
//     CR3 reload (kernel/arch/amd64); lock.go: the mm lock.
//
// # Boot sequence (what the kernel calls, in order)
//
//  1. Init(ram) with the usable RAM (image, low 1 MiB and boot structures
//     already removed), while PhysToVirt is the boot identity map
//     (SetPhysOffset(0)). Init writes nothing; the frames allocated before
//     the switch (the new page tables: a few plus one PD per GiB of RAM,
//     taken from the start of the first region) must be identity mapped.
//  2. FlushTLB/FlushAll = arch hooks.
//  3. BuildKernelSpace(ram, image) → load CR3 = pt.Root (with EFER.NXE and
//     CR4.PGE set first), then SetPhysOffset(DirectMapBase).
//     From here on only the new map exists: boot structures (multiboot
//     info, command line) are read at PhysToVirt(pa) (the low 16 MiB are
//     always direct mapped), and device registers at the address MapMMIO
//     returns — the boot identity map of 0..4 GiB is gone.
//  4. MapKernelStack(i) per CPU/thread; Space.RegisterFixed for the
//     initial user stack (then UserRange(stack, size, true) to pre-fault it
//     before writing argv/envp/auxv).
//  5. From then on: the syscall layer calls Space.Mmap/Munmap/Madvise/
//     Mprotect and UserRange; the #PF handler calls HandleFault with CR2
//     and the error-code bits.
//
// SMEP and SMAP must stay off: the kernel's code lives in the user-
// accessible image (one shared image) and the kernel copies user buffers
// with plain loads/stores after UserRange.
//
// # Rules (trap context)
//
// Everything here may run before the Go runtime is initialised and inside
// trap handlers. Therefore: no heap allocation, no maps, no fmt, no
// interfaces that escape, no reliance on init() (all state is statically
// zero package-level arrays and integers; the hooks are func values set once
// at boot), and no Go pointers stored in globals (physical addresses are
// uintptr). TestNoAllocations checks the entry points with
// testing.AllocsPerRun. The only runtime routines reached are memmove and
// the panic paths (bounds checks, kernel bugs).
//
// Stack: prologues keep their split checks, so the code must run on a kernel
// g whose stack bounds are valid (runtime-contract §2.5). There is no
// recursion; frames are at most ~128 bytes and call chains a handful deep,
// so well under 1 KiB is used. Panics are raised only for kernel bugs
// (re-entry, freeing an invalid frame) with constant strings.
//
// # Locking
//
// There is one mm lock covering the frame list, the page tables and the VMA
// table. Exported functions take it (lockMM/unlockMM in lock.go); lower-case
// helpers assume it is held. Today, with one CPU and interrupts disabled in
// the kernel, it is a re-entrancy assertion; on SMP it becomes a spin lock
// with interrupts disabled, and FlushTLB becomes a TLB shootdown (SDM
// §4.10.5) after which — and only after which — dropped frames may be
// reused.
//
// # TLB
//
// Entries that go from not-present to present need no invalidation
// (SDM Vol. 3A §4.10.4.3). Every removal or reduction of rights is followed
// by FlushTLB(va) (INVLPG, §4.10.4.1), or by one FlushAll when a range
// operation touched more than flushRangeLimit pages.
//
// # Why MADV_DONTNEED must drop pages
//
// Go's page allocator scavenges free memory with madvise(MADV_DONTNEED).
// On Linux the runtime then trusts the kernel to return zero-filled pages
// when they are reused (runtime: needZeroAfterSysUnusedOS() is false on
// Linux), and skips zeroing them. A madvise that succeeded without
// discarding would leak old data into "fresh" allocations: silent heap
// corruption. So Madvise unmaps and frees the frames, and the next touch
// gets a new zero page through HandleFault.
//
// # Deviations from Linux
//
//   - Only anonymous private mappings (no files, no MAP_SHARED: ENODEV).
//   - VMAs registered with RegisterFixed (the image, which contains the
//     kernel, and the initial stack) are sealed like mseal(2): munmap,
//     MAP_FIXED over them, mprotect and MADV_DONTNEED return EPERM.
//   - User pages are always 4 KiB; hugepage advice is accepted and ignored.
//   - mprotect over a range with a hole fails with ENOMEM before changing
//     anything (Linux changes the part before the hole first).
//   - Page-table pages are never freed (they are reused when the range is
//     mapped again); Stats.Tables counts them.
//   - W^X: a PROT_WRITE|PROT_EXEC page is never writable and executable at
//     the same time; it flips between RW+NX and R+X on faults.
//
// References: Intel 64 and IA-32 Architectures Software Developer's Manual,
// Vol. 3A, §4.5 (4-level paging), §4.6 (access rights), §4.7 (page-fault
// error code), §4.10.4 (invalidation of TLBs and paging-structure caches),
// §4.10.5 (propagation to multiple processors); Linux mmap(2), munmap(2),
// madvise(2), mprotect(2), mseal(2).
package mm
