package mm

// mmap(2) and munmap(2) for anonymous private memory, with Linux's argument
// checks, in Linux's order and with Linux's error numbers: the Go runtime
// depends on some of them (mem_linux.go: sysAlloc, sysReserve, sysMap,
// sysFree), and programs probe others. Each check below names the Linux
// function it mirrors (mm/mmap.c unless said otherwise); the tests in
// mmap_test.go also give the result observed on Linux 6.18 x86-64.

// mmap flags (include/uapi/linux/mman.h, asm-generic/mman.h,
// asm-generic/mman-common.h; the same values on every architecture gmpos
// targets, x86 additions in mman_amd64.go).
const (
	MAP_SHARED          = 0x01
	MAP_PRIVATE         = 0x02
	MAP_SHARED_VALIDATE = 0x03
	MAP_DROPPABLE       = 0x08
	MAP_TYPE            = 0x0f
	MAP_FIXED           = 0x10
	MAP_ANONYMOUS       = 0x20
	MAP_GROWSDOWN       = 0x100
	MAP_DENYWRITE       = 0x800
	MAP_EXECUTABLE      = 0x1000
	MAP_LOCKED          = 0x2000
	MAP_NORESERVE       = 0x4000
	MAP_POPULATE        = 0x8000
	MAP_NONBLOCK        = 0x10000
	MAP_STACK           = 0x20000
	MAP_HUGETLB         = 0x40000
	MAP_SYNC            = 0x80000
	MAP_FIXED_NOREPLACE = 0x100000
	MAP_UNINITIALIZED   = 0x4000000

	// MAP_HUGETLB takes the huge page size as log2 in bits 26..31.
	MAP_HUGE_SHIFT = 26
	MAP_HUGE_MASK  = 0x3f
)

// mapLegacy are the flags MAP_SHARED_VALIDATE accepts
// (include/linux/mman.h LEGACY_MAP_MASK, including the MAP_HUGE_2MB and
// MAP_HUGE_1GB size bits); any other flag is EOPNOTSUPP there and ignored
// with MAP_SHARED and MAP_PRIVATE.
const mapLegacy = MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS |
	MAP_DENYWRITE | MAP_EXECUTABLE | MAP_UNINITIALIZED | MAP_GROWSDOWN |
	MAP_LOCKED | MAP_NORESERVE | MAP_POPULATE | MAP_NONBLOCK | MAP_STACK |
	MAP_HUGETLB | (21|30)<<MAP_HUGE_SHIFT | mapArchLegacy

// Mmap creates an anonymous private mapping. The checks run in the order of
// Linux's sys_mmap → ksys_mmap_pgoff → do_mmap → __get_unmapped_area →
// mmap_region, so that a call with several bad arguments gets the same
// error as on Linux:
//
//  1. off not page aligned → EINVAL (arch sys_mmap).
//  2. MAP_HUGETLB on a file, or with a huge page size the architecture
//     does not have → EINVAL (ksys_mmap_pgoff); the length is rounded up
//     to the huge page size.
//  3. length 0 → EINVAL; a length that overflows when rounded to pages →
//     ENOMEM (do_mmap).
//  4. A length above UserEnd → ENOMEM. MAP_FIXED (and MAP_FIXED_NOREPLACE):
//     a range ending above UserEnd → ENOMEM, then a misaligned addr →
//     EINVAL, then addr < MinAddr → EPERM (security_mmap_addr: gmpos has
//     no CAP_SYS_RAWIO). Otherwise addr is a hint, rounded down to its
//     page and raised to MinAddr (round_hint_to_min), honoured if the range
//     is free and below UserEnd; else the highest free range below
//     MmapBase is used, then any; none → ENOMEM. MAP_32BIT (x86) confines
//     the hint and the search to the first 2 GiB.
//  5. MAP_FIXED_NOREPLACE over any mapping → EEXIST.
//  6. The mapping type: files (no MAP_ANONYMOUS; the kernel has already
//     answered EBADF for a bad fd) → EINVAL for an unknown type,
//     EOPNOTSUPP for MAP_SHARED_VALIDATE with a non-legacy flag, else
//     ENODEV (no file in gmpos can be mapped). Anonymous: MAP_PRIVATE, or
//     MAP_SHARED (VMAShared; EINVAL with MAP_GROWSDOWN); any other type
//     (MAP_SHARED_VALIDATE, MAP_DROPPABLE) → EINVAL.
//  7. MAP_FIXED over a pinned VMA → EPERM (like mseal); no VMA slot →
//     ENOMEM; MAP_HUGETLB → ENOMEM (no huge page pool, as Linux with
//     vm.nr_hugepages = 0).
//
// Then whatever MAP_FIXED replaces is unmapped and its frames freed. Unknown
// prot bits and unknown flags are ignored, as on Linux. No frames are
// allocated: pages appear on first touch (HandleFault), zero-filled;
// PROT_NONE reservations cost only a VMA slot. MAP_POPULATE (unless with
// MAP_NONBLOCK) and MAP_LOCKED pre-fault the pages, best effort, as Linux
// does. MAP_GROWSDOWN is recorded (VMAGrowsDown, for mprotect's
// PROT_GROWSDOWN) but the mapping does not grow on faults below it.
// MAP_NORESERVE, MAP_STACK, MAP_SYNC (without MAP_SHARED_VALIDATE),
// MAP_UNINITIALIZED and the other legacy flags have no effect.
//
// Trap-context safe; mm lock taken.
func (as *AddressSpace) Mmap(addr, length uintptr, prot, flags uint32, file FileAccess, off uintptr) (uintptr, Errno) {
	// No defer here: with this many returns the compiler would not
	// open-code it, and runtime.deferprocStack throws on g0, where the Go
	// runtime makes its first mmap (see "Rules" in doc.go).
	lockMM()
	va, err := as.mmap(addr, length, prot, flags, file, off)
	unlockMM()
	return va, err
}

