package mm

import "sync/atomic"

// PageTable is a 4-level hierarchy of 512-entry tables identified by the
// physical address of its top-level table: the value loaded into CR3 on
// x86-64 (SDM Vol. 3A §4.5.2); on arm64 (4 KiB granule, 48-bit VA) the value
// loaded into both TTBR0_EL1 and TTBR1_EL1 (see "Porting" in doc.go). All
// tables are frames from the frame allocator reached through PhysToVirt. A
// PageTable is a plain value; copying it does not copy the tables.
//
// The walk is the same on both architectures: 9 index bits per level, 4 KiB
// pages, 2 MiB and 1 GiB leaves one and two levels up. Only the entry format
// differs, and that is hidden behind pteTable/pteLeaf/pteBlock and the PTE
// methods (pte_GOARCH.go).
type PageTable struct {
	Root uintptr
}

// Levels are numbered from the leaf up, like the SDM's walk: 3 is the top
// (x86 PML4, arm64 level 0), 0 the last (x86 PT, arm64 level 3).
const (
	levelTop = 3 // each entry spans 512 GiB
	level1G  = 2 // each entry spans 1 GiB (x86 PDPT, arm64 level 1)
	level2M  = 1 // each entry spans 2 MiB (x86 PD, arm64 level 2)
	level4K  = 0 // each entry maps one 4 KiB page
)

// index returns the 9-bit table index for va at level (SDM Figure 4-8;
// Arm ARM D8.2.5 for the 4 KiB granule).
func index(va uintptr, level int) uintptr {
	return (va >> (PageShift + 9*uint(level))) & 511
}

// levelSize is the span of one entry at level: 4 KiB, 2 MiB, 1 GiB, 512 GiB.
func levelSize(level int) uintptr { return 1 << (PageShift + 9*uint(level)) }

// tablesAllocated counts paging-structure frames allocated (stats).
var tablesAllocated uintptr

// NewPageTable allocates an empty top-level table.
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
// stop, walking down from the top and creating missing tables when create
// is set. It fails with EEXIST if a huge leaf sits above stop, and with
// ENOMEM when a table cannot be allocated (or, without create, when a level
// is missing). mm lock held.
func (pt PageTable) slot(va uintptr, stop int, create bool) (uintptr, Errno) {
	table := pt.Root
	for level := levelTop; ; level-- {
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
			v = pteTable(pa)
			publish64(e, uint64(v)) // after the table's zeros (publish64)
		} else if v.Huge() {
			return 0, EEXIST
		}
		table = v.Addr()
	}
}

// Map installs a 4 KiB translation va → pa with attributes a (any of
// AttrWrite|AttrExec|AttrUser|AttrGlobal|AttrDevice|AttrOwned). Errors:
// EINVAL for a misaligned or non-canonical va, a misaligned pa or one beyond
// the physical address width, or other attributes; EEXIST if va is already
// mapped (also by a huge page); ENOMEM if a table frame cannot be allocated.
// Trap-context safe. No TLB flush is needed: the entry was not present
// (SDM §4.10.4.3: non-present entries are not cached).
func (pt PageTable) Map(va, pa uintptr, a Attr) Errno {
	lockMM()
	defer unlockMM()
	return pt.mapPage(va, pa, a)
}

func (pt PageTable) mapPage(va, pa uintptr, a Attr) Errno {
	if va&PageMask != 0 || pa&PageMask != 0 || !canonical(va) ||
		pa >= physLimit || a&^attrMapMask != 0 {
		return EINVAL
	}
	e, err := pt.slot(va, level4K, true)
	if err != OK {
		return err
	}
	if PTE(load64(e)).Present() {
		return EEXIST
	}
	publish64(e, uint64(pteLeaf(pa, a))) // after the page's contents (publish64)
	return OK
}

// Map2M installs a 2 MiB translation (x86: a PDE with PS=1, SDM Table 4-17).
// va and pa must be 2 MiB aligned. EEXIST if any translation (page table or
// huge page) already covers the slot.
func (pt PageTable) Map2M(va, pa uintptr, a Attr) Errno {
	lockMM()
	defer unlockMM()
	return pt.map2M(va, pa, a)
}

func (pt PageTable) map2M(va, pa uintptr, a Attr) Errno {
	if va&HugeMask != 0 || pa&HugeMask != 0 || !canonical(va) ||
		pa >= physLimit || a&^attrMapMask != 0 {
		return EINVAL
	}
	e, err := pt.slot(va, level2M, true)
	if err != OK {
		return err
	}
	if PTE(load64(e)).Present() {
		return EEXIST
	}
	store64(e, uint64(pteBlock(pa, a)))
	return OK
}

