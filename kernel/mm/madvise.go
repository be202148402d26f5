package mm

// madvise(2), with Linux's argument checks in Linux's order (mm/madvise.c
// do_madvise, madvise_walk_vmas, madvise_vma_behavior).

// madvise(2) advice values (asm-generic/mman-common.h, the same on every
// architecture gmpos targets).
const (
	MADV_NORMAL          = 0
	MADV_RANDOM          = 1
	MADV_SEQUENTIAL      = 2
	MADV_WILLNEED        = 3
	MADV_DONTNEED        = 4
	MADV_FREE            = 8
	MADV_REMOVE          = 9
	MADV_DONTFORK        = 10
	MADV_DOFORK          = 11
	MADV_MERGEABLE       = 12
	MADV_UNMERGEABLE     = 13
	MADV_HUGEPAGE        = 14
	MADV_NOHUGEPAGE      = 15
	MADV_DONTDUMP        = 16
	MADV_DODUMP          = 17
	MADV_WIPEONFORK      = 18
	MADV_KEEPONFORK      = 19
	MADV_COLD            = 20
	MADV_PAGEOUT         = 21
	MADV_POPULATE_READ   = 22
	MADV_POPULATE_WRITE  = 23
	MADV_DONTNEED_LOCKED = 24
	MADV_COLLAPSE        = 25
	MADV_HWPOISON        = 100
	MADV_SOFT_OFFLINE    = 101
	MADV_GUARD_INSTALL   = 102
	MADV_GUARD_REMOVE    = 103
)

// Madvise applies advice to [addr, addr+length). The checks follow
// do_madvise:
//
//  1. advice unknown → EINVAL (madvise_behavior_valid). gmpos knows what
//     Linux 6.18 on x86-64 knows, minus MADV_HWPOISON/MADV_SOFT_OFFLINE
//     (as a kernel without CONFIG_MEMORY_FAILURE, like the reference host)
//     and MADV_GUARD_INSTALL/MADV_GUARD_REMOVE (as a kernel before 6.13:
//     guard regions are not implemented, and pretending would leave the
//     range accessible).
//  2. addr misaligned, a length that wraps when page-rounded, or a range
//     that wraps → EINVAL; then a zero length succeeds.
//  3. MADV_POPULATE_READ/WRITE fault the pages in, in order: a hole →
//     ENOMEM, a page whose protection forbids the access → EINVAL, no
//     memory → ENOMEM (madvise_populate).
//  4. Everything else visits the VMAs in the range like madvise_walk_vmas:
//     an error from a VMA is returned at once, and otherwise ENOMEM if the
//     range had holes (the kernel half, non-canonical addresses and huge
//     lengths are holes). Per VMA (madvise_vma_behavior): discarding
//     advice on a pinned VMA → EPERM (like mseal's can_modify_vma_madv);
//     MADV_REMOVE → EINVAL (anonymous memory has no backing store to
//     punch); MADV_COLLAPSE → EINVAL unless the VMA can hold an aligned
//     huge page and every whole huge page of the range has a present page
//     (what Linux's collapse needs to succeed).
//
// MADV_DONTNEED, MADV_DONTNEED_LOCKED and MADV_FREE really discard the
// pages: each present page is unmapped and its frame freed, so the next
// touch faults in a fresh zero page. This is not an optimisation but a
// correctness requirement: Go's scavenger returns memory with
// MADV_DONTNEED and, on Linux, afterwards assumes the pages read as zero
// (needZeroAfterSysUnusedOS() == false), so a madvise that only returned 0
// would hand the allocator non-zero "fresh" spans. (MADV_FREE is allowed to
// drop lazily; dropping eagerly is a valid implementation.) The other
// advice succeeds without effect: there is no swap, no fork, no core dump,
// no KSM, and user pages are always 4 KiB.
//
// Unlike Linux, which applies the advice VMA by VMA and can fail half way,
// nothing changes when a VMA refuses (EPERM, EINVAL); holes do not stop the
// advice (Linux skips them too).
func (as *AddressSpace) Madvise(addr, length uintptr, advice int) Errno {
	lockMM()
	defer unlockMM()
	return as.MadviseLocked(addr, length, advice)
}

