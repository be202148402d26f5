//go:build amd64

package mm

// PageTable is a 4-level x86-64 hierarchy identified by the physical address
// of its PML4 (the value loaded into CR3, SDM Vol. 3A §4.5.2). All tables are
// frames from the frame allocator reached through PhysToVirt. A PageTable is
// a plain value; copying it does not copy the tables.
type PageTable struct {
	Root uintptr
}

// Levels are numbered like the SDM's walk: 3 = PML4, 2 = PDPT, 1 = PD, 0 = PT.
const (
	levelPML4 = 3
	levelPDPT = 2
	levelPD   = 1
	levelPT   = 0
)

// index returns the 9-bit table index for va at level (SDM Figure 4-8).
func index(va uintptr, level int) uintptr {
	return (va >> (PageShift + 9*uint(level))) & 511
}

// levelSize is the span of one entry at level: 4 KiB, 2 MiB, 1 GiB, 512 GiB.
func levelSize(level int) uintptr { return 1 << (PageShift + 9*uint(level)) }

// tablesAllocated counts paging-structure frames allocated (stats).
var tablesAllocated uintptr

// NewPageTable allocates an empty PML4.
func NewPageTable() (PageTable, Errno) {
	lockMM()
	defer unlockMM()
	return newPageTable()
}

func newPageTable() (PageTable, Errno) {
	pa, ok := allocZeroFrame()
	if !ok {
		return PageTable{}, ENOMEM
	}
	tablesAllocated++
	return PageTable{Root: pa}, OK
}

// slot returns the physical address of the entry that maps va at level
// stop, walking down from the PML4 and creating missing tables when create
// is set. It fails with EEXIST if a huge leaf sits above stop, and with
// ENOMEM when a table cannot be allocated (or, without create, when a level
// is missing). mm lock held.
func (pt PageTable) slot(va uintptr, stop int, create bool) (uintptr, Errno) {
	table := pt.Root
	for level := levelPML4; ; level-- {
		e := table + index(va, level)*8
		if level == stop {
			return e, OK
		}
		v := PTE(load64(e))
		if !v.Present() {
			if !create {
				return 0, ENOMEM
			}
			pa, ok := allocZeroFrame()
			if !ok {
				return 0, ENOMEM
			}
			tablesAllocated++
			v = PTE(pa) | tableFlags
			store64(e, uint64(v))
		} else if v.Huge() {
			return 0, EEXIST
		}
		table = v.Addr()
	}
}

// Map installs a 4 KiB translation va → pa with flags (a subset of
// PTEWrite|PTEUser|PTEWriteThrough|PTECacheDisable|PTEAccessed|PTEDirty|
// PTEGlobal|PTEOwned|PTENoExec; P is added). Errors: EINVAL for misaligned,
// non-canonical or bad flags, EEXIST if va is already mapped (also by a huge
// page), ENOMEM if a table frame cannot be allocated.
// Trap-context safe. No TLB flush is needed: the entry was not present
// (SDM §4.10.4.3: non-present entries are not cached).
func (pt PageTable) Map(va, pa uintptr, flags PTE) Errno {
	lockMM()
	defer unlockMM()
	return pt.mapPage(va, pa, flags)
}

func (pt PageTable) mapPage(va, pa uintptr, flags PTE) Errno {
	if va&PageMask != 0 || pa&PageMask != 0 || !canonical(va) ||
		PTE(pa)&^pteAddr4K != 0 || flags&^leafFlagMask != 0 {
		return EINVAL
	}
	e, err := pt.slot(va, levelPT, true)
	if err != OK {
		return err
	}
	if PTE(load64(e)).Present() {
		return EEXIST
	}
	store64(e, uint64(PTE(pa)|flags|PTEPresent))
	return OK
}

// Map2M installs a 2 MiB translation (a PDE with PS=1, SDM Table 4-17).
// va and pa must be 2 MiB aligned. EEXIST if any translation (page table or
// huge page) already covers the PDE slot.
func (pt PageTable) Map2M(va, pa uintptr, flags PTE) Errno {
	lockMM()
	defer unlockMM()
	return pt.map2M(va, pa, flags)
}

func (pt PageTable) map2M(va, pa uintptr, flags PTE) Errno {
	if va&HugeMask != 0 || pa&HugeMask != 0 || !canonical(va) ||
		PTE(pa)&^pteAddr2M != 0 || flags&^leafFlagMask != 0 {
		return EINVAL
	}
	e, err := pt.slot(va, levelPD, true)
	if err != OK {
		return err
	}
	if PTE(load64(e)).Present() {
		return EEXIST
	}
	store64(e, uint64(PTE(pa)|flags|PTEPresent|PTEHuge))
	return OK
}

