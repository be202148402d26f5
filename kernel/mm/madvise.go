package mm

// madvise(2) advice values (asm-generic/mman-common.h).
const (
	MADV_NORMAL     = 0
	MADV_RANDOM     = 1
	MADV_SEQUENTIAL = 2
	MADV_WILLNEED   = 3
	MADV_DONTNEED   = 4
	MADV_FREE       = 8
	MADV_HUGEPAGE   = 14
	MADV_NOHUGEPAGE = 15
	MADV_COLLAPSE   = 25
)

// Madvise applies advice to [addr, addr+length).
//
// MADV_DONTNEED and MADV_FREE really discard the pages: each present page is
// unmapped and its frame freed, so the next touch faults in a fresh zero
// page. This is not an optimisation but a correctness requirement: Go's
// scavenger returns memory with MADV_DONTNEED and, on Linux, afterwards
// assumes the pages read as zero (needZeroAfterSysUnusedOS() == false), so a
// madvise that only returned 0 would hand the allocator non-zero "fresh"
// spans. (MADV_FREE is allowed to drop lazily; dropping eagerly is a valid
// implementation.)
//
// The hints NORMAL, RANDOM, SEQUENTIAL, WILLNEED, HUGEPAGE, NOHUGEPAGE and
// COLLAPSE succeed without effect (user pages are always 4 KiB). Any other
// advice is EINVAL. As on Linux the advice is applied to the mapped parts
// and ENOMEM is returned if part of the range is unmapped. EINVAL for a
// misaligned addr; a zero length succeeds. EPERM for discarding pinned VMAs.
func (as *AddressSpace) Madvise(addr, length uintptr, advice int) Errno {
	lockMM()
	defer unlockMM()
	discard := false
	switch advice {
	case MADV_DONTNEED, MADV_FREE:
		discard = true
	case MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED,
		MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_COLLAPSE:
	default:
		return EINVAL
	}
	if addr&PageMask != 0 {
		return EINVAL
	}
	if length == 0 {
		return OK
	}
	start, end, err := userRange(addr, length)
	if err != OK {
		return err
	}
	if discard {
		if _, pinned := as.overlaps(start, end); pinned {
			return EPERM
		}
		// Drop per VMA so holes are skipped exactly as Linux does.
		for i := as.find(start); i < as.n && as.vmas[i].Start < end; i++ {
			lo, hi := as.vmas[i].Start, as.vmas[i].End
			if lo < start {
				lo = start
			}
			if hi > end {
				hi = end
			}
			as.madvDropped += as.dropPages(lo, hi)
		}
	}
	if !as.covered(start, end) {
		return ENOMEM
	}
	return OK
}

// userRange validates addr/length like munmap/madvise/mprotect do.
func userRange(addr, length uintptr) (start, end uintptr, err Errno) {
	if addr&PageMask != 0 || length == 0 {
		return 0, 0, EINVAL
	}
	size, ok := alignUp(length, PageSize)
	if !ok || size > UserEnd || addr > UserEnd-size {
		return 0, 0, EINVAL
	}
	return addr, addr + size, OK
}
