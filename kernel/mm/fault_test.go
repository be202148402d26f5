package mm

import "testing"

func TestFaultCodes(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	rw := mustMmap(t, base, PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	ro := mustMmap(t, base+PageSize, PageSize, PROT_READ, anon|MAP_FIXED)
	none := mustMmap(t, base+2*PageSize, PageSize, PROT_NONE, anon|MAP_FIXED)
	rx := mustMmap(t, base+3*PageSize, PageSize, PROT_READ|PROT_EXEC, anon|MAP_FIXED)
	cases := []struct {
		name              string
		va                uintptr
		write, exec, user bool
		ok                bool
		code              int
	}{
		{"nil deref", 0x8, false, false, true, false, SEGV_MAPERR},
		{"nil write", 0xff8, true, false, true, false, SEGV_MAPERR},
		{"hole", base + 4*PageSize, false, false, true, false, SEGV_MAPERR},
		{"kernel half from user", DirectMapBase + 0x1000, false, false, true, false, SEGV_MAPERR},
		{"beyond user space", UserEnd, false, false, true, false, SEGV_MAPERR},
		{"read RW", rw + 8, false, false, true, true, 0},
		{"write RW", rw + 8, true, false, true, true, 0},
		{"exec RW", rw, false, true, true, false, SEGV_ACCERR},
		{"read RO", ro, false, false, true, true, 0},
		{"write RO", ro, true, false, true, false, SEGV_ACCERR},
		{"read NONE", none, false, false, true, false, SEGV_ACCERR},
		{"exec RX", rx, false, true, true, true, 0},
		{"write RX", rx, true, false, true, false, SEGV_ACCERR},
		{"write image text", 0x100000, true, false, true, false, SEGV_ACCERR},
		{"exec image rodata", 0x104000, false, true, true, false, SEGV_ACCERR},
		{"kernel write to RW user page", rw, true, false, false, true, 0},
	}
	for _, c := range cases {
		ok, code := HandleFault(c.va, c.write, c.exec, c.user)
		if ok != c.ok || code != c.code {
			t.Errorf("%s: HandleFault(%#x) = %v,%d; want %v,%d", c.name, c.va, ok, code, c.ok, c.code)
		}
	}
	// The demand-zero pages carry the VMA's rights, with W^X.
	checks := []struct {
		va          uintptr
		write, exec bool
	}{{rw, true, false}, {ro, false, false}, {rx, false, true}}
	for _, c := range checks {
		_, fl, ok := Space.PT.Lookup(c.va)
		if !ok || !fl.UserAccessible() || fl&AttrOwned == 0 || fl.Writable() != c.write || fl.Executable() != c.exec {
			t.Errorf("%#x: flags %#x ok %v", c.va, fl, ok)
		}
	}
	if _, _, ok := Space.PT.Lookup(none); ok {
		t.Error("PROT_NONE page got a frame")
	}
	// A second fault on a fine page (stale TLB) is resolved without a frame.
	s := Space.ReadStats()
	if ok, _ := HandleFault(rw, true, false, true); !ok || Space.ReadStats().FramesUsed != s.FramesUsed {
		t.Error("spurious fault allocated")
	}
}

func TestWXFlip(t *testing.T) {
	boot(t, testRAM)
	va := mustMmap(t, 0x3000_0000_0000, PageSize, PROT_READ|PROT_WRITE|PROT_EXEC, anon|MAP_FIXED)
	step := func(write, exec, wantW, wantX bool) {
		t.Helper()
		if ok, code := HandleFault(va, write, exec, true); !ok {
			t.Fatalf("fault w=%v x=%v: code %d", write, exec, code)
		}
		_, fl, _ := Space.PT.Lookup(va)
		if fl.Writable() != wantW || fl.Executable() != wantX {
			t.Fatalf("after w=%v x=%v flags %#x", write, exec, fl)
		}
	}
	step(true, false, true, false) // write: RW+NX
	pa0, _, _ := Space.PT.Lookup(va)
	FrameBytes(pa0)[0] = 0xC3
	step(false, true, false, true) // exec: R+X, not writable
	step(true, false, true, false) // write again: RW+NX
	if pa, _, _ := Space.PT.Lookup(va); pa != pa0 || FrameBytes(pa)[0] != 0xC3 {
		t.Fatal("W^X flip changed the frame or its contents")
	}
}

func TestUserRange(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 3*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	mustMmap(t, base+3*PageSize, PageSize, PROT_READ, anon|MAP_FIXED)
	mustMmap(t, base+5*PageSize, PageSize, PROT_NONE, anon|MAP_FIXED)
	f0 := Space.ReadStats().Faults
	if !UserRange(base+100, 2*PageSize, true) {
		t.Fatal("valid RW range refused")
	}
	if got := Space.ReadStats().Faults - f0; got != 3 {
		t.Fatalf("pre-faulted %d pages, want 3", got)
	}
	for i := uintptr(0); i < 3; i++ {
		if _, fl, ok := Space.PT.Lookup(base + i*PageSize); !ok || !fl.Writable() {
			t.Fatalf("page %d not pre-faulted writable", i)
		}
	}
	cases := []struct {
		name  string
		va, n uintptr
		write bool
		want  bool
	}{
		{"empty", 0, 0, true, true},
		{"read spanning RW and RO", base + 2*PageSize, 2 * PageSize, false, true},
		{"write into RO", base + 2*PageSize, 2 * PageSize, true, false},
		{"runs into hole", base + 3*PageSize, 2 * PageSize, false, false},
		{"PROT_NONE", base + 5*PageSize, 1, false, false},
		{"nil", 0, 8, false, false},
		{"overflow", ^uintptr(0) - 4, 16, false, false},
		{"kernel half", DirectMapBase, 8, false, false},
		{"image text readable", 0x100000, 16, false, true},
		{"image text not writable", 0x100000, 16, true, false},
		{"image data writable", 0x106000, PageSize, true, true},
	}
	for _, c := range cases {
		if got := UserRange(c.va, c.n, c.write); got != c.want {
			t.Errorf("%s: UserRange(%#x, %#x, %v) = %v", c.name, c.va, c.n, c.write, got)
		}
	}
}

func TestRegisterFixed(t *testing.T) {
	boot(t, testRAM)
	const stack = 0x7ff0_0000_0000
	if err := Space.RegisterFixed(stack, 64<<10, PROT_READ|PROT_WRITE); err != OK {
		t.Fatal(err)
	}
	if err := Space.RegisterFixed(stack+PageSize, PageSize, PROT_READ); err != EEXIST {
		t.Fatalf("overlap = %v", err)
	}
	if err := Space.RegisterFixed(0, PageSize, PROT_READ); err != EINVAL {
		t.Fatalf("page 0 = %v", err)
	}
	if !Space.UserRange(stack, 64<<10, true) {
		t.Fatal("stack not usable")
	}
	if err := Space.Munmap(stack, PageSize); err != EPERM {
		t.Fatalf("munmap of pinned stack = %v", err)
	}
	if _, err := Space.Mmap(stack, PageSize, PROT_READ, anon|MAP_FIXED, -1, 0); err != EPERM {
		t.Fatalf("MAP_FIXED over pinned stack = %v", err)
	}
	// Non-fixed placement steers around it.
	a := mustMmap(t, stack, PageSize, PROT_READ, anon)
	if a >= stack && a < stack+64<<10 {
		t.Fatalf("mmap placed at %#x inside the stack", a)
	}
}

func TestExhaustion(t *testing.T) {
	// Small machine: 2..4 MiB of RAM.
	ram := []Region{{Base: 2 << 20, Len: 2 << 20}}
	boot(t, ram)
	const size = 1 << 30
	a := mustMmap(t, 0, size, PROT_READ|PROT_WRITE, anon)
	s0 := Space.ReadStats()
	var touched uintptr
	code := 0
	for va := a; va < a+size; va += PageSize {
		ok, c := HandleFault(va, true, false, true)
		if !ok {
			code = c
			break
		}
		touched++
	}
	if code != FaultOOM {
		t.Fatalf("exhaustion code = %d, want FaultOOM", code)
	}
	if _, free := FrameCounts(); free != 0 {
		t.Fatalf("free frames left: %d", free)
	}
	if touched == 0 {
		t.Fatal("no page could be faulted")
	}
	// Failing UserRange is EFAULT, not a crash.
	if UserRange(a+size-PageSize, 8, true) {
		t.Fatal("UserRange succeeded without memory")
	}
	// munmap gives every user frame back.
	if err := Space.Munmap(a, size); err != OK {
		t.Fatal(err)
	}
	s1 := Space.ReadStats()
	if s1.FramesUsed != s0.FramesUsed+(s1.Tables-s0.Tables) {
		t.Fatalf("frames used %d after munmap, want %d + %d new tables", s1.FramesUsed, s0.FramesUsed, s1.Tables-s0.Tables)
	}
	if s1.Unmapped != touched {
		t.Fatalf("unmapped %d pages, touched %d", s1.Unmapped, touched)
	}
}

func TestVMATableFull(t *testing.T) {
	boot(t, testRAM)
	// Alternate prot so neighbours cannot merge.
	base := uintptr(0x1000_0000_0000)
	n := 0
	for ; ; n++ {
		prot := uint32(PROT_READ)
		if n%2 == 1 {
			prot = PROT_NONE
		}
		_, err := Space.Mmap(base+uintptr(n)*PageSize, PageSize, prot, anon|MAP_FIXED, -1, 0)
		if err == ENOMEM {
			break
		}
		if err != OK {
			t.Fatal(err)
		}
	}
	if Space.NumVMAs() != MaxVMAs || n != MaxVMAs-3 {
		t.Fatalf("VMAs %d after %d mmaps", Space.NumVMAs(), n)
	}
	// Splitting a VMA needs a slot: munmap in the middle of a multi-page
	// VMA must fail cleanly... first make room by merging two pages.
	if err := Space.Mprotect(base+PageSize, PageSize, PROT_READ); err != OK {
		t.Fatal(err) // merges three VMAs into one: frees two slots
	}
	if Space.NumVMAs() != MaxVMAs-2 {
		t.Fatalf("after merge: %d", Space.NumVMAs())
	}
	if _, err := Space.Mmap(0, PageSize, PROT_WRITE, anon, -1, 0); err != OK {
		t.Fatal(err)
	}
	if _, err := Space.Mmap(0, PageSize, PROT_EXEC, anon, -1, 0); err != OK {
		t.Fatal(err)
	}
	if err := Space.Munmap(base+PageSize, PageSize); err != ENOMEM {
		t.Fatalf("munmap needing a split in a full table = %v", err)
	}
	// Replacing exactly one VMA needs no extra slot, even in a full table.
	if _, err := Space.Mmap(base+5*PageSize, PageSize, PROT_WRITE, anon|MAP_FIXED, -1, 0); err != OK {
		t.Fatalf("FIXED replacing one whole VMA in a full table = %v", err)
	}
	if Space.NumVMAs() != MaxVMAs {
		t.Fatalf("VMAs %d", Space.NumVMAs())
	}
	// Removing whole VMAs frees slots; then punching a hole in the middle of
	// a VMA (one extra slot) fits.
	if err := Space.Munmap(base+3*PageSize, PageSize); err != OK {
		t.Fatal(err)
	}
	if err := Space.Munmap(base+PageSize, PageSize); err != OK {
		t.Fatalf("munmap in the middle with one free slot = %v", err)
	}
	if Space.NumVMAs() != MaxVMAs {
		t.Fatalf("VMAs %d", Space.NumVMAs())
	}
	if v, _ := Space.VMA(Space.lookup(base)); v.End != base+PageSize {
		t.Fatalf("left piece %+v", v)
	}
	if v, _ := Space.VMA(Space.lookup(base + 2*PageSize)); v.Start != base+2*PageSize || v.End != base+3*PageSize {
		t.Fatalf("right piece %+v", v)
	}
}

func TestMapPopulate(t *testing.T) {
	boot(t, testRAM)
	s0 := Space.ReadStats()
	a := mustMmap(t, 0, 4*PageSize, PROT_READ|PROT_WRITE, anon|MAP_POPULATE)
	if got := Space.ReadStats().Faults - s0.Faults; got != 4 {
		t.Fatalf("MAP_POPULATE faulted %d pages, want 4", got)
	}
	for va := a; va < a+4*PageSize; va += PageSize {
		if _, fl, ok := Space.PT.Lookup(va); !ok || !fl.Writable() {
			t.Fatalf("%#x not populated writable", va)
		}
	}
	// PROT_NONE populate is a no-op.
	s1 := Space.ReadStats()
	mustMmap(t, 0, 4*PageSize, PROT_NONE, anon|MAP_POPULATE)
	if Space.ReadStats().Faults != s1.Faults {
		t.Fatal("PROT_NONE populate allocated")
	}
	// do_mmap: populate = MAP_POPULATE without MAP_NONBLOCK, or VM_LOCKED.
	for _, c := range []struct {
		flags uint32
		want  uintptr
	}{{MAP_POPULATE | MAP_NONBLOCK, 0}, {MAP_LOCKED, 4}, {MAP_LOCKED | MAP_NONBLOCK, 4}} {
		s := Space.ReadStats()
		mustMmap(t, 0, 4*PageSize, PROT_READ, anon|c.flags)
		if got := Space.ReadStats().Faults - s.Faults; got != c.want {
			t.Errorf("flags %#x populated %d pages, want %d", c.flags, got, c.want)
		}
	}
}

// TestUserRangeRemembers: a page userRange checked lately is answered from memory
// (checkedPages) until something takes it away or lowers its rights — and never after.
func TestUserRangeRemembers(t *testing.T) {
	boot(t, testRAM)
	const va = 0x3000_0000_0000
	mustMmap(t, va, PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	want := func(what string, write, ok bool) {
		t.Helper()
		for i := 0; i < 2; i++ { // the second answer is the remembered one
			if got := UserRange(va+8, 8, write); got != ok {
				t.Fatalf("%s: UserRange(write=%v) = %v (call %d)", what, write, got, i+1)
			}
		}
	}
	want("mapped RW", true, true)
	if e := Space.Mprotect(va, PageSize, PROT_READ); e != OK {
		t.Fatalf("mprotect: %v", e)
	}
	want("made read-only", true, false)
	want("made read-only", false, true)
	if e := Space.Mprotect(va, PageSize, PROT_READ|PROT_WRITE); e != OK {
		t.Fatalf("mprotect: %v", e)
	}
	want("writable again", true, true)
	if e := Space.Madvise(va, PageSize, MADV_DONTNEED); e != OK {
		t.Fatalf("madvise: %v", e)
	}
	want("dropped by MADV_DONTNEED, faulted back", true, true)
	if e := Space.Munmap(va, PageSize); e != OK {
		t.Fatalf("munmap: %v", e)
	}
	want("unmapped", false, false)
	mustMmap(t, va, PageSize, PROT_READ, anon|MAP_FIXED)
	want("mapped read-only", false, true)
	want("mapped read-only", true, false)
	if e := Space.Munmap(va, PageSize); e != OK {
		t.Fatalf("munmap: %v", e)
	}
	want("unmapped again", false, false)
}
