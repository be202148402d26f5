package mm

// Page-fault resolution (demand paging) and user-pointer validation.

// Fault codes returned by HandleFault. The first two are the si_code values
// the kernel must put in the SIGSEGV siginfo (the Go runtime turns only
// SEGV_MAPERR/SEGV_ACCERR at addresses < 4096 into a nil-pointer panic).
const (
	SEGV_MAPERR = 1 // no VMA at the address
	SEGV_ACCERR = 2 // VMA exists but its protection forbids the access
	// FaultOOM: the access was legal but no frame (or page-table frame)
	// was available. The kernel reports this as out of memory; it is not
	// a SIGSEGV.
	FaultOOM = -int(ENOMEM)
)

// HandleFault resolves a page fault at va (CR2) for an access that was a
// write (error code bit 1) and/or an instruction fetch (bit 4), from user
// mode (bit 2) or from the kernel touching user memory (SDM Vol. 3A §4.7,
// Figure 4-12). user is informational: addresses outside the user range
// fail with SEGV_MAPERR either way and the kernel decides what a kernel-mode
// failure means (usually a panic).
//
// Inside a VMA whose prot allows the access, a missing page gets a fresh
// zeroed frame mapped with the VMA's rights; a present page is fixed up (a
// W^X flip for PROT_WRITE|PROT_EXEC VMAs, or a stale TLB entry) and ok.
// Otherwise: SEGV_MAPERR (no VMA) or SEGV_ACCERR (prot forbids it). Out of
// frames: ok=false, code=FaultOOM.
//
// Trap-context safe: no allocation; mm lock taken.
func HandleFault(va uintptr, write, exec, user bool) (ok bool, code int) {
	lockMM()
	ok, code = Space.fault(va, write, exec)
	unlockMM()
	return
}

// HandleFault is the method form for address spaces other than Space
// (used by tests).
func (as *AddressSpace) HandleFault(va uintptr, write, exec, user bool) (ok bool, code int) {
	lockMM()
	ok, code = as.fault(va, write, exec)
	unlockMM()
	return
}

// allowed reports whether prot permits the access. Any non-NONE mapping is
// readable: x86 has no write-only or execute-only page without protection
// keys (SDM §4.6), and Linux gives arm64 the same semantics unless the CPU
// has FEAT_EPAN, which gmpos does not rely on.
func allowed(prot uint32, write, exec bool) bool {
	switch {
	case prot == PROT_NONE:
		return false
	case write && prot&PROT_WRITE == 0:
		return false
	case exec && prot&PROT_EXEC == 0:
		return false
	}
	return true
}

// satisfies reports whether a present user leaf with attributes a already
// grants the access.
func satisfies(a Attr, write, exec bool) bool {
	if a&AttrUser == 0 {
		return false
	}
	if write && a&AttrWrite == 0 {
		return false
	}
	if exec && a&AttrExec == 0 {
		return false
	}
	return true
}

// fault is HandleFault with the mm lock held.
func (as *AddressSpace) fault(va uintptr, write, exec bool) (bool, int) {
	if va >= UserEnd {
		return false, SEGV_MAPERR
	}
	i := as.lookup(va)
	if i < 0 {
		return false, SEGV_MAPERR
	}
	prot := as.vmas[i].Prot
	if !allowed(prot, write, exec) {
		return false, SEGV_ACCERR
	}
	page := alignDown(va, PageSize)
	if e := as.PT.leaf(page); e != 0 {
		v := PTE(load64(e))
		if !satisfies(v.attr(), write, exec) {
			// W^X flip (or rights lagging the VMA): reinstall
			// with the rights this access needs.
			store64(e, uint64(pteLeaf(v.Addr(), leafAttr(prot, exec)|v.attr()&AttrOwned)))
		}
		flushPage(as.PT.Root, page)
		as.spurious++
		return true, 0
	}
	pa, ok := allocZeroFrame()
	if !ok {
		return false, FaultOOM
	}
	if err := as.PT.mapPage(page, pa, leafAttr(prot, exec)|AttrOwned); err != OK {
		freeUnmapped(pa) // never mapped: no TLB reaches it (and no sync: FaultFast may be here)
		return false, FaultOOM
	}
	as.faults++
	as.faultAround(i, page) // faultaround.go
	return true, 0
}

// FaultFast handles the common user page fault without the kernel's big lock: a first touch of a
// page that is not present, in a VMA that allows the access, answered with a new zeroed frame.
// It reports false, having changed nothing, for everything else — a present page (a spurious
// fault or a rights change, whose TLB flush is the BKL's), an access the VMA forbids (a
// signal), no memory, and frames that can be had only after a TLB synchronisation (the free
// list nearly empty and frames pending: syncFreed needs SyncTLB, a shootdown, which a page
// fault's fast path does not wait for) — and the caller takes the old path. A new translation needs no flush on any
// core (SDM Vol. 3A §4.10.4.3: non-present entries are not cached; on arm64 a fault on it is
// taken again as spurious). mm lock held (Lock).
func (as *AddressSpace) FaultFast(va uintptr, write, exec bool) bool {
	// A page and up to three tables, none of which may need a synchronisation: checked here
	// so that nothing is allocated in vain, and enforced (noSync) in allocFrame and freeFrame.
	if va >= UserEnd || frames.npending > 0 && frames.nlist < 4 {
		return false
	}
	i := as.lookup(va)
	if i < 0 || !allowed(as.vmas[i].Prot, write, exec) {
		return false
	}
	if e := as.PT.leaf(alignDown(va, PageSize)); e != 0 {
		// Another core's first touch created it meanwhile (the Go heap's pages are often
		// touched by two threads at once): if it grants the access, the retry succeeds — no
		// flush, as the entry was not present when this core walked (SDM Vol. 3A §4.10.4.3).
		// A rights change is the BKL's (its flush).
		as.spurious++
		return satisfies(PTE(load64(e)).attr(), write, exec)
	}
	frames.noSync = true
	ok, _ := as.fault(va, write, exec)
	frames.noSync = false
	return ok
}

