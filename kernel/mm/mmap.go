package mm

// mmap(2), munmap(2) and mprotect(2) for anonymous private memory, with the
// Linux argument checks and error numbers the Go runtime depends on
// (mem_linux.go: sysAlloc, sysReserve, sysMap, sysFree, sysFault).

// mmap flags (include/uapi/linux/mman.h, asm-generic/mman-common.h).
const (
	MAP_SHARED          = 0x01
	MAP_PRIVATE         = 0x02
	MAP_SHARED_VALIDATE = 0x03
	MAP_TYPE            = 0x0f
	MAP_FIXED           = 0x10
	MAP_ANONYMOUS       = 0x20
	MAP_POPULATE        = 0x8000
	MAP_HUGETLB         = 0x40000
	MAP_FIXED_NOREPLACE = 0x100000
)

// Mmap creates an anonymous private mapping.
//
//   - Only MAP_PRIVATE|MAP_ANONYMOUS: file or shared mappings → ENODEV;
//     fd must be -1 and off page aligned, else EINVAL. MAP_HUGETLB → EINVAL.
//   - length 0, unknown prot bits, or no mapping type → EINVAL; a length
//     that overflows or exceeds the user range → ENOMEM.
//   - MAP_FIXED: addr must be page aligned (EINVAL), >= MinAddr (EPERM)
//     and the range must end <= UserEnd (ENOMEM). Whatever was there is
//     unmapped first and its frames freed; pinned VMAs refuse (EPERM).
//   - MAP_FIXED_NOREPLACE: like MAP_FIXED but EEXIST on any overlap.
//   - otherwise addr is a hint, honoured (rounded up to a page) if the
//     range is free and inside [MinAddr, UserEnd); else the highest free
//     range below MmapBase is used (then above it); none → ENOMEM.
//
// No frames are allocated: pages appear on first touch (HandleFault),
// zero-filled; PROT_NONE reservations cost only a VMA slot. MAP_POPULATE
// pre-faults readable mappings, best effort, as Linux does.
// Trap-context safe; mm lock taken.
func (as *AddressSpace) Mmap(addr, length uintptr, prot, flags uint32, fd int, off uintptr) (uintptr, Errno) {
	lockMM()
	defer unlockMM()
	if length == 0 || prot&^(PROT_READ|PROT_WRITE|PROT_EXEC) != 0 {
		return 0, EINVAL
	}
	switch flags & MAP_TYPE {
	case MAP_PRIVATE:
	case MAP_SHARED, MAP_SHARED_VALIDATE:
		return 0, ENODEV
	default:
		return 0, EINVAL
	}
	if flags&MAP_ANONYMOUS == 0 {
		return 0, ENODEV
	}
	// fd is ignored for anonymous mappings, as on Linux (ksys_mmap_pgoff).
	if off&PageMask != 0 || flags&MAP_HUGETLB != 0 {
		return 0, EINVAL
	}
	size, ok := alignUp(length, PageSize)
	if !ok || size > UserEnd {
		return 0, ENOMEM
	}
	var start uintptr
	if flags&(MAP_FIXED|MAP_FIXED_NOREPLACE) != 0 {
		if addr&PageMask != 0 {
			return 0, EINVAL
		}
		if addr < MinAddr {
			return 0, EPERM
		}
		if addr > UserEnd-size {
			return 0, ENOMEM
		}
		start = addr
		end := start + size
		any, pinned := as.overlaps(start, end)
		if any && flags&MAP_FIXED_NOREPLACE != 0 {
			return 0, EEXIST
		}
		if pinned {
			return 0, EPERM
		}
		need, removed := as.punchCost(start, end)
		if as.n+need > MaxVMAs || as.n+need-removed+1 > MaxVMAs {
			return 0, ENOMEM
		}
		if any {
			as.unmapped += as.dropPages(start, end)
			as.punch(start, end)
		}
	} else {
		if as.n == MaxVMAs {
			return 0, ENOMEM
		}
		start = as.placeHint(addr, size)
		if start == 0 {
			start = as.findFree(size, MmapBase)
		}
		if start == 0 {
			start = as.findFree(size, UserEnd)
		}
		if start == 0 {
			return 0, ENOMEM
		}
	}
	as.insert(VMA{Start: start, End: start + size, Prot: prot})
	if flags&MAP_POPULATE != 0 && prot != PROT_NONE {
		for va := start; va < start+size; va += PageSize {
			if ok, _ := as.fault(va, prot&PROT_WRITE != 0, false); !ok {
				break
			}
		}
	}
	return start, OK
}

// placeHint returns the page-rounded hint if [hint, hint+size) is free and
// valid, else 0.
func (as *AddressSpace) placeHint(addr, size uintptr) uintptr {
	if addr == 0 {
		return 0
	}
	a, ok := alignUp(addr, PageSize)
	if !ok || a < MinAddr || a > UserEnd-size {
		return 0
	}
	if any, _ := as.overlaps(a, a+size); any {
		return 0
	}
	return a
}