// MadviseLocked is Madvise for a caller that holds the mm lock (Lock), as MunmapLocked.
func (as *AddressSpace) MadviseLocked(addr, length uintptr, advice int) Errno {
	// SYSCALL_DEFINE3(madvise, ..., int, behavior): the upper half of
	// the register is not part of the argument.
	advice = int(int32(advice))
	if !madviseValid(advice) {
		return EINVAL
	}
	if addr&PageMask != 0 {
		return EINVAL
	}
	size, ok := alignUp(length, PageSize)
	if !ok || addr+size < addr {
		return EINVAL
	}
	if size == 0 {
		return OK
	}
	start, end := addr, addr+size
	switch advice {
	case MADV_POPULATE_READ, MADV_POPULATE_WRITE:
		return as.populate(start, end, advice == MADV_POPULATE_WRITE)
	}
	// Decide first, then act: the visit checks have no side effects.
	hole := false
	at := start
	for i := as.find(start); at < end; i++ {
		if i == as.n || as.vmas[i].Start >= end {
			hole = true
			break
		}
		v := as.vmas[i]
		if v.Start > at {
			hole = true
		}
		lo, hi := max(v.Start, at), min(v.End, end)
		if err := as.madviseCheck(v, lo, hi, advice); err != OK {
			return err
		}
		at = hi
	}
	switch advice {
	case MADV_DONTNEED, MADV_DONTNEED_LOCKED, MADV_FREE, MADV_REMOVE:
		// Drop per VMA so holes are skipped exactly as Linux does. A shared
		// mapping keeps its data under DONTNEED (VMAShared) and loses it
		// only to REMOVE.
		for i := as.find(start); i < as.n && as.vmas[i].Start < end; i++ {
			if (as.vmas[i].Flags&VMAShared != 0) != (advice == MADV_REMOVE) {
				continue
			}
			as.madvDropped += as.dropPages(max(as.vmas[i].Start, start), min(as.vmas[i].End, end))
		}
	}
	if hole {
		return ENOMEM
	}
	return OK
}

// madviseValid is madvise_behavior_valid for the advice gmpos implements.
func madviseValid(advice int) bool {
	switch advice {
	case MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED,
		MADV_DONTNEED, MADV_FREE, MADV_REMOVE, MADV_DONTFORK, MADV_DOFORK,
		MADV_MERGEABLE, MADV_UNMERGEABLE, MADV_HUGEPAGE, MADV_NOHUGEPAGE,
		MADV_DONTDUMP, MADV_DODUMP, MADV_WIPEONFORK, MADV_KEEPONFORK,
		MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ, MADV_POPULATE_WRITE,
		MADV_DONTNEED_LOCKED, MADV_COLLAPSE:
		return true
	}
	return false
}

// madviseCheck is madvise_vma_behavior's verdict on VMA v for the part
// [lo, hi) of the range, without acting. mm lock held.
func (as *AddressSpace) madviseCheck(v VMA, lo, hi uintptr, advice int) Errno {
	switch advice {
	case MADV_DONTNEED, MADV_DONTNEED_LOCKED, MADV_FREE, MADV_REMOVE,
		MADV_DONTFORK, MADV_WIPEONFORK:
		// is_madv_discard: refused on sealed mappings.
		if v.Flags&VMAPinned != 0 {
			return EPERM
		}
	}
	shared := v.Flags&VMAShared != 0
	switch advice {
	case MADV_REMOVE:
		if !shared { // madvise_remove: only shmem-backed (shared) mappings have a hole to punch
			return EINVAL
		}
	case MADV_FREE:
		if shared { // madvise_free_single_vma: anonymous private memory only
			return EINVAL
		}
	case MADV_COLLAPSE:
		// thp_vma_allowable_order: the VMA must be able to hold an
		// aligned huge page at all.
		if b, ok := alignUp(v.Start, HugeSize); !ok || b > v.End || v.End-b < HugeSize {
			return EINVAL
		}
		// madvise_collapse: a huge page with nothing in it cannot be
		// collapsed (SCAN_PMD_NULL/SCAN_EXCEED_NONE_PTE → EINVAL).
		// Ranges without a whole aligned huge page have nothing to do.
		b, _ := alignUp(lo, HugeSize)
		for ; b < hi && hi-b >= HugeSize; b += HugeSize {
			if _, _, ok := as.PT.nextLeaf(b, b+HugeSize); !ok {
				return EINVAL
			}
		}
	}
	return OK
}

// populate faults in [start, end) for reading or writing, in address
// order, like madvise_populate: a hole is ENOMEM, a page whose VMA forbids
// the access EINVAL, running out of frames ENOMEM; the pages before the
// problem stay populated. mm lock held.
func (as *AddressSpace) populate(start, end uintptr, write bool) Errno {
	for va := start; va < end; va += PageSize {
		i := as.lookup(va)
		if i < 0 {
			return ENOMEM
		}
		if !allowed(as.vmas[i].Prot, write, false) {
			return EINVAL
		}
		if e := as.PT.leaf(va); e != 0 && satisfies(PTE(load64(e)).attr(), write, false) {
			continue
		}
		if ok, _ := as.fault(va, write, false); !ok {
			return ENOMEM
		}
	}
	return OK
}
