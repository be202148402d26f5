package mm

import "testing"

// rawEntry returns the x86 entry mapping va at level (0 if absent).
func rawEntry(pt PageTable, va uintptr, level int) PTE {
	e, err := pt.slot(va, level, false)
	if err != OK {
		return 0
	}
	return PTE(load64(e))
}

// Every Attr combination survives an encode/decode round trip, and the bits
// are the SDM's (Vol. 3A Tables 4-17 and 4-19).
func TestAttrEncodingAmd64(t *testing.T) {
	for a := Attr(0); a <= attrMapMask; a++ {
		if a&^attrMapMask != 0 {
			continue
		}
		e := pteLeaf(0x1234_5000, a)
		if e.attr() != a || e.Addr() != 0x1234_5000 || !e.Present() || e.Huge() {
			t.Fatalf("attr %#x → %#x → %#x", a, e, e.attr())
		}
		if e&(1<<7) != 0 { // PAT in a PTE (Table 4-19)
			t.Fatalf("attr %#x set the PAT bit: %#x", a, e)
		}
		b := pteBlock(0x4000_0000, a)
		if b.attr() != a || !b.Huge() || b.Addr() != 0x4000_0000 || b&(1<<12) != 0 { // PAT in a 2 MiB PDE (Table 4-17)
			t.Fatalf("block attr %#x → %#x", a, b)
		}
	}
	for _, c := range []struct {
		a    Attr
		want PTE
	}{
		{0, PTEPresent | PTENoExec},
		{AttrWrite, PTEPresent | PTEWrite | PTENoExec},
		{AttrUser | AttrExec, PTEPresent | PTEUser},
		{AttrGlobal, PTEPresent | PTEGlobal | PTENoExec},
		{AttrDevice, PTEPresent | PTECacheDisable | PTEWriteThrough | PTENoExec}, // PAT entry 3 = UC
		{AttrOwned, PTEPresent | PTEOwned | PTENoExec},
	} {
		if got := pteLeaf(0, c.a); got != c.want {
			t.Errorf("pteLeaf(%#x) = %#x, want %#x", c.a, got, c.want)
		}
	}
	if pteTable(0x5000) != 0x5000|PTEPresent|PTEWrite|PTEUser {
		t.Error("table entries must be fully permissive (SDM §4.6.1)")
	}
}

// The entries BuildKernelSpace, MapKernelStack and the fault handler write,
// bit for bit.
func TestKernelSpaceEncodingAmd64(t *testing.T) {
	pt := boot(t, testRAM)
	top, _ := MapKernelStack(0)
	const base = 0x3000_0000_0000
	mustMmap(t, base, 2*PageSize, PROT_READ|PROT_WRITE, anon|MAP_FIXED)
	HandleFault(base, true, false, true)
	HandleFault(base+PageSize, true, false, true)
	Space.Mprotect(base+PageSize, PageSize, PROT_NONE)
	addr := func(e PTE) PTE { return e & pteAddr4K }
	for _, c := range []struct {
		name  string
		va    uintptr
		level int
		flags PTE // without the address
	}{
		{"direct map", DirectMapBase + 32<<20, level2M, PTEPresent | PTEWrite | PTEHuge | PTEGlobal | PTENoExec},
		{"text", 0x100000, level4K, PTEPresent | PTEUser},
		{"rodata", 0x104000, level4K, PTEPresent | PTEUser | PTENoExec},
		{"data", 0x106000, level4K, PTEPresent | PTEUser | PTEWrite | PTENoExec},
		{"kernel stack", top - PageSize, level4K, PTEPresent | PTEWrite | PTEGlobal | PTEOwned | PTENoExec},
		{"user RW page", base, level4K, PTEPresent | PTEUser | PTEWrite | PTEOwned | PTENoExec},
		{"user PROT_NONE page", base + PageSize, level4K, PTEPresent | PTEOwned | PTENoExec},
	} {
		e := rawEntry(pt, c.va, c.level)
		if e&^addr(e) != c.flags {
			t.Errorf("%s: entry %#x, want flags %#x", c.name, e, c.flags)
		}
	}
	if e := rawEntry(pt, 0x100000, level4K); addr(e) != 0x100000 {
		t.Errorf("image not identity mapped: %#x", e)
	}
}
