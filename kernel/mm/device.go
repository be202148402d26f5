package mm

// Device memory (MMIO) mappings.
//
// The direct map covers RAM only, so after the switch to the page tables
// from BuildKernelSpace a device's register block (the local APIC at
// 0xfee00000, the I/O APIC at 0xfec00000, a UART, a virtio-mmio window...)
// is not reachable until it is mapped here.
//
// Device pages are identity mapped (virtual address = physical address):
// tamago's drivers (github.com/usbarmory/tamago amd64/lapic,
// soc/intel/ioapic) take a uint32 register base and access it directly, so
// the registers must sit at their physical address, below 4 GiB. That
// address is in the user half, so MapDevice also reserves the range in
// Space as a pinned PROT_NONE VMA (VMAPinned|VMADevice): mmap never places
// anything there, munmap/mprotect/MAP_FIXED/MADV_DONTNEED refuse it (EPERM),
// and a user access faults with SEGV_ACCERR.
//
// The pages are supervisor only, read/write, never executable, global and
// strong uncacheable (AttrDevice; x86: PCD=1 PWT=1 select PAT entry 3, UC in
// the power-up PAT, SDM Vol. 3A §11.12.3 Table 11-12, as device registers
// require, §11.3: no speculative reads, no write combining; arm64:
// Device-nGnRE through MAIR_EL1 index 1, pte_arm64.go).

// deviceAttr: supervisor, RW, NX, global, strong uncacheable.
const deviceAttr = AttrWrite | AttrGlobal | AttrDevice

// MapDevice identity-maps the device register range [pa, pa+size), rounded
// out to whole pages, into Kernel and reserves it in Space (see above).
// Pages and VMAs already set up by an earlier MapDevice are kept, so
// overlapping calls (two devices in one page) are harmless.
//
// Errors, before anything changes: EINVAL for an empty or overflowing range,
// one touching page 0 or reaching UserEnd (it could not be identity mapped
// in the user half), or a call before BuildKernelSpace; EEXIST if a page is
// RAM (it must not get a second, uncached alias, SDM §11.12.4), is already
// mapped other than by MapDevice, or lies in a VMA that is not a device
// reservation; ENOMEM when the VMA table is full. ENOMEM is also returned if
// a page-table frame cannot be allocated; the pages mapped until then stay
// (a retry completes them).
func MapDevice(pa, size uintptr) Errno {
	lockMM()
	defer unlockMM()
	end := pa + size
	if Kernel.Root == 0 || size == 0 || end < pa {
		return EINVAL
	}
	lo := alignDown(pa, PageSize)
	hi, ok := alignUp(end, PageSize)
	if !ok || lo < PageSize || hi > UserEnd || hi > physLimit {
		return EINVAL
	}
	for i := Space.find(lo); i < Space.n && Space.vmas[i].Start < hi; i++ {
		if Space.vmas[i].Flags&VMADevice == 0 {
			return EEXIST
		}
	}
	for p := lo; p < hi; p += PageSize {
		if aliasesRAM(p) {
			return EEXIST
		}
		if _, a, ok := Kernel.lookup(p, false); ok && a != deviceAttr {
			return EEXIST // RAM or a mapping of someone else's
		}
	}
	if Space.n+Space.gaps(lo, hi) > MaxVMAs {
		return ENOMEM
	}
	for p := lo; p < hi; p += PageSize {
		if _, _, ok := Kernel.lookup(p, false); ok {
			continue
		}
		if err := Kernel.mapPage(p, p, deviceAttr); err != OK {
			return err
		}
	}
	for at := lo; at < hi; {
		i := Space.find(at)
		if i < Space.n && Space.vmas[i].Start <= at {
			at = Space.vmas[i].End
			continue
		}
		next := hi
		if i < Space.n && Space.vmas[i].Start < hi {
			next = Space.vmas[i].Start
		}
		Space.insert(VMA{Start: at, End: next, Prot: PROT_NONE, Flags: VMAPinned | VMADevice})
		at = next
	}
	return OK
}

// aliasesRAM reports whether the physical page p is RAM: inside a region
// given to Init, or in a 2 MiB chunk the direct map covers with write-back
// memory because RAM overlaps it (below lowDirectMap the direct map also
// covers non-RAM, e.g. the legacy VGA window, whose memory type the MTRRs
// make uncacheable, so only the RAM regions count there). mm lock held.
func aliasesRAM(p uintptr) bool {
	for _, r := range frames.ram[:frames.nram] {
		if p >= r.Base && p-r.Base < r.Len {
			return true
		}
	}
	if p < lowDirectMap {
		return false
	}
	_, a, ok := Kernel.lookup(DirectMapBase+p, false)
	return ok && a&AttrHuge != 0
}
