package mm

import "testing"

func TestMmapPlacement(t *testing.T) {
	boot(t, testRAM)
	const mb = 1 << 20
	a := mustMmap(t, 0, 4*mb, PROT_READ|PROT_WRITE, anon)
	if a != MmapBase-4*mb {
		t.Fatalf("first mmap at %#x, want top-down from MmapBase", a)
	}
	b := mustMmap(t, 0, 1*mb, PROT_READ|PROT_WRITE, anon)
	if b != a-mb {
		t.Fatalf("second mmap at %#x, want %#x", b, a-mb)
	}
	n0 := Space.NumVMAs()
	if n0 != 3+1 { // image (3) + merged [b, a+4M)
		t.Fatalf("VMAs = %+v, want the two anonymous ones merged", vmaList(&Space))
	}
	cases := []struct {
		name       string
		hint, size uintptr
		want       uintptr // 0: anywhere except the hint
	}{
		{"free aligned hint honoured", 0x1000_0000_0000, 64 * mb, 0x1000_0000_0000},
		// round_hint_to_min: the hint's page (native: 0x200000000123 → 0x200000000000) ...
		{"unaligned hint rounded down", 0x2000_0000_0123, PageSize, 0x2000_0000_0000},
		{"hint overlapping the image refused", 0x100000, PageSize, 0},
		{"hint overlapping a mapping refused", 0x1000_0000_0000 + mb, PageSize, 0},
		// ... but never below mmap_min_addr (native: 0x1000 and 0x8000 → 0x10000).
		{"hint below MinAddr raised to it", 0x1000, PageSize, MinAddr},
		{"hint beyond user space refused", UserEnd, PageSize, 0},
		{"hint reaching past UserEnd refused", UserEnd - PageSize, 2 * PageSize, 0},
		{"hint at the last page honoured", UserEnd - PageSize, PageSize, UserEnd - PageSize}, // native
	}
	for _, c := range cases {
		got := mustMmap(t, c.hint, c.size, PROT_NONE, anon)
		if c.want != 0 && got != c.want {
			t.Errorf("%s: got %#x, want %#x", c.name, got, c.want)
		}
		if c.want == 0 && (got == alignDown(c.hint, PageSize) || got < MinAddr || got+c.size > MmapBase) {
			t.Errorf("%s: got %#x", c.name, got)
		}
	}
	// Every VMA is inside user space, disjoint, and page 0 is never used.
	prev := uintptr(0)
	for _, v := range vmaList(&Space) {
		if v.Start < prev || v.Start >= v.End || v.Start < PageSize || v.End > UserEnd {
			t.Fatalf("bad VMA layout %+v", vmaList(&Space))
		}
		prev = v.End
	}
	// PROT_NONE and RW mappings cost no frames until touched.
	if s := Space.ReadStats(); s.Faults != 0 {
		t.Fatalf("mmap faulted pages in: %+v", s)
	}
}

