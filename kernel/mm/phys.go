package mm

import (
	"sync/atomic"
	"unsafe"
)

// PageSize is the base page and frame size: 4 KiB pages with x86-64 4-level
// paging (Intel SDM Vol. 3A §4.5) and with the arm64 4 KiB translation
// granule (Arm ARM D8.2), the only granule this package supports.
const (
	PageShift = 12
	PageSize  = 1 << PageShift
	PageMask  = PageSize - 1

	// HugeSize is the size of a leaf one level above the last: a PDE
	// with PS=1 on x86-64 (SDM Vol. 3A §4.5.4, Table 4-17), a level 2
	// block descriptor with the arm64 4 KiB granule.
	HugeShift = 21
	HugeSize  = 1 << HugeShift
	HugeMask  = HugeSize - 1
)

// physOffset converts a physical address into an address this code can
// dereference. The kernel sets it to 0 while running on the boot identity
// map, and to DirectMapBase once the page tables from BuildKernelSpace are
// live (SetPhysOffset). Hosted tests point it into a []byte arena so that
// "physical memory" is ordinary process memory.
//
// It is a plain uintptr (statically zero) so it needs no init().
var physOffset uintptr

// SetPhysOffset changes how PhysToVirt reaches physical memory.
// Call it only when every physical frame the allocator owns is reachable at
// pa+off (for example right after loading the CR3 from BuildKernelSpace with
// off = DirectMapBase).
func SetPhysOffset(off uintptr) { physOffset = off }

// PhysToVirt returns the address through which the kernel reads and writes
// physical address pa.
func PhysToVirt(pa uintptr) uintptr { return pa + physOffset }

// ptrAt turns an address into an unsafe.Pointer without a uintptr→Pointer
// conversion expression (which vet and checkptr reject for addresses that
// are not Go objects). The memory behind it is never a Go heap object in the
// kernel (it is the direct map), so the GC ignores it.
func ptrAt(va uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&va)) }

// load64 and store64 access a 64-bit word of physical memory.
func load64(pa uintptr) uint64     { return *(*uint64)(ptrAt(PhysToVirt(pa))) }
func store64(pa uintptr, v uint64) { *(*uint64)(ptrAt(PhysToVirt(pa))) = v }

// publish64 stores a new valid translation entry: a release store, so that every store before
// it — the zeroing of the page or table it points to — is visible to another core's table walk
// that sees the entry. x86 keeps stores in order anyway (SDM Vol. 3A §9.2.3.2); arm64 does not,
// and a walker that saw a new table before its zeros would take leftover bytes for entries
// (Linux: the smp_wmb in __pte_alloc and in __SetPageUptodate before set_pte_at).
func publish64(pa uintptr, v uint64) { atomic.StoreUint64((*uint64)(ptrAt(PhysToVirt(pa))), v) }

// zeroFrame clears one 4 KiB frame. The whole-array store compiles to
// memclrNoHeapPointers, which is plain assembly usable before runtime init.
func zeroFrame(pa uintptr) {
	*(*[PageSize]byte)(ptrAt(PhysToVirt(pa))) = [PageSize]byte{}
}

// FrameBytes returns the contents of frame pa as a byte array pointer
// (through PhysToVirt). The kernel uses it to copy data into frames.
func FrameBytes(pa uintptr) *[PageSize]byte {
	return (*[PageSize]byte)(ptrAt(PhysToVirt(pa &^ PageMask)))
}

func alignDown(x, a uintptr) uintptr { return x &^ (a - 1) }

// alignUp rounds x up to a multiple of a; ok is false on overflow.
func alignUp(x, a uintptr) (uintptr, bool) {
	r := (x + a - 1) &^ (a - 1)
	return r, r >= x
}
