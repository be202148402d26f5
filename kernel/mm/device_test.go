package mm

import "testing"

const lapic = 0xfee00000 // a device register page, as on a PC

func TestMapDevice(t *testing.T) {
	Kernel = PageTable{}
	if err := MapDevice(lapic, 0x400); err != EINVAL {
		t.Fatalf("MapDevice before BuildKernelSpace = %v", err)
	}
	boot(t, testRAM)
	s0 := Space.ReadStats()
	if err := MapDevice(lapic+0x20, 0x400); err != OK {
		t.Fatalf("MapDevice = %v", err)
	}
	// Identity mapped, supervisor only, writable, never executable,
	// uncached, one 4 KiB page.
	pa, fl, ok := Kernel.Lookup(lapic + 0x20)
	if !ok || pa != lapic+0x20 {
		t.Fatalf("Lookup = %#x %v, want the identity", pa, ok)
	}
	if fl.UserAccessible() || !fl.Writable() || fl.Executable() || fl&AttrDevice == 0 || fl&AttrHuge != 0 || fl&AttrOwned != 0 {
		t.Fatalf("device attributes %#x: want supervisor RW, not executable, device, 4 KiB, not owned", fl)
	}
	if Kernel.PeekExecutable(lapic) {
		t.Fatal("device page executable")
	}
	if _, _, ok := Kernel.Lookup(lapic + PageSize); ok {
		t.Fatal("device mapping larger than requested")
	}
	// Reserved in Space as one pinned PROT_NONE VMA; no frame but page
	// tables was used.
	i := Space.lookup(lapic)
	if v, _ := Space.VMA(i); i < 0 || v != (VMA{lapic, lapic + PageSize, PROT_NONE, VMAPinned | VMADevice}) {
		t.Fatalf("reservation %+v", v)
	}
	if s := Space.ReadStats(); s.FramesUsed-s0.FramesUsed != s.Tables-s0.Tables {
		t.Fatalf("MapDevice allocated frames other than tables: %+v → %+v", s0, s)
	}
	// mmap never places anything there, even when asked to.
	if a := mustMmap(t, lapic, PageSize, PROT_READ, anon); a == lapic {
		t.Fatal("mmap honoured a hint inside the device reservation")
	}
	if a := mustMmap(t, lapic-PageSize, 2*PageSize, PROT_READ, anon); a+2*PageSize > lapic && a < lapic+PageSize {
		t.Fatalf("mmap placed %#x over the device page", a)
	}
	for _, c := range []struct {
		name string
		err  Errno
		want Errno
	}{
		{"munmap", Space.Munmap(lapic, PageSize), EPERM},
		{"mprotect", Space.Mprotect(lapic, PageSize, PROT_READ), EPERM},
		{"madvise(DONTNEED)", Space.Madvise(lapic, PageSize, MADV_DONTNEED), EPERM},
		{"RegisterFixed", Space.RegisterFixed(lapic, PageSize, PROT_READ), EEXIST},
	} {
		if c.err != c.want {
			t.Errorf("%s over the device page = %v, want %v", c.name, c.err, c.want)
		}
	}
	if _, err := Space.Mmap(lapic, PageSize, PROT_READ, anon|MAP_FIXED, -1, 0); err != EPERM {
		t.Errorf("MAP_FIXED over the device page = %v, want EPERM", err)
	}
	if _, err := Space.Mmap(lapic, PageSize, PROT_READ, anon|MAP_FIXED_NOREPLACE, -1, 0); err != EEXIST {
		t.Errorf("MAP_FIXED_NOREPLACE over the device page = %v, want EEXIST", err)
	}
	if ok, code := HandleFault(lapic, false, false, true); ok || code != SEGV_ACCERR {
		t.Errorf("user access to the device page = %v,%d; want SEGV_ACCERR", ok, code)
	}
	if UserRange(lapic, 4, false) {
		t.Error("UserRange accepted the device page")
	}
	if pa, _, _ := Kernel.Lookup(lapic); pa != lapic {
		t.Fatal("a refused call changed the device page")
	}
	// Idempotent: the same range, a sub-range, and a range that adds a
	// page next to it (the VMAs merge).
	n, s1 := Space.NumVMAs(), Space.ReadStats()
	for _, r := range [][2]uintptr{{lapic, PageSize}, {lapic + 0x300, 4}} {
		if err := MapDevice(r[0], r[1]); err != OK {
			t.Fatalf("MapDevice(%#x, %#x) again = %v", r[0], r[1], err)
		}
	}
	if Space.NumVMAs() != n || Space.ReadStats() != s1 {
		t.Fatal("repeating MapDevice changed something")
	}
	if err := MapDevice(lapic, 2*PageSize); err != OK {
		t.Fatalf("MapDevice over the old page and a new one = %v", err)
	}
	if pa, fl, ok := Kernel.Lookup(lapic + PageSize); !ok || pa != lapic+PageSize || fl&AttrDevice == 0 {
		t.Fatal("second page not mapped")
	}
	if v, _ := Space.VMA(Space.lookup(lapic)); v.Start != lapic || v.End != lapic+2*PageSize || Space.NumVMAs() != n {
		t.Fatalf("reservations not merged: %+v", vmaList(&Space))
	}
}

