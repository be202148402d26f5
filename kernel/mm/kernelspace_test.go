package mm

import "testing"

func TestBuildKernelSpaceImageWX(t *testing.T) {
	pt := boot(t, testRAM)
	if Kernel != pt || Space.PT != pt {
		t.Fatal("Kernel/Space not set to the new page table")
	}
	// Page 0 and the rest of the low 1 MiB are not mapped.
	for va := uintptr(0); va < 0x100000; va += PageSize {
		if _, _, ok := pt.Lookup(va); ok {
			t.Fatalf("low page %#x mapped", va)
		}
	}
	cases := []struct {
		lo, hi uintptr
		write  bool
		exec   bool
	}{
		{0x100000, 0x104000, false, true},  // text R+X (0x3500 rounds up to 4 pages)
		{0x104000, 0x106000, false, false}, // rodata R+NX
		{0x106000, 0x108000, true, false},  // data/bss RW+NX
	}
	for _, c := range cases {
		for va := c.lo; va < c.hi; va += PageSize {
			pa, fl, ok := pt.Lookup(va)
			if !ok || pa != va {
				t.Fatalf("%#x: identity mapping missing (pa %#x ok %v)", va, pa, ok)
			}
			if !fl.UserAccessible() || fl&AttrGlobal != 0 || fl&AttrOwned != 0 {
				t.Errorf("%#x: flags %#x want user, non-global, not owned", va, fl)
			}
			if fl.Writable() != c.write || fl.Executable() != c.exec {
				t.Errorf("%#x: flags %#x, want write=%v exec=%v", va, fl, c.write, c.exec)
			}
			if fl.Writable() && fl.Executable() {
				t.Errorf("%#x: W+X", va)
			}
		}
	}
	if _, _, ok := pt.Lookup(0x108000); ok {
		t.Fatal("page after the image mapped")
	}
	// The image is recorded as pinned VMAs with matching prot.
	want := []VMA{
		{0x100000, 0x104000, PROT_READ | PROT_EXEC, VMAPinned},
		{0x104000, 0x106000, PROT_READ, VMAPinned},
		{0x106000, 0x108000, PROT_READ | PROT_WRITE, VMAPinned},
	}
	got := vmaList(&Space)
	if len(got) != len(want) {
		t.Fatalf("VMAs %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("VMA %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestBuildKernelSpaceDirectMap(t *testing.T) {
	pt := boot(t, testRAM)
	// Every RAM byte, and everything below lowDirectMap (the low 16 MiB on
	// a multiboot PC), is reachable at DirectMapBase+pa.
	for _, pa := range []uintptr{0, 0x1000, 0x9_1234, 2 << 20, 15<<20 + 0x777, 32 << 20, 48<<20 - 1} {
		got, fl, ok := pt.Lookup(DirectMapBase + pa)
		if pa < testRAM[0].Base && pa >= lowDirectMap { // neither RAM nor low
			if ok {
				t.Fatalf("%#x direct mapped", pa)
			}
			continue
		}
		if !ok || got != pa {
			t.Fatalf("direct map %#x → %#x %v", pa, got, ok)
		}
		if fl&AttrHuge == 0 || fl.UserAccessible() || fl.Executable() || !fl.Writable() || fl&AttrGlobal == 0 {
			t.Fatalf("direct map %#x flags %#x", pa, fl)
		}
	}
	// The hole 16..32 MiB is not RAM and not low: not mapped; neither is
	// anything past the end of RAM.
	for _, pa := range []uintptr{16 << 20, 24 << 20, 32<<20 - 1, 48 << 20} {
		if pa < lowDirectMap {
			continue
		}
		if _, _, ok := pt.Lookup(DirectMapBase + pa); ok {
			t.Fatalf("hole %#x direct mapped", pa)
		}
	}
	// Writing through the (simulated) direct map reaches the same frame as
	// PhysToVirt: the translation is consistent with the allocator's view.
	pa, _ := AllocFrame()
	va, _, _ := pt.Lookup(DirectMapBase + pa)
	if va != pa {
		t.Fatalf("direct map of allocated frame %#x → %#x", pa, va)
	}
}

func TestBuildKernelSpaceRejects(t *testing.T) {
	setPhysArena()
	for _, img := range [][]Segment{
		{{Vaddr: 0, Memsz: 0x2000, Flags: PF_R | PF_X}},                                                             // covers page 0
		{{Vaddr: 0x100000, Memsz: 0x1000, Flags: PF_R | PF_W | PF_X}},                                               // W+X segment
		{{Vaddr: UserEnd, Memsz: 0x2000, Flags: PF_R}},                                                              // beyond user space
		{{Vaddr: 0x100000, Memsz: 0x1800, Flags: PF_R | PF_X}, {Vaddr: 0x101800, Memsz: 0x800, Flags: PF_R | PF_W}}, // shared page becomes W+X
	} {
		Init(testRAM)
		if _, err := BuildKernelSpace(testRAM, img); err != EINVAL {
			t.Errorf("BuildKernelSpace(%+v) = %v, want EINVAL", img, err)
		}
	}
	// Two segments sharing a page with compatible rights get the union.
	Init(testRAM)
	pt, err := BuildKernelSpace(testRAM, []Segment{
		{Vaddr: 0x100000, Memsz: 0x1800, Flags: PF_R},
		{Vaddr: 0x101800, Memsz: 0x800, Flags: PF_R | PF_X},
	})
	if err != OK {
		t.Fatal(err)
	}
	if _, fl, _ := pt.Lookup(0x101000); !fl.Executable() {
		t.Fatalf("shared page flags %#x: want executable", fl)
	}
	// Out of frames.
	Init([]Region{{Base: 2 << 20, Len: 3 * PageSize}})
	if _, err := BuildKernelSpace(testRAM, testImage); err != ENOMEM {
		t.Fatalf("tiny RAM: %v, want ENOMEM", err)
	}
}

func TestMapKernelStackGuard(t *testing.T) {
	boot(t, testRAM)
	used0 := Space.ReadStats().FramesUsed
	top0, err := MapKernelStack(0)
	if err != OK {
		t.Fatal(err)
	}
	top1, err := MapKernelStack(1)
	if err != OK {
		t.Fatal(err)
	}
	if top0 != KernelStackBase+KernelStackSlot || top1 != top0+KernelStackSlot {
		t.Fatalf("tops %#x %#x", top0, top1)
	}
	for _, top := range []uintptr{top0, top1} {
		for va := top - KernelStackSize; va < top; va += PageSize {
			_, fl, ok := Kernel.Lookup(va)
			if !ok || fl.UserAccessible() || !fl.Writable() || fl.Executable() {
				t.Fatalf("stack page %#x: ok=%v flags %#x", va, ok, fl)
			}
		}
		for va := top - KernelStackSlot; va < top-KernelStackSize; va += PageSize {
			if _, _, ok := Kernel.Lookup(va); ok {
				t.Fatalf("guard page %#x mapped", va)
			}
		}
	}
	if _, _, ok := Kernel.Lookup(top1); ok {
		t.Fatal("page above the last stack mapped")
	}
	used1 := Space.ReadStats().FramesUsed
	pages := uintptr(2 * KernelStackSize / PageSize)
	if used1-used0 < pages || used1-used0 > pages+3 { // + at most PDPT, PD, PT
		t.Fatalf("stacks used %d frames, want %d (+tables)", used1-used0, pages)
	}
	// Idempotent: no new frames.
	if top, _ := MapKernelStack(1); top != top1 || Space.ReadStats().FramesUsed != used1 {
		t.Fatal("re-mapping a stack allocated frames or moved it")
	}
	if _, err := MapKernelStack(MaxKernelStacks); err != EINVAL {
		t.Fatalf("out-of-range stack: %v", err)
	}
	// Freeing returns exactly the stack's frames and unmaps it; the slot
	// can be mapped again.
	f0 := flushes
	if err := FreeKernelStack(1); err != OK {
		t.Fatal(err)
	}
	if got := used1 - Space.ReadStats().FramesUsed; got != KernelStackSize/PageSize {
		t.Fatalf("FreeKernelStack returned %d frames", got)
	}
	if flushes-f0 != KernelStackSize/PageSize {
		t.Fatalf("FreeKernelStack flushed %d pages", flushes-f0)
	}
	if _, _, ok := Kernel.Lookup(top1 - PageSize); ok {
		t.Fatal("freed stack still mapped")
	}
	if top, err := MapKernelStack(1); err != OK || top != top1 {
		t.Fatalf("re-map after free: %#x %v", top, err)
	}
}

func TestStackGuardHit(t *testing.T) {
	for _, c := range []struct {
		va uintptr
		i  int
		ok bool
	}{
		{KernelStackBase, 0, true},
		{KernelStackBase + KernelStackGuard - 1, 0, true},
		{KernelStackBase + KernelStackGuard, 0, false},
		{KernelStackBase + 3*KernelStackSlot + 8, 3, true},
		{KernelStackBase - 8, 0, false},
		{KernelStackBase + MaxKernelStacks*KernelStackSlot, 0, false},
	} {
		i, ok := StackGuardHit(c.va)
		if ok != c.ok || ok && i != c.i {
			t.Errorf("StackGuardHit(%#x) = %d,%v want %d,%v", c.va, i, ok, c.i, c.ok)
		}
	}
}