// findFree returns the highest start address s with [s, s+size) free,
// s >= MinAddr and s+size <= top, or 0. It scans the gaps between VMAs from
// the top down (Linux's top-down mmap layout).
func (as *AddressSpace) findFree(size, top uintptr) uintptr {
	for k := as.n - 1; k >= -1; k-- {
		lo := MinAddr
		if k >= 0 && as.vmas[k].End > lo {
			lo = as.vmas[k].End
		}
		hi := top
		if k+1 < as.n && as.vmas[k+1].Start < hi {
			hi = as.vmas[k+1].Start
		}
		if hi > lo && hi-lo >= size {
			return hi - size
		}
	}
	return 0
}

// Munmap removes [addr, addr+length): VMAs are split or deleted, present
// pages are unmapped, their frames freed and the TLB flushed. Holes in the
// range are fine (Linux semantics). EINVAL for a misaligned addr, zero
// length or a range outside user space; EPERM if a pinned VMA is touched;
// ENOMEM if splitting needs a VMA slot that does not exist.
func (as *AddressSpace) Munmap(addr, length uintptr) Errno {
	lockMM()
	defer unlockMM()
	start, end, err := userRange(addr, length)
	if err != OK {
		return err
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

// Mprotect changes the protection of [addr, addr+length), which must be
// entirely mapped (ENOMEM otherwise). Present pages get their new rights at
// once (and are flushed); missing ones pick them up on the next fault.
// A zero length succeeds. EPERM for pinned VMAs.
func (as *AddressSpace) Mprotect(addr, length uintptr, prot uint32) Errno {
	lockMM()
	defer unlockMM()
	if prot&^(PROT_READ|PROT_WRITE|PROT_EXEC) != 0 {
		return EINVAL
	}
	if length == 0 && addr&PageMask == 0 {
		return OK
	}
	start, end, err := userRange(addr, length)
	if err != OK {
		return err
	}
	if !as.covered(start, end) {
		return ENOMEM
	}
	if _, pinned := as.overlaps(start, end); pinned {
		return EPERM
	}
	if as.n+as.splitsNeeded(start, end) > MaxVMAs {
		return ENOMEM
	}
	i, j := as.carve(start, end)
	for k := i; k < j; k++ {
		as.vmas[k].Prot = prot
	}
	as.mergeAround(i, j)
	as.reprotect(start, end, prot)
	return OK
}

// dropPages unmaps every present page in [start, end), frees the frames the
// allocator owns (AttrOwned) and invalidates the TLB. It returns the number of
// pages dropped. mm lock held.
//
// SMP: frames must only be freed after the shootdown completes; with one
// CPU the TLB entries cannot be used before we return, so freeing inside the
// loop is safe.
func (as *AddressSpace) dropPages(start, end uintptr) uintptr {
	var n uintptr
	for va := start; va < end; {
		p, e, ok := as.PT.nextLeaf(va, end)
		if !ok {
			break
		}
		v := PTE(load64(e))
		store64(e, 0)
		if n < flushRangeLimit {
			flushPage(p)
		}
		if v.attr()&AttrOwned != 0 {
			freeFrame(v.Addr())
		}
		n++
		va = p + PageSize
	}
	if n > flushRangeLimit {
		flushAll()
	}
	return n
}

// reprotect rewrites the rights of every present page in [start, end).
func (as *AddressSpace) reprotect(start, end uintptr, prot uint32) {
	var n uintptr
	for va := start; va < end; {
		p, e, ok := as.PT.nextLeaf(va, end)
		if !ok {
			break
		}
		v := PTE(load64(e))
		store64(e, uint64(pteLeaf(v.Addr(), leafAttr(prot, false)|v.attr()&AttrOwned)))
		if n < flushRangeLimit {
			flushPage(p)
		}
		n++
		va = p + PageSize
	}
	if n > flushRangeLimit {
		flushAll()
	}
}

// leafAttr maps PROT_ bits to the attributes of a present user page, under
// W^X: a mapping that is both writable and executable is installed writable
// and not executable, and switched to read+exec when an instruction fetch
// faults on it (see fault).
//
// PROT_NONE keeps the frame (the data must survive a later mprotect back to
// RW) but makes the page inaccessible: a present supervisor-only entry
// faults from user mode, and HandleFault reports SEGV_ACCERR from the VMA.
func leafAttr(prot uint32, forExec bool) Attr {
	switch {
	case prot == PROT_NONE:
		return 0
	case prot&PROT_EXEC != 0 && (forExec || prot&PROT_WRITE == 0):
		return AttrUser | AttrExec // executable, therefore not writable
	case prot&PROT_WRITE != 0:
		return AttrUser | AttrWrite
	}
	return AttrUser
}
