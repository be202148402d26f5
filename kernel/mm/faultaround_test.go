package mm

import "testing"

// withFaultAround runs the test with a window of n pages (the package's default is exact demand
// paging, which the other tests' frame counts assume).
func withFaultAround(t *testing.T, n uintptr) {
	t.Helper()
	old := FaultAroundPages
	if !SetFaultAround(n) {
		t.Fatalf("SetFaultAround(%d) refused", n)
	}
	t.Cleanup(func() { FaultAroundPages = old })
}

// continuing makes a first touch of va continue a run of first touches (as if the page below
// had just been faulted in), so that fault-around applies to it.
func continuing(va uintptr) { Space.faultNext = alignDown(va, PageSize) }

// present is the residency of npages pages from va, as a string of 0s and 1s.
func present(as *AddressSpace, va uintptr, npages int) string {
	b := make([]byte, npages)
	for i := range b {
		b[i] = '0'
		if _, _, ok := as.PT.Lookup(va + uintptr(i)*PageSize); ok {
			b[i] = '1'
		}
	}
	return string(b)
}

func TestSetFaultAround(t *testing.T) {
	old := FaultAroundPages
	defer func() { FaultAroundPages = old }()
	for n, want := range map[uintptr]bool{0: false, 1: true, 2: true, 3: false, 16: true, 24: false, 512: true, 1024: false} {
		FaultAroundPages = 7
		if got := SetFaultAround(n); got != want || (got && FaultAroundPages != n) || (!got && FaultAroundPages != 7) {
			t.Errorf("SetFaultAround(%d) = %v, pages %d; want %v", n, got, FaultAroundPages, want)
		}
	}
}

