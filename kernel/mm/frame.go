//go:build amd64

package mm

// Physical frame allocator.
//
// Free frames form a singly linked LIFO list threaded through the frames
// themselves: the first 8 bytes of a free frame hold the physical address of
// the next free frame (0 ends the list; frame 0 is never handed to us because
// the low 1 MiB is removed by the kernel). Reaching a frame goes through
// PhysToVirt, i.e. the direct map. Alloc and free are O(1) and touch exactly
// one word of RAM; no memory outside the frames is needed, so the allocator
// works before anything else exists.

// Region is a range of usable physical RAM [Base, Base+Len).
type Region struct {
	Base, Len uintptr
}

// MaxRegions bounds the regions kept for the direct map.
const MaxRegions = 64

// frames is the allocator state. SMP: guarded by the mm lock (see lock.go).
var frames struct {
	head  uintptr // physical address of the first free frame, 0 if none
	total uintptr // frames handed to Init
	free  uintptr // frames currently on the list
	// ram records the (page-rounded) regions for BuildKernelSpace.
	ram  [MaxRegions]Region
	nram int
}

// Init hands the usable RAM regions to the frame allocator. Every whole 4 KiB
// frame inside a region becomes free; partial frames at the edges are
// dropped. Regions beyond MaxRegions are ignored (and reported by the
// return value: the number of regions used). Init resets all previous state.
//
// Frames are pushed from the highest address down so that allocation hands
// out ascending addresses (convenient when reading dumps and tests).
func Init(ram []Region) int {
	lockMM()
	defer unlockMM()
	frames.head, frames.total, frames.free, frames.nram = 0, 0, 0, 0
	tablesAllocated = 0
	used := 0
	for i := len(ram) - 1; i >= 0; i-- {
		r := ram[i]
		lo, ok := alignUp(r.Base, PageSize)
		hi := alignDown(r.Base+r.Len, PageSize)
		if !ok || r.Base+r.Len < r.Base || hi <= lo || lo == 0 && hi <= PageSize {
			continue
		}
		if lo == 0 { // physical frame 0 would end the free list
			lo = PageSize
		}
		if frames.nram == MaxRegions {
			continue
		}
		frames.ram[frames.nram] = Region{lo, hi - lo}
		frames.nram++
		used++
		for pa := hi - PageSize; ; pa -= PageSize {
			store64(pa, uint64(frames.head))
			frames.head = pa
			frames.total++
			frames.free++
			if pa == lo {
				break
			}
		}
	}
	return used
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
	pa := frames.head
	if pa == 0 {
		return 0, false
	}
	frames.head = uintptr(load64(pa))
	frames.free--
	return pa, true
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
	store64(pa, uint64(frames.head))
	frames.head = pa
	frames.free++
}

// FrameCounts reports the frames given to Init and those currently free.
func FrameCounts() (total, free uintptr) { return frames.total, frames.free }

// RAM returns the page-rounded regions recorded by Init (a copy of at most
// MaxRegions entries plus the count; no allocation).
func RAM() ([MaxRegions]Region, int) { return frames.ram, frames.nram }
