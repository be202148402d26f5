package mm

import "testing"

// TestMapSpecial maps two kernel frames the way the kernel maps the vDSO — a read-only data
// page, then a read-only executable code page above it — and checks what the program can do
// with them: read both, run the code, write neither, unmap or change neither.
func TestMapSpecial(t *testing.T) {
	boot(t, testRAM)
	data, ok1 := AllocZeroFrame()
	code, ok2 := AllocZeroFrame()
	if !ok1 || !ok2 {
		t.Fatal("no frames")
	}
	FrameBytes(data)[8] = 42 // the kernel writes through the direct map
	const va = 0x7fff_fff8_0000
	s0 := Space.ReadStats()
	if err := Space.MapSpecial(va, data, PageSize, PROT_READ); err != OK {
		t.Fatalf("MapSpecial(data) = %v", err)
	}
	if err := Space.MapSpecial(va+PageSize, code, PageSize, PROT_READ|PROT_EXEC); err != OK {
		t.Fatalf("MapSpecial(code) = %v", err)
	}
	for _, c := range []struct {
		va, pa uintptr
		exec   bool
	}{{va, data, false}, {va + PageSize, code, true}} {
		pa, a, ok := Space.PT.Lookup(c.va)
		if !ok || pa != c.pa || !a.UserAccessible() || a.Writable() || a.Executable() != c.exec || a&(AttrOwned|AttrGlobal) != 0 {
			t.Errorf("%#x: Lookup = %#x %#x %v; want frame %#x, user, read-only, exec %v, not owned", c.va, pa, a, ok, c.pa, c.exec)
		}
	}
	if s := Space.ReadStats(); s.FramesUsed-s0.FramesUsed != s.Tables-s0.Tables {
		t.Errorf("MapSpecial took frames other than tables: %+v → %+v", s0, s)
	}
	if v, ok, _ := access(&Space, va+8, false, 0); !ok || v != 42 {
		t.Errorf("the program reads %d, %v; want the kernel's 42", v, ok)
	}
	if _, ok, code := access(&Space, va+8, true, 1); ok || code != SEGV_ACCERR {
		t.Errorf("a write to the data page: ok %v code %d, want SEGV_ACCERR", ok, code)
	}
	if ok, code := HandleFault(va+PageSize, true, false, true); ok || code != SEGV_ACCERR {
		t.Errorf("a write to the code page: ok %v code %d, want SEGV_ACCERR", ok, code)
	}
	if ok, code := HandleFault(va, false, true, true); ok || code != SEGV_ACCERR {
		t.Errorf("running the data page: ok %v code %d, want SEGV_ACCERR", ok, code)
	}
	if ok, _ := HandleFault(va+PageSize, false, true, true); !ok {
		t.Error("running the code page faults")
	}
	if !UserRange(va, 2*PageSize, false) || UserRange(va, 8, true) {
		t.Error("system calls must read both pages and write neither")
	}
	for _, c := range []struct {
		name string
		err  Errno
		want Errno
	}{
		{"munmap", Space.Munmap(va, PageSize), EPERM},
		{"mprotect", Space.Mprotect(va+PageSize, PageSize, PROT_READ|PROT_WRITE), EPERM},
		{"madvise(DONTNEED)", Space.Madvise(va, 2*PageSize, MADV_DONTNEED), EPERM},
		{"mmap(MAP_FIXED)", func() Errno { _, e := Space.Mmap(va, PageSize, PROT_READ, anon|MAP_FIXED, -1, 0); return e }(), EPERM},
		{"MapSpecial again", Space.MapSpecial(va, data, PageSize, PROT_READ), EEXIST},
	} {
		if c.err != c.want {
			t.Errorf("%s over the special pages = %v, want %v", c.name, c.err, c.want)
		}
	}
	if pa, _, ok := Space.PT.Lookup(va); !ok || pa != data || FrameBytes(data)[8] != 42 {
		t.Error("the data page changed")
	}
	want := []VMA{{va, va + PageSize, PROT_READ, VMAPinned}, {va + PageSize, va + 2*PageSize, PROT_READ | PROT_EXEC, VMAPinned}}
	if i := Space.lookup(va); i < 0 || Space.vmas[i] != want[0] || Space.vmas[i+1] != want[1] {
		t.Errorf("VMAs %+v, want %+v", vmaList(&Space), want)
	}
}

func TestMapSpecialRejects(t *testing.T) {
	boot(t, testRAM)
	pa, _ := AllocZeroFrame()
	const va = 0x7fff_fff8_0000
	for _, c := range []struct {
		name           string
		va, pa, length uintptr
		prot           uint32
		want           Errno
	}{
		{"writable", va, pa, PageSize, PROT_READ | PROT_WRITE, EINVAL},
		{"write+exec", va, pa, PageSize, PROT_READ | PROT_WRITE | PROT_EXEC, EINVAL},
		{"no access", va, pa, PageSize, PROT_NONE, EINVAL},
		{"unaligned va", va + 1, pa, PageSize, PROT_READ, EINVAL},
		{"unaligned pa", va, pa + 8, PageSize, PROT_READ, EINVAL},
		{"empty", va, pa, 0, PROT_READ, EINVAL},
		{"page 0", 0, pa, PageSize, PROT_READ, EINVAL},
		{"kernel half", DirectMapBase, pa, PageSize, PROT_READ, EINVAL},
		{"past UserEnd", UserEnd, pa, PageSize, PROT_READ, EINVAL},
		{"over the image", 0x100000, pa, PageSize, PROT_READ, EEXIST},
	} {
		if err := Space.MapSpecial(c.va, c.pa, c.length, c.prot); err != c.want {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, _, ok := Space.PT.Lookup(va); ok {
		t.Error("a refused MapSpecial mapped something")
	}
}
