package mm

import "testing"

// TestProcessTable: a child's table shares the kernel half and the program's slots (those
// supervisor-only), owns the exec region, and sees the program's later mappings too.
func TestProcessTable(t *testing.T) {
	kpt := boot(t, testRAM)
	Space.Reset(kpt)
	topFilled = false
	const rw = PROT_READ | PROT_WRITE
	heap := mustMmap(t, 0xc0_0000_0000, PageSize, rw, anon|MAP_FIXED)
	if _, ok, _ := access(&Space, heap, true, 7); !ok {
		t.Fatal("the program's page")
	}

	pt, e := NewProcessTable(ExecBase, ExecEnd)
	if e != OK {
		t.Fatal(e)
	}
	slot := levelSize(levelTop)
	for i := uintptr(0); i < 512; i++ {
		k, c := PTE(load64(Kernel.Root+i*8)), PTE(load64(pt.Root+i*8))
		switch va := i * slot; {
		case i >= 256:
			if k != c {
				t.Fatalf("kernel slot %d: %#x, kernel's %#x", i, c, k)
			}
		case va >= ExecBase && va < ExecEnd:
			if c.Present() || k.Present() {
				t.Fatalf("exec slot %d: child %#x, kernel %#x", i, c, k)
			}
		default:
			if !k.Present() || c.Addr() != k.Addr() || c&PTEUser != 0 || k&PTEUser == 0 {
				t.Fatalf("program slot %d: child %#x, kernel %#x", i, c, k)
			}
		}
	}

	// The child's memory: in its table only.
	var child AddressSpace
	child.Reset(pt)
	child.SetBounds(ExecBase, ExecEnd, ExecEnd-1<<30)
	va, e := child.Mmap(0, PageSize, rw, anon, NoFile, 0)
	if e != OK || va < ExecBase || va >= ExecEnd {
		t.Fatalf("child mmap = %#x, %v", va, e)
	}
	if _, ok, _ := access(&child, va, true, 9); !ok {
		t.Fatal("the child's page")
	}
	if _, _, ok := Kernel.Lookup(va); ok {
		t.Error("the child's page is in the kernel's table")
	}
	// The lock-free user checks (the futex and signal paths without the BKL) walk as the
	// hardware does: the program's page is reachable, not the child's to read.
	if Space.PT.PeekUserWord(heap) == false || pt.PeekUserWord(heap) || pt.PeekUserRange(heap, 8, false) {
		t.Errorf("PeekUserWord of the program's page: its table %v, the child's %v (want true, false)",
			Space.PT.PeekUserWord(heap), pt.PeekUserWord(heap))
	}
	if !pt.PeekUserWord(va) {
		t.Error("PeekUserWord of the child's own page through its table: false")
	}
	var c WordCheck // remembered through the program's table, then asked through the child's
	if !Space.PT.PeekUserWordRemembered(heap, &c) || pt.PeekUserWordRemembered(heap, &c) {
		t.Error("a page remembered through one table passed through another")
	}
	// The program's page, mapped before and after the child's table was made, is in it.
	later := mustMmap(t, 0x5000_0000_0000, PageSize, rw, anon|MAP_FIXED)
	access(&Space, later, true, 1)
	for _, p := range []uintptr{heap, later} {
		if pa, _, ok := pt.Lookup(p); !ok {
			t.Errorf("%#x: not reachable through the child's table", p)
		} else if kpa, _, _ := Kernel.Lookup(p); kpa != pa {
			t.Errorf("%#x: another frame through the child's table", p)
		}
	}
	// The child's bounds: nothing of the program's is mapped over or dropped.
	if _, e := child.Mmap(heap, PageSize, rw, anon|MAP_FIXED, NoFile, 0); e != ENOMEM {
		t.Errorf("child MAP_FIXED over the program = %v, want ENOMEM", e)
	}
	if child.Munmap(heap, PageSize) != OK {
		t.Error("child munmap outside its region")
	}
	if _, _, ok := Kernel.Lookup(heap); !ok {
		t.Error("the child's munmap dropped the program's page")
	}
	if n := child.Teardown(); n != 1 || child.NumVMAs() != 0 {
		t.Errorf("Teardown dropped %d pages, %d VMAs left", n, child.NumVMAs())
	}
	if _, _, ok := pt.Lookup(va); ok {
		t.Error("the child's page survived Teardown")
	}
}