func TestMapDeviceErrors(t *testing.T) {
	// RAM 32..47 MiB: the direct map covers the 2 MiB chunk 46..48 MiB, so
	// the page at 47 MiB, although not RAM, has a write-back alias.
	ram := []Region{{Base: 2 << 20, Len: 14 << 20}, {Base: 32 << 20, Len: 15 << 20}}
	boot(t, ram)
	user := mustMmap(t, 0x5000_0000, PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	HandleFault(user, true, false, true)
	reserved := mustMmap(t, 0x5100_0000, PageSize, PROT_NONE, anon|MAP_FIXED) // no page behind it
	n, s := Space.NumVMAs(), Space.ReadStats()
	for _, c := range []struct {
		name     string
		pa, size uintptr
		want     Errno
	}{
		{"empty", lapic, 0, EINVAL},
		{"overflowing", ^uintptr(0) - 10, 100, EINVAL},
		{"rounding overflows", ^uintptr(0) - 10, 5, EINVAL},
		{"page 0", 0x10, 4, EINVAL},
		{"reaching UserEnd", UserEnd - PageSize, 2 * PageSize, EINVAL},
		{"beyond UserEnd", UserEnd, PageSize, EINVAL},
		{"RAM", 3 << 20, PageSize, EEXIST},
		{"RAM and a device page", 48<<20 - PageSize, 2 * PageSize, EEXIST},
		{"direct-mapped non-RAM", 47 << 20, PageSize, EEXIST},
		{"the image", 0x104000, 8, EEXIST},
		{"a user mapping", user, PageSize, EEXIST},
		{"next to a user mapping", user - PageSize, 2 * PageSize, EEXIST},
		{"a user reservation", reserved, PageSize, EEXIST},
	} {
		if err := MapDevice(c.pa, c.size); err != c.want {
			t.Errorf("%s: MapDevice(%#x, %#x) = %v, want %v", c.name, c.pa, c.size, err, c.want)
		}
	}
	if Space.NumVMAs() != n || Space.ReadStats() != s {
		t.Fatalf("refused MapDevice calls changed the address space: %+v", vmaList(&Space))
	}
	// Non-RAM pages next to RAM are fine once outside the direct map's
	// chunks, and so are legacy device windows below 16 MiB.
	for _, pa := range []uintptr{48 << 20, 0xb8000} {
		if err := MapDevice(pa, PageSize); err != OK {
			t.Errorf("MapDevice(%#x) = %v", pa, err)
		}
	}
	// A page somebody else mapped is not taken over.
	if err := Kernel.Map(0x6000_0000, 0x6000_0000, AttrWrite); err != OK {
		t.Fatal(err)
	}
	if err := MapDevice(0x6000_0000, PageSize); err != EEXIST {
		t.Errorf("MapDevice over a kernel mapping = %v, want EEXIST", err)
	}
}

// The VMA table full: MapDevice needs a slot per uncovered piece.
func TestMapDeviceTableFull(t *testing.T) {
	boot(t, testRAM)
	base := uintptr(0x1000_0000_0000)
	for n := 0; Space.NumVMAs() < MaxVMAs; n++ {
		prot := uint32(PROT_READ)
		if n%2 == 1 {
			prot = PROT_NONE
		}
		mustMmap(t, base+uintptr(n)*PageSize, PageSize, prot, anon|MAP_FIXED)
	}
	if err := MapDevice(lapic, PageSize); err != ENOMEM {
		t.Fatalf("MapDevice in a full VMA table = %v, want ENOMEM", err)
	}
	if _, _, ok := Kernel.Lookup(lapic); ok {
		t.Fatal("failed MapDevice left a mapping")
	}
}
