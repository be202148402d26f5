package mm

import "sync/atomic"

// Hooks the kernel fills in at boot (before the Go runtime starts; they are
// never reassigned afterwards, so reading them needs no synchronisation).
// The instructions themselves live in kernel/arch/amd64; this package stays
// plain Go so that it also runs in hosted tests.
//
// SMP: the kernel's hooks flush this core at once and note that the other
// cores must flush too; it sends them one shootdown IPI at the end of the
// kernel entry (SDM Vol. 3A §4.10.5 "Propagation of Paging-Structure Changes
// to Multiple Processors"; kernel/smp.go). The mm lock is held while the
// hooks run.
var (
	// FlushTLB invalidates the TLB entry (and paging-structure caches) for
	// one page, i.e. INVLPG va (SDM Vol. 3A §4.10.4.1). INVLPG also drops
	// global entries, so it works for G=1 pages. root is the page table
	// whose entry changed: only cores that have it loaded can cache the
	// entry (Kernel's: every core, since every table shares its entries).
	FlushTLB func(root, va uintptr)

	// FlushAll invalidates all non-global TLB entries, i.e. a CR3 reload
	// (SDM Vol. 3A §4.10.4.1). Used when a range operation touched many
	// pages. User pages are never global, so this is sufficient for them.
	// root as for FlushTLB.
	FlushAll func(root uintptr)

	// SyncTLB makes every other core drop the translations FlushTLB and
	// FlushAll removed on this one, and returns when they have (the
	// kernel's TLB shootdown). The allocator calls it before a frame freed
	// since the last call joins the free list (frame.go, pending): until
	// then another core may still read or write it through a stale
	// translation, as Linux's mmu_gather holds its pages until the flush.
	// Called with the mm lock held, which the kernel also holds for every
	// other shootdown: one sender at a time. Nil (hosted tests, one core):
	// nothing to wait for.
	SyncTLB func()
)

// flushRangeLimit: above this many pages a range operation flushes
// everything once instead of issuing one INVLPG per page.
const flushRangeLimit = 32

// changeLeaves calls change(va, e) for every present leaf entry e in
// [start, end), in address order, and invalidates the TLB for the pages it
// changed: one FlushTLB each up to flushRangeLimit, one FlushAll beyond. It
// returns the number of leaves. Range operations (munmap's dropPages,
// mprotect's reprotect) share it so that the flush policy lives in one
// place. mm lock held.
func (as *AddressSpace) changeLeaves(start, end uintptr, change func(va, e uintptr)) uintptr {
	var n uintptr
	for va := start; va < end; {
		p, e, ok := as.PT.nextLeaf(va, end)
		if !ok {
			break
		}
		change(p, e)
		if n < flushRangeLimit {
			flushPage(as.PT.Root, p)
		}
		n++
		va = p + PageSize
	}
	if n > flushRangeLimit {
		flushAll(as.PT.Root)
	}
	return n
}

func flushPage(root, va uintptr) {
	atomic.AddUint64(&tlbGen, 1) // read without the lock too (WordCheck)
	if FlushTLB != nil {
		FlushTLB(root, va)
	}
}

func syncTLB() {
	if SyncTLB != nil {
		SyncTLB()
	}
}

func flushAll(root uintptr) {
	atomic.AddUint64(&tlbGen, 1)
	if FlushAll != nil {
		FlushAll(root)
	}
}
