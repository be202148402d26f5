package mm

import "testing"

func TestMapLookupUnmap(t *testing.T) {
	setPhysArena()
	Init(testRAM)
	pt, err := NewPageTable()
	if err != OK {
		t.Fatal(err)
	}
	const va = 0x4000_1234_5000
	if e := pt.Map(va, 0x300000, AttrWrite|AttrUser); e != OK {
		t.Fatalf("Map: %v", e)
	}
	pa, fl, ok := pt.Lookup(va + 0x123)
	if !ok || pa != 0x300123 || fl != AttrWrite|AttrUser {
		t.Fatalf("Lookup = %#x %#x %v", pa, fl, ok)
	}
	if _, _, ok := pt.Lookup(va + PageSize); ok {
		t.Fatal("neighbour page mapped")
	}
	if e := pt.Map(va, 0x301000, 0); e != EEXIST {
		t.Fatalf("double Map = %v, want EEXIST", e)
	}
	for _, c := range []struct {
		va, pa uintptr
		fl     Attr
	}{
		{va + 1, 0x300000, 0},                 // misaligned va
		{va, 0x300001, 0},                     // misaligned pa
		{va + PageSize, 0x300000, AttrHuge},   // a 4 KiB leaf cannot be huge (x86: PS/PAT bit)
		{va + PageSize, physLimit, AttrWrite}, // pa beyond the physical address width
		{va + PageSize, 0x300000, 1 << 12},    // not an attribute
	} {
		if e := pt.Map(c.va, c.pa, c.fl); e != EINVAL {
			t.Errorf("Map(%#x, %#x, %#x) = %v, want EINVAL", c.va, c.pa, c.fl, e)
		}
	}
	// Protect keeps the frame and changes rights.
	if e := pt.Protect(va, AttrUser|AttrExec); e != OK {
		t.Fatal(e)
	}
	if pa, fl, _ := pt.Lookup(va); fl != AttrUser|AttrExec || pa != 0x300000 {
		t.Fatalf("after Protect %#x flags = %#x", pa, fl)
	}
	f0 := flushes
	FlushTLB = func(uintptr, uintptr) { flushes++ }
	pa, _, ok = pt.Unmap(va)
	if !ok || pa != 0x300000 || flushes != f0+1 {
		t.Fatalf("Unmap = %#x %v, flushes %d", pa, ok, flushes-f0)
	}
	if _, _, ok := pt.Lookup(va); ok {
		t.Fatal("still mapped after Unmap")
	}
	if _, _, ok := pt.Unmap(va); ok {
		t.Fatal("second Unmap succeeded")
	}
}

func TestMap2M(t *testing.T) {
	setPhysArena()
	Init(testRAM)
	pt, _ := NewPageTable()
	const va = 0xffff_8000_4000_0000
	if e := pt.Map2M(va, 0x400000, AttrWrite|AttrGlobal); e != OK {
		t.Fatal(e)
	}
	pa, fl, ok := pt.Lookup(va + 0x1f_f123)
	if !ok || pa != 0x5f_f123 || fl&AttrHuge == 0 || fl&AttrGlobal == 0 {
		t.Fatalf("Lookup = %#x %#x %v", pa, fl, ok)
	}
	if e := pt.Map(va+PageSize, 0x1000, 0); e != EEXIST {
		t.Fatalf("4K map inside 2M page = %v, want EEXIST", e)
	}
	if e := pt.Map2M(va, 0x600000, 0); e != EEXIST {
		t.Fatalf("second Map2M = %v", e)
	}
	if e := pt.Map2M(va+PageSize, 0x600000, 0); e != EINVAL {
		t.Fatalf("misaligned Map2M = %v", e)
	}
	// A 2M mapping over an existing page table is refused.
	if e := pt.Map(va+HugeSize, 0x1000, 0); e != OK {
		t.Fatal(e)
	}
	if e := pt.Map2M(va+HugeSize, 0x600000, 0); e != EEXIST {
		t.Fatalf("Map2M over page table = %v", e)
	}
	if pa, _, ok := pt.Unmap2M(va); !ok || pa != 0x400000 {
		t.Fatalf("Unmap2M = %#x %v", pa, ok)
	}
	if _, _, ok := pt.Lookup(va); ok {
		t.Fatal("mapped after Unmap2M")
	}
}

