// Package mm is gmpos's memory manager: the physical frame allocator, 4-level
// page tables, the kernel's own mappings, and the Linux-compatible user
// address space (mmap, munmap, madvise, mprotect, demand paging) that the Go
// runtime runs on. Everything except the files named *_amd64.go and
// *_arm64.go is portable; the memory map below is the x86-64 one, and arm64
// has the same virtual layout (its differences follow the map).
//
// # Memory map
//
// One address space is shared by the kernel (CPL0) and the Go program
// (CPL3) in one PML4 (Kernel == Space.PT). A child process has a PML4 of
// its own (process.go): its AddressSpace, bounded to the exec region
// (SetBounds), in slots only it has; the rest Kernel's, supervisor-only.
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
//	0x0000_7fff_fff8_1000 │ vDSO image (AT_SYSINFO_EHDR), R+X        │ user, kernel frames,
//	0x0000_7fff_fff8_0000 │ vvar: the vDSO's clock page, R           │ pinned (MapSpecial)
//	0x0000_7fff_fff0_0000 │ initial stack top; 8 MiB RW below        │ user, pinned VMA
//	                      │ top-down mmap area above/below MmapBase  │ user, demand-zero,
//	0x0000_7f00_0000_0000 │ MmapBase                                 │ 4 KiB pages
//	                      │ Go heap arenas (random 64 MiB hints)     │
//	                      │ ...                                      │
//	0x0000_3000_0000_0000 ├──────────────────────────────────────────┤ ExecEnd
//	                      │ exec region: each child process's image, │ in the child's own
//	                      │ mmap area, stack and vDSO (its own PML4  │ PML4; the program's
//	                      │ and AddressSpace; process.go)            │ reserves it (PROT_NONE)
//	0x0000_2000_0000_0000 ├──────────────────────────────────────────┤ ExecBase
//	                      │ ...                                      │
//	0x0000_0000_fee0_0000 │ device registers (MapDevice): identity   │ supervisor RW NX UC,
//	                      │ mapped, pinned PROT_NONE VMAs            │ reserved in Space
//	                      │ ...                                      │
//	0x0000_0000_4000_0000 │ MAP_32BIT window [1 GiB, 2 GiB)          │
//	                      │ ...                                      │
//	                      │ image: text R+X, rodata R, data/bss RW   │ user, identity mapped,
//	0x0000_0000_0010_0000 │ (pinned VMAs, link address 1 MiB)        │ W^X from ELF flags
//	0x0000_0000_0001_0000 │ MinAddr (lowest mmap address)            │
//	0x0000_0000_0000_0000 │ page 0: never mapped (nil checks)        │
//	                      └──────────────────────────────────────────┘
//
// The initial stack (kernel/stack.go) and the vDSO (kernel/vdso.go) sit at
// fixed addresses: gmpos randomises no part of the layout (Linux places
// both at random; the Go runtime's heap hints are its own randomness).
//
// arm64 (layout_arm64.go) uses the same virtual addresses, EL1/EL0 for
// CPL0/CPL3, and one root in both TTBR0_EL1 and TTBR1_EL1: its L0 slots
// 0..255 are the user half, 256..511 the kernel half, as in the PML4. The
// "non-canonical hole" is there the two ranges the hardware would translate
// as aliases of the other half (bit 47 unlike bits 63:48), which canonical
// refuses. What differs is physical: device registers are identity mapped
// where the board has them (QEMU virt: the GIC at 0x0800_0000, the PL011 at
// 0x0900_0000, PCIe ECAM at 0x40_1000_0000; Raspberry Pi: 0x3f00_0000 or
// 0xfe00_0000), the image is linked into RAM (virt: from 0x4000_0000; Pi:
// from 0), nothing below RAM is direct mapped (lowDirectMap = 0) and there
// is no MAP_32BIT window.
//
// # Components (one file each)
//
// Portable:
//
//   - phys.go: page sizes, PhysToVirt (a variable offset: 0 on the boot
//     identity map, DirectMapBase afterwards, a []byte arena in tests).
//   - frame.go: the frame allocator: a LIFO free list threaded through the
//     free frames themselves, the frames freed since the last TLB
//     synchronisation (pending, off the list), and a bump cursor over
//     never-used RAM; O(1) alloc/free (a synchronisation moves every pending
//     frame at once), and Init does not touch RAM.
//   - pte.go: PTE and Attr, the architecture-neutral description of a
//     translation (write, exec, user, global, device, owned, huge).
//   - pagetable.go: the 4-level walk: Map/Map2M/Unmap/Unmap2M/Lookup/
//     Protect. Intermediate tables come from the frame allocator and are
//     never freed.
//   - kernelspace.go: BuildKernelSpace (direct map + image with W^X),
//     MapKernelStack/FreeKernelStack (guard page below each stack).
//   - device.go: MapDevice, identity-mapped uncached supervisor mappings of
//     device registers (LAPIC, I/O APIC), reserved in Space so that mmap
//     never places anything there.
//   - vma.go, mmap.go, mprotect.go, madvise.go, fault.go: the user address
//     space, with Linux's argument checks in Linux's order.
//   - faultaround.go: a first touch that continues a run of first touches
//     maps the rest of its aligned window (FaultAroundPages) too.
//   - special.go: MapSpecial, kernel-owned frames shown to the program
//     read-only (the vDSO's code and clock page), mapped at once, pinned.
//   - hooks.go: FlushTLB/FlushAll, which the kernel points at INVLPG and a
//     CR3 reload (kernel/arch/amd64); lock.go: the mm lock; errno.go,
//     stats.go.
//
// x86-64 (the porting contract below, for amd64):
//
//   - pte_amd64.go: the entry format (SDM Vol. 3A §4.5, Tables 4-14..4-19)
//     and MAXPHYADDR.
//   - layout_amd64.go: the canonical-address rule, TASK_SIZE (UserEnd),
//     MmapBase, DirectMapBase, KernelStackBase, the multiboot low 16 MiB.
//   - mman_amd64.go: x86's additions to the mmap ABI (MAP_32BIT,
//     MAP_ABOVE4G, the huge page sizes).
//
// arm64 (the same contract):
//
//   - pte_arm64.go: the contract bound to pte_vmsa.go, the MAIR_EL1 value
//     and attribute indices kernel/arch/arm64 programs (MAIRValue), and
//     which barriers and TLB maintenance the arch owes mm.
//   - pte_vmsa.go: the VMSAv8-64 stage 1 descriptor encoder (Arm ARM D8.3,
//     4 KiB granule, 48-bit addresses). Portable so that hosted tests cover
//     it (pte_vmsa_test.go); only pte_arm64.go uses it.
//   - layout_arm64.go: the x86-64 layout through one root in TTBR0_EL1 and
//     TTBR1_EL1, the canonical rule that refuses the aliases, no low
//     direct map.
//   - mman_arm64.go: no MAP_32BIT, no PROT_BTI/PROT_MTE, arm64's huge page
//     sizes.
//
// portable_test.go checks the split: portable files carry no build tag, name
// no identifier that only the architecture files declare except the
// contract, and compile (go/types, arm64 sizes) against a stub implementing
// nothing but the contract. arm64files_test.go type-checks the linux/arm64
// file set on the host and checks its layout constants and zkdata_arm64.go.
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
//     CR4.PGE set first; arm64: MAIR_EL1 = MAIRValue and TCR_EL1 as
//     pte_arm64.go says, then TTBR0_EL1 = TTBR1_EL1 = pt.Root), then
//     SetPhysOffset(DirectMapBase).
//     From here on only the new map exists: boot structures (multiboot
//     info, command line) are read at PhysToVirt(pa) (the low 16 MiB are
//     always direct mapped on x86; on arm64 only RAM is), and device registers at their physical
//     address once MapDevice(pa, size) mapped them (call it before the
//     switch for the registers needed early) — the boot identity map of
//     0..4 GiB is gone.
//  4. MapKernelStack(i) per CPU/thread; Space.MapSpecial for the vDSO's
//     pages; Space.RegisterFixed for the initial user stack (then
//     UserRange(stack, size, true) to pre-fault it before writing
//     argv/envp/auxv).
//  5. From then on: the syscall layer calls Space.Mmap/Munmap/Madvise/
//     Mprotect and UserRange; the #PF handler calls HandleFault with CR2
//     and the error-code bits; a fault report asks
//     Kernel.PeekExecutable(ip) before reading instruction bytes, which is
//     safe even when the fault happened inside mm with the lock held.
//
// SMEP and SMAP must stay off (arm64: PAN off, and the image's text has
// PXN clear): the kernel's code lives in the user-accessible image (one
// shared image) and the kernel copies user buffers with plain loads/stores
// after UserRange.
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
// A defer must be one the compiler open-codes (at most 8, none in a loop,
// returns × defers <= 15): otherwise it calls runtime.deferprocStack, which
// throws "defer on system stack" on g0 — and the Go runtime makes its first
// mmap on g0. Functions with many early returns take the lock in a small
// wrapper instead (Mmap). TestDefersOpenCoded checks this.
//
// Stack: prologues keep their split checks, so the code must run on a kernel
// g whose stack bounds are valid (docs/runtime-contract.md §2.5). There is no
// recursion; frames are at most ~160 bytes and call chains a handful deep,
// so well under 1 KiB is used. Panics are raised only for kernel bugs
// (re-entry, freeing an invalid frame) with constant strings.
//
// # Locking
//
// There is one mm lock covering the frame list, the page tables and the VMA
// table. Exported functions take it (lockMM/unlockMM in lock.go); lower-case
// helpers assume it is held. The kernel calls mm under its big kernel lock
// (kernel/smp.go), and one path without it: a user page fault's first touch
// of a page (FaultFast, under Lock/Unlock; kernel/fault_unlocked.go). So the
// lock is a spin lock (its waiters run the kernel's Relax hook, which
// acknowledges TLB shootdowns), and it still panics on re-entry on one core
// (a fault inside mm). FlushTLB/FlushAll invalidate this core at once; the
// kernel sends the other cores one shootdown (SDM §4.10.5) before it
// releases the BKL (or, for its calls without the BKL, mm's lock), and the
// frames mm frees wait off the free list until a synchronisation (SyncTLB,
// called with mm's lock held, which the kernel holds for every shootdown:
// FaultFast never calls it) — kernel/smp.go and frame.go explain why.
//
// The exceptions only read: FrameCounts, ReadStats, NumVMAs and VMA return
// snapshots, and PageTable.PeekExecutable walks the tables without the lock
// so that a fault report works even for a fault inside mm (see its comment
// for why that is safe: table frames are never freed, and entries are
// written and read with single 64-bit accesses).
//
// # TLB
//
// Entries that go from not-present to present need no invalidation
// (SDM Vol. 3A §4.10.4.3). Every removal or reduction of rights is followed
// by FlushTLB(va) (INVLPG, §4.10.4.1), or by one FlushAll when a range
// operation touched more than flushRangeLimit pages. arm64 is the same
// except that a new entry is only certain to be seen by the walker after a
// DSB (pte_arm64.go says who issues it), and that the hooks' TLBI …IS
// instructions reach every core in the Inner Shareable domain by
// themselves, where x86 needs the kernel's shootdown IPI.
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
//   - Only anonymous private mappings: file mappings and MAP_SHARED get
//     ENODEV (after the checks Linux makes first, so bad arguments still
//     get Linux's errno). MAP_DROPPABLE (Linux 6.11+) is EINVAL, as on
//     older kernels. MAP_HUGETLB is ENOMEM as on Linux without a huge page
//     pool, also with MAP_NORESERVE (which Linux accepts and then SIGBUSes
//     on).
//   - MAP_FIXED below MinAddr is EPERM although getuid() says 0: gmpos
//     never grants CAP_SYS_RAWIO (Go's nil checks rely on page 0 faulting).
//     MAP_LOCKED is not limited by RLIMIT_MEMLOCK (nothing is ever swapped
//     out; it only pre-faults, as Linux does).
//   - MAP_GROWSDOWN mappings are recorded (mprotect's PROT_GROWSDOWN works)
//     but do not grow on faults below them, and keep no stack guard gap.
//   - Placement: the top-down search ignores the stack guard gap and
//     randomisation; MAP_32BIT takes the highest free range of
//     [1 GiB, 2 GiB) rather than the lowest.
//   - VMAs registered with RegisterFixed (the image, which contains the
//     kernel, and the initial stack), MapSpecial's (the vDSO; Linux lets a
//     program unmap or mprotect its vDSO) and MapDevice's reservations are
//     sealed like mseal(2): munmap, MAP_FIXED over them, mprotect and the
//     discarding madvise advice (DONTNEED, DONTNEED_LOCKED, FREE, REMOVE,
//     DONTFORK, WIPEONFORK) return EPERM. Linux refuses the discarding
//     advice only on read-only sealed anonymous memory; gmpos on all
//     pinned VMAs, because the image holds the kernel's own data.
//   - madvise: MADV_GUARD_INSTALL/MADV_GUARD_REMOVE are EINVAL, as before
//     Linux 6.13 (guard regions would need non-present marker entries that
//     faults, munmap and MAP_FIXED honour; silently accepting them would
//     leave the guard pages accessible). MADV_HWPOISON/MADV_SOFT_OFFLINE
//     are EINVAL, as without CONFIG_MEMORY_FAILURE. When a VMA refuses the
//     advice (EPERM, EINVAL) nothing has changed; Linux has already
//     applied it to the VMAs before.
//   - User pages are always 4 KiB. Hugepage advice is accepted and
//     ignored; MADV_COLLAPSE answers as Linux does (EINVAL for a VMA that
//     cannot hold an aligned huge page or an empty huge page, else
//     success) without collapsing anything. A page only ever read counts
//     as present here (Linux maps the shared zero page and then refuses to
//     collapse it).
//   - mprotect over a range with a hole (ENOMEM) or a pinned VMA (EPERM)
//     fails before changing anything; Linux returns the same errno but has
//     already changed the VMAs before the hole or the sealed VMA.
//   - Fault-around for anonymous memory (faultaround.go, when the kernel
//     sets FaultAroundPages above 1): a run of first touches maps its
//     windows but their last pages, which mincore shows; Linux faults anonymous memory in a page
//     at a time (or 2 MiB with THP) and fault-around only file pages.
//   - Page-table pages are never freed (they are reused when the range is
//     mapped again); Stats.Tables counts them.
//   - W^X: a PROT_WRITE|PROT_EXEC page is never writable and executable at
//     the same time; it flips between RW+NX and R+X on faults.
//
// # Porting
//
// The page-table walk is portable: x86-64 4-level paging and arm64 with the
// 4 KiB granule and 48-bit virtual addresses both have four levels of 512
// 64-bit entries indexed by 9 address bits each, 4 KiB pages, and 2 MiB and
// 1 GiB leaves one and two levels up. What differs is the entry format
// (arm64: valid bit, table-vs-block bit, access flag, AP bits, UXN/PXN,
// AttrIndx into MAIR, nG) and the address-space layout, and that is all an
// architecture provides, in pte_GOARCH.go, layout_GOARCH.go and
// mman_GOARCH.go:
//
//   - PTE.Present: the entry is valid (x86 P; arm64 bit 0).
//   - PTE.Huge: a valid entry above the last level is a leaf (x86 PS; arm64 a block, bits[1:0] = 01).
//   - PTE.Addr: the table or 4 KiB frame address (x86 bits 51:12; arm64 47:12).
//   - PTE.attr: decode a leaf into Attr.
//   - pteTable(pa): a valid, fully permissive table entry (rights are decided by the leaf).
//   - pteTableKernel(pa): a valid table entry that denies user access below it (process.go;
//     arm64: APTable[0] and UXNTable, since EL0 may execute what it cannot read). The bits
//     that tell it from pteTable's are what the lock-free user checks (PeekUserWord) apply
//     from the levels above a leaf (deniesUser), as the hardware walk does.
//   - pteLeaf(pa, Attr): a valid last-level entry (arm64: page descriptor, AF=1, AttrIndx for normal or device memory).
//   - pteBlock(pa, Attr): a valid 2 MiB leaf (arm64: level 2 block descriptor).
//   - physLimit: one past the highest physical address an entry can hold.
//   - canonical(va): va can be mapped (x86: bits 63..47 equal; arm64 the same: the hardware
//     translates bits 63..48 all 0 or all 1, but bit 47 unlike them is an alias of the other half).
//   - UserEnd: Linux TASK_SIZE (x86 2^47-4096; arm64 the same, at most 2^47, see below).
//   - MmapBase: where the top-down mmap search starts.
//   - DirectMapBase: the kernel-half base of the direct map of RAM.
//   - KernelStackBase: the kernel-half base of the kernel stacks.
//   - lowDirectMap: physical memory below it is direct mapped even if it is not RAM (boot-protocol
//     data; x86 16 MiB; arm64 0, where low addresses may be devices).
//   - ExecBase, ExecEnd: the exec region, whole top-level slots (for the kernel, not for mm).
//   - mapLow32, map32Base, map32End: the MAP_32BIT flag and its window (x86 only; 0 elsewhere).
//   - mapArchLegacy: arch mmap flags MAP_SHARED_VALIDATE accepts (x86 MAP_32BIT|MAP_ABOVE4G; arm64 0).
//   - protArch: PROT_ bits mprotect accepts beyond R|W|X|SEM (arch_validate_prot; arm64 PROT_BTI and
//     PROT_MTE only if the CPU has them and the kernel enables them — gmpos does not, so 0).
//   - hugetlbShift(shift): 1<<shift is a MAP_HUGETLB size (x86 21, 30; arm64 16, 21, 25, 30).
//
// The hooks (FlushTLB: TLBI VAE1IS + DSB; FlushAll: TLBI VMALLE1IS) come
// from the kernel as on x86. arm64 has a second root register for the upper
// half: load Root into both TTBR0_EL1 and TTBR1_EL1 (T0SZ = T1SZ = 16).
// Both walks index the top table with VA bits 47:39, so user addresses
// below 2^47 use entries 0..255 and kernel addresses from
// 0xffff_8000_0000_0000 entries 256..511, and one PageTable still describes
// the single shared address space. This caps arm64 user space at 2^47
// (Linux allows 2^48 with 48-bit VAs; the Go runtime's hints stay far
// below), and keeps DirectMapBase and KernelStackBase in the upper half of
// the upper half, as on x86. Also on arm64: PAN must stay off (like SMAP
// here), and an executable image page must be readable at EL0 and have
// PXN clear so that the kernel, which lives in the image, can run from it.
//
// References: Intel 64 and IA-32 Architectures Software Developer's Manual,
// Vol. 3A, §4.5 (4-level paging), §4.6 (access rights), §4.7 (page-fault
// error code), §4.10.4 (invalidation of TLBs and paging-structure caches),
// §4.10.5 (propagation to multiple processors), §11.12 (PAT); Arm
// Architecture Reference Manual, D8 (VMSAv8-64 translation); Linux mmap(2),
// munmap(2), madvise(2), mprotect(2), mseal(2), and the sources the argument
// checks follow: arch/x86/kernel/sys_x86_64.c (sys_mmap, MAP_32BIT),
// mm/mmap.c (ksys_mmap_pgoff, do_mmap, __get_unmapped_area), mm/vma.c
// (do_vmi_munmap), mm/mprotect.c (do_mprotect_pkey), mm/madvise.c
// (madvise_behavior_valid, do_madvise, madvise_walk_vmas). Every errno case
// in the tests was also checked on Linux 6.18 x86-64.
package mm
