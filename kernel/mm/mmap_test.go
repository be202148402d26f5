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
		{"unaligned hint rounded up", 0x2000_0000_0123, PageSize, 0x2000_0000_1000},
		{"hint overlapping the image refused", 0x100000, PageSize, 0},
		{"hint overlapping a mapping refused", 0x1000_0000_0000 + mb, PageSize, 0},
		{"hint below MinAddr refused", 0x1000, PageSize, 0},
		{"hint beyond user space refused", UserEnd, PageSize, 0},
		{"hint reaching past UserEnd refused", UserEnd - PageSize, 2 * PageSize, 0},
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

func TestMmapErrors(t *testing.T) {
	boot(t, testRAM)
	rw := uint32(PROT_READ | PROT_WRITE)
	cases := []struct {
		name   string
		addr   uintptr
		length uintptr
		prot   uint32
		flags  uint32
		fd     int
		off    uintptr
		want   Errno
	}{
		{"zero length", 0, 0, rw, anon, -1, 0, EINVAL},
		{"unknown prot", 0, PageSize, 8, anon, -1, 0, EINVAL},
		{"no mapping type", 0, PageSize, rw, MAP_ANONYMOUS, -1, 0, EINVAL},
		{"shared", 0, PageSize, rw, MAP_SHARED | MAP_ANONYMOUS, -1, 0, ENODEV},
		{"file mapping", 0, PageSize, rw, MAP_PRIVATE, 3, 0, ENODEV},
		{"unaligned offset", 0, PageSize, rw, anon, -1, 1, EINVAL},
		{"hugetlb", 0, PageSize, rw, anon | MAP_HUGETLB, -1, 0, EINVAL},
		{"length overflow", 0, ^uintptr(0) - 5, rw, anon, -1, 0, ENOMEM},
		{"length beyond user space", 0, 1 << 47, rw, anon, -1, 0, ENOMEM},
		{"fixed unaligned", 0x1000_0000_0010, PageSize, rw, anon | MAP_FIXED, -1, 0, EINVAL},
		{"fixed at page 0", 0, PageSize, rw, anon | MAP_FIXED, -1, 0, EPERM},
		{"fixed below MinAddr", 0x1000, PageSize, rw, anon | MAP_FIXED, -1, 0, EPERM},
		{"fixed over the image", 0x104000, PageSize, rw, anon | MAP_FIXED, -1, 0, EPERM},
		{"fixed past UserEnd", UserEnd - PageSize, 2 * PageSize, rw, anon | MAP_FIXED, -1, 0, ENOMEM},
		{"fixed in the kernel half", DirectMapBase, PageSize, rw, anon | MAP_FIXED, -1, 0, ENOMEM},
		{"noreplace over the image", 0x100000, PageSize, rw, anon | MAP_FIXED_NOREPLACE, -1, 0, EEXIST},
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
	// Linux ignores fd for MAP_ANONYMOUS (ksys_mmap_pgoff only looks the file up otherwise).
	if a, err := Space.Mmap(0, PageSize, rw, anon, 3, 0); err != OK || a == 0 {
		t.Errorf("anonymous mmap with fd 3 = %#x, %v; want a mapping", a, err)
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
	for _, c := range []struct {
		addr, length uintptr
		want         Errno
	}{
		{base + 1, PageSize, EINVAL},
		{base, 0, EINVAL},
		{UserEnd, PageSize, EINVAL},
		{DirectMapBase, PageSize, EINVAL},
		{0x100000, PageSize, EPERM}, // the image is sealed
		{0x5000_0000_0000, PageSize, OK},
	} {
		if err := Space.Munmap(c.addr, c.length); err != c.want {
			t.Errorf("Munmap(%#x, %#x) = %v, want %v", c.addr, c.length, err, c.want)
		}
	}
	if _, _, ok := Space.PT.Lookup(0x100000); !ok {
		t.Fatal("refused munmap of the image still unmapped it")
	}
}

func TestMprotect(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 4*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	access(&Space, base+PageSize, true, 0x5a)
	if err := Space.Mprotect(base+PageSize, PageSize, PROT_READ); err != OK {
		t.Fatal(err)
	}
	if _, fl, _ := Space.PT.Lookup(base + PageSize); fl.Writable() {
		t.Fatal("present page still writable after mprotect(PROT_READ)")
	}
	if _, ok, code := access(&Space, base+PageSize, true, 1); ok || code != SEGV_ACCERR {
		t.Fatalf("write to read-only page: ok=%v code=%d", ok, code)
	}
	if v, ok, _ := access(&Space, base+PageSize, false, 0); !ok || v != 0x5a {
		t.Fatalf("read after mprotect = %#x %v", v, ok)
	}
	if err := Space.Mprotect(base+PageSize, PageSize, PROT_NONE); err != OK {
		t.Fatal(err)
	}
	if _, ok, code := access(&Space, base+PageSize, false, 0); ok || code != SEGV_ACCERR {
		t.Fatalf("read of PROT_NONE page: ok=%v code=%d", ok, code)
	}
	if err := Space.Mprotect(base, 4*PageSize, PROT_READ|PROT_WRITE); err != OK {
		t.Fatal(err)
	}
	if v, ok, _ := access(&Space, base+PageSize, true, 0x77); !ok || v != 0x77 {
		t.Fatal("page unusable after mprotect back to RW")
	}
	if got := vmaList(&Space)[3:]; len(got) != 1 {
		t.Fatalf("VMAs not merged back: %+v", got)
	}
	for _, c := range []struct {
		addr, length uintptr
		prot         uint32
		want         Errno
	}{
		{base, 5 * PageSize, PROT_READ, ENOMEM}, // runs past the mapping
		{base + 1, PageSize, PROT_READ, EINVAL},
		{base, PageSize, 0x10, EINVAL},
		{base, 0, PROT_READ, OK},
		{0x100000, PageSize, PROT_READ, EPERM},
	} {
		if err := Space.Mprotect(c.addr, c.length, c.prot); err != c.want {
			t.Errorf("Mprotect(%#x, %#x, %d) = %v, want %v", c.addr, c.length, c.prot, err, c.want)
		}
	}
}