// TestMmapErrors: bad arguments fail with Linux's errno, checked in Linux's
// order (do_mmap and the functions it calls; see Mmap). "native:" cases were
// observed on Linux 6.18 x86-64 as an unprivileged user (gmpos grants no
// CAP_SYS_RAWIO, so the mmap_min_addr check applies).
func TestMmapErrors(t *testing.T) {
	boot(t, testRAM)
	rw := uint32(PROT_READ | PROT_WRITE)
	const fd = 3 // a valid fd of a file that cannot be mapped (a pipe natively)
	const file = MAP_PRIVATE
	cases := []struct {
		name   string
		addr   uintptr
		length uintptr
		prot   uint32
		flags  uint32
		fd     FileAccess
		off    uintptr
		want   Errno
	}{
		// arch sys_mmap: offset_in_page(off) before anything else.
		{"unaligned offset", 0, PageSize, rw, anon, -1, 1, EINVAL},
		{"unaligned offset, zero length", 0, 0, rw, anon, -1, 1, EINVAL},
		{"unaligned offset, overflowing length", 0, ^uintptr(0) - 5, rw, anon, -1, 1, EINVAL},
		{"unaligned offset, file", 0, PageSize, rw, file, fd, 1, EINVAL}, // native: EINVAL even with fd -1
		// ksys_mmap_pgoff: MAP_HUGETLB needs an anonymous mapping and a size hstate_sizelog knows.
		{"hugetlb file", 0, PageSize, rw, file | MAP_HUGETLB, fd, 0, EINVAL},                                     // native (pipe)
		{"hugetlb size 32 MiB", 0, HugeSize, rw, anon | MAP_HUGETLB | 25<<MAP_HUGE_SHIFT, -1, 0, hugetlbErr(25)}, // native x86: EINVAL
		{"hugetlb zero length", 0, 0, rw, anon | MAP_HUGETLB, -1, 0, EINVAL},                                     // native: do_mmap !len
		// do_mmap: !len, then PAGE_ALIGN(len) == 0.
		{"zero length", 0, 0, rw, anon, -1, 0, EINVAL},
		{"zero length file", 0, 0, rw, file, fd, 0, EINVAL}, // native (pipe)
		{"length overflow", 0, ^uintptr(0) - 5, rw, anon, -1, 0, ENOMEM},
		{"length overflow, fixed", 0x1000_0000_0000, ^uintptr(0) - 5, rw, anon | MAP_FIXED, -1, 0, ENOMEM},
		// __get_unmapped_area: len > TASK_SIZE, then the arch search.
		{"length beyond user space", 0, 1 << 47, rw, anon, -1, 0, ENOMEM},
		{"length 2^63", 0, 1 << 63, rw, anon, -1, 0, ENOMEM},
		{"length UserEnd", 0, UserEnd, rw, anon, -1, 0, ENOMEM}, // no free range that large
		// ... with MAP_FIXED: addr > TASK_SIZE - len, then offset_in_page(addr),
		// then security_mmap_addr (mmap_min_addr without CAP_SYS_RAWIO).
		{"fixed past UserEnd", UserEnd - PageSize, 2 * PageSize, rw, anon | MAP_FIXED, -1, 0, ENOMEM},
		{"fixed at UserEnd", UserEnd, PageSize, rw, anon | MAP_FIXED, -1, 0, ENOMEM},
		{"fixed in the kernel half", DirectMapBase, PageSize, rw, anon | MAP_FIXED, -1, 0, ENOMEM},
		{"fixed unaligned", 0x1000_0000_0010, PageSize, rw, anon | MAP_FIXED, -1, 0, EINVAL},
		{"fixed unaligned past UserEnd", UserEnd + 0x10, PageSize, rw, anon | MAP_FIXED, -1, 0, ENOMEM}, // native: ENOMEM before EINVAL
		{"fixed unaligned below MinAddr", 0x1001, PageSize, rw, anon | MAP_FIXED, -1, 0, EINVAL},        // native: EINVAL before EPERM
		{"fixed at page 0", 0, PageSize, rw, anon | MAP_FIXED, -1, 0, EPERM},                            // native (root gets 0)
		{"fixed below MinAddr", 0x1000, PageSize, rw, anon | MAP_FIXED, -1, 0, EPERM},
		{"noreplace unaligned", 0x1000_0000_0010, PageSize, rw, anon | MAP_FIXED_NOREPLACE, -1, 0, EINVAL},
		{"noreplace at page 0", 0, PageSize, rw, anon | MAP_FIXED_NOREPLACE, -1, 0, EPERM},
		{"noreplace in the kernel half", DirectMapBase, PageSize, rw, anon | MAP_FIXED_NOREPLACE, -1, 0, ENOMEM},
		{"hugetlb fixed, not 2 MiB aligned", 0x1000_0000_1000, HugeSize, rw, anon | MAP_HUGETLB | MAP_FIXED, -1, 0, EINVAL}, // native: hugetlb_get_unmapped_area
		// do_mmap: MAP_FIXED_NOREPLACE over a mapping.
		{"noreplace over the image", 0x100000, PageSize, rw, anon | MAP_FIXED_NOREPLACE, -1, 0, EEXIST},
		// do_mmap, file mappings: the type, MAP_SHARED_VALIDATE's flags, then ->mmap.
		{"file mapping", 0, PageSize, rw, file, fd, 0, ENODEV},                              // native (pipe)
		{"shared file mapping", 0, PageSize, rw, MAP_SHARED, fd, 0, ENODEV},                 // native (pipe)
		{"file, no mapping type", 0, PageSize, rw, 0, fd, 0, EINVAL},                        // native (pipe)
		{"file, droppable", 0, PageSize, rw, MAP_DROPPABLE, fd, 0, EINVAL},                  // native (pipe)
		{"file fixed past UserEnd", UserEnd, PageSize, rw, file | MAP_FIXED, fd, 0, ENOMEM}, // native (pipe)
		{"file growsdown", 0, PageSize, rw, file | MAP_GROWSDOWN, fd, 0, ENODEV},            // native: ENODEV before EINVAL
		{"validate MAP_SYNC", 0, PageSize, rw, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0, EOPNOTSUPP},
		{"validate bit 31", 0, PageSize, rw, MAP_SHARED_VALIDATE | 1<<31, fd, 0, EOPNOTSUPP},
		{"validate huge-size bits", 0, PageSize, rw, MAP_SHARED_VALIDATE | 1<<28, fd, 0, ENODEV}, // native: legacy bits
		{"validate noreplace", 0x1000_0000_0000, PageSize, rw, MAP_SHARED_VALIDATE | MAP_FIXED_NOREPLACE, fd, 0, EOPNOTSUPP},
		// do_mmap, anonymous mappings: the type.
		{"no mapping type", 0, PageSize, rw, MAP_ANONYMOUS, -1, 0, EINVAL},
		{"no mapping type, fixed past UserEnd", UserEnd, PageSize, rw, MAP_ANONYMOUS | MAP_FIXED, -1, 0, ENOMEM}, // native: the address first
		{"type 4", 0, PageSize, rw, MAP_ANONYMOUS | 4, -1, 0, EINVAL},
		{"type 15", 0, PageSize, rw, MAP_ANONYMOUS | 15, -1, 0, EINVAL},
		{"shared validate anonymous", 0, PageSize, rw, MAP_SHARED_VALIDATE | MAP_ANONYMOUS, -1, 0, EINVAL},                 // native
		{"shared validate anonymous sync", 0, PageSize, rw, MAP_SHARED_VALIDATE | MAP_ANONYMOUS | MAP_SYNC, -1, 0, EINVAL}, // native
		{"shared growsdown", 0, PageSize, rw, MAP_SHARED | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0, EINVAL},                   // native
		{"shared, fixed past UserEnd", UserEnd, PageSize, rw, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0, ENOMEM},       // native: the address first
		// Deliberately not supported (doc.go, Deviations).
		{"droppable", 0, PageSize, rw, MAP_DROPPABLE | MAP_ANONYMOUS, -1, 0, EINVAL}, // native (6.11+): a mapping
		// mmap_region: sealed (pinned) VMAs.
		{"fixed over the image", 0x104000, PageSize, rw, anon | MAP_FIXED, -1, 0, EPERM},
		// hugetlbfs_file_mmap: no huge page pool (vm.nr_hugepages = 0).
		{"hugetlb", 0, PageSize, rw, anon | MAP_HUGETLB, -1, 0, ENOMEM},                                    // native
		{"hugetlb 2 MiB", 0, HugeSize, rw, anon | MAP_HUGETLB | 21<<MAP_HUGE_SHIFT, -1, 0, hugetlbErr(21)}, // native
		{"hugetlb 1 GiB", 0, 1 << 30, rw, anon | MAP_HUGETLB | 30<<MAP_HUGE_SHIFT, -1, 0, hugetlbErr(30)},  // native
		{"hugetlb noreserve", 0, HugeSize, rw, anon | MAP_HUGETLB | MAP_NORESERVE, -1, 0, ENOMEM},          // native: a mapping
	}
	n := Space.NumVMAs()
	for _, c := range cases {
		a, err := Space.Mmap(c.addr, c.length, c.prot, c.flags, c.fd, c.off)
		if err != c.want || a != 0 {
			t.Errorf("%s: Mmap = %#x, %v; want %v", c.name, a, err, c.want)
		}
	}
	if Space.NumVMAs() != n {
		t.Fatalf("failed mmaps changed the VMA table: %+v", vmaList(&Space))
	}
}

