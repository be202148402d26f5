// Hosted tests of the arm64 descriptor encoder (pte_vmsa.go) against the Arm ARM's rules.
// SPDX-License-Identifier: BSD-3-Clause

package mm

import "testing"

// The expectations below are written with literal bit positions (DDI 0487
// K.a D8.3), not with pte_vmsa.go's constants, so that a wrong constant
// fails here.

// The descriptors mm writes for each kind of mapping, bit for bit.
func TestVMSADescriptorBits(t *testing.T) {
	const (
		pa  = 0x4012_3000
		xn  = 1<<53 | 1<<54 // PXN | UXN
		own = 1 << 55       // software bit: AttrOwned
		// Page descriptor (0b11), AttrIndx 0, SH = 0b11, AF: 0x703.
		page = 0x3 | 0x300 | 0x400
		user = 1 << 6  // AP[1]
		ro   = 1 << 7  // AP[2]
		ng   = 1 << 11 // nG
	)
	for _, c := range []struct {
		name string
		e    PTE
		want PTE
	}{
		{"direct map (L2 block)", vmsaBlock(0x4020_0000, directAttr), 0x4020_0000 | 0x1 | 0x300 | 0x400 | xn},
		{"text", vmsaPage(pa, imageAttr(PF_R|PF_X)), pa | page | user | ro | ng},
		{"rodata", vmsaPage(pa, imageAttr(PF_R)), pa | page | user | ro | ng | xn},
		{"data", vmsaPage(pa, imageAttr(PF_R|PF_W)), pa | page | user | ng | xn},
		{"kernel stack", vmsaPage(pa, stackAttr), pa | page | xn | own},
		{"user RW page", vmsaPage(pa, leafAttr(PROT_READ|PROT_WRITE, false)|AttrOwned), pa | page | user | ng | xn | own},
		{"user PROT_NONE page", vmsaPage(pa, leafAttr(PROT_NONE, false)|AttrOwned), pa | page | ro | ng | xn | own},
		{"user R+X page (vDSO)", vmsaPage(pa, leafAttr(PROT_READ|PROT_EXEC, false)), pa | page | user | ro | ng},
		{"device (AttrIndx 1)", vmsaPage(0x0900_0000, deviceAttr), 0x0900_0000 | page | 1<<2 | xn},
		{"supervisor code", vmsaPage(pa, AttrExec|AttrGlobal), pa | page | ro | 1<<54},
		{"table", vmsaTable(0x4000_5000), 0x4000_5000 | 0x3},
		{"kernel-only table", vmsaTableKernel(0x4000_5000), 0x4000_5000 | 0x3 | 1<<60 | 1<<61}, // UXNTable, APTable[0]
	} {
		if c.e != c.want {
			t.Errorf("%s: %#016x, want %#016x", c.name, uint64(c.e), uint64(c.want))
		}
	}
}

// vmsaWantAttr is what a leaf encoded from a decodes to: a itself, except
// that a writable or Device leaf is never executable.
func vmsaWantAttr(a Attr) Attr {
	if a&(AttrWrite|AttrDevice) != 0 {
		return a &^ AttrExec
	}
	return a
}

// Every Attr combination survives encode/decode as pages and as blocks; the
// descriptor types are the ones each level needs.
func TestVMSARoundTrip(t *testing.T) {
	for a := Attr(0); a <= attrMapMask; a++ {
		if a&^attrMapMask != 0 {
			continue
		}
		want := vmsaWantAttr(a)
		for _, pa := range []uintptr{0, 0x4012_3000, 1<<48 - PageSize} {
			e := vmsaPage(pa, a)
			if vmsaAttr(e) != want || vmsaAddress(e) != pa || !vmsaPresent(e) || vmsaHuge(e) || e&3 != 3 {
				t.Fatalf("page %#x attr %#x → %#x → attr %#x addr %#x", pa, a, e, vmsaAttr(e), vmsaAddress(e))
			}
			if e&(1<<10) == 0 {
				t.Fatalf("attr %#x: AF clear in %#x (every first access would fault)", a, e)
			}
			// Only the fields above: no NS, DBM, Contiguous, GP, nT...
			const fields = 0x3 | 7<<2 | 3<<6 | 3<<8 | 1<<10 | 1<<11 | 1<<53 | 1<<54 | 1<<55
			if (e-PTE(pa))&^fields != 0 {
				t.Fatalf("attr %#x: bits outside the leaf fields in %#x", a, e)
			}
		}
		for _, pa := range []uintptr{0x4020_0000, 0x8000_0000, 1<<48 - HugeSize} {
			b := vmsaBlock(pa, a)
			if vmsaAttr(b) != want || vmsaAddress(b) != pa || !vmsaPresent(b) || !vmsaHuge(b) || b&3 != 1 {
				t.Fatalf("block %#x attr %#x → %#x", pa, a, b)
			}
		}
	}
	for _, tab := range []PTE{vmsaTable(0x5000), vmsaTableKernel(0x5000)} {
		if !vmsaPresent(tab) || vmsaHuge(tab) || vmsaAddress(tab) != 0x5000 || tab&3 != 3 {
			t.Errorf("table %#x", tab)
		}
	}
	if vmsaPresent(0) || vmsaPresent(vmsaPage(0x5000, AttrWrite)&^1) {
		t.Error("a descriptor with bit 0 clear is invalid")
	}
	if vmsaPhysLimit != 1<<48 {
		t.Errorf("physical limit %#x, want 2^48", vmsaPhysLimit)
	}
}