// Lookup translates va. It returns the physical address of va itself (page
// frame plus offset), the leaf's attributes (with AttrHuge for a 2 MiB or
// 1 GiB leaf) and whether a present translation exists. It takes the mm
// lock; see PeekExecutable for the lock-free query a fault report needs.
func (pt PageTable) Lookup(va uintptr) (pa uintptr, a Attr, ok bool) {
	lockMM()
	defer unlockMM()
	return pt.lookup(va, false)
}

// lookup walks the tables: with load64 under the mm lock, with peek64 without
// it (peek). A flag rather than the load function itself: the futex path
// walks once per wait (PeekUserWord), and an indirect call per level, which
// the compiler cannot inline, doubled the walk's instructions.
//
// A peek also applies the rights of the table entries above the leaf: a
// child's table reaches the program's memory through entries that deny user
// access below them (pteTableKernel, process.go), whose leaves still carry
// AttrUser — the hardware walk ANDs the levels' rights, and so must a
// check that stands in for it (the lock-free user checks below). Without
// it, a child's futex wait without the BKL read the program's words.
func (pt PageTable) lookup(va uintptr, peek bool) (pa uintptr, a Attr, ok bool) {
	if !canonical(va) || pt.Root == 0 {
		return 0, 0, false
	}
	table := pt.Root
	userDenied := false
	for level := levelTop; level >= level4K; level-- {
		e := table + index(va, level)*8
		var v PTE
		if peek {
			v = PTE(peek64(e))
		} else {
			v = PTE(load64(e))
		}
		if !v.Present() {
			return 0, 0, false
		}
		if level == level4K || v.Huge() {
			size := levelSize(level)
			a := v.attr()
			if level != level4K {
				a |= AttrHuge
			}
			if userDenied {
				a &^= AttrUser
			}
			return v.Addr()&^(size-1) + va&(size-1), a, true
		}
		if peek && deniesUser(v) {
			userDenied = true
		}
		table = v.Addr()
	}
	return 0, 0, false
}

// PeekExecutable reports whether va is mapped and executable in pt. Unlike
// Lookup it takes no lock and never allocates, so that a fault report may
// call it even when the fault happened inside mm with the lock held (Lookup
// would panic with "mm: re-entered"): the report uses it to decide whether
// it may read the instruction bytes at the faulting IP.
//
// The unlocked walk is safe because
//   - table frames are never freed (see doc.go), so every table address read
//     from an entry, even a stale one, still points at a page table;
//   - every entry is written with one aligned 64-bit store and read here
//     with one atomic 64-bit load, which both x86-64 and arm64 perform
//     single-copy atomically: the walk sees each entry either before or
//     after an update, never half of one;
//   - the answer is only advice for a reader: it may be stale by the time
//     the caller reads, which matters only for pages that can be unmapped
//     concurrently (user mappings on another CPU). The image's text, where
//     the kernel's own code lives, is pinned and never unmapped.
func (pt PageTable) PeekExecutable(va uintptr) bool {
	_, a, ok := pt.lookup(va, true)
	return ok && a&AttrExec != 0
}

// PeekUserWord reports whether user code may read the 4-byte word at va in pt
// right now, as far as the tables say: a present leaf with AttrUser (not
// PROT_NONE, not a device page or another process's slot, which are
// supervisor-only), and no kernel variable in the word (kernelData: the
// kernel's variables share the image's pages with the program's). Like
// PeekExecutable it takes no lock (the same reasons make it safe): the
// kernel's futex path without the BKL asks it before it reads a futex word
// through its exception fixup, and a concurrent munmap or mprotect makes
// the answer one from just before the change, as if the read came first.
func (pt PageTable) PeekUserWord(va uintptr) bool {
	if va >= UserEnd || va&3 != 0 || kernelData(va, va+4) {
		return false
	}
	_, a, ok := pt.lookup(va, true)
	return ok && satisfies(a, false, false)
}

// deniesUser reports whether table entry v takes user access away from
// everything below it: whether it has the bits that tell pteTableKernel's
// entries from pteTable's (x86: no PTEUser; arm64: APTable[0], UXNTable),
// whatever else the hardware set in it (x86's accessed bit).
func deniesUser(v PTE) bool {
	open := pteTable(v.Addr())
	return (v^open)&(open^pteTableKernel(v.Addr())) != 0
}

// WordCheck remembers the page of the last word PeekUserWordRemembered found
// readable, in which table and under which TLB generation (tlbGen): the lock-free
// counterpart of checkedPages, one per thread. Plain data, owned by its thread.
type WordCheck struct {
	root, page uintptr
	gen        uint64 // 0: nothing remembered
}

