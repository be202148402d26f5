package mm

// Physical frame allocator.
//
// Two sources, both O(1):
//   - a free list of returned frames, a singly linked LIFO threaded through
//     the frames themselves: the first 8 bytes of a free frame hold the
//     physical address of the next one (0 ends the list; frame 0 is never
//     managed). Reaching a frame goes through PhysToVirt (the direct map).
//   - a bump cursor over the RAM regions for frames never handed out yet.
//
// A freed frame first waits in pending, off the list, until the other
// cores' TLBs no longer reach it (syncFreed). Allocation pops the list
// first, then synchronises and moves the pending frames to the list, and
// bumps otherwise. Because untouched frames are never written until they are
// allocated, Init costs O(regions), does not touch RAM, and works before all
// of RAM is mapped (the boot identity map only has to cover the frames
// actually allocated before the switch to BuildKernelSpace's tables). The
// only memory outside the frames is pending's array (8 KiB).

// Region is a range of usable physical RAM [Base, Base+Len).
type Region struct {
	Base, Len uintptr
}

// InRegions reports whether [pa, pa+size) lies inside one of the regions (a board checking that
// what its loader handed over is in RAM). Any context: no allocation.
func InRegions(rs []Region, pa, size uint64) bool {
	if pa+size < pa {
		return false
	}
	for _, r := range rs {
		if pa >= uint64(r.Base) && pa+size <= uint64(r.Base+r.Len) {
			return true
		}
	}
	return false
}

// MaxRegions bounds the number of RAM regions kept.
const MaxRegions = 64

// frames is the allocator state. SMP: guarded by the mm lock (see lock.go).
var frames struct {
	head  uintptr // physical address of the first free-list frame, 0 if none
	total uintptr // frames handed to Init
	free  uintptr // frames available (free list + not yet bumped)
	// ram holds the page-rounded regions in the order given.
	ram  [MaxRegions]Region
	nram int
	// cur/next is the bump cursor: region ram[cur], next unallocated frame.
	cur  int
	next uintptr
	// nlist counts the frames on the free list.
	nlist uintptr
	// pending holds the frames freed since the last SyncTLB (npending of
	// them): another core may still reach one through a stale translation,
	// and read it or write it. So they are kept off the free list, whose
	// links live in the frames themselves (a write through a stale entry
	// would corrupt the list; a read would show the program a physical
	// address), until the TLBs are synchronised (syncFreed). Linux's
	// mmu_gather holds its pages back the same way until the flush.
	pending  [pendingMax]uintptr
	npending int
	// noSync: the caller may not synchronise the TLBs (FaultFast, without
	// the kernel's big lock): an allocation that would need it fails instead.
	noSync bool
}

// pendingMax is how many freed frames wait for a TLB synchronisation before
// a free forces one (a munmap of more than 4 MiB pays one shootdown per 4 MiB).
const pendingMax = 1024

// Init hands the usable RAM regions to the frame allocator. Every whole 4 KiB
// frame inside a region becomes free; partial frames at the edges and
// physical frame 0 are dropped; empty or overflowing regions are ignored, and
// so are regions beyond MaxRegions. It returns the number of regions used.
// Init resets all allocator state (and the page-table counter) but does not
// write to RAM.
func Init(ram []Region) int {
	lockMM()
	defer unlockMM()
	frames.head, frames.total, frames.free, frames.nram = 0, 0, 0, 0
	frames.nlist, frames.npending = 0, 0
	tablesAllocated = 0
	for _, r := range ram {
		lo, ok := alignUp(r.Base, PageSize)
		hi := alignDown(r.Base+r.Len, PageSize)
		if lo == 0 { // physical frame 0 would end the free list
			lo = PageSize
		}
		if !ok || r.Base+r.Len < r.Base || hi <= lo || frames.nram == MaxRegions {
			continue
		}
		frames.ram[frames.nram] = Region{lo, hi - lo}
		frames.nram++
		frames.total += (hi - lo) / PageSize
	}
	frames.free = frames.total
	frames.cur = 0
	if frames.nram > 0 {
		frames.next = frames.ram[0].Base
	}
	return frames.nram
}

// AllocFrame takes one 4 KiB frame off the free list. Its contents are
// undefined. ok is false when physical memory is exhausted.
// Trap-context safe: no allocation, O(1).
func AllocFrame() (pa uintptr, ok bool) {
	lockMM()
	pa, ok = allocFrame()
	unlockMM()
	return
}