// vmsaRights are the rights one Exception level has on a page.
type vmsaRights struct{ r, w, x bool }

// vmsaPerms evaluates stage 1 permissions for EL0 and EL1 as the Arm ARM
// defines them (D8.4, direct permissions, PAN off, HPD = 0, WXN off): the
// hierarchical attributes of the tables walked through, then AP[2:1],
// UXN/PXN and the rule that EL1 cannot execute what EL0 can write. It
// reads the bits by position, independently of the encoder.
func vmsaPerms(tables []PTE, leaf PTE) (el0, el1 vmsaRights) {
	if leaf&(1<<10) == 0 { // AF = 0: Access flag fault on any access
		return
	}
	ap := leaf >> 6 & 3 // AP[2:1]
	uxn, pxn := leaf>>54&1 != 0, leaf>>53&1 != 0
	for _, tab := range tables {
		if tab>>61&1 != 0 { // APTable[0]: no EL0 access below
			ap &^= 1
		}
		if tab>>62&1 != 0 { // APTable[1]: read-only below
			ap |= 2
		}
		uxn = uxn || tab>>60&1 != 0 // UXNTable
		pxn = pxn || tab>>59&1 != 0 // PXNTable
	}
	el0 = vmsaRights{r: ap&1 != 0, w: ap == 1, x: !uxn}
	el1 = vmsaRights{r: true, w: ap&2 == 0, x: !pxn && ap != 1}
	return
}

// The rights each Attr means in mm (the x86 meaning: a supervisor may read
// every present page, write only writable ones, and execute executable
// user pages; SMEP/SMAP off), under ordinary tables and under a
// kernel-only one; and W^X at every level.
func TestVMSAPermissions(t *testing.T) {
	for a := Attr(0); a <= attrMapMask; a++ {
		if a&^attrMapMask != 0 {
			continue
		}
		eff := vmsaWantAttr(a)
		w, x, u := eff&AttrWrite != 0, eff&AttrExec != 0, eff&AttrUser != 0
		for _, leaf := range []PTE{vmsaPage(0x4012_3000, a), vmsaBlock(0x4020_0000, a)} {
			open := []PTE{vmsaTable(0x1000), vmsaTable(0x2000), vmsaTable(0x3000)}
			el0, el1 := vmsaPerms(open, leaf)
			if want := (vmsaRights{u, u && w, u && x}); el0 != want {
				t.Errorf("attr %#x (%#x): EL0 %+v, want %+v", a, leaf, el0, want)
			}
			if want := (vmsaRights{true, w, x}); el1 != want {
				t.Errorf("attr %#x (%#x): EL1 %+v, want %+v", a, leaf, el1, want)
			}
			// A child process reaches the program's memory through a
			// kernel-only table (process.go): nothing for EL0, the
			// same for EL1.
			kernel := []PTE{vmsaTableKernel(0x1000), vmsaTable(0x2000)}
			k0, k1 := vmsaPerms(kernel, leaf)
			if k0 != (vmsaRights{}) || k1 != el1 {
				t.Errorf("attr %#x under a kernel-only table: EL0 %+v, EL1 %+v (want none, %+v)", a, k0, k1, el1)
			}
			if (el0.w || el1.w) && (el0.x || el1.x) {
				t.Errorf("attr %#x: descriptor %#x is writable and executable", a, leaf)
			}
		}
	}
}

