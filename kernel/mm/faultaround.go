package mm

// Fault-around: a first touch that continues a run maps the rest of its window too.
//
// A program that grows its heap touches fresh memory in order, a page after the other, and
// each first touch is a page fault: a trap, the mm lock, a VMA search, a page-table walk and a
// return to user mode, around one zeroed frame. Linux answers such runs with transparent huge
// pages (mm/huge_memory.c: one fault maps 2 MiB) and, for file mappings, with fault-around
// (mm/memory.c do_fault_around: fault_around_bytes, 64 KiB by default, of the file's cached
// pages around the fault) and readahead. gmpos does fault-around for anonymous memory, only
// where the access streams, as readahead does (mm/readahead.c: a read that reaches the
// window's marked page opens the next window). A fault at the page where the last one left off
// (faultNext) also installs zeroed pages in the rest of the aligned FaultAroundPages window
// around it, where the VMA covers the window and no page is present yet — all but the window's
// last page, the marker, which the run must touch itself: its fault, and the one at the next
// window's first page, continue the run. A lone first touch maps its page alone. A run in
// order takes two faults per window instead of one per page.
//
// Why only runs, and the marker: a page mapped ahead costs a zeroed frame whether or not it is
// used, and under QEMU the first touch of a guest frame is the host's page fault too (~13 µs on
// these 2-core VMs against ~2 µs for a recycled frame: README, Benchmarks). Mapping every
// window in full made a GC-heavy program (the runtime touching and returning scattered spans)
// install more pages and run slower on one vCPU; a heap that grows in order uses every page it
// gets. Without the marker, touches that skip ahead one window at a time after any two
// adjacent pages (one page in 16 used) would open a window each (a review found it: 16× the
// memory); with it a window opens only for a touch of the previous window's last page and then
// of the next one's first, and a program that touches just those two pages of every window
// uses 8× the memory it touches — the price of not knowing which mapped pages a program used
// (x86's accessed bits would tell, arm64's access flag too if managed in software). A 2 MiB
// page would cut more traps, but under TCG a guest's large pages make QEMU flush its whole soft
// TLB on any single-page invalidation inside them (accel/tcg/cputlb.c tlb_flush_page_locked,
// "large page" tracking).
//
// The pages are mapped only while memory is plentiful (faultAroundReserve): below that the
// kernel maps exactly what is touched, and the pages mapped ahead are among the first the
// program's own MADV_DONTNEED gives back. Only private anonymous VMAs without PROT_EXEC take
// part: a shared one's pages are the shmem object's (VMAShared), pinned and device ranges are
// never demand paged, and an executable one's rights depend on the access (the W^X flip in
// fault).
//
// Called from fault, so under the mm lock and in trap context (no allocation), possibly from
// FaultFast without the BKL: every frame comes from allocFrame, which under frames.noSync
// refuses what would need a TLB synchronisation, and the window stops at the first refusal.
// No TLB flush: the entries were not present (SDM Vol. 3A §4.10.4.3), and on arm64 a walk
// that raced the store faults again, as spurious.

// FaultAroundPages is the window's size in pages, a power of two from 1 (no fault-around) to
// 512 (a whole leaf table, 2 MiB). Set once at boot, before the first fault (the kernel's
// faultaround=N option); the hosted tests set it per test.
var FaultAroundPages uintptr = 1

// faultAroundReserve: pages are mapped ahead only while more than total/faultAroundReserve
// frames are free.
const faultAroundReserve = 8

// SetFaultAround sets FaultAroundPages, and reports false (changing nothing) unless n is a
// power of two in [1, 512].
func SetFaultAround(n uintptr) bool {
	if n == 0 || n > PageSize/8 || n&(n-1) != 0 {
		return false
	}
	FaultAroundPages = n
	return true
}

// faultAround maps the neighbours of page, which fault has just mapped in VMA i, if page
// continues a run (faultNext), as described above, and notes where the run would fault next:
// the window's marker if it is left unmapped, else the page after this one. mm lock held.
func (as *AddressSpace) faultAround(i int, page uintptr) {
	n := FaultAroundPages
	v := &as.vmas[i]
	streaming := page == as.faultNext
	as.faultNext = page + PageSize
	if n <= 1 || !streaming || v.Flags&(VMAPinned|VMADevice|VMAShared) != 0 || v.Prot&PROT_EXEC != 0 {
		return
	}
	lo := max(alignDown(page, n*PageSize), v.Start)
	hi := min(alignDown(page, n*PageSize)+n*PageSize, v.End)
	marker := hi - PageSize
	// The window lies in one leaf table (n ≤ 512, aligned), which the fault's own page needed:
	// its entries are consecutive words from lo's.
	e, err := as.PT.slot(lo, level4K, false)
	if err != OK {
		return
	}
	a := leafAttr(v.Prot, false) | AttrOwned
	for va := lo; va < hi; va, e = va+PageSize, e+8 {
		if va == page || PTE(load64(e)).Present() {
			continue
		}
		if va == marker {
			as.faultNext = marker // the run goes on when it gets there
			continue
		}
		if frames.free <= frames.total/faultAroundReserve {
			return
		}
		pa, ok := allocZeroFrame()
		if !ok {
			return
		}
		publish64(e, uint64(pteLeaf(pa, a))) // after the zeroes (publish64)
		as.faultedAhead++
	}
}
