package mm

// Segment describes one PT_LOAD program header of the kernel/user image
// (ELF64 p_vaddr, p_memsz, p_flags). The image is identity mapped: the
// physical address equals the link address.
type Segment struct {
	Vaddr, Memsz uintptr
	Flags        uint32 // ELF PF_X|PF_W|PF_R
}

// ELF program header flags (ELF64 specification, "Segment Permissions").
const (
	PF_X = 1
	PF_W = 2
	PF_R = 4
)

// Kernel stack region (supervisor only, starting at KernelStackBase).
const (
	// KernelStackSize is the usable size of one kernel stack.
	KernelStackSize = 32 << 10
	// KernelStackGuard is the unmapped gap below each stack: an overflow
	// faults instead of silently overwriting the neighbour.
	KernelStackGuard = PageSize
	// KernelStackSlot is the distance between consecutive stacks.
	KernelStackSlot = KernelStackSize + KernelStackGuard
	// MaxKernelStacks bounds MapKernelStack's index.
	MaxKernelStacks = 1024
)

// Kernel is the page table built by BuildKernelSpace (the only one: user and
// kernel share one address space). MapKernelStack maps into it.
var Kernel PageTable

// Direct-map attributes: supervisor, writable, never executable, global
// (the mapping is identical for every thread, so address-space switches
// need not drop it; x86 requires CR4.PGE, SDM §4.10.2.4).
const directAttr = AttrWrite | AttrGlobal

// Kernel stack attributes: supervisor, writable, never executable, global,
// and the frames belong to the allocator (FreeKernelStack returns them).
const stackAttr = AttrWrite | AttrGlobal | AttrOwned

// BuildKernelSpace builds a fresh PML4 containing
//   - the direct map of RAM at DirectMapBase (2 MiB pages where the 2 MiB
//     chunk is wanted, see wantDirect) — supervisor RW NX G;
//   - the image segments identity mapped with 4 KiB pages, US=1 (the Go
//     program runs at CPL3 in the same image), W^X from the ELF flags:
//     text R+X, rodata R+NX, data/bss RW+NX;
//   - nothing at page 0, ever.
//
// ram is normally the same list given to Init (frames are taken from the
// allocator for the tables). The image segments are also recorded as pinned
// VMAs in Space, whose page table becomes the new one. Errors: EINVAL for a
// segment touching page 0, reaching the kernel half, or whose pages would be
// both writable and executable; ENOMEM when frames run out.
func BuildKernelSpace(ram []Region, image []Segment) (PageTable, Errno) {
	lockMM()
	pt, err := buildKernelSpace(ram, image)
	unlockMM()
	if err != OK {
		return PageTable{}, err
	}
	Space.Reset(pt)
	for _, s := range image {
		if s.Memsz == 0 {
			continue
		}
		lo := alignDown(s.Vaddr, PageSize)
		hi, _ := alignUp(s.Vaddr+s.Memsz, PageSize)
		if e := Space.RegisterFixed(lo, hi-lo, elfProt(s.Flags)); e != OK && e != EEXIST {
			return PageTable{}, e
		}
	}
	return pt, OK
}

func buildKernelSpace(ram []Region, image []Segment) (PageTable, Errno) {
	// Validate the image before allocating anything.
	for _, s := range image {
		if s.Memsz == 0 {
			continue
		}
		end := s.Vaddr + s.Memsz
		if s.Vaddr < PageSize || end < s.Vaddr || end > UserEnd {
			return PageTable{}, EINVAL
		}
		if s.Flags&PF_W != 0 && s.Flags&PF_X != 0 {
			return PageTable{}, EINVAL
		}
	}
	pt, err := newPageTable()
	if err != OK {
		return pt, err
	}
	// Direct map: every 2 MiB chunk in [0, top) that wantDirect accepts.
	var top uintptr = lowDirectMap
	for _, r := range ram {
		if e, ok := alignUp(r.Base+r.Len, HugeSize); ok && e > top && r.Base+r.Len >= r.Base {
			top = e
		}
	}
	for pa := uintptr(0); pa < top; pa += HugeSize {
		if !wantDirect(pa, ram) {
			continue
		}
		if err := pt.map2M(DirectMapBase+pa, pa, directAttr); err != OK {
			return pt, err
		}
	}
	// Image: 4 KiB pages. Two segments sharing a page get the union of
	// their rights; a union that is both W and X is refused (W^X).
	for _, s := range image {
		if s.Memsz == 0 {
			continue
		}
		attr := imageAttr(s.Flags)
		end, _ := alignUp(s.Vaddr+s.Memsz, PageSize)
		for va := alignDown(s.Vaddr, PageSize); va < end; va += PageSize {
			e, err := pt.slot(va, level4K, true)
			if err != OK {
				return pt, err
			}
			a := attr
			if old := PTE(load64(e)); old.Present() {
				a |= old.attr() // the union of both segments' rights
				if a&AttrWrite != 0 && a&AttrExec != 0 {
					return pt, EINVAL
				}
			}
			store64(e, uint64(pteLeaf(va, a)))
		}
	}
	Kernel = pt
	return pt, OK
}

