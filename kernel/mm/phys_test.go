package mm

import "testing"

func TestFrameAllocator(t *testing.T) {
	setPhysArena()
	ram := []Region{{Base: 0x1000 + 5, Len: 3*PageSize + 10}, {Base: 0x10000, Len: 2 * PageSize}}
	Init(ram)
	total, free := FrameCounts()
	// First region: [0x1005, 0x400F) → whole frames 0x2000, 0x3000 only.
	if total != 4 || free != 4 {
		t.Fatalf("counts = %d/%d, want 4/4", total, free)
	}
	want := []uintptr{0x2000, 0x3000, 0x10000, 0x11000}
	var got []uintptr
	for {
		pa, ok := AllocFrame()
		if !ok {
			break
		}
		got = append(got, pa)
	}
	if len(got) != len(want) {
		t.Fatalf("allocated %#x, want %#x", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("allocated %#x, want %#x", got, want)
		}
	}
	if _, free := FrameCounts(); free != 0 {
		t.Fatalf("free = %d after exhaustion", free)
	}
	// Dirty a frame, free it, get it back zeroed from AllocZeroFrame.
	FrameBytes(0x3000)[100] = 0xAB
	FreeFrame(0x3000)
	pa, ok := AllocZeroFrame()
	if !ok || pa != 0x3000 {
		t.Fatalf("AllocZeroFrame = %#x %v", pa, ok)
	}
	for i, b := range FrameBytes(pa) {
		if b != 0 {
			t.Fatalf("byte %d = %#x, not zeroed", i, b)
		}
	}
	r, n := RAM()
	if n != 2 || r[0] != (Region{0x2000, 0x2000}) || r[1] != (Region{0x10000, 0x2000}) {
		t.Fatalf("RAM = %v (n=%d)", r[:n], n)
	}
}

func TestFrameZeroPageAndBadRegions(t *testing.T) {
	setPhysArena()
	// A region starting at 0 must not hand out frame 0 (it ends the list);
	// empty and overflowing regions are ignored.
	Init([]Region{{0, 2 * PageSize}, {0x5000, 0}, {^uintptr(0) - 10, 100}})
	total, _ := FrameCounts()
	if total != 1 {
		t.Fatalf("total = %d, want 1", total)
	}
	if pa, _ := AllocFrame(); pa != PageSize {
		t.Fatalf("got frame %#x", pa)
	}
}

func TestFreeFrameInvalidPanics(t *testing.T) {
	defer func() {
		unlockMM() // the panic left the re-entrancy flag set
		if recover() == nil {
			t.Fatal("FreeFrame(misaligned) did not panic")
		}
	}()
	FreeFrame(0x1234)
}

func TestAlign(t *testing.T) {
	if _, ok := alignUp(^uintptr(0)-5, PageSize); ok {
		t.Fatal("alignUp overflow not detected")
	}
	if r, ok := alignUp(0x1001, PageSize); !ok || r != 0x2000 || alignDown(0x1fff, PageSize) != 0x1000 {
		t.Fatal("alignUp/alignDown")
	}
}

// Init must not write to RAM: a region far outside the test arena (any
// access would crash the test process) is accepted and counted.
func TestInitDoesNotTouchRAM(t *testing.T) {
	setPhysArena()
	if n := Init([]Region{{Base: 1 << 40, Len: 1 << 30}, {Base: 0x2000, Len: PageSize}}); n != 2 {
		t.Fatalf("regions used %d", n)
	}
	total, free := FrameCounts()
	if total != 1<<18+1 || free != total {
		t.Fatalf("counts %d/%d", total, free)
	}
}

// Freed frames are reused (LIFO) before untouched ones.
func TestFreeListBeforeBump(t *testing.T) {
	setPhysArena()
	Init([]Region{{Base: 0x10000, Len: 8 * PageSize}})
	a, _ := AllocFrame()
	b, _ := AllocFrame()
	FreeFrame(a)
	FreeFrame(b)
	if x, _ := AllocFrame(); x != b {
		t.Fatalf("got %#x, want last freed %#x", x, b)
	}
	if x, _ := AllocFrame(); x != a {
		t.Fatalf("got %#x, want %#x", x, a)
	}
	if x, _ := AllocFrame(); x != 0x12000 {
		t.Fatalf("got %#x, want next untouched 0x12000", x)
	}
	if _, free := FrameCounts(); free != 5 {
		t.Fatalf("free %d, want 5", free)
	}
}