func TestMapOutOfFramesForTables(t *testing.T) {
	setPhysArena()
	Init([]Region{{Base: 0x10000, Len: 2 * PageSize}})
	pt, err := NewPageTable() // uses 1 frame
	if err != OK {
		t.Fatal(err)
	}
	// A PDPT fits, the PD does not.
	if e := pt.Map(0x1000_0000, 0x300000, 0); e != ENOMEM {
		t.Fatalf("Map with no frames for tables = %v, want ENOMEM", e)
	}
}

func TestNextLeafSkipsAbsentSubtrees(t *testing.T) {
	setPhysArena()
	Init(testRAM)
	pt, _ := NewPageTable()
	pages := []uintptr{0x1000, 0x7000, 0x4000_0000_0000, UserEnd - PageSize}
	for _, va := range pages {
		if e := pt.Map(va, 0x300000, AttrUser); e != OK {
			t.Fatal(e)
		}
	}
	var got []uintptr
	for va := uintptr(0); ; {
		p, _, ok := pt.nextLeaf(va, UserEnd)
		if !ok {
			break
		}
		got = append(got, p)
		va = p + PageSize
	}
	if len(got) != len(pages) {
		t.Fatalf("leaves %#x, want %#x", got, pages)
	}
	for i := range pages {
		if got[i] != pages[i] {
			t.Fatalf("leaves %#x, want %#x", got, pages)
		}
	}
}

// PeekExecutable answers without the mm lock: the fault report calls it for
// faults that may have happened inside mm, with the lock held.
func TestPeekExecutable(t *testing.T) {
	if (PageTable{}).PeekExecutable(0x100000) {
		t.Fatal("empty page table reports an executable page")
	}
	pt := boot(t, testRAM)
	top, _ := MapKernelStack(0)
	rwx := mustMmap(t, 0x3000_0000_0000, PageSize, PROT_READ|PROT_WRITE|PROT_EXEC, anon|MAP_FIXED)
	cases := []struct {
		name string
		va   uintptr
		want bool
	}{
		{"image text", 0x100000 + 0x123, true},
		{"image text, last page", 0x103fff, true},
		{"image rodata", 0x104000, false},
		{"image data", 0x106000, false},
		{"page 0", 0, false},
		{"direct map", DirectMapBase + 32<<20, false},
		{"kernel stack", top - 8, false},
		{"stack guard", top - KernelStackSlot, false},
		{"RWX mapping not yet touched", rwx, false},
		{"beyond user space", UserEnd, false},
	}
	check := func(when string) {
		t.Helper()
		for _, c := range cases {
			if got := pt.PeekExecutable(c.va); got != c.want {
				t.Errorf("%s: %s: PeekExecutable(%#x) = %v", when, c.name, c.va, got)
			}
		}
	}
	check("unlocked")
	// A fault inside mm: the lock is held. Lookup would panic; the peek
	// must not, and must see the same tables.
	lockMM()
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("PeekExecutable with the mm lock held panicked: %v", r)
			}
		}()
		check("mm lock held")
	}()
	unlockMM()
	// It follows the mapping's life: an instruction fetch makes the W^X
	// page executable, a write makes it writable and not executable.
	HandleFault(rwx, false, true, true)
	if !pt.PeekExecutable(rwx + 1) {
		t.Error("RWX page after an instruction fetch not executable")
	}
	HandleFault(rwx, true, false, true)
	if pt.PeekExecutable(rwx) {
		t.Error("RWX page after a write still executable")
	}
}
