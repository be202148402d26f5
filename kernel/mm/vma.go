package mm

// The VMA table: the user address space as a sorted array of disjoint
// [Start, End) ranges, each with PROT_ bits. It is the source of truth for
// what user code may touch; the page table only caches the pages that have
// been touched (demand paging). Adjacent VMAs with equal Prot and Flags are
// merged, so the table stays as small as Linux's for the Go runtime's
// reserve-then-map pattern. All operations are O(MaxVMAs) at worst
// (binary search plus one copy to open or close a slot), with no allocation.

// Protection bits (mmap(2), asm-generic/mman-common.h).
const (
	PROT_NONE  = 0x0
	PROT_READ  = 0x1
	PROT_WRITE = 0x2
	PROT_EXEC  = 0x4
	// PROT_SEM is accepted and ignored (atomic operations work on all
	// memory here).
	PROT_SEM = 0x8
	// PROT_GROWSDOWN and PROT_GROWSUP are mprotect flags: extend the
	// change to the start (end) of a growable mapping.
	PROT_GROWSDOWN = 0x01000000
	PROT_GROWSUP   = 0x02000000
)

// User address-space layout (UserEnd and MmapBase depend on the
// architecture: layout_GOARCH.go).
const (
	// MinAddr is the lowest address mmap ever returns or accepts with
	// MAP_FIXED (Linux vm.mmap_min_addr default); page 0 in particular is
	// never mapped, because Go's nil checks rely on faults at 0..4095.
	MinAddr uintptr = 0x10000
	// MaxVMAs is the capacity of the VMA table (Linux's max_map_count
	// analogue); exceeding it is ENOMEM.
	MaxVMAs = 2048
)

// VMA flags.
const (
	// VMAPinned marks ranges recorded by RegisterFixed (the image, which
	// contains the kernel itself, and the initial stack). Like Linux
	// mseal(2) they cannot be unmapped, replaced, re-protected or
	// discarded: those calls fail with EPERM.
	VMAPinned = 1
	// VMADevice marks the reservations of device register ranges made by
	// MapDevice (always together with VMAPinned): the pages are
	// supervisor-only identity mappings, and MapDevice may be called
	// again over them.
	VMADevice = 2
	// VMAGrowsDown marks a MAP_GROWSDOWN mapping; mprotect with
	// PROT_GROWSDOWN applies to it from its start (Linux VM_GROWSDOWN).
	VMAGrowsDown = 4
	// VMAShared marks a MAP_SHARED|MAP_ANONYMOUS mapping. With one process
	// and no fork, "shared" changes only what discarding advice means: on
	// Linux the pages live in a shmem object, so MADV_DONTNEED drops the
	// mapping but not the data (the next touch finds it again), MADV_FREE
	// is EINVAL and MADV_REMOVE punches a hole (zeros). gmpos keeps the
	// pages mapped for DONTNEED, which reads the same.
	VMAShared = 8
)

// VMA is one virtual memory area.
type VMA struct {
	Start, End uintptr
	Prot       uint32
	Flags      uint32
}

// AddressSpace is the user half of the (single, shared) address space.
// SMP: every field is guarded by the mm lock.
type AddressSpace struct {
	PT   PageTable
	vmas [MaxVMAs]VMA
	n    int

	// lo, hi bound a child process's space (SetBounds): every mapping lies in [lo, hi), and
	// the top-down search starts at mmapTop. Zero for the program's own space, which spans
	// the user half (and reserves the children's region, kernel/mm/doc.go).
	lo, hi, mmapTop uintptr

	faults       uintptr // demand-zero pages installed
	faultedAhead uintptr // ... and beside them, by fault-around (faultaround.go)
	faultNext    uintptr // the page a run of first touches faults next (faultaround.go)
	spurious     uintptr // faults on pages that were already fine (stale TLB) or W^X flips
	madvDropped  uintptr // pages dropped by MADV_DONTNEED/MADV_FREE
	unmapped     uintptr // pages dropped by munmap / MAP_FIXED replacement

	checked checkedPages // pages userRange found usable lately (fault.go)
}

// Space is the address space of the Go program.
var Space AddressSpace

// Reset empties the VMA table and counters and adopts pt. Pages already
// mapped in pt are not touched.
func (as *AddressSpace) Reset(pt PageTable) {
	lockMM()
	as.PT = pt
	as.n = 0
	as.checked = checkedPages{}
	as.faults, as.spurious, as.madvDropped, as.unmapped, as.faultedAhead, as.faultNext = 0, 0, 0, 0, 0, 0
	unlockMM()
}