// PeekUserWordRemembered is PeekUserWord with c, the caller's own memory of the
// last page that passed: a word on that page passes without the walk while no
// TLB invalidation has happened since (the rule checkedPages follows: munmap,
// mprotect, MADV_DONTNEED, MAP_FIXED over a page, a teardown all invalidate,
// and bump tlbGen). The generation is read before the walk, so a change during
// it leaves c stale. A page holding a kernel variable is never remembered (the
// answer there depends on the word). Measured (README, Benchmarks): the walk
// was 1,081 of a 1-vCPU thread ping-pong's 18,547 instructions per round trip,
// whose futex words stay on the same two pages. No lock.
func (pt PageTable) PeekUserWordRemembered(va uintptr, c *WordCheck) bool {
	page := va &^ (PageSize - 1)
	gen := atomic.LoadUint64(&tlbGen)
	if c.gen == gen && c.page == page && c.root == pt.Root && va&3 == 0 {
		return true
	}
	if !pt.PeekUserWord(va) {
		return false
	}
	if !kernelData(page, page+PageSize) {
		*c = WordCheck{root: pt.Root, page: page, gen: gen}
	}
	return true
}

// PeekUserRange is PeekUserWord for the n bytes at va, any alignment: every
// page of the range present and readable — writable too, if write — by user
// code, and no kernel variable in it; an empty range passes. The kernel's
// signal paths without the BKL ask it before they copy a signal frame with
// arch.CopyUser, whose fixup turns a concurrent munmap into a failed copy.
func (pt PageTable) PeekUserRange(va, n uintptr, write bool) bool {
	end := va + n
	if n == 0 {
		return true
	}
	if end < va || end > UserEnd || kernelData(va, end) {
		return false
	}
	for p := va &^ (PageSize - 1); p < end; p += PageSize {
		if _, a, ok := pt.lookup(p, true); !ok || !satisfies(a, write, false) {
			return false
		}
	}
	return true
}

// peek64 reads an entry without the mm lock (see PeekExecutable).
func peek64(pa uintptr) uint64 {
	return atomic.LoadUint64((*uint64)(ptrAt(PhysToVirt(pa))))
}

// leaf returns the physical address of the present 4 KiB leaf entry for va,
// or 0 if there is none (missing table, not present, or a huge page).
// mm lock held.
func (pt PageTable) leaf(va uintptr) uintptr {
	e, err := pt.slot(va, level4K, false)
	if err != OK || !PTE(load64(e)).Present() {
		return 0
	}
	return e
}

// Unmap removes the 4 KiB translation of va, flushes it from the TLB and
// returns the old frame and attributes. It does not free the frame: the
// caller owns it (see AttrOwned for user pages, which the address space
// frees).
func (pt PageTable) Unmap(va uintptr) (pa uintptr, a Attr, ok bool) {
	lockMM()
	defer unlockMM()
	return pt.unmapPage(va)
}

func (pt PageTable) unmapPage(va uintptr) (uintptr, Attr, bool) {
	if va&PageMask != 0 || !canonical(va) {
		return 0, 0, false
	}
	e := pt.leaf(va)
	if e == 0 {
		return 0, 0, false
	}
	v := PTE(load64(e))
	store64(e, 0)
	flushPage(pt.Root, va)
	return v.Addr(), v.attr(), true
}

// Unmap2M removes a 2 MiB translation at va (2 MiB aligned) and flushes it.
func (pt PageTable) Unmap2M(va uintptr) (pa uintptr, a Attr, ok bool) {
	lockMM()
	defer unlockMM()
	if va&HugeMask != 0 || !canonical(va) {
		return 0, 0, false
	}
	e, err := pt.slot(va, level2M, false)
	if err != OK {
		return 0, 0, false
	}
	v := PTE(load64(e))
	if !v.Present() || !v.Huge() {
		return 0, 0, false
	}
	store64(e, 0)
	flushPage(pt.Root, va) // INVLPG of any address in the page drops the whole 2 MiB entry (SDM §4.10.4.1)
	return v.Addr() &^ HugeMask, v.attr() | AttrHuge, true
}

// Protect replaces the attributes of the present 4 KiB leaf at va (keeping
// its frame and AttrOwned, which describes the frame rather than the
// access) and flushes the stale TLB entry (SDM §4.10.4.2: software must
// invalidate after reducing rights).
func (pt PageTable) Protect(va uintptr, a Attr) Errno {
	lockMM()
	defer unlockMM()
	if va&PageMask != 0 || a&^attrMapMask != 0 {
		return EINVAL
	}
	e := pt.leaf(va)
	if e == 0 {
		return ENOMEM
	}
	v := PTE(load64(e))
	store64(e, uint64(pteLeaf(v.Addr(), a&^AttrOwned|v.attr()&AttrOwned)))
	flushPage(pt.Root, va)
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
		for level := levelTop; ; level-- {
			e := table + index(va, level)*8
			v := PTE(load64(e))
			if level == level4K {
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
