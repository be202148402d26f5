package mm

// Stats is a snapshot of the memory manager's counters.
type Stats struct {
	FramesTotal uintptr // frames given to Init
	FramesFree  uintptr // frames on the free list
	FramesUsed  uintptr // FramesTotal - FramesFree (tables, stacks, user pages)
	Tables      uintptr // paging-structure frames allocated (never freed)
	VMAs        int     // VMAs in Space
	Faults      uintptr // demand-zero pages installed in Space
	Spurious    uintptr // faults resolved without a new page (TLB, W^X flip)
	FaultAhead  uintptr // pages fault-around installed beside the faulting ones (faultaround.go)
	MadvDropped uintptr // pages discarded by MADV_DONTNEED/MADV_FREE
	Unmapped    uintptr // pages dropped by munmap and MAP_FIXED replacement
}

// ReadStats returns the counters of the allocator and of as. Like the other
// read-only accessors (FrameCounts, NumVMAs, VMA) it takes no lock: the
// values are a snapshot for logs and tests.
func (as *AddressSpace) ReadStats() Stats {
	return Stats{
		FramesTotal: frames.total,
		FramesFree:  frames.free,
		FramesUsed:  frames.total - frames.free,
		Tables:      tablesAllocated,
		VMAs:        as.n,
		Faults:      as.faults,
		Spurious:    as.spurious,
		FaultAhead:  as.faultedAhead,
		MadvDropped: as.madvDropped,
		Unmapped:    as.unmapped,
	}
}