// SetBounds confines as to [lo, hi): mmap places nothing outside it (a hint outside is
// ignored, MAP_FIXED outside is ENOMEM) and munmap drops nothing outside it, so that a child
// process sharing the page table with the program (kernel/proc.go) can neither map over nor
// unmap another process's memory. The top-down search starts at mmapTop.
func (as *AddressSpace) SetBounds(lo, hi, mmapTop uintptr) {
	lockMM()
	as.lo, as.hi, as.mmapTop = lo, hi, mmapTop
	unlockMM()
}

// Teardown removes every VMA of as — pinned ones too — and frees the frames mapped in them:
// the end of a child process's address space (exit, or execve replacing it). Kernel-owned
// pages (MapSpecial: the vDSO) are unmapped but not freed. Returns the pages dropped.
func (as *AddressSpace) Teardown() uintptr {
	lockMM()
	defer unlockMM()
	var n uintptr
	for i := 0; i < as.n; i++ {
		n += as.dropPages(as.vmas[i].Start, as.vmas[i].End)
	}
	as.n = 0
	as.unmapped += n
	return n
}

// VMA returns a copy of the i-th VMA in address order (for dumps and
// tests); ok is false past the end.
func (as *AddressSpace) VMA(i int) (VMA, bool) {
	if i < 0 || i >= as.n {
		return VMA{}, false
	}
	return as.vmas[i], true
}

// NumVMAs is the number of VMAs.
func (as *AddressSpace) NumVMAs() int { return as.n }

// OnlyProtNone reports whether every VMA that overlaps [start, end) is PROT_NONE (holes
// count too): no page there can have been checked for a system call's buffer, since UserRange
// refuses PROT_NONE. The kernel's mm calls without its big lock may change such a range
// (kernel/mm_unlocked.go). mm lock held (Lock).
func (as *AddressSpace) OnlyProtNone(start, end uintptr) bool {
	for i := as.find(start); i < as.n && as.vmas[i].Start < end; i++ {
		if as.vmas[i].Prot != PROT_NONE {
			return false
		}
	}
	return true
}

