package mm

// Device memory (MMIO) mappings.
//
// The direct map covers RAM only, so after the switch to the page tables
// from BuildKernelSpace a device register block such as the local APIC
// (0xfee00000) or the I/O APIC (0xfec00000) is not reachable until it is
// mapped here. MMIO pages live at the same place a direct-map address would
// (DirectMapBase + pa), supervisor only, never executable, and uncached:
// PCD=1, PWT=1 select PAT entry 3, which is UC in the power-up PAT
// (SDM Vol. 3A §11.12.3, Table 11-12), as device registers require
// (§11.3: no speculative reads, no write combining).

// mmioAttr: supervisor, RW, NX, global, strong uncacheable.
const mmioAttr = AttrWrite | AttrGlobal | AttrDevice

// MapMMIO maps the physical range [pa, pa+size) (rounded out to pages) into
// Kernel and returns the virtual address of pa. Pages already mapped by an
// earlier MapMMIO are kept, so calling it twice is harmless. EEXIST if the
// range falls inside the RAM direct map (RAM must not get a second, uncached
// alias, SDM §11.12.4), EINVAL for an empty or overflowing range or before
// BuildKernelSpace, ENOMEM when table frames run out.
func MapMMIO(pa, size uintptr) (uintptr, Errno) {
	end := pa + size
	if size == 0 || end < pa || Kernel.Root == 0 || !canonical(DirectMapBase+end-1) {
		return 0, EINVAL
	}
	lockMM()
	defer unlockMM()
	hi, ok := alignUp(end, PageSize)
	if !ok {
		return 0, EINVAL
	}
	for p := alignDown(pa, PageSize); p < hi; p += PageSize {
		va := DirectMapBase + p
		if _, a, ok := Kernel.lookup(va, load64); ok {
			if a&AttrHuge != 0 || a&AttrDevice == 0 {
				return 0, EEXIST // RAM (direct map), not an earlier MMIO page
			}
			continue
		}
		if err := Kernel.mapPage(va, p, mmioAttr); err != OK {
			return 0, err
		}
	}
	return DirectMapBase + pa, OK
}