// User pages are not global (nG = 1), kernel pages are: nG is exactly
// !AttrGlobal, and the attributes mm gives each kind of page decide.
func TestVMSAGlobal(t *testing.T) {
	for a := Attr(0); a <= attrMapMask; a++ {
		if a&^attrMapMask == 0 && (vmsaPage(0, a)>>11&1 != 0) != (a&AttrGlobal == 0) {
			t.Fatalf("attr %#x: nG %d", a, vmsaPage(0, a)>>11&1)
		}
	}
	var user []Attr
	for _, f := range []uint32{PF_R, PF_R | PF_X, PF_R | PF_W} {
		user = append(user, imageAttr(f))
	}
	for _, prot := range []uint32{PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC, PROT_READ | PROT_WRITE | PROT_EXEC} {
		user = append(user, leafAttr(prot, false)|AttrOwned, leafAttr(prot, true)|AttrOwned, leafAttr(prot, false))
	}
	for _, a := range user {
		if vmsaPage(0x4012_3000, a)&(1<<11) == 0 {
			t.Errorf("user page attr %#x is global", a)
		}
	}
	for _, a := range []Attr{directAttr, stackAttr, deviceAttr} {
		if vmsaPage(0x4012_3000, a)&(1<<11) != 0 || vmsaBlock(0x4020_0000, a)&(1<<11) != 0 {
			t.Errorf("kernel page attr %#x is not global", a)
		}
	}
}

// MAIR_EL1 and AttrIndx: Normal Write-Back for RAM, Device-nGnRE for
// MapDevice, Normal Non-cacheable at index 2.
func TestVMSAMemoryTypes(t *testing.T) {
	if vmsaMAIR != 0x4404ff {
		t.Fatalf("MAIR_EL1 %#x, want 0x4404ff", vmsaMAIR)
	}
	mairByte := func(e PTE) uint64 { return vmsaMAIR >> (8 * (e >> 2 & 7)) & 0xff }
	for a := Attr(0); a <= attrMapMask; a++ {
		if a&^attrMapMask != 0 {
			continue
		}
		e := vmsaPage(0x4012_3000, a)
		want := uint64(0xff) // Normal, Inner/Outer WB non-transient RA WA
		if a&AttrDevice != 0 {
			want = 0x04 // Device-nGnRE
		}
		if got := mairByte(e); got != want {
			t.Errorf("attr %#x: AttrIndx %d selects MAIR byte %#x, want %#x", a, e>>2&7, got, want)
		}
		if e>>8&3 != 3 {
			t.Errorf("attr %#x: SH %d, want 0b11 (Inner Shareable)", a, e>>8&3)
		}
	}
	if mairByte(vmsaMAIRNormalNC<<2) != 0x44 || mairByte(vmsaMAIRDevice<<2) != 0x04 || mairByte(vmsaMAIRNormal<<2) != 0xff {
		t.Error("MAIR index constants do not select their bytes")
	}
	if vmsaAttr(vmsaPage(0, deviceAttr))&AttrDevice == 0 || vmsaAttr(vmsaPage(0, directAttr))&AttrDevice != 0 {
		t.Error("AttrDevice does not survive the round trip")
	}
}

// canonical on arm64: bits 63:47 equal, so that neither half is reachable
// under a second name through the shared root.
func TestVMSACanonical(t *testing.T) {
	for _, c := range []struct {
		va uintptr
		ok bool
	}{
		{0, true},
		{0x7fff_ffff_ffff, true},
		{0x8000_0000_0000, false},      // TTBR0, but L0 slot 256: the direct map's alias
		{0xffff_ffff_ffff, false},      // TTBR0, slot 511
		{0x1_0000_0000_0000, false},    // bits 63:48 neither 0 nor all 1: no TTBR at all
		{0xffff_0000_0000_0000, false}, // TTBR1, but slot 0: the user half's alias
		{0xffff_7fff_ffff_ffff, false},
		{0xffff_8000_0000_0000, true},
		{0xffff_c000_0000_0000, true},
		{0xffff_ffff_ffff_ffff, true},
	} {
		if vmsaCanonical(c.va) != c.ok {
			t.Errorf("vmsaCanonical(%#x) = %v", c.va, !c.ok)
		}
		// Every canonical address has the L0 slot of its own half.
		if c.ok && (c.va>>63 == 1) != (index(c.va, levelTop) >= 256) {
			t.Errorf("%#x: L0 slot %d is in the other half", c.va, index(c.va, levelTop))
		}
	}
}

// vmsaMem is physical memory holding translation tables, for vmsaWalk.
type vmsaMem map[uintptr]*[512]PTE