// TestFreedFramesWaitForSync: a freed frame may still be reached through another core's stale
// translation until the TLBs are synchronised, so it keeps its contents (no free-list link is
// written into it: a write through the stale entry would corrupt the list, a read would show a
// physical address) and is not handed out before SyncTLB, which one allocation calls once for
// every pending frame. A frame never mapped (freeUnmapped) needs no synchronisation.
func TestFreedFramesWaitForSync(t *testing.T) {
	setPhysArena()
	Init([]Region{{Base: 0x10000, Len: 8 * PageSize}})
	syncs := 0
	SyncTLB = func() { syncs++ }
	defer func() { SyncTLB = nil }()
	a, _ := AllocFrame()
	b, _ := AllocFrame()
	store64(a, 0x1111)
	store64(b, 0x2222)
	FreeFrame(a)
	FreeFrame(b)
	if load64(a) != 0x1111 || load64(b) != 0x2222 || syncs != 0 {
		t.Fatalf("after the frees: contents %#x %#x, syncs %d; want untouched, none", load64(a), load64(b), syncs)
	}
	if x, _ := AllocFrame(); x != b || syncs != 1 {
		t.Fatalf("got %#x after %d syncs, want %#x after 1", x, syncs, b)
	}
	if x, _ := AllocFrame(); x != a || syncs != 1 {
		t.Fatalf("got %#x after %d syncs, want %#x after still 1", x, syncs, a)
	}
	lockMM()
	freeUnmapped(a)
	unlockMM()
	if x, _ := AllocFrame(); x != a || syncs != 1 {
		t.Fatalf("got %#x after %d syncs, want %#x without another", x, syncs, a)
	}
}

// Entering mm again on the core that holds its lock (a fault inside mm) must
// panic rather than corrupt the lists, or wait for itself.
func TestReentryPanics(t *testing.T) {
	boot(t, testRAM)
	lockMM()
	defer func() {
		unlockMM()
		if recover() == nil {
			t.Fatal("re-entry not detected")
		}
	}()
	HandleFault(0x3000_0000_0000, false, false, true)
}

func TestErrnoString(t *testing.T) {
	for e, s := range map[Errno]string{OK: "OK", EPERM: "EPERM", ENOMEM: "ENOMEM", EFAULT: "EFAULT",
		EEXIST: "EEXIST", ENODEV: "ENODEV", EINVAL: "EINVAL", 99: "E?"} {
		if e.String() != s {
			t.Errorf("%d.String() = %q", uintptr(e), e.String())
		}
	}
}

func TestAllocContiguous(t *testing.T) {
	boot(t, []Region{{Base: 0x100000, Len: 64 * PageSize}, {Base: 0x400000, Len: 256 * PageSize}})
	_, free0 := FrameCounts()
	a, ok := AllocContiguous(8)
	b, ok2 := AllocContiguous(100) // does not fit in what is left of the first region
	if !ok || !ok2 || b < 0x400000 || b+100*PageSize > 0x400000+256*PageSize {
		t.Fatalf("AllocContiguous: %#x %v, %#x %v", a, ok, b, ok2)
	}
	if a+8*PageSize > b && b+100*PageSize > a {
		t.Fatalf("runs overlap: %#x, %#x", a, b)
	}
	for i := uintptr(0); i < 8*PageSize; i += 8 {
		if load64(a+i) != 0 {
			t.Fatalf("not zeroed at %#x", a+i)
		}
	}
	// Single frames never come from inside a run.
	for {
		pa, ok := AllocFrame()
		if !ok {
			break
		}
		if pa >= a && pa < a+8*PageSize || pa >= b && pa < b+100*PageSize {
			t.Fatalf("frame %#x inside a contiguous run", pa)
		}
	}
	if _, ok := AllocContiguous(1); ok {
		t.Fatalf("a run after exhaustion")
	}
	_ = free0
}