// TestFaultAroundWindow: a lone first touch maps its page; one that continues a run maps the
// aligned window around it but its last page (the marker), zeroed and with the VMA's rights,
// counts one fault and the rest as faulted ahead, and leaves pages already present (and their
// contents) and the other windows alone; the run continues through the marker, not past it.
func TestFaultAroundWindow(t *testing.T) {
	boot(t, testRAM)
	withFaultAround(t, 16)
	const base = 0x3000_0000_0000 // 64 KiB aligned
	mustMmap(t, base, 64*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)

	FaultAroundPages = 1 // page 17 first, alone, with a mark in it
	if _, ok, code := access(&Space, base+17*PageSize, true, 0x5a); !ok {
		t.Fatalf("touch page 17: code %d", code)
	}
	FaultAroundPages = 16
	pa17, _, _ := Space.PT.Lookup(base + 17*PageSize)
	s0 := Space.ReadStats()
	// A lone first touch maps its page alone; the next page continues the run.
	if _, ok, code := access(&Space, base+19*PageSize, false, 0); !ok {
		t.Fatalf("touch page 19: code %d", code)
	}
	want := "0000000000000000" + "0101000000000000" + "0000000000000000" + "0000000000000000"
	if got := present(&Space, base, 64); got != want {
		t.Fatalf("present after touching page 19:\n got %s\nwant %s", got, want)
	}
	if _, ok, code := access(&Space, base+20*PageSize+8, false, 0); !ok {
		t.Fatalf("touch page 20: code %d", code)
	}
	want = "0000000000000000" + "1111111111111110" + "0000000000000000" + "0000000000000000"
	if got := present(&Space, base, 64); got != want {
		t.Fatalf("present after touching page 20:\n got %s\nwant %s (all but the marker, page 31)", got, want)
	}
	s := Space.ReadStats()
	if s.Faults-s0.Faults != 2 || s.FaultAhead-s0.FaultAhead != 12 || s.FramesUsed-s0.FramesUsed != 14 {
		t.Errorf("faults +%d, ahead +%d, frames +%d; want 2, 12 (16 minus pages 17, 19, 20 and the marker), 14",
			s.Faults-s0.Faults, s.FaultAhead-s0.FaultAhead, s.FramesUsed-s0.FramesUsed)
	}
	// Skipping the marker to the next window's first page breaks the run: one page.
	if _, ok, code := access(&Space, base+32*PageSize, false, 0); !ok {
		t.Fatalf("touch page 32: code %d", code)
	}
	want = "0000000000000000" + "1111111111111110" + "1000000000000000" + "0000000000000000"
	if got := present(&Space, base, 64); got != want {
		t.Fatalf("present after skipping the marker to page 32:\n got %s\nwant %s", got, want)
	}
	// Touching the marker and then the next page goes on with the run; 50 does not continue it.
	for _, p := range []uintptr{31, 33, 50} { // reads: the pages stay zero for the check below
		if _, ok, code := access(&Space, base+p*PageSize, false, 0); !ok {
			t.Fatalf("touch page %d: code %d", p, code)
		}
	}
	want = "0000000000000000" + "1111111111111111" + "1100000000000000" + "0010000000000000"
	if got := present(&Space, base, 64); got != want {
		t.Fatalf("present after touching pages 31, 33 and 50:\n got %s\nwant %s (31, 33 and 50 are not where the run left off: lone pages)", got, want)
	}
	for _, p := range []uintptr{34, 35} { // 34 follows 33: the window [32, 48) but its marker
		if _, ok, code := access(&Space, base+p*PageSize, false, 0); !ok {
			t.Fatalf("touch page %d: code %d", p, code)
		}
	}
	want = "0000000000000000" + "1111111111111111" + "1111111111111110" + "0010000000000000"
	if got := present(&Space, base, 64); got != want {
		t.Fatalf("present after touching pages 34 and 35:\n got %s\nwant %s", got, want)
	}
	if pa, _, _ := Space.PT.Lookup(base + 17*PageSize); pa != pa17 || FrameBytes(pa)[0] != 0x5a {
		t.Error("fault-around replaced a page already present")
	}
	for i := uintptr(16); i < 32; i++ {
		pa, fl, _ := Space.PT.Lookup(base + i*PageSize)
		if !fl.UserAccessible() || !fl.Writable() || fl.Executable() || fl&AttrOwned == 0 {
			t.Errorf("page %d: flags %#x, want the VMA's rights (user, writable, no exec) and owned", i, fl)
		}
		if i == 17 {
			continue
		}
		for j, b := range FrameBytes(pa) {
			if b != 0 {
				t.Fatalf("page %d byte %d = %#x: not zeroed", i, j, b)
			}
		}
	}
	// The pages mapped ahead are ordinary pages: MADV_DONTNEED drops them.
	if err := Space.Madvise(base+16*PageSize, 32*PageSize, MADV_DONTNEED); err != OK {
		t.Fatal(err)
	}
	if got := present(&Space, base+16*PageSize, 32); got != "00000000000000000000000000000000" {
		t.Errorf("after MADV_DONTNEED: %s", got)
	}
}

// TestFaultAroundStopsAtTheVMA: the window is clipped to the faulting page's VMA, whatever the
// neighbours allow; shared, executable and pinned VMAs take no part.
func TestFaultAroundStopsAtTheVMA(t *testing.T) {
	boot(t, testRAM)
	withFaultAround(t, 16)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 3*PageSize, PROT_READ, anon|MAP_FIXED)
	mustMmap(t, base+3*PageSize, 5*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	mustMmap(t, base+8*PageSize, 2*PageSize, PROT_NONE, anon|MAP_FIXED)
	mustMmap(t, base+10*PageSize, 6*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED|MAP_GROWSDOWN)
	continuing(base + 5*PageSize)
	if _, ok, code := access(&Space, base+5*PageSize, true, 1); !ok {
		t.Fatalf("touch: code %d", code)
	}
	if got, want := present(&Space, base, 16), "0001111000000000"; got != want {
		t.Errorf("present: %s, want %s (the RW VMA [3, 8) only, but its last page, the marker)", got, want)
	}
	continuing(base + 15*PageSize)
	if _, ok, code := access(&Space, base+15*PageSize, false, 0); !ok {
		t.Fatalf("touch growsdown: code %d", code)
	}
	if got, want := present(&Space, base, 16), "0001111000111111"; got != want {
		t.Errorf("present: %s, want %s (a MAP_GROWSDOWN VMA is private anonymous memory too)", got, want)
	}

	for _, c := range []struct {
		name  string
		prot  uint32
		flags uint32
	}{
		{"shared", PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS},
		{"executable", PROT_READ | PROT_EXEC, anon},
		{"writable and executable", PROT_READ | PROT_WRITE | PROT_EXEC, anon},
	} {
		va := mustMmap(t, base+0x100000, 16*PageSize, c.prot, c.flags|MAP_FIXED)
		continuing(va + 4*PageSize)
		if ok, code := HandleFault(va+4*PageSize, false, false, true); !ok {
			t.Fatalf("%s: code %d", c.name, code)
		}
		if got, want := present(&Space, va, 16), "0000100000000000"; got != want {
			t.Errorf("%s: present %s, want %s (no fault-around)", c.name, got, want)
		}
	}
	// The image is pinned: its pages are mapped at boot, never demand paged here, and a
	// fault on one (a spurious one) maps nothing beside it.
	continuing(0x104000)
	if ok, _ := HandleFault(0x104000, false, false, true); !ok {
		t.Fatal("read fault on the image's rodata refused")
	}
	if got := present(&Space, 0x100000, 16); got != "1111111100000000" {
		t.Errorf("image: %s", got)
	}
}