func allocFrame() (uintptr, bool) {
	if frames.head == 0 && frames.npending > 0 {
		if frames.noSync {
			return 0, false // FaultFast's caller takes the BKL's path, which may
		}
		syncFreed() // the frames freed since the last synchronisation, once no TLB reaches them
	}
	if pa := frames.head; pa != 0 {
		frames.head = uintptr(load64(pa))
		frames.nlist--
		frames.free--
		return pa, true
	}
	for frames.cur < frames.nram {
		r := frames.ram[frames.cur]
		if frames.next < r.Base+r.Len {
			pa := frames.next
			frames.next += PageSize
			frames.free--
			return pa, true
		}
		frames.cur++
		if frames.cur < frames.nram {
			frames.next = frames.ram[frames.cur].Base
		}
	}
	return 0, false
}

// AllocContiguous takes n physically contiguous frames, zeroed, from RAM never used before (the
// bump cursor; freed frames are scattered and never make a run). For device buffers a driver
// hands out whole at boot (a 9P message of 128 KiB is one descriptor). ok is false when no
// region has n frames left; the frames are not given back.
func AllocContiguous(n int) (pa uintptr, ok bool) {
	lockMM()
	defer unlockMM()
	size := uintptr(n) * PageSize
	for frames.cur < frames.nram {
		r := frames.ram[frames.cur]
		if frames.next+size <= r.Base+r.Len {
			pa = frames.next
			frames.next += size
			frames.free -= uintptr(n)
			for i := uintptr(0); i < uintptr(n); i++ {
				zeroFrame(pa + i*PageSize)
			}
			return pa, true
		}
		// The rest of this region stays for AllocFrame only if nothing else takes it: move on.
		if frames.cur+1 == frames.nram {
			return 0, false
		}
		frames.free -= (r.Base + r.Len - frames.next) / PageSize // the tail is given up
		frames.cur++
		frames.next = frames.ram[frames.cur].Base
	}
	return 0, false
}

// AllocZeroFrame is AllocFrame followed by clearing the frame.
func AllocZeroFrame() (pa uintptr, ok bool) {
	lockMM()
	pa, ok = allocZeroFrame()
	unlockMM()
	return
}

func allocZeroFrame() (uintptr, bool) {
	pa, ok := allocFrame()
	if ok {
		zeroFrame(pa)
	}
	return pa, ok
}

// FreeFrame returns frame pa to the allocator. pa must have come from
// AllocFrame and must no longer be mapped anywhere (callers flush the TLB
// first). A misaligned or zero pa is a kernel bug and panics.
func FreeFrame(pa uintptr) {
	lockMM()
	freeFrame(pa)
	unlockMM()
}

func freeFrame(pa uintptr) {
	if pa == 0 || pa&PageMask != 0 {
		panic("mm: FreeFrame of invalid frame")
	}
	if frames.npending == pendingMax {
		if frames.noSync {
			panic("mm: a frame freed where the TLBs may not be synchronised")
		}
		syncFreed()
	}
	frames.pending[frames.npending] = pa
	frames.npending++
	frames.free++
}

// freeUnmapped returns frame pa, which was never mapped for user code (no
// TLB can reach it), straight to the free list. Callable without the BKL.
func freeUnmapped(pa uintptr) {
	store64(pa, uint64(frames.head))
	frames.head = pa
	frames.nlist++
	frames.free++
}

// syncFreed makes every core drop the translations removed since the last
// time (SyncTLB: the kernel's shootdown), then moves the
// pending frames to the free list. mm lock held.
func syncFreed() {
	syncTLB()
	for i := 0; i < frames.npending; i++ {
		pa := frames.pending[i]
		store64(pa, uint64(frames.head))
		frames.head = pa
	}
	frames.nlist += uintptr(frames.npending)
	frames.npending = 0
}

// FrameCounts reports the frames given to Init and those currently free.
func FrameCounts() (total, free uintptr) { return frames.total, frames.free }

// RAM returns the page-rounded regions recorded by Init (a copy of at most
// MaxRegions entries plus the count; no allocation).
func RAM() ([MaxRegions]Region, int) { return frames.ram, frames.nram }
