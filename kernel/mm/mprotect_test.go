package mm

import "testing"

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
		{base, PageSize, 0x40, EINVAL}, // not a PROT_ bit on any architecture
		{base, 0, PROT_READ, OK},
		{0x100000, PageSize, PROT_READ, EPERM},
	} {
		if err := Space.Mprotect(c.addr, c.length, uint64(c.prot)); err != c.want {
			t.Errorf("Mprotect(%#x, %#x, %d) = %v, want %v", c.addr, c.length, c.prot, err, c.want)
		}
	}
}

// TestMprotectErrors: do_mprotect_pkey's checks in its order. "native:" is
// the result on Linux 6.18 x86-64.
func TestMprotectErrors(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 4*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	const hole = 0x3100_0000_0000 // RW page, hole, RW page
	mustMmap(t, hole, PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	mustMmap(t, hole+2*PageSize, PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	const unmapped = 0x5000_0000_0000
	rw := uint32(PROT_READ | PROT_WRITE)
	grows := uint32(PROT_GROWSDOWN | PROT_GROWSUP)
	n := Space.NumVMAs()
	for _, c := range []struct {
		name         string
		addr, length uintptr
		prot         uint32
		want         Errno
	}{
		// grows == PROT_GROWSDOWN|PROT_GROWSUP comes first (native).
		{"both grows, zero length", base, 0, PROT_READ | grows, EINVAL},
		{"both grows", base, PageSize, PROT_READ | grows, EINVAL},
		// Then start & ~PAGE_MASK, then !len (native: even with bad prot).
		{"unaligned", base + 1, PageSize, rw, EINVAL},
		{"unaligned, zero length", base + 1, 0, rw, EINVAL},
		{"zero length", base, 0, rw, OK},
		{"zero length, bad prot", base, 0, 0x40, OK},
		{"zero length, unmapped", unmapped, 0, rw, OK},
		// end <= start after PAGE_ALIGN (native).
		{"length overflows", base, ^uintptr(0) - 5, rw, ENOMEM},
		{"length wraps", base, ^uintptr(0) - base, rw, ENOMEM},
		// arch_validate_prot: R|W|X|SEM and the architecture's bits
		// (native: 0x10 is EINVAL on x86, even unmapped).
		{"unknown prot", base, PageSize, 0x40, EINVAL},
		{"unknown prot, unmapped", unmapped, PageSize, 0x40, EINVAL},
		{"unknown high prot", base, PageSize, PROT_READ | 0x1000_0000, EINVAL},
		// vma_find(start, end) == NULL (native: all ENOMEM).
		{"unmapped", unmapped, PageSize, rw, ENOMEM},
		{"kernel half", DirectMapBase, PageSize, rw, ENOMEM},
		{"at UserEnd", UserEnd, PageSize, rw, ENOMEM},
		{"huge length from MinAddr", MinAddr, 1 << 63, rw, ENOMEM}, // native: from 0x10000
		{"huge length from unmapped", unmapped, 1 << 47, rw, ENOMEM},
		// PROT_GROWSDOWN/UP need a VM_GROWSDOWN/UP mapping (native).
		{"GROWSDOWN on a plain mapping", base + PageSize, PageSize, PROT_READ | PROT_GROWSDOWN, EINVAL},
		{"GROWSUP on a plain mapping", base + PageSize, PageSize, PROT_READ | PROT_GROWSUP, EINVAL},
		{"GROWSDOWN unmapped", unmapped, PageSize, PROT_READ | PROT_GROWSDOWN, ENOMEM},
		{"GROWSUP unmapped", unmapped, PageSize, PROT_READ | PROT_GROWSUP, ENOMEM},
		// vma->vm_start > start, then the walk: holes ENOMEM, sealed EPERM.
		{"starting before the mapping", base - PageSize, 2 * PageSize, rw, ENOMEM},
		{"running past the mapping", base, 5 * PageSize, rw, ENOMEM},
		{"hole in the middle", hole, 3 * PageSize, PROT_READ, ENOMEM},
		{"sealed image", 0x104000, PageSize, PROT_READ, EPERM},
		{"sealed, then a hole", 0x106000, 3 * PageSize, PROT_READ, EPERM},
	} {
		if err := Space.Mprotect(c.addr, c.length, uint64(c.prot)); err != c.want {
			t.Errorf("%s: Mprotect(%#x, %#x, %#x) = %v, want %v", c.name, c.addr, c.length, c.prot, err, c.want)
		}
	}
	if Space.NumVMAs() != n {
		t.Fatalf("failed mprotects changed the VMA table: %+v", vmaList(&Space))
	}
	// A mapping, a hole, then the sealed image: the hole is met first.
	mustMmap(t, 0x100000-2*PageSize, PageSize, PROT_READ, anon|MAP_FIXED)
	if err := Space.Mprotect(0x100000-2*PageSize, 3*PageSize, PROT_READ); err != ENOMEM {
		t.Errorf("a hole before a sealed VMA = %v, want ENOMEM", err)
	}
	// PROT_SEM is accepted and not recorded; a length that is not a page
	// multiple covers the last partial page (native).
	if err := Space.Mprotect(base, PageSize+1, PROT_READ|PROT_SEM); err != OK {
		t.Fatalf("PROT_SEM = %v", err)
	}
	if v, _ := Space.VMA(Space.lookup(base)); v.Prot != PROT_READ || v.End != base+2*PageSize {
		t.Fatalf("VMA after mprotect(PROT_READ|PROT_SEM, 1 page + 1) = %+v", v)
	}
}

// TestMprotectGrowsDown: PROT_GROWSDOWN applies the change from the start
// of a MAP_GROWSDOWN mapping (do_mprotect_pkey: start = vma->vm_start).
func TestMprotectGrowsDown(t *testing.T) {
	boot(t, testRAM)
	g := mustMmap(t, 0x3000_0000_0000, 4*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED|MAP_GROWSDOWN)
	if err := Space.Mprotect(g+2*PageSize, PageSize, PROT_READ|PROT_GROWSDOWN); err != OK { // native
		t.Fatal(err)
	}
	v0, _ := Space.VMA(Space.lookup(g))
	v1, _ := Space.VMA(Space.lookup(g + 3*PageSize))
	if v0 != (VMA{g, g + 3*PageSize, PROT_READ, VMAGrowsDown}) || v1 != (VMA{g + 3*PageSize, g + 4*PageSize, PROT_READ | PROT_WRITE, VMAGrowsDown}) {
		t.Fatalf("VMAs %+v", vmaList(&Space))
	}
	// From below the mapping, as long as the range reaches into it.
	if err := Space.Mprotect(g-PageSize, 2*PageSize, PROT_NONE|PROT_GROWSDOWN); err != OK {
		t.Fatal(err)
	}
	if v, _ := Space.VMA(Space.lookup(g)); v.End != g+PageSize || v.Prot != PROT_NONE {
		t.Fatalf("VMA %+v", v)
	}
	for _, c := range []struct {
		name         string
		addr, length uintptr
		prot         uint32
		want         Errno
	}{
		{"GROWSUP on a growsdown mapping", g + 2*PageSize, PageSize, PROT_READ | PROT_GROWSUP, EINVAL}, // native
		{"entirely below the mapping", g - 2*PageSize, PageSize, PROT_READ | PROT_GROWSDOWN, ENOMEM},   // native (non-root)
	} {
		if err := Space.Mprotect(c.addr, c.length, uint64(c.prot)); err != c.want {
			t.Errorf("%s = %v, want %v", c.name, err, c.want)
		}
	}
}

// TestPeekUserWord: the lock-free check the kernel's futex path makes before it reads a futex
// word without the BKL (kernel/futex_unlocked.go) answers what the program itself may read — a
// present user page — and no for a page not yet faulted in, a PROT_NONE page whose frame stays
// present, an unmapped one, a misaligned word, and the user half's end.
func TestPeekUserWord(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 2*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	if Space.PT.PeekUserWord(base) {
		t.Error("a page not faulted in yet reads as present")
	}
	access(&Space, base, true, 0x5a)
	if !Space.PT.PeekUserWord(base) || !Space.PT.PeekUserWord(base+PageSize-4) {
		t.Error("a present read-write user page is not readable")
	}
	if Space.PT.PeekUserWord(base + 2) {
		t.Error("a misaligned word passes")
	}
	if err := Space.Mprotect(base, PageSize, PROT_NONE); err != OK {
		t.Fatal(err)
	}
	if _, _, ok := Space.PT.Lookup(base); !ok {
		t.Fatal("PROT_NONE dropped the page; this test wants it present")
	}
	if Space.PT.PeekUserWord(base) {
		t.Error("a PROT_NONE page is readable")
	}
	if err := Space.Munmap(base, 2*PageSize); err != OK {
		t.Fatal(err)
	}
	if Space.PT.PeekUserWord(base) || Space.PT.PeekUserWord(UserEnd) {
		t.Error("an unmapped word, or the user half's end, is readable")
	}
}

// TestPeekUserWordRemembered: the remembered page passes without a walk until a mapping changes
// anywhere (tlbGen) — mprotect to PROT_NONE must fail the next check although the page stays
// present. (Another table's walk: TestProcessTable.)
func TestPeekUserWordRemembered(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 2*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	access(&Space, base, true, 0x5a)
	pt := Space.PT
	var c WordCheck
	if !pt.PeekUserWordRemembered(base+8, &c) || c.page != base || c.gen == 0 {
		t.Fatalf("a readable word: not remembered (%+v)", c)
	}
	if !pt.PeekUserWordRemembered(base+PageSize-4, &c) || pt.PeekUserWordRemembered(base+2, &c) {
		t.Error("the remembered page: an aligned word must pass, a misaligned one must not")
	}
	if pt.PeekUserWordRemembered(base+PageSize, &c) {
		t.Error("a page not faulted in passed (the remembered page is another one)")
	}
	if !pt.PeekUserWordRemembered(base+8, &c) {
		t.Fatal("the first page again: false")
	}
	if err := Space.Mprotect(base, PageSize, PROT_NONE); err != OK {
		t.Fatal(err)
	}
	if pt.PeekUserWordRemembered(base+8, &c) {
		t.Error("PROT_NONE: the remembered page still passes")
	}
	if err := Space.Mprotect(base, PageSize, PROT_READ); err != OK {
		t.Fatal(err)
	}
	if !pt.PeekUserWordRemembered(base+8, &c) {
		t.Error("readable again: the word does not pass")
	}
	gen := c.gen
	access(&Space, base+PageSize, true, 1) // a fault adds a page: no invalidation
	if !pt.PeekUserWordRemembered(base+8, &c) || c.gen != gen {
		t.Error("a new page elsewhere made the remembered one stale")
	}
	if err := Space.Munmap(base, 2*PageSize); err != OK {
		t.Fatal(err)
	}
	if pt.PeekUserWordRemembered(base+8, &c) {
		t.Error("munmap: the remembered page still passes")
	}
}

// TestPeekUserRange: the same check for a range (the signal frame's copies without the BKL):
// every page must be present with the access, the range must end inside the user half without
// wrapping, and an empty range passes.
func TestPeekUserRange(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 3*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	access(&Space, base, true, 1)
	access(&Space, base+PageSize, true, 2)
	pt := Space.PT
	cases := []struct {
		name     string
		va, n    uintptr
		write, w bool
	}{
		{"within a page", base + 8, 100, false, true},
		{"across two present pages", base + PageSize - 50, 100, true, true},
		{"into the page not faulted in", base + 2*PageSize - 50, 100, false, false},
		{"empty", base + 5*PageSize, 0, false, true},
		{"wrapping", base, ^uintptr(0) - base + 10, false, false},
		{"past the user half", UserEnd - 8, 16, false, false},
	}
	for _, c := range cases {
		if got := pt.PeekUserRange(c.va, c.n, c.write); got != c.w {
			t.Errorf("%s: PeekUserRange(%#x, %d, %v) = %v, want %v", c.name, c.va, c.n, c.write, got, c.w)
		}
	}
	if err := Space.Mprotect(base+PageSize, PageSize, PROT_READ); err != OK {
		t.Fatal(err)
	}
	if !pt.PeekUserRange(base+PageSize-50, 100, false) || pt.PeekUserRange(base+PageSize-50, 100, true) {
		t.Error("a read-only second page: the range must be readable and not writable")
	}
}