// hugetlbErr is mmap's answer for MAP_HUGETLB with page size 1<<shift: no
// such size (EINVAL, hstate_sizelog), or no pool of them (ENOMEM).
func hugetlbErr(shift uint32) Errno {
	if hugetlbShift(shift) {
		return ENOMEM
	}
	return EINVAL
}

// TestMmapAccepts: what Linux ignores or honours, gmpos accepts too.
func TestMmapAccepts(t *testing.T) {
	boot(t, testRAM)
	rw := uint32(PROT_READ | PROT_WRITE)
	cases := []struct {
		name        string
		addr        uintptr
		prot, flags uint32
		fd          FileAccess
		off         uintptr
		want        uintptr // 0: anywhere
		wantProt    uint32
	}{
		// do_mmap never validates prot: calc_vm_prot_bits keeps R/W/X (native: all succeed).
		{"unknown prot bit", 0, rw | 0x10, anon, -1, 0, 0, rw},
		{"PROT_SEM", 0, rw | PROT_SEM, anon, -1, 0, 0, rw},
		{"PROT_GROWSDOWN", 0, rw | PROT_GROWSDOWN, anon, -1, 0, 0, rw},
		{"all prot bits", 0, 0xffffffff, anon, -1, 0, 0, PROT_READ | PROT_WRITE | PROT_EXEC},
		// ksys_mmap_pgoff ignores fd and (aligned) off for MAP_ANONYMOUS (native).
		{"anonymous with fd 3", 0, rw, anon, 3, 0, 0, rw},
		{"anonymous with an offset", 0, rw, anon, -1, PageSize, 0, rw},
		{"anonymous with the largest offset", 0, rw, anon, -1, ^uintptr(PageMask), 0, rw},
		// Legacy flags are not validated with MAP_PRIVATE (native: all succeed).
		{"MAP_SYNC private", 0, rw, anon | MAP_SYNC, -1, 0, 0, rw},
		{"unknown flag bit 28", 0, rw, anon | 1<<28, -1, 0, 0, rw},
		{"unknown flag bit 31", 0, rw, anon | 1<<31, -1, 0, 0, rw},
		{"MAP_STACK", 0, rw, anon | MAP_STACK, -1, 0, 0, rw},
		{"MAP_NORESERVE", 0, rw, anon | MAP_NORESERVE, -1, 0, 0, rw},
		{"MAP_UNINITIALIZED", 0, rw, anon | MAP_UNINITIALIZED, -1, 0, 0, rw},
		{"MAP_NONBLOCK", 0, rw, anon | MAP_NONBLOCK, -1, 0, 0, rw},
		{"MAP_DENYWRITE|MAP_EXECUTABLE", 0, rw, anon | MAP_DENYWRITE | MAP_EXECUTABLE, -1, 0, 0, rw},
		{"MAP_LOCKED", 0, rw, anon | MAP_LOCKED, -1, 0, 0, rw}, // native (root; RLIMIT_MEMLOCK otherwise)
		{"MAP_GROWSDOWN", 0, rw, anon | MAP_GROWSDOWN, -1, 0, 0, rw},
		// The highest page of user space.
		{"fixed at the last page", UserEnd - PageSize, rw, anon | MAP_FIXED, -1, 0, UserEnd - PageSize, rw},
	}
	for _, c := range cases {
		a, err := Space.Mmap(c.addr, PageSize, c.prot, c.flags, c.fd, c.off)
		if err != OK || c.want != 0 && a != c.want {
			t.Errorf("%s: Mmap = %#x, %v; want %#x", c.name, a, err, c.want)
			continue
		}
		v, _ := Space.VMA(Space.lookup(a))
		if v.Prot != c.wantProt {
			t.Errorf("%s: VMA prot %#x, want %#x", c.name, v.Prot, c.wantProt)
		}
		if (v.Flags&VMAGrowsDown != 0) != (c.flags&MAP_GROWSDOWN != 0) {
			t.Errorf("%s: VMA flags %#x", c.name, v.Flags)
		}
		if err := Space.Munmap(a, PageSize); err != OK {
			t.Fatal(err)
		}
	}
}