// TestFaultAroundReserve: pages are mapped ahead only while more than an eighth of the frames
// are free; the faulting page itself is mapped down to the last frame.
func TestFaultAroundReserve(t *testing.T) {
	boot(t, testRAM)
	withFaultAround(t, 16)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 64*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	mustMmap(t, base+64*PageSize, PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED) // its page table, before the count
	access(&Space, base+64*PageSize, true, 1)
	reserve := frames.total / faultAroundReserve
	for frames.free > reserve+3 {
		if _, ok := AllocFrame(); !ok {
			t.Fatal("out of frames above the reserve")
		}
	}
	s0 := Space.ReadStats()
	// The fault takes one frame (reserve+2 left), then two more ahead, to the reserve.
	continuing(base)
	if _, ok, code := access(&Space, base, true, 1); !ok {
		t.Fatalf("touch: code %d", code)
	}
	if got := Space.ReadStats().FaultAhead - s0.FaultAhead; got != 2 || frames.free != reserve {
		t.Errorf("faulted ahead %d with %d frames free; want 2, down to the reserve %d", got, frames.free, reserve)
	}
	continuing(base + 16*PageSize)
	if _, ok, code := access(&Space, base+16*PageSize, true, 1); !ok {
		t.Fatalf("touch below the reserve: code %d", code)
	}
	if got := present(&Space, base+16*PageSize, 16); got != "1000000000000000" {
		t.Errorf("below the reserve: %s, want the touched page alone", got)
	}
	for frames.free > 0 {
		AllocFrame()
	}
	if ok, code := HandleFault(base+32*PageSize, true, false, true); ok || code != FaultOOM {
		t.Errorf("no frame left: %v, %d; want FaultOOM", ok, code)
	}
}

// TestFaultAroundFast: the path without the BKL (FaultFast) maps the window too, and stops
// where a frame would need a TLB synchronisation first.
func TestFaultAroundFast(t *testing.T) {
	boot(t, testRAM)
	withFaultAround(t, 8)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 16*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	lockMM()
	continuing(base + 3*PageSize)
	ok := Space.FaultFast(base+3*PageSize, true, false)
	unlockMM()
	if got := present(&Space, base, 16); !ok || got != "1111111000000000" {
		t.Errorf("FaultFast = %v, present %s", ok, got)
	}
	// Five frames on the free list and one pending a synchronisation: FaultFast may take the
	// five (its own page and four ahead), and the sixth would need a shootdown first.
	lockMM()
	pa, _ := allocFrame()
	var five [5]uintptr
	for i := range five {
		five[i], _ = allocFrame()
	}
	for _, pa := range five {
		freeUnmapped(pa)
	}
	freeFrame(pa)
	list, pending := frames.nlist, frames.npending
	continuing(base + 8*PageSize)
	ok = Space.FaultFast(base+8*PageSize, true, false)
	unlockMM()
	if list != 5 || pending != 1 {
		t.Fatalf("set-up: %d listed, %d pending; want 5 and 1", list, pending)
	}
	if got := present(&Space, base+8*PageSize, 8); !ok || got != "11111000" {
		t.Errorf("FaultFast = %v, present %s; want true, 11111000 (the free list's five frames)", ok, got)
	}
}