// MmapLocked is Mmap for a caller that holds the mm lock (Lock), as MunmapLocked.
func (as *AddressSpace) MmapLocked(addr, length uintptr, prot, flags uint32, file FileAccess, off uintptr) (uintptr, Errno) {
	return as.mmap(addr, length, prot, flags, file, off)
}

// FileAccess is how the file behind a file mapping's fd is open: the kernel looks the fd up
// (EBADF) and passes its access mode, which decides between EACCES and ENODEV. Ignored for
// anonymous mappings.
type FileAccess int

const (
	NoFile    FileAccess = -1
	FileRead  FileAccess = 1
	FileWrite FileAccess = 2
)

func (as *AddressSpace) mmap(addr, length uintptr, prot, flags uint32, file FileAccess, off uintptr) (uintptr, Errno) {
	if off&PageMask != 0 {
		return 0, EINVAL
	}
	anonymous := flags&MAP_ANONYMOUS != 0
	hugetlb := flags&MAP_HUGETLB != 0
	var hugeMask uintptr
	if hugetlb {
		shift := flags >> MAP_HUGE_SHIFT & MAP_HUGE_MASK
		if shift == 0 {
			shift = HugeShift
		}
		if !anonymous || !hugetlbShift(shift) {
			return 0, EINVAL
		}
		hugeMask = 1<<shift - 1
		if l, ok := alignUp(length, hugeMask+1); ok {
			length = l
		} else {
			length = 0 // ALIGN wrapped to 0: do_mmap says EINVAL
		}
	}
	if length == 0 {
		return 0, EINVAL
	}
	size, ok := alignUp(length, PageSize)
	if !ok {
		return 0, ENOMEM
	}
	if size > UserEnd {
		return 0, ENOMEM
	}
	fixed := flags&(MAP_FIXED|MAP_FIXED_NOREPLACE) != 0
	start := addr
	if fixed {
		if hugetlb && addr&hugeMask != 0 {
			return 0, EINVAL // hugetlb_get_unmapped_area
		}
		if addr > UserEnd-size {
			return 0, ENOMEM
		}
		if addr&PageMask != 0 {
			return 0, EINVAL
		}
		if addr < MinAddr {
			return 0, EPERM
		}
		if as.hi != 0 && (addr < as.lo || addr+size > as.hi) {
			return 0, ENOMEM // outside a child's region: another process's memory
		}
	} else if start = as.place(addr, size, flags); start == 0 {
		return 0, ENOMEM
	}
	end := start + size
	var any, pinned bool
	if fixed {
		any, pinned = as.overlaps(start, end)
	}
	if any && flags&MAP_FIXED_NOREPLACE != 0 {
		return 0, EEXIST
	}
	if !anonymous {
		switch flags & MAP_TYPE {
		case MAP_SHARED, MAP_PRIVATE:
		case MAP_SHARED_VALIDATE:
			if flags&^mapLegacy != 0 {
				return 0, EOPNOTSUPP
			}
		default:
			return 0, EINVAL
		}
		// do_mmap on a file: a shared writable mapping needs a file open for writing, every
		// mapping one open for reading (EACCES); then the file must know how to be mapped,
		// and no gmpos file does (ENODEV).
		if flags&MAP_TYPE != MAP_PRIVATE && prot&PROT_WRITE != 0 && file&FileWrite == 0 {
			return 0, EACCES
		}
		if file&FileRead == 0 {
			return 0, EACCES
		}
		return 0, ENODEV
	}
	switch flags & MAP_TYPE {
	case MAP_PRIVATE:
	case MAP_SHARED:
		if flags&MAP_GROWSDOWN != 0 {
			return 0, EINVAL
		}
	default:
		return 0, EINVAL
	}
	if pinned {
		return 0, EPERM
	}
	if fixed {
		need, removed := as.punchCost(start, end)
		if as.n+need > MaxVMAs || as.n+need-removed+1 > MaxVMAs {
			return 0, ENOMEM
		}
	} else if as.n == MaxVMAs {
		return 0, ENOMEM
	}
	if hugetlb {
		return 0, ENOMEM
	}
	if any {
		as.unmapped += as.dropPages(start, end)
		as.punch(start, end)
	}
	var vflags uint32
	if flags&MAP_GROWSDOWN != 0 {
		vflags = VMAGrowsDown
	}
	if flags&MAP_TYPE == MAP_SHARED {
		vflags |= VMAShared
	}
	prot &= PROT_READ | PROT_WRITE | PROT_EXEC
	as.insert(VMA{Start: start, End: end, Prot: prot, Flags: vflags})
	populate := flags&(MAP_POPULATE|MAP_NONBLOCK) == MAP_POPULATE || flags&MAP_LOCKED != 0
	if populate && prot != PROT_NONE {
		for va := start; va < end; va += PageSize {
			if ok, _ := as.fault(va, prot&PROT_WRITE != 0, false); !ok {
				break
			}
		}
	}
	return start, OK
}

