package mm

import "testing"

func TestMapMMIO(t *testing.T) {
	Kernel = PageTable{}
	if _, err := MapMMIO(0xfee00000, 0x400); err != EINVAL {
		t.Fatalf("MapMMIO before BuildKernelSpace = %v", err)
	}
	boot(t, testRAM)
	va, err := MapMMIO(0xfee00000+0x20, 0x400)
	if err != OK || va != DirectMapBase+0xfee00020 {
		t.Fatalf("MapMMIO = %#x %v", va, err)
	}
	pa, fl, ok := Kernel.Lookup(va)
	if !ok || pa != 0xfee00020 {
		t.Fatalf("Lookup = %#x %v", pa, ok)
	}
	if fl.UserAccessible() || fl.Executable() || fl&AttrDevice == 0 || fl&AttrHuge != 0 {
		t.Fatalf("MMIO flags %#x: want supervisor, NX, UC, 4 KiB", fl)
	}
	if _, _, ok := Kernel.Lookup(va + PageSize); ok {
		t.Fatal("MMIO mapping larger than requested")
	}
	// Twice, and a range spanning the existing page plus a new one.
	if _, err := MapMMIO(0xfee00000, 2*PageSize); err != OK {
		t.Fatalf("second MapMMIO = %v", err)
	}
	if _, _, ok := Kernel.Lookup(DirectMapBase + 0xfee01000); !ok {
		t.Fatal("second page not mapped")
	}
	// RAM is refused (no uncached alias of the direct map).
	if _, err := MapMMIO(3<<20, PageSize); err != EEXIST {
		t.Fatalf("MapMMIO over RAM = %v", err)
	}
	for _, c := range []struct{ pa, size uintptr }{{0x1000, 0}, {^uintptr(0) - 10, 100}} {
		if _, err := MapMMIO(c.pa, c.size); err != EINVAL {
			t.Errorf("MapMMIO(%#x, %#x) = %v", c.pa, c.size, err)
		}
	}
}
