package mm

import "testing"

func TestMadviseDontneedZeroes(t *testing.T) {
	for _, advice := range []int{MADV_DONTNEED, MADV_FREE, MADV_DONTNEED_LOCKED} {
		boot(t, testRAM)
		const base = 0x3000_0000_0000
		const pages = 6
		mustMmap(t, base, pages*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
		// Write a pattern into every byte of every page.
		for i := uintptr(0); i < pages; i++ {
			access(&Space, base+i*PageSize, true, 0)
			pa, _, _ := Space.PT.Lookup(base + i*PageSize)
			for j := range FrameBytes(pa) {
				FrameBytes(pa)[j] = byte(j*7 + int(i))
			}
		}
		s0 := Space.ReadStats()
		if err := Space.Madvise(base+PageSize, 4*PageSize, advice); err != OK {
			t.Fatalf("madvise(%d) = %v", advice, err)
		}
		s1 := Space.ReadStats()
		if s0.FramesUsed-s1.FramesUsed != 4 || s1.MadvDropped-s0.MadvDropped != 4 {
			t.Fatalf("advice %d: freed %d frames, dropped %d; want 4", advice,
				s0.FramesUsed-s1.FramesUsed, s1.MadvDropped-s0.MadvDropped)
		}
		if s1.VMAs != s0.VMAs {
			t.Fatal("madvise changed the VMA table")
		}
		for i := uintptr(1); i < 5; i++ {
			if _, _, ok := Space.PT.Lookup(base + i*PageSize); ok {
				t.Fatalf("page %d still mapped after advice %d", i, advice)
			}
			// Touch again: a fresh, fully zero page.
			if _, ok, _ := access(&Space, base+i*PageSize, false, 0); !ok {
				t.Fatal("refault failed")
			}
			pa, _, _ := Space.PT.Lookup(base + i*PageSize)
			for j, b := range FrameBytes(pa) {
				if b != 0 {
					t.Fatalf("advice %d: page %d byte %d = %#x after refault", advice, i, j, b)
				}
			}
		}
		if got := Space.ReadStats().FramesUsed; got != s0.FramesUsed {
			t.Fatalf("frames used %d after refault, want %d", got, s0.FramesUsed)
		}
		// Pages outside the range kept their data.
		for _, i := range []uintptr{0, 5} {
			pa, _, _ := Space.PT.Lookup(base + i*PageSize)
			if FrameBytes(pa)[3] != byte(21+int(i)) {
				t.Fatalf("page %d outside the range lost data", i)
			}
		}
	}
}

func TestMadviseAdviceAndErrors(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 4*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	access(&Space, base, true, 9)
	for _, adv := range []int{MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_HUGEPAGE, MADV_NOHUGEPAGE,
		MADV_DONTFORK, MADV_DOFORK, MADV_MERGEABLE, MADV_UNMERGEABLE, MADV_DONTDUMP, MADV_DODUMP,
		MADV_WIPEONFORK, MADV_KEEPONFORK, MADV_COLD, MADV_PAGEOUT} {
		if err := Space.Madvise(base, 4*PageSize, adv); err != OK {
			t.Errorf("advice %d = %v", adv, err)
		}
	}
	// MADV_COLLAPSE succeeds where a huge page can be formed; a 4-page
	// mapping cannot hold one (native: EINVAL; see TestMadviseCollapse).
	if err := Space.Madvise(base, 4*PageSize, MADV_COLLAPSE); err != EINVAL {
		t.Errorf("MADV_COLLAPSE of a 4-page mapping = %v, want EINVAL", err)
	}
	if v, ok, _ := access(&Space, base, false, 0); !ok || v != 9 {
		t.Fatal("a hint discarded data")
	}
	for _, adv := range []int{5, 9, 100, -1} {
		if err := Space.Madvise(base, PageSize, adv); err != EINVAL {
			t.Errorf("advice %d = %v, want EINVAL", adv, err)
		}
	}
	if err := Space.Madvise(base+1, PageSize, MADV_DONTNEED); err != EINVAL {
		t.Errorf("unaligned = %v", err)
	}
	if err := Space.Madvise(base, 0, MADV_DONTNEED); err != OK {
		t.Errorf("zero length = %v", err)
	}
	if err := Space.Madvise(0x106000, PageSize, MADV_DONTNEED); err != EPERM {
		t.Errorf("image = %v, want EPERM", err)
	}
	// Range running past the mapping: ENOMEM, but the mapped part is dropped
	// (Linux applies advice to the mapped parts).
	if err := Space.Madvise(base, 8*PageSize, MADV_DONTNEED); err != ENOMEM {
		t.Errorf("partly unmapped = %v, want ENOMEM", err)
	}
	if _, _, ok := Space.PT.Lookup(base); ok {
		t.Error("mapped part not dropped")
	}
}

// TestMadviseArguments: do_madvise's argument checks, in its order
// (is_valid_madvise, then len == 0, then the walk). "native:" is Linux
// 6.18 x86-64.
func TestMadviseArguments(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 4*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	for _, c := range []struct {
		name         string
		addr, length uintptr
		advice       int
		want         Errno
	}{
		// madvise_behavior_valid first, then PAGE_ALIGNED(start) (native).
		{"bad advice, unaligned", base + 1, PageSize, 5, EINVAL},
		{"bad advice, zero length", base, 0, 5, EINVAL},
		{"unaligned", base + 1, PageSize, MADV_DONTNEED, EINVAL},
		{"unaligned, zero length", base + 1, 0, MADV_DONTNEED, EINVAL},
		// len_in && !PAGE_ALIGN(len_in), start + len < start (native).
		{"length rounds to 0", base, ^uintptr(0) - 100, MADV_NORMAL, EINVAL},
		{"length overflows", base, ^uintptr(0) - 5, MADV_DONTNEED, EINVAL},
		{"range wraps to 0", ^uintptr(PageMask), PageSize, MADV_DONTNEED, EINVAL},
		{"range wraps past 0", ^uintptr(PageMask), PageSize + 1, MADV_DONTNEED, EINVAL},
		// end == start: success, before looking at the range.
		{"zero length", base, 0, MADV_DONTNEED, OK},
		{"zero length, unmapped", 0x5000_0000_0000, 0, MADV_DONTNEED, OK},
		// madvise_walk_vmas: no VMA → ENOMEM (native: all).
		{"kernel half", DirectMapBase, PageSize, MADV_DONTNEED, ENOMEM},
		{"kernel half, NORMAL", DirectMapBase, PageSize, MADV_NORMAL, ENOMEM},
		{"at UserEnd", UserEnd, PageSize, MADV_DONTNEED, ENOMEM},
		{"huge length from MinAddr", MinAddr, 1 << 63, MADV_NORMAL, ENOMEM},
		{"huge length from unmapped", UserEnd - 1<<40, 1 << 47, MADV_DONTNEED, ENOMEM},
		{"huge length over a mapping", base, 1 << 47, MADV_NORMAL, ENOMEM},
		// SYSCALL_DEFINE3(..., int, behavior): the upper half is ignored.
		{"advice with high bits", base, PageSize, 1<<32 | MADV_DONTNEED, OK},
		{"advice 0xffffffff", base, PageSize, 0xffffffff, EINVAL},
	} {
		if err := Space.Madvise(c.addr, c.length, c.advice); err != c.want {
			t.Errorf("%s: Madvise(%#x, %#x, %d) = %v, want %v", c.name, c.addr, c.length, c.advice, err, c.want)
		}
	}
}

// TestMadviseEveryAdvice: every advice value Linux 6.x defines (and some it
// does not), on an anonymous private RW mapping, a PROT_NONE one, an
// unmapped range, a RW range with a hole, and a read-only mapping. The
// expectations are what Linux 6.18 x86-64 returned; the deliberate
// differences are listed separately (doc.go, "Deviations from Linux").
func TestMadviseEveryAdvice(t *testing.T) {
	const (
		ok     = OK
		einval = EINVAL
		enomem = ENOMEM
	)
	type result struct{ rw, none, unmapped, hole, ro Errno }
	advisory := result{ok, ok, enomem, enomem, ok} // succeeds wherever there is a mapping
	invalid := result{einval, einval, einval, einval, einval}
	native := map[int]result{
		MADV_NORMAL:          advisory,
		MADV_RANDOM:          advisory,
		MADV_SEQUENTIAL:      advisory,
		MADV_WILLNEED:        advisory,
		MADV_DONTNEED:        advisory,
		5:                    invalid,
		6:                    invalid,
		7:                    invalid,
		MADV_FREE:            advisory,
		MADV_REMOVE:          {einval, einval, enomem, einval, einval}, // madvise_remove: no file
		MADV_DONTFORK:        advisory,
		MADV_DOFORK:          advisory,
		MADV_MERGEABLE:       advisory,
		MADV_UNMERGEABLE:     advisory,
		MADV_HUGEPAGE:        advisory,
		MADV_NOHUGEPAGE:      advisory,
		MADV_DONTDUMP:        advisory,
		MADV_DODUMP:          advisory,
		MADV_WIPEONFORK:      advisory,
		MADV_KEEPONFORK:      advisory,
		MADV_COLD:            advisory,
		MADV_PAGEOUT:         advisory,
		MADV_POPULATE_READ:   {ok, einval, enomem, enomem, ok},
		MADV_POPULATE_WRITE:  {ok, einval, enomem, enomem, einval},
		MADV_DONTNEED_LOCKED: advisory,
		MADV_COLLAPSE:        {einval, einval, enomem, einval, einval}, // mappings too small for a huge page
		26:                   invalid,
		27:                   invalid,
		99:                   invalid,
		MADV_HWPOISON:        invalid, // no CONFIG_MEMORY_FAILURE on the host
		MADV_SOFT_OFFLINE:    invalid,
		MADV_GUARD_INSTALL:   advisory,
		MADV_GUARD_REMOVE:    advisory,
		104:                  invalid,
		-1:                   invalid,
	}
	deviation := map[int]result{
		// Guard regions are not implemented: refuse them like Linux
		// before 6.13 rather than leave the range accessible.
		MADV_GUARD_INSTALL: invalid,
		MADV_GUARD_REMOVE:  invalid,
	}
	for adv, want := range native {
		if d, ok := deviation[adv]; ok {
			want = d
		}
		boot(t, testRAM)
		const base = 0x3000_0000_0000
		rw := mustMmap(t, base, 4*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
		access(&Space, rw, true, 7)
		none := mustMmap(t, base+0x100_0000, PageSize, PROT_NONE, anon|MAP_FIXED)
		hole := mustMmap(t, base+0x200_0000, 4*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
		Space.Munmap(hole+2*PageSize, PageSize)
		ro := mustMmap(t, base+0x300_0000, 2*PageSize, PROT_READ, anon|MAP_FIXED)
		got := result{
			Space.Madvise(rw, 4*PageSize, adv),
			Space.Madvise(none, PageSize, adv),
			Space.Madvise(0x5000_0000_0000, PageSize, adv),
			Space.Madvise(hole, 4*PageSize, adv),
			Space.Madvise(ro, 2*PageSize, adv),
		}
		if got != want {
			t.Errorf("advice %d: rw/none/unmapped/hole/ro = %v, want %v", adv, got, want)
		}
	}
}

// TestMadvisePinned: discarding advice (is_madv_discard) on a pinned VMA is
// EPERM, like on a sealed one; other advice is fine.
func TestMadvisePinned(t *testing.T) {
	boot(t, testRAM)
	for _, c := range []struct {
		advice int
		want   Errno
	}{
		{MADV_DONTNEED, EPERM}, {MADV_DONTNEED_LOCKED, EPERM}, {MADV_FREE, EPERM},
		{MADV_REMOVE, EPERM}, {MADV_DONTFORK, EPERM}, {MADV_WIPEONFORK, EPERM},
		{MADV_NORMAL, OK}, {MADV_WILLNEED, OK}, {MADV_DODUMP, OK}, {MADV_POPULATE_READ, OK},
	} {
		if err := Space.Madvise(0x106000, 2*PageSize, c.advice); err != c.want {
			t.Errorf("advice %d on the image = %v, want %v", c.advice, err, c.want)
		}
	}
	// EPERM wins over the holes around it, and nothing is discarded.
	mustMmap(t, 0x100000-2*PageSize, PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	access(&Space, 0x100000-2*PageSize, true, 5)
	if err := Space.Madvise(0x100000-3*PageSize, 12*PageSize, MADV_DONTNEED); err != EPERM {
		t.Errorf("range with holes and the image = %v, want EPERM", err)
	}
	if v, ok, _ := access(&Space, 0x100000-2*PageSize, false, 0); !ok || v != 5 {
		t.Error("a refused MADV_DONTNEED discarded a page")
	}
}

// TestMadvisePopulate: MADV_POPULATE_READ/WRITE fault pages in, up to the
// first hole (madvise_populate; native: the page before a hole is resident,
// the one after it is not).
func TestMadvisePopulate(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 4*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	Space.Munmap(base+2*PageSize, PageSize)
	f0 := Space.ReadStats().Faults
	if err := Space.Madvise(base, 4*PageSize, MADV_POPULATE_WRITE); err != ENOMEM {
		t.Fatalf("populate across a hole = %v, want ENOMEM", err)
	}
	if got := Space.ReadStats().Faults - f0; got != 2 {
		t.Fatalf("populated %d pages, want the 2 before the hole", got)
	}
	for i, want := range []bool{true, true, false, false} {
		_, fl, ok := Space.PT.Lookup(base + uintptr(i)*PageSize)
		if ok != want || ok && !fl.Writable() {
			t.Errorf("page %d: present %v writable %v, want present %v and writable", i, ok, fl.Writable(), want)
		}
	}
	// A read-only mapping: POPULATE_READ maps it, POPULATE_WRITE refuses.
	ro := mustMmap(t, base+0x10_0000, 2*PageSize, PROT_READ, anon|MAP_FIXED)
	if err := Space.Madvise(ro, 2*PageSize, MADV_POPULATE_WRITE); err != EINVAL {
		t.Errorf("POPULATE_WRITE of read-only memory = %v, want EINVAL", err)
	}
	if err := Space.Madvise(ro, 2*PageSize, MADV_POPULATE_READ); err != OK {
		t.Errorf("POPULATE_READ = %v", err)
	}
	if _, fl, ok := Space.PT.Lookup(ro + PageSize); !ok || fl.Writable() {
		t.Error("POPULATE_READ did not map the page read-only")
	}
	// Out of memory: ENOMEM.
	boot(t, []Region{{Base: 2 << 20, Len: 2 << 20}})
	big := mustMmap(t, 0, 1<<30, PROT_READ|PROT_WRITE, anon)
	if err := Space.Madvise(big, 1<<30, MADV_POPULATE_WRITE); err != ENOMEM {
		t.Errorf("POPULATE_WRITE beyond RAM = %v, want ENOMEM", err)
	}
}

// TestMadviseCollapse: gmpos never maps user memory with huge pages, but
// answers MADV_COLLAPSE as Linux does: EINVAL when the VMA cannot hold an
// aligned huge page or a whole huge page of the range is empty, success
// otherwise (native results on Linux 6.18 x86-64 with THP "madvise").
func TestMadviseCollapse(t *testing.T) {
	boot(t, testRAM)
	const h = HugeSize
	region := func(i int, size uintptr) uintptr { // 2 MiB aligned, isolated
		return mustMmap(t, 0x3000_0000_0000+uintptr(i)<<30, size, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	}
	touch := func(va uintptr) { access(&Space, va, true, 1) }
	a := region(0, h)
	touch(a)
	b := region(1, h)
	touch(b)
	Space.Mprotect(b, h, PROT_NONE)
	c := region(2, h)
	d := region(3, 2*h)
	touch(d)
	e := region(4, h-PageSize)
	touch(e)
	f := region(5, 2*h) + PageSize
	Space.Munmap(f-PageSize, PageSize)
	touch(f - PageSize + h)
	g := region(6, 2*h)
	Space.Munmap(g, h)
	touch(g + h)
	for _, c := range []struct {
		name      string
		addr, len uintptr
		want      Errno
	}{
		{"touched huge page", a, h, OK},
		{"touched, then PROT_NONE", b, h, OK},
		{"untouched huge page", c, h, EINVAL},
		{"one touched and one empty huge page", d, 2 * h, EINVAL},
		{"the empty huge page", d + h, h, EINVAL},
		{"half of the empty huge page", d + h, h / 2, OK}, // nothing whole to collapse
		{"VMA smaller than a huge page", e, h - PageSize, EINVAL},
		{"VMA holding one aligned huge page", f, 2*h - PageSize, OK},
		{"the partial huge page of that VMA", f, h - PageSize, OK},
		{"a hole, then a touched huge page", g, 2 * h, ENOMEM},
	} {
		if err := Space.Madvise(c.addr, c.len, MADV_COLLAPSE); err != c.want {
			t.Errorf("%s: MADV_COLLAPSE = %v, want %v", c.name, err, c.want)
		}
	}
}