// place chooses where a mapping without MAP_FIXED goes: the hint if
// possible, else the highest free range below MmapBase, else the highest
// free range anywhere; 0 if none (x86: arch_get_unmapped_area_topdown).
func (as *AddressSpace) place(hint, size uintptr, flags uint32) uintptr {
	// round_hint_to_min: the hint's page, but never below mmap_min_addr.
	hint = alignDown(hint, PageSize)
	if hint != 0 && hint < MinAddr {
		hint = MinAddr
	}
	lo, top := uintptr(MinAddr), UserEnd
	if flags&mapLow32 != 0 {
		lo, top = map32Base, map32End
	}
	base := MmapBase
	if as.hi != 0 { // a child's region
		lo, top, base = max(lo, as.lo), min(top, as.hi), as.mmapTop
		if lo >= top {
			return 0
		}
		if hint < lo {
			hint = 0
		}
	}
	if hint != 0 && size <= top && hint <= top-size {
		if any, _ := as.overlaps(hint, hint+size); !any {
			return hint
		}
	}
	if top > base {
		if s := as.findFree(size, lo, base); s != 0 {
			return s
		}
	}
	return as.findFree(size, lo, top)
}

// findFree returns the highest start address s with [s, s+size) free,
// s >= lo and s+size <= top, or 0. It scans the gaps between VMAs from the
// top down (Linux's top-down mmap layout).
func (as *AddressSpace) findFree(size, lo, top uintptr) uintptr {
	for k := as.n - 1; k >= -1; k-- {
		l := lo
		if k >= 0 && as.vmas[k].End > l {
			l = as.vmas[k].End
		}
		hi := top
		if k+1 < as.n && as.vmas[k+1].Start < hi {
			hi = as.vmas[k+1].Start
		}
		if hi > l && hi-l >= size {
			return hi - size
		}
	}
	return 0
}

// Munmap removes [addr, addr+length): VMAs are split or deleted, present
// pages are unmapped, their frames freed and the TLB flushed. Holes in the
// range are fine (Linux semantics). Errors, in do_vmi_munmap's order:
// EINVAL for a misaligned addr, a range reaching beyond UserEnd (the kernel
// half, non-canonical addresses, lengths that overflow) or a zero length;
// EPERM if a pinned VMA is touched (like mseal); ENOMEM if splitting needs
// a VMA slot that does not exist.
func (as *AddressSpace) Munmap(addr, length uintptr) Errno {
	lockMM()
	defer unlockMM()
	return as.MunmapLocked(addr, length)
}

// MunmapLocked is Munmap for a caller that holds the mm lock (Lock): the kernel's path without
// the BKL, which looks at its thread's state under the lock first (kernel/mm_unlocked.go).
func (as *AddressSpace) MunmapLocked(addr, length uintptr) Errno {
	if addr&PageMask != 0 || addr > UserEnd || length > UserEnd-addr {
		return EINVAL
	}
	size, _ := alignUp(length, PageSize) // cannot overflow: length <= UserEnd
	if size == 0 {
		return EINVAL
	}
	start, end := addr, addr+size
	if as.hi != 0 { // a child's region: pages outside it are another process's
		start, end = max(start, as.lo), min(end, as.hi)
		if start >= end {
			return OK
		}
	}
	any, pinned := as.overlaps(start, end)
	if pinned {
		return EPERM
	}
	if !any {
		return OK
	}
	if need, _ := as.punchCost(start, end); as.n+need > MaxVMAs {
		return ENOMEM
	}
	as.unmapped += as.dropPages(start, end)
	as.punch(start, end)
	return OK
}

// dropPages unmaps every present page in [start, end), frees the frames the
// allocator owns (AttrOwned) and invalidates the TLB. It returns the number of
// pages dropped. mm lock held.
//
// SMP: other cores may still cache the dropped translations until the
// kernel's shootdown; the frames wait off the free list (frames.pending), and
// the allocator synchronises the TLBs before it hands one out again (SyncTLB).
func (as *AddressSpace) dropPages(start, end uintptr) uintptr {
	return as.changeLeaves(start, end, func(_, e uintptr) {
		v := PTE(load64(e))
		store64(e, 0)
		if v.attr()&AttrOwned != 0 {
			freeFrame(v.Addr())
		}
	})
}
