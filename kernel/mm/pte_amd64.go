package mm

// x86-64 entry format of 4-level paging (Intel SDM Vol. 3A §4.5, Tables
// 4-14 to 4-19). The same bit layout is used at every level; bit 7 means PS
// (page size) in a PDPTE/PDE and PAT in a PTE, so this package never sets
// bit 7 in a level-1 entry (and never sets the PAT bits at all: the memory
// type comes from PCD/PWT alone, PAT entries 0 (WB) and 3 (UC) of the
// power-up PAT, §11.12.3 Table 11-12).
//
// These constants are amd64 only: portable code uses Attr and the functions
// below.
const (
	PTEPresent      PTE = 1 << 0  // P: entry is valid
	PTEWrite        PTE = 1 << 1  // R/W: writes allowed (all levels must allow)
	PTEUser         PTE = 1 << 2  // U/S: CPL3 access allowed (all levels must allow)
	PTEWriteThrough PTE = 1 << 3  // PWT
	PTECacheDisable PTE = 1 << 4  // PCD
	PTEAccessed     PTE = 1 << 5  // A: set by the CPU
	PTEDirty        PTE = 1 << 6  // D: set by the CPU on write (leaf only)
	PTEHuge         PTE = 1 << 7  // PS: PDE maps a 2 MiB page (Table 4-17)
	PTEGlobal       PTE = 1 << 8  // G: survives CR3 reloads (needs CR4.PGE)
	PTEOwned        PTE = 1 << 9  // software (bit 9 is ignored by the CPU): frame belongs to the allocator, free on unmap
	PTENoExec       PTE = 1 << 63 // XD: instruction fetch forbidden (needs EFER.NXE)

	// pteAddr4K selects the frame address of a 4 KiB leaf or of a table
	// (bits 51:12, M = 52 on every CPU QEMU emulates).
	pteAddr4K PTE = 0x000f_ffff_ffff_f000

	// pteDevice selects PAT entry 3 (PCD=1, PWT=1), which is UC in the
	// power-up PAT: strong uncacheable, as device registers require
	// (SDM §11.3: no speculative reads, no write combining).
	pteDevice = PTECacheDisable | PTEWriteThrough

	// pteTableFlags is used for non-leaf entries: the effective rights are
	// the intersection over all levels (SDM §4.6.1), so intermediate
	// entries are fully permissive and the leaf decides.
	pteTableFlags = PTEPresent | PTEWrite | PTEUser
)

// physLimit is one past the highest physical address an entry can hold
// (MAXPHYADDR = 52, SDM §4.1.4).
const physLimit uintptr = 1 << 52

// pteTable returns a present non-leaf entry pointing at the table in frame pa.
func pteTable(pa uintptr) PTE { return PTE(pa) | pteTableFlags }

// pteTableKernel is pteTable without user access: everything below it is the kernel's only
// (U/S clear at one level denies CPL3, SDM §4.6.1). A child process's table reaches the
// program's memory through such entries (process.go).
func pteTableKernel(pa uintptr) PTE { return PTE(pa) | PTEPresent | PTEWrite }

// pteLeaf returns a present last-level (4 KiB) entry mapping frame pa.
func pteLeaf(pa uintptr, a Attr) PTE { return PTE(pa) | PTEPresent | attrBits(a) }

// pteBlock returns a present 2 MiB leaf (a PDE with PS=1, Table 4-17).
func pteBlock(pa uintptr, a Attr) PTE { return PTE(pa) | PTEPresent | PTEHuge | attrBits(a) }

// attrBits encodes the leaf attributes a.
func attrBits(a Attr) PTE {
	var e PTE
	if a&AttrWrite != 0 {
		e |= PTEWrite
	}
	if a&AttrUser != 0 {
		e |= PTEUser
	}
	if a&AttrExec == 0 {
		e |= PTENoExec
	}
	if a&AttrGlobal != 0 {
		e |= PTEGlobal
	}
	if a&AttrDevice != 0 {
		e |= pteDevice
	}
	if a&AttrOwned != 0 {
		e |= PTEOwned
	}
	return e
}

// attr decodes the leaf attributes of e (without AttrHuge, which depends on
// the level the entry was found at).
func (e PTE) attr() Attr {
	var a Attr
	if e&PTEWrite != 0 {
		a |= AttrWrite
	}
	if e&PTEUser != 0 {
		a |= AttrUser
	}
	if e&PTENoExec == 0 {
		a |= AttrExec
	}
	if e&PTEGlobal != 0 {
		a |= AttrGlobal
	}
	if e&pteDevice == pteDevice {
		a |= AttrDevice
	}
	if e&PTEOwned != 0 {
		a |= AttrOwned
	}
	return a
}

// Addr returns the physical address held by a table entry or a 4 KiB leaf.
// For a 2 MiB leaf, mask it with the page size (bit 12 is PAT there, which
// this package never sets).
func (e PTE) Addr() uintptr { return uintptr(e & pteAddr4K) }

// Present reports whether the entry is valid (the P bit).
func (e PTE) Present() bool { return e&PTEPresent != 0 }

// Huge reports whether a present entry above the last level is a leaf (the
// PS bit; meaningful in PDPTEs and PDEs only).
func (e PTE) Huge() bool { return e&PTEHuge != 0 }