// TestMmap32Bit: x86's MAP_32BIT keeps the mapping in the first 2 GiB
// (find_start_end: [0x40000000, 0x80000000); a hint below 2 GiB is honoured).
func TestMmap32Bit(t *testing.T) {
	if mapLow32 == 0 {
		t.Skip("no MAP_32BIT on this architecture")
	}
	boot(t, testRAM)
	rw := uint32(PROT_READ | PROT_WRITE)
	for _, c := range []struct {
		name   string
		hint   uintptr
		lo, hi uintptr
	}{
		{"no hint", 0, map32Base, map32End},                              // native: 0x41f36000
		{"hint above 4 GiB", 0x1000_0000_0000, map32Base, map32End},      // native: 0x41f13000
		{"hint below the window", 0x1000_0000, 0x1000_0000, 0x1000_1000}, // native: 0x10000000
	} {
		a, err := Space.Mmap(c.hint, PageSize, rw, anon|mapLow32, -1, 0)
		if err != OK || a < c.lo || a+PageSize > c.hi {
			t.Errorf("%s: Mmap(MAP_32BIT) = %#x, %v; want in [%#x, %#x)", c.name, a, err, c.lo, c.hi)
		}
	}
	// Larger than the window: ENOMEM (native: 3 GiB).
	if a, err := Space.Mmap(0, 3<<30, rw, anon|mapLow32, -1, 0); err != ENOMEM {
		t.Errorf("Mmap(MAP_32BIT, 3 GiB) = %#x, %v; want ENOMEM", a, err)
	}
}