// Lookup translates va. It returns the physical address of va itself (page
// frame plus offset), the leaf entry's flags (with PTEHuge set for a 2 MiB or
// 1 GiB leaf) and whether a present translation exists.
func (pt PageTable) Lookup(va uintptr) (pa uintptr, flags PTE, ok bool) {
	lockMM()
	defer unlockMM()
	return pt.lookup(va)
}

func (pt PageTable) lookup(va uintptr) (pa uintptr, flags PTE, ok bool) {
	if !canonical(va) || pt.Root == 0 {
		return 0, 0, false
	}
	table := pt.Root
	for level := levelPML4; level >= levelPT; level-- {
		v := PTE(load64(table + index(va, level)*8))
		if !v.Present() {
			return 0, 0, false
		}
		if level == levelPT || v.Huge() {
			size := levelSize(level)
			base := uintptr(v&pteAddr4K) &^ (size - 1)
			return base + va&(size-1), v &^ pteAddr4K, true
		}
		table = v.Addr()
	}
	return 0, 0, false
}

// leaf returns the physical address of the present 4 KiB leaf entry for va,
// or 0 if there is none (missing table, not present, or a huge page).
// mm lock held.
func (pt PageTable) leaf(va uintptr) uintptr {
	e, err := pt.slot(va, levelPT, false)
	if err != OK || !PTE(load64(e)).Present() {
		return 0
	}
	return e
}

// Unmap removes the 4 KiB translation of va, flushes it from the TLB and
// returns the old frame and flags. It does not free the frame: the caller
// owns it (see PTEOwned for user pages, which the address space frees).
func (pt PageTable) Unmap(va uintptr) (pa uintptr, flags PTE, ok bool) {
	lockMM()
	defer unlockMM()
	return pt.unmapPage(va)
}

func (pt PageTable) unmapPage(va uintptr) (uintptr, PTE, bool) {
	if va&PageMask != 0 || !canonical(va) {
		return 0, 0, false
	}
	e := pt.leaf(va)
	if e == 0 {
		return 0, 0, false
	}
	v := PTE(load64(e))
	store64(e, 0)
	flushPage(va)
	return v.Addr(), v.Flags(), true
}

// Unmap2M removes a 2 MiB translation at va (2 MiB aligned) and flushes it.
func (pt PageTable) Unmap2M(va uintptr) (pa uintptr, flags PTE, ok bool) {
	lockMM()
	defer unlockMM()
	if va&HugeMask != 0 || !canonical(va) {
		return 0, 0, false
	}
	e, err := pt.slot(va, levelPD, false)
	if err != OK {
		return 0, 0, false
	}
	v := PTE(load64(e))
	if !v.Present() || !v.Huge() {
		return 0, 0, false
	}
	store64(e, 0)
	flushPage(va) // INVLPG of any address in the page drops the whole 2 MiB entry (SDM §4.10.4.1)
	return uintptr(v & pteAddr2M), v &^ pteAddr4K, true
}

// Protect replaces the flags of the present 4 KiB leaf at va (keeping its
// frame and the PTEOwned bit) and flushes the stale TLB entry
// (SDM §4.10.4.2: software must invalidate after reducing rights).
func (pt PageTable) Protect(va uintptr, flags PTE) Errno {
	lockMM()
	defer unlockMM()
	if va&PageMask != 0 || flags&^leafFlagMask != 0 {
		return EINVAL
	}
	e := pt.leaf(va)
	if e == 0 {
		return ENOMEM
	}
	v := PTE(load64(e))
	store64(e, uint64(PTE(v.Addr())|v&PTEOwned|flags&^PTEOwned|PTEPresent))
	flushPage(va)
	return OK
}

// nextLeaf finds the first present 4 KiB leaf entry mapping an address in
// [va, end). It skips absent subtrees a whole level at a time, so scanning a
// huge untouched reservation costs one probe per missing table rather than
// one per page. Huge leaves are skipped (user space uses 4 KiB pages only).
// Returns the page address and the entry's physical address. mm lock held.
func (pt PageTable) nextLeaf(va, end uintptr) (uintptr, uintptr, bool) {
	va = alignDown(va, PageSize)
outer:
	for va < end {
		table := pt.Root
		for level := levelPML4; ; level-- {
			e := table + index(va, level)*8
			v := PTE(load64(e))
			if level == levelPT {
				if v.Present() {
					return va, e, true
				}
				va += PageSize
				continue outer
			}
			if !v.Present() || v.Huge() {
				next := alignDown(va, levelSize(level)) + levelSize(level)
				if next <= va { // wrapped at the top of the address space
					return 0, 0, false
				}
				va = next
				continue outer
			}
			table = v.Addr()
		}
	}
	return 0, 0, false
}