// find returns the index of the first VMA with End > va (as.n if none).
func (as *AddressSpace) find(va uintptr) int {
	lo, hi := 0, as.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if as.vmas[m].End <= va {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// lookup returns the index of the VMA containing va, or -1.
func (as *AddressSpace) lookup(va uintptr) int {
	i := as.find(va)
	if i < as.n && as.vmas[i].Start <= va {
		return i
	}
	return -1
}

// overlaps reports whether any VMA intersects [start, end), and whether any
// pinned one does.
func (as *AddressSpace) overlaps(start, end uintptr) (any, pinned bool) {
	for i := as.find(start); i < as.n && as.vmas[i].Start < end; i++ {
		any = true
		if as.vmas[i].Flags&VMAPinned != 0 {
			pinned = true
		}
	}
	return
}

// covered reports whether [start, end) is entirely inside VMAs.
func (as *AddressSpace) covered(start, end uintptr) bool {
	at := start
	for i := as.find(start); i < as.n && at < end; i++ {
		if as.vmas[i].Start > at {
			return false
		}
		at = as.vmas[i].End
	}
	return at >= end
}

// gaps counts the maximal sub-ranges of [start, end) that no VMA covers.
func (as *AddressSpace) gaps(start, end uintptr) int {
	n := 0
	at := start
	for i := as.find(start); at < end; i++ {
		if i == as.n || as.vmas[i].Start >= end {
			return n + 1
		}
		if as.vmas[i].Start > at {
			n++
		}
		at = as.vmas[i].End
	}
	return n
}

// splitsNeeded counts the VMAs that straddle start or end (each costs one
// slot when carved).
func (as *AddressSpace) splitsNeeded(start, end uintptr) int {
	n := 0
	if i := as.lookup(start); i >= 0 && as.vmas[i].Start < start {
		n++
	}
	if i := as.lookup(end); i >= 0 && as.vmas[i].Start < end {
		n++
	}
	return n
}

// split cuts VMA i at address at (Start < at < End) into two. The caller
// has checked capacity.
func (as *AddressSpace) split(i int, at uintptr) {
	copy(as.vmas[i+1:as.n+1], as.vmas[i:as.n])
	as.n++
	as.vmas[i].End = at
	as.vmas[i+1].Start = at
}

// carve makes start and end VMA boundaries and returns the index range
// [i, j) of the VMAs inside [start, end). The caller has checked that
// splitsNeeded slots are free.
func (as *AddressSpace) carve(start, end uintptr) (int, int) {
	if i := as.lookup(start); i >= 0 && as.vmas[i].Start < start {
		as.split(i, start)
	}
	if i := as.lookup(end); i >= 0 && as.vmas[i].Start < end {
		as.split(i, end)
	}
	i := as.find(start)
	j := i
	for j < as.n && as.vmas[j].Start < end {
		j++
	}
	return i, j
}

// punchCost reports what punch(start, end) does to the table: need is 1
// when [start, end) lies strictly inside one VMA (which then becomes two),
// else 0; removed counts the VMAs entirely inside the range.
func (as *AddressSpace) punchCost(start, end uintptr) (need, removed int) {
	i := as.find(start)
	if i < as.n && as.vmas[i].Start < start && as.vmas[i].End > end {
		return 1, 0
	}
	for ; i < as.n && as.vmas[i].Start < end; i++ {
		if as.vmas[i].Start >= start && as.vmas[i].End <= end {
			removed++
		}
	}
	return 0, removed
}

// punch removes [start, end) from the table: VMAs straddling an edge are
// trimmed, VMAs inside are deleted, and a VMA strictly containing the range
// is split in two. It never needs more than the one slot punchCost reports,
// so munmap in a full table fails only when Linux's would. The caller has
// dropped the pages and checked capacity.
func (as *AddressSpace) punch(start, end uintptr) {
	i := as.find(start)
	if i == as.n || as.vmas[i].Start >= end {
		return
	}
	if v := as.vmas[i]; v.Start < start && v.End > end {
		as.split(i, end)
		as.vmas[i].End = start
		return
	}
	if as.vmas[i].Start < start {
		as.vmas[i].End = start
		i++
	}
	j := i
	for j < as.n && as.vmas[j].End <= end {
		j++
	}
	if j < as.n && as.vmas[j].Start < end {
		as.vmas[j].Start = end
	}
	as.remove(i, j)
}

// remove deletes VMAs [i, j).
func (as *AddressSpace) remove(i, j int) {
	copy(as.vmas[i:], as.vmas[j:as.n])
	as.n -= j - i
}

// insert adds v (which overlaps nothing) and merges it with its
// neighbours. The caller has checked capacity.
func (as *AddressSpace) insert(v VMA) {
	i := as.find(v.Start)
	copy(as.vmas[i+1:as.n+1], as.vmas[i:as.n])
	as.n++
	as.vmas[i] = v
	as.mergeAround(i, i+1)
}

// mergeAround merges compatible neighbours among VMAs [i-1, j].
func (as *AddressSpace) mergeAround(i, j int) {
	if i > 0 {
		i--
	}
	if j >= as.n {
		j = as.n - 1
	}
	for k := j; k > i; k-- {
		a, b := &as.vmas[k-1], &as.vmas[k]
		if a.End == b.Start && a.Prot == b.Prot && a.Flags == b.Flags {
			a.End = b.End
			as.remove(k, k+1)
		}
	}
}

// RegisterFixed records [va, va+length) as a pinned VMA with prot. The
// kernel uses it at boot for the image segments (BuildKernelSpace does this
// itself) and for the initial user stack. Pages already mapped in the range
// stay as they are; missing pages are demand-zero like any VMA.
// EEXIST if the range overlaps an existing VMA, EINVAL for a bad range.
func (as *AddressSpace) RegisterFixed(va, length uintptr, prot uint32) Errno {
	lockMM()
	defer unlockMM()
	end := va + length
	if va&PageMask != 0 || length == 0 || length&PageMask != 0 || end < va ||
		va < PageSize || end > UserEnd || prot&^(PROT_READ|PROT_WRITE|PROT_EXEC) != 0 {
		return EINVAL
	}
	if any, _ := as.overlaps(va, end); any {
		return EEXIST
	}
	if as.n == MaxVMAs {
		return ENOMEM
	}
	as.insert(VMA{Start: va, End: end, Prot: prot, Flags: VMAPinned})
	return OK
}