// wantDirect decides whether the 2 MiB chunk at pa is direct mapped: it is
// if it overlaps a RAM region or lies in the low 16 MiB. Chunks that are
// pure holes (e.g. the PCI window below 4 GiB) are left out so that no
// write-back mapping of device memory exists (SDM §11.12.4 warns about
// conflicting memory types for aliased mappings).
func wantDirect(pa uintptr, ram []Region) bool {
	if pa < lowDirectMap {
		return true
	}
	for _, r := range ram {
		if r.Base < pa+HugeSize && pa < r.Base+r.Len {
			return true
		}
	}
	return false
}

// imageAttr converts ELF segment flags to leaf attributes: always user,
// executable only if PF_X, writable only if PF_W. Not global: the image is
// user memory.
func imageAttr(f uint32) Attr {
	a := AttrUser
	if f&PF_W != 0 {
		a |= AttrWrite
	}
	if f&PF_X != 0 {
		a |= AttrExec
	}
	return a
}

// elfProt converts ELF flags to PROT_ bits.
func elfProt(f uint32) uint32 {
	var p uint32
	if f&PF_R != 0 {
		p |= PROT_READ
	}
	if f&PF_W != 0 {
		p |= PROT_WRITE
	}
	if f&PF_X != 0 {
		p |= PROT_EXEC
	}
	return p
}

// MapKernelStack maps kernel stack i (0 <= i < MaxKernelStacks) in Kernel
// and returns the address just above it (the initial RSP). The stack's
// frames are zeroed, supervisor-only, RW, NX; the KernelStackGuard bytes
// below it stay unmapped so an overflow takes a page fault (which the
// kernel must handle on a separate stack: x86 IST, SDM §6.14.5). Mapping an
// already-mapped stack returns the same top without allocating.
func MapKernelStack(i int) (top uintptr, err Errno) {
	if i < 0 || i >= MaxKernelStacks || Kernel.Root == 0 {
		return 0, EINVAL
	}
	lockMM()
	defer unlockMM()
	bottom := KernelStackBase + uintptr(i)*KernelStackSlot + KernelStackGuard
	top = bottom + KernelStackSize
	for va := bottom; va < top; va += PageSize {
		if Kernel.leaf(va) != 0 {
			continue
		}
		pa, ok := allocZeroFrame()
		if !ok {
			return 0, ENOMEM
		}
		if err := Kernel.mapPage(va, pa, stackAttr); err != OK {
			freeFrame(pa)
			return 0, err
		}
	}
	return top, OK
}

// FreeKernelStack unmaps kernel stack i and returns its frames to the
// allocator, so that thread slots can be recycled. Each page is flushed
// with FlushTLB (the entries are global, which an address-space switch
// would not drop, SDM §4.10.4.1). The caller must not be running on that stack.
func FreeKernelStack(i int) Errno {
	if i < 0 || i >= MaxKernelStacks || Kernel.Root == 0 {
		return EINVAL
	}
	lockMM()
	defer unlockMM()
	bottom := KernelStackBase + uintptr(i)*KernelStackSlot + KernelStackGuard
	for va := bottom; va < bottom+KernelStackSize; va += PageSize {
		if pa, a, ok := Kernel.unmapPage(va); ok && a&AttrOwned != 0 {
			freeFrame(pa)
		}
	}
	return OK
}

// StackGuardHit reports whether va lies in the guard page of kernel stack i,
// so that the #PF handler can report "kernel stack i overflow" instead of a
// bare fault address.
func StackGuardHit(va uintptr) (i int, ok bool) {
	if va < KernelStackBase || va >= KernelStackBase+MaxKernelStacks*KernelStackSlot {
		return 0, false
	}
	off := va - KernelStackBase
	return int(off / KernelStackSlot), off%KernelStackSlot < KernelStackGuard
}

// KernelStackBounds returns the usable range [lo, hi) of the kernel stack slot that va lies in,
// or ok=false when va is not in a slot's usable part. It is arithmetic only (no lock, no page
// table walk), for the kernel fault report, which walks a faulting core's frame pointers and must
// not follow one off its stack; whether the stack is mapped is the caller's to know (its own SP
// is in it).
func KernelStackBounds(va uintptr) (lo, hi uintptr, ok bool) {
	i, guard := StackGuardHit(va)
	if guard || va < KernelStackBase || va >= KernelStackBase+MaxKernelStacks*KernelStackSlot {
		return 0, 0, false
	}
	lo = KernelStackBase + uintptr(i)*KernelStackSlot + KernelStackGuard
	return lo, lo + KernelStackSize, true
}