// vmsaWalk translates va as a stage 1 walk with the 4 KiB granule and
// T0SZ = T1SZ = 16 does (D8.2), from root, which is both TTBR0_EL1 and
// TTBR1_EL1. It returns the output address, the level of the leaf and the
// table descriptors passed; ok is false for a Translation fault.
func vmsaWalk(m vmsaMem, root, va uintptr) (pa uintptr, level int, tables []PTE, ok bool) {
	if top := va >> 48; top != 0 && top != 0xffff {
		return 0, 0, nil, false // in neither range
	}
	table := root
	for level = 0; level <= 3; level++ {
		t := m[table]
		if t == nil {
			panic("walk reached a frame that is not a table")
		}
		d := t[va>>(39-9*level)&511]
		switch {
		case d&1 == 0:
			return 0, level, nil, false // invalid
		case d&2 != 0 && level < 3: // table
			tables = append(tables, d)
			table = uintptr(d & 0x0000_ffff_ffff_f000)
		case d&2 != 0: // L3 page
			return uintptr(d&0x0000_ffff_ffff_f000) | va&0xfff, level, tables, true
		case level == 1 || level == 2: // block
			size := uintptr(1) << (39 - 9*level)
			return uintptr(d&0x0000_ffff_ffff_f000)&^(size-1) | va&(size-1), level, tables, true
		default:
			return 0, level, nil, false // a block at L0, or 0b01 at L3: reserved, a fault
		}
	}
	panic("unreachable")
}

// A small table tree built from the encoder, walked as the MMU walks it:
// pages at L3, 2 MiB blocks at L2, kernel addresses through TTBR1 using the
// same root's upper slots, and the wrong descriptor type at a level faults.
func TestVMSAWalk(t *testing.T) {
	m := vmsaMem{}
	next := uintptr(0x4000_0000)
	alloc := func() uintptr { next += PageSize; m[next] = new([512]PTE); return next }
	root := alloc()
	// install puts e at level stop for va, creating tables like PageTable.slot.
	install := func(va uintptr, stop int, e PTE) {
		table := root
		for level := 0; level < stop; level++ {
			i := va >> (39 - 9*level) & 511
			if m[table][i] == 0 {
				m[table][i] = vmsaTable(alloc())
			}
			table = vmsaAddress(m[table][i])
		}
		m[table][va>>(39-9*stop)&511] = e
	}
	const user, kernel = 0x7f00_1234_5000, DirectMapBase + 0x4020_0000
	install(user, 3, vmsaPage(0x4567_8000, leafAttr(PROT_READ|PROT_WRITE, false)))
	install(kernel, 2, vmsaBlock(0x4020_0000, directAttr))
	if pa, level, _, ok := vmsaWalk(m, root, user+0x123); !ok || level != 3 || pa != 0x4567_8123 {
		t.Errorf("user page: %#x at L%d, %v", pa, level, ok)
	}
	if pa, level, _, ok := vmsaWalk(m, root, kernel+0x1_2345); !ok || level != 2 || pa != 0x4021_2345 {
		t.Errorf("direct map block: %#x at L%d, %v", pa, level, ok)
	}
	if index(kernel, levelTop) != 256 {
		t.Errorf("direct map in L0 slot %d, want 256", index(kernel, levelTop))
	}
	// The hardware also reaches the kernel slot through TTBR0 at bit 47
	// set, top bits clear: the alias canonical refuses.
	alias := kernel &^ (0xffff << 48)
	if _, _, _, ok := vmsaWalk(m, root, alias); !ok || vmsaCanonical(alias) {
		t.Errorf("alias %#x: walk %v, canonical %v", alias, ok, vmsaCanonical(alias))
	}
	// The wrong descriptor for the level: a block at L3 is reserved, a
	// block at L0 is not allowed with the 4 KiB granule, a page descriptor
	// at L2 would be taken for a table.
	install(user+PageSize, 3, vmsaBlock(0x4567_9000, AttrUser))
	if _, _, _, ok := vmsaWalk(m, root, user+PageSize); ok {
		t.Error("a block descriptor at L3 translated")
	}
	m2 := vmsaMem{0x1000: new([512]PTE)}
	m2[0x1000][0] = vmsaBlock(0, AttrUser)
	if _, _, _, ok := vmsaWalk(m2, 0x1000, 0x1000); ok {
		t.Error("a block descriptor at L0 translated")
	}
	// A page reached through a kernel-only table keeps EL1's rights and
	// loses EL0's.
	if _, _, tabs, ok := vmsaWalk(m, root, user); ok {
		el0, _ := vmsaPerms(tabs, vmsaPage(0x4567_8000, leafAttr(PROT_READ|PROT_WRITE, false)))
		tabs[0] = vmsaTableKernel(vmsaAddress(tabs[0]))
		k0, k1 := vmsaPerms(tabs, vmsaPage(0x4567_8000, leafAttr(PROT_READ|PROT_WRITE, false)))
		if el0 != (vmsaRights{true, true, false}) || k0 != (vmsaRights{}) || k1 != (vmsaRights{true, true, false}) {
			t.Errorf("rights through the walk: EL0 %+v; under a kernel-only table EL0 %+v, EL1 %+v", el0, k0, k1)
		}
	}
}