func TestMmapFixedReplaceAndNoreplace(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 8*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	for i := uintptr(0); i < 8; i++ {
		if _, ok, _ := access(&Space, base+i*PageSize, true, byte(0x10+i)); !ok {
			t.Fatal("touch failed")
		}
	}
	used := Space.ReadStats().FramesUsed
	// NOREPLACE over it fails and changes nothing.
	if _, err := Space.Mmap(base+PageSize, PageSize, PROT_READ, anon|MAP_FIXED_NOREPLACE|MAP_FIXED, -1, 0); err != EEXIST {
		t.Fatalf("NOREPLACE overlap = %v", err)
	}
	// FIXED replaces pages 2..4 with a fresh read-only mapping.
	if a := mustMmap(t, base+2*PageSize, 3*PageSize, PROT_READ, anon|MAP_FIXED); a != base+2*PageSize {
		t.Fatalf("fixed at %#x", a)
	}
	if got := used - Space.ReadStats().FramesUsed; got != 3 {
		t.Fatalf("replacement freed %d frames, want 3", got)
	}
	want := []VMA{
		{base, base + 2*PageSize, PROT_READ | PROT_WRITE, 0},
		{base + 2*PageSize, base + 5*PageSize, PROT_READ, 0},
		{base + 5*PageSize, base + 8*PageSize, PROT_READ | PROT_WRITE, 0},
	}
	got := vmaList(&Space)[3:]
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("VMAs %+v, want %+v", got, want)
	}
	for i := uintptr(0); i < 8; i++ {
		v, ok, _ := access(&Space, base+i*PageSize, false, 0)
		wantV := byte(0x10 + i)
		if i >= 2 && i < 5 {
			wantV = 0 // fresh zero page
		}
		if !ok || v != wantV {
			t.Fatalf("page %d = %#x (ok %v), want %#x", i, v, ok, wantV)
		}
	}
	// Replacing with the same prot merges back into one VMA.
	mustMmap(t, base+2*PageSize, 3*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	if got := vmaList(&Space)[3:]; len(got) != 1 || got[0] != (VMA{base, base + 8*PageSize, PROT_READ | PROT_WRITE, 0}) {
		t.Fatalf("not merged: %+v", got)
	}
	// NOREPLACE into a free range works.
	if a, err := Space.Mmap(base+8*PageSize, PageSize, PROT_READ, anon|MAP_FIXED_NOREPLACE, -1, 0); err != OK || a != base+8*PageSize {
		t.Fatalf("NOREPLACE free = %#x %v", a, err)
	}
}

