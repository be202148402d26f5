package mm

import "testing"

// The x86-64 canonical-address rule (SDM Vol. 3A §3.3.7.1): bits 63..47 equal.
func TestCanonicalAmd64(t *testing.T) {
	for _, c := range []struct {
		va uintptr
		ok bool
	}{{0, true}, {0x7fff_ffff_ffff, true}, {0x8000_0000_0000, false}, {0xffff_7fff_ffff_ffff, false}, {0xffff_8000_0000_0000, true}} {
		if canonical(c.va) != c.ok {
			t.Errorf("canonical(%#x) = %v", c.va, !c.ok)
		}
	}
	// The user range ends one guard page below the non-canonical hole
	// (Linux TASK_SIZE_MAX), and the kernel-half bases are canonical.
	if UserEnd != 1<<47-PageSize || !canonical(UserEnd-1) || canonical(UserEnd+PageSize) {
		t.Errorf("UserEnd %#x", UserEnd)
	}
	for _, va := range []uintptr{DirectMapBase, KernelStackBase} {
		if !canonical(va) || va < 1<<47 {
			t.Errorf("%#x is not in the upper canonical half", va)
		}
	}
}

// Non-canonical addresses can never be mapped: the CPU raises #GP before any
// page walk.
func TestNonCanonicalAmd64(t *testing.T) {
	setPhysArena()
	Init(testRAM)
	pt, _ := NewPageTable()
	const nc = 0x8000_0000_0000
	if e := pt.Map(nc, 0x300000, 0); e != EINVAL {
		t.Errorf("Map(non-canonical) = %v, want EINVAL", e)
	}
	if e := pt.Map2M(nc, 0x400000, 0); e != EINVAL {
		t.Errorf("Map2M(non-canonical) = %v, want EINVAL", e)
	}
	if _, _, ok := pt.Lookup(nc); ok {
		t.Error("Lookup(non-canonical) ok")
	}
	boot(t, testRAM)
	if ok, code := HandleFault(nc, false, false, true); ok || code != SEGV_MAPERR {
		t.Errorf("fault at non-canonical = %v,%d; want SEGV_MAPERR", ok, code)
	}
	if _, err := Space.Mmap(nc, PageSize, PROT_READ, anon|MAP_FIXED, -1, 0); err != ENOMEM {
		t.Errorf("MAP_FIXED at non-canonical = %v, want ENOMEM", err)
	}
}

// munmap, mprotect and madvise of non-canonical ranges: EINVAL (munmap,
// beyond TASK_SIZE) and ENOMEM (no VMA there), as natively.
func TestNonCanonicalRangesAmd64(t *testing.T) {
	boot(t, testRAM)
	const nc = 0x8000_0000_0000
	if err := Space.Munmap(nc, PageSize); err != EINVAL {
		t.Errorf("munmap = %v, want EINVAL", err)
	}
	if err := Space.Mprotect(nc, PageSize, PROT_READ); err != ENOMEM {
		t.Errorf("mprotect = %v, want ENOMEM", err)
	}
	if err := Space.Madvise(nc, PageSize, MADV_DONTNEED); err != ENOMEM {
		t.Errorf("madvise = %v, want ENOMEM", err)
	}
}

// x86's arch_validate_prot is the generic one: PROT_BTI/PROT_MTE (0x10,
// 0x20, arm64) are unknown bits (native: mprotect(addr, 4096, 0x10) =
// EINVAL, even over an unmapped range).
func TestProtBitsAmd64(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	mustMmap(t, base, PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	for _, prot := range []uint32{0x10, 0x20, PROT_READ | 0x10} {
		for _, va := range []uintptr{base, 0x5000_0000_0000} {
			if err := Space.Mprotect(va, PageSize, uint64(prot)); err != EINVAL {
				t.Errorf("Mprotect(%#x, %#x) = %v, want EINVAL", va, prot, err)
			}
		}
	}
}
