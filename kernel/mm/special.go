package mm

// Special mappings: frames the kernel owns, shown to the program.
//
// The vDSO (kernel/vdso) is two such pages: its code and the clock page the kernel writes.
// Unlike every other user page they do not come from demand paging: the kernel fills the
// frames first and keeps writing them (through the direct map, never through the user mapping,
// which is read-only), so they are mapped at once and never freed. Linux calls these "special
// mappings" (mm/mmap.c _install_special_mapping); its vDSO and vvar VMAs are ones.

// MapSpecial maps the frames [pa, pa+length) at [va, va+length) for the program, with prot:
// PROT_READ, optionally with PROT_EXEC — never PROT_WRITE, since the kernel changes these pages
// and the program must not — and records the range as a pinned VMA (VMAPinned: munmap,
// mprotect, MAP_FIXED over it and discarding advice fail with EPERM, see doc.go). The pages are
// user-accessible, not global, and not owned: nothing frees the frames.
//
// Errors, before anything is mapped: EINVAL for an unaligned or empty range, one outside
// [MinAddr, UserEnd), a frame beyond the physical limit, or a prot other than the two above;
// EEXIST if the range overlaps a VMA; ENOMEM when the VMA table is full. ENOMEM also if a
// page-table frame cannot be had, after unmapping the pages mapped until then.
//
// Boot (the kernel maps the vDSO once); trap-context safe all the same: no allocation.
func (as *AddressSpace) MapSpecial(va, pa, length uintptr, prot uint32) Errno {
	lockMM()
	defer unlockMM()
	end := va + length
	if va&PageMask != 0 || pa&PageMask != 0 || length == 0 || length&PageMask != 0 || end < va ||
		va < MinAddr || end > UserEnd || pa+length < pa || pa+length > physLimit ||
		(prot != PROT_READ && prot != PROT_READ|PROT_EXEC) {
		return EINVAL
	}
	if any, _ := as.overlaps(va, end); any {
		return EEXIST
	}
	if as.n == MaxVMAs {
		return ENOMEM
	}
	attr := leafAttr(prot, false) // user; executable or not; never writable
	for off := uintptr(0); off < length; off += PageSize {
		if err := as.PT.mapPage(va+off, pa+off, attr); err != OK {
			for back := uintptr(0); back < off; back += PageSize {
				as.PT.unmapPage(va + back)
			}
			return err
		}
	}
	as.insert(VMA{Start: va, End: end, Prot: prot, Flags: VMAPinned})
	return OK
}