func TestMunmap(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 10*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	for i := uintptr(0); i < 10; i++ {
		access(&Space, base+i*PageSize, true, byte(1+i))
	}
	s0 := Space.ReadStats()
	f0 := flushes
	if err := Space.Munmap(base+3*PageSize, 4*PageSize); err != OK {
		t.Fatal(err)
	}
	s1 := Space.ReadStats()
	if s0.FramesUsed-s1.FramesUsed != 4 || s1.Unmapped-s0.Unmapped != 4 || flushes-f0 != 4 {
		t.Fatalf("munmap freed %d frames, %d pages, %d flushes; want 4 each",
			s0.FramesUsed-s1.FramesUsed, s1.Unmapped-s0.Unmapped, flushes-f0)
	}
	got := vmaList(&Space)[3:]
	if len(got) != 2 || got[0] != (VMA{base, base + 3*PageSize, PROT_READ | PROT_WRITE, 0}) ||
		got[1] != (VMA{base + 7*PageSize, base + 10*PageSize, PROT_READ | PROT_WRITE, 0}) {
		t.Fatalf("VMAs after munmap in the middle: %+v", got)
	}
	for i := uintptr(0); i < 10; i++ {
		v, ok, code := access(&Space, base+i*PageSize, false, 0)
		if i >= 3 && i < 7 {
			if ok || code != SEGV_MAPERR {
				t.Fatalf("unmapped page %d: ok=%v code=%d", i, ok, code)
			}
		} else if !ok || v != byte(1+i) {
			t.Fatalf("page %d lost its data: %#x", i, v)
		}
	}
	// Unaligned length rounds up; holes are fine; whole-VMA removal.
	if err := Space.Munmap(base, 10*PageSize-1); err != OK {
		t.Fatal(err)
	}
	if Space.NumVMAs() != 3 {
		t.Fatalf("VMAs left: %+v", vmaList(&Space))
	}
	// do_vmi_munmap: offset_in_page(start) || start > TASK_SIZE ||
	// len > TASK_SIZE - start, then PAGE_ALIGN(len) == 0 (native: all).
	for _, c := range []struct {
		addr, length uintptr
		want         Errno
	}{
		{base + 1, PageSize, EINVAL},
		{base, 0, EINVAL},
		{base + 1, 0, EINVAL},
		{UserEnd, PageSize, EINVAL},
		{UserEnd, 0, EINVAL},
		{UserEnd - PageSize, 2 * PageSize, EINVAL}, // crosses TASK_SIZE
		{DirectMapBase, PageSize, EINVAL},
		{base, ^uintptr(0) - 5, EINVAL}, // overflows
		{MinAddr, 1 << 63, EINVAL},
		{0x100000, PageSize, EPERM}, // the image is sealed (vms_gather_munmap_vmas: can_modify_vma)
		{0x5000_0000_0000, PageSize, OK},
		{UserEnd - PageSize, PageSize, OK}, // ends exactly at TASK_SIZE, nothing there
		{0, PageSize, OK},                  // page 0, never mapped
	} {
		if err := Space.Munmap(c.addr, c.length); err != c.want {
			t.Errorf("Munmap(%#x, %#x) = %v, want %v", c.addr, c.length, err, c.want)
		}
	}
	if _, _, ok := Space.PT.Lookup(0x100000); !ok {
		t.Fatal("refused munmap of the image still unmapped it")
	}
}
