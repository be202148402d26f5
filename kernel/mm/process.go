package mm

// Process page tables (kernel/proc.go, docs/processes.md). The program and the kernel use Kernel.
// A child process gets a top-level table of its own whose user-half slots are of two kinds:
//
//   - the slots of its own region [lo, hi) (the exec region): its tables, empty at first, filled
//     by its AddressSpace (Reset(pt) then SetBounds) — every child has its image, heap and stack
//     at the same addresses, in tables no other process sees;
//   - every other slot: the same table as Kernel's, but through a supervisor-only entry
//     (pteTableKernel), so that the kernel reaches the program's memory — the kernel image with
//     its data, the network stack's buffers — from a child's trap, and the child cannot.
//
// The kernel half is copied as is. For the copies to stay right, Kernel's user-half slots must
// not change after the first child table is made: FillTop creates all of them (empty tables,
// about a MiB) first. Tables under a child's slots are never freed, like every table here: a
// process slot's table is reused by the next process in that slot (kernel/proc.go).

// topFilled records that FillTop has run. mm lock.
var topFilled bool

// fillTop gives every top-level slot of the user half outside [lo, hi) a table in Kernel. mm lock
// held.
func fillTop(lo, hi uintptr) Errno {
	if topFilled {
		return OK
	}
	for va := uintptr(0); va < UserEnd; va += levelSize(levelTop) {
		if va >= lo && va < hi {
			continue
		}
		if _, e := Kernel.slot(va, level1G, true); e != OK {
			return e
		}
	}
	topFilled = true
	return OK
}

// NewProcessTable returns a top-level table for a child process whose memory is the slots of
// [lo, hi) (lo and hi multiples of 512 GiB; Kernel maps nothing there). ENOMEM when frames run out.
func NewProcessTable(lo, hi uintptr) (PageTable, Errno) {
	lockMM()
	defer unlockMM()
	if lo%levelSize(levelTop) != 0 || hi%levelSize(levelTop) != 0 || lo >= hi || hi > UserEnd+PageSize {
		return PageTable{}, EINVAL
	}
	if e := fillTop(lo, hi); e != OK {
		return PageTable{}, e
	}
	pt, e := newPageTable()
	if e != OK {
		return pt, e
	}
	half := uintptr(256) // the first kernel-half slot (x86 PML4 256; arm64 uses TTBR1 for it)
	for i := uintptr(0); i < 512; i++ {
		va := i * levelSize(levelTop)
		v := PTE(load64(Kernel.Root + i*8))
		if !v.Present() || (i < half && va >= lo && va < hi) {
			continue
		}
		if i < half {
			v = pteTableKernel(v.Addr())
		}
		store64(pt.Root+i*8, uint64(v))
	}
	return pt, OK
}