// UserRange validates a user buffer [va, va+n) for a syscall: every page
// must lie in a VMA allowing the access (write, or read), and every page is
// pre-faulted so that the kernel can then copy with plain loads and stores
// without taking a fault. It returns false (→ EFAULT) otherwise, including
// when memory runs out. n == 0 is always valid.
//
// SMP: the result only stays true while no other CPU can unmap the range or
// lower its rights: the kernel copies under its big lock, and its calls
// without it take no checked page away; a page madvise drops meanwhile is
// faulted in again when the copy touches it (kernel/mm_unlocked.go).
func UserRange(va, n uintptr, write bool) bool {
	lockMM()
	defer unlockMM()
	return Space.userRange(va, n, write)
}

// UserRange is the method form of the package function.
func (as *AddressSpace) UserRange(va, n uintptr, write bool) bool {
	lockMM()
	defer unlockMM()
	return as.userRange(va, n, write)
}

func (as *AddressSpace) userRange(va, n uintptr, write bool) bool {
	if n == 0 {
		return true
	}
	end := va + n
	page := va &^ (PageSize - 1)
	if end > va && page == (end-1)&^(PageSize-1) && as.checked.has(page, write) {
		return true // a page checked lately (no kernel variable on it: add's caller)
	}
	if end < va || end > UserEnd || kernelData(va, end) {
		return false
	}
	if page == (end-1)&^(PageSize-1) {
		// One page, the common case (a futex word, a timespec, a small struct): one VMA
		// lookup and one page-table walk.
		i := as.lookup(page)
		if i < 0 || !allowed(as.vmas[i].Prot, write, false) {
			return false
		}
		if e := as.PT.leaf(page); e != 0 && satisfies(PTE(load64(e)).attr(), write, false) {
			if !kernelData(page, page+PageSize) { // only a page the program has to itself
				as.checked.add(page, write)
			}
			return true
		}
		ok, _ := as.fault(page, write, false)
		return ok
	}
	// First the VMAs alone, without touching memory: a range that will fail must not first
	// take a frame for every page it covers (the fuzzer's 2 GiB read of a PROT_READ mapping
	// past its end took all of RAM before answering EFAULT).
	at := alignDown(va, PageSize)
	for i := as.find(at); at < end; i++ {
		if i == as.n || as.vmas[i].Start > at || !allowed(as.vmas[i].Prot, write, false) {
			return false
		}
		at = as.vmas[i].End
	}
	for page := alignDown(va, PageSize); page < end; page += PageSize {
		i := as.lookup(page)
		if i < 0 || !allowed(as.vmas[i].Prot, write, false) {
			return false
		}
		if e := as.PT.leaf(page); e != 0 && satisfies(PTE(load64(e)).attr(), write, false) {
			continue
		}
		if ok, _ := as.fault(page, write, false); !ok {
			return false
		}
	}
	return true
}

// checkedPages remembers the last few pages userRange found mapped and usable, a small
// software TLB: a thread that waits on a futex or reads the clock into the same page on every
// call skips the VMA search and the page-table walk. In a futex ping-pong the futex words are in
// two threads' runtime m structs, on different pages, so one entry would not do; each call
// checked a page the other had just replaced. The entries stay true for as long as the
// hardware's own would: everything that takes a page away or lowers its rights — munmap,
// mprotect, MADV_DONTNEED, MAP_FIXED over it, the W^X flip, a teardown — invalidates the TLB
// through flushPage or flushAll, and each of those bumps tlbGen. A page that gains rights, or a
// new VMA, cannot make a remembered answer wrong. A page that holds any kernel variable
// (protect.go) is never remembered, since the answer there depends on the bytes asked for, not
// on the page. Reset forgets them. mm lock.
type checkedPages struct {
	e    [4]checkedPage
	next uint8 // the entry add replaces (round robin)
}

type checkedPage struct {
	page  uintptr
	write bool   // checked for writing (which covers reading)
	gen   uint64 // tlbGen when checked; 0: nothing remembered
}

// tlbGen counts the TLB invalidations mm has made (hooks.go flushPage, flushAll), of any address
// space; it starts at 1, so that a zero checkedPage matches nothing. Changed under mm's lock
// with atomic adds, read under it plainly, and without it atomically (WordCheck).
var tlbGen uint64 = 1

// has reports whether page was found usable for the access (write, or read) under the current
// tlbGen. mm lock.
func (c *checkedPages) has(page uintptr, write bool) bool {
	for i := range c.e {
		if e := &c.e[i]; e.gen == tlbGen && e.page == page && (e.write || !write) {
			return true
		}
	}
	return false
}

// add remembers that page is usable for the access. mm lock.
func (c *checkedPages) add(page uintptr, write bool) {
	c.e[c.next%uint8(len(c.e))] = checkedPage{page: page, write: write, gen: tlbGen}
	c.next++
}
