package mm

// mprotect(2), with Linux's argument checks in Linux's order
// (mm/mprotect.c do_mprotect_pkey), and the translation of PROT_ bits into
// page attributes.

// Mprotect changes the protection of [addr, addr+length). Present pages get
// their new rights at once (and are flushed); missing ones pick them up on
// the next fault. Errors, in do_mprotect_pkey's order:
//
//  1. PROT_GROWSDOWN together with PROT_GROWSUP → EINVAL;
//  2. a misaligned addr → EINVAL; then a zero length succeeds (whatever
//     prot is);
//  3. a range that wraps when page-rounded → ENOMEM;
//  4. prot bits other than PROT_READ|PROT_WRITE|PROT_EXEC|PROT_SEM (and
//     the architecture's protArch) → EINVAL (arch_validate_prot);
//  5. no VMA in the range → ENOMEM: this is what ranges in the kernel half,
//     non-canonical addresses and huge lengths get, as on Linux;
//  6. PROT_GROWSDOWN: the change starts at the first VMA's start, which
//     must be a MAP_GROWSDOWN mapping (else EINVAL); otherwise the range
//     must start inside a VMA (ENOMEM), and PROT_GROWSUP is EINVAL (no
//     architecture gmpos runs on has upward-growing mappings, VM_GROWSUP);
//  7. walking the VMAs in address order, the first hole → ENOMEM or the
//     first pinned VMA → EPERM (like mseal), whichever comes first;
//     ENOMEM if splitting needs VMA slots that do not exist.
//
// PROT_SEM is accepted and ignored. Unlike Linux, which changes the VMAs
// before a hole or a sealed VMA and then fails, nothing changes on error.
func (as *AddressSpace) Mprotect(addr, length uintptr, prot64 uint64) Errno {
	lockMM()
	defer unlockMM()
	return as.MprotectLocked(addr, length, prot64)
}

// MprotectLocked is Mprotect for a caller that holds the mm lock (Lock), as MunmapLocked.
func (as *AddressSpace) MprotectLocked(addr, length uintptr, prot64 uint64) Errno {
	// prot is an unsigned long: bits above 32 are invalid, not ignored
	// (arch_validate_prot below sees them); keep them in an invalid bit.
	prot := uint32(prot64)
	if prot64>>32 != 0 {
		prot |= 1 << 31
	}
	grows := prot & (PROT_GROWSDOWN | PROT_GROWSUP)
	prot &^= PROT_GROWSDOWN | PROT_GROWSUP
	if grows == PROT_GROWSDOWN|PROT_GROWSUP {
		return EINVAL
	}
	if addr&PageMask != 0 {
		return EINVAL
	}
	if length == 0 {
		return OK
	}
	size, _ := alignUp(length, PageSize) // PAGE_ALIGN: may wrap, caught below
	start, end := addr, addr+size
	if end <= start {
		return ENOMEM
	}
	if prot&^(PROT_READ|PROT_WRITE|PROT_EXEC|PROT_SEM|protArch) != 0 {
		return EINVAL
	}
	i := as.find(start) // vma_find(start, end)
	if i == as.n || as.vmas[i].Start >= end {
		return ENOMEM
	}
	if grows&PROT_GROWSDOWN != 0 {
		start = as.vmas[i].Start
		if as.vmas[i].Flags&VMAGrowsDown == 0 {
			return EINVAL
		}
	} else {
		if as.vmas[i].Start > start {
			return ENOMEM
		}
		if grows&PROT_GROWSUP != 0 {
			return EINVAL
		}
	}
	for at := start; at < end; i++ {
		if i == as.n || as.vmas[i].Start > at {
			return ENOMEM
		}
		if as.vmas[i].Flags&VMAPinned != 0 {
			return EPERM
		}
		at = as.vmas[i].End
	}
	if as.n+as.splitsNeeded(start, end) > MaxVMAs {
		return ENOMEM
	}
	prot &= PROT_READ | PROT_WRITE | PROT_EXEC
	i, j := as.carve(start, end)
	for k := i; k < j; k++ {
		as.vmas[k].Prot = prot
	}
	as.mergeAround(i, j)
	as.reprotect(start, end, prot)
	return OK
}

// reprotect rewrites the rights of every present page in [start, end).
func (as *AddressSpace) reprotect(start, end uintptr, prot uint32) {
	as.changeLeaves(start, end, func(_, e uintptr) {
		v := PTE(load64(e))
		store64(e, uint64(pteLeaf(v.Addr(), leafAttr(prot, false)|v.attr()&AttrOwned)))
	})
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
