//go:build amd64

package mm

// PTE is one 64-bit paging-structure entry of 4-level paging
// (Intel SDM Vol. 3A §4.5, Tables 4-14 to 4-19). The same bit layout is used
// at every level; bit 7 means PS (page size) in a PDPTE/PDE and PAT in a PTE,
// so this package never sets bit 7 in a level-1 entry.
type PTE uint64

// Entry bits.
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
	// pteAddr2M selects the frame address of a 2 MiB leaf (bits 51:21;
	// bit 12 is the PAT bit there).
	pteAddr2M PTE = 0x000f_ffff_ffe0_0000

	// tableFlags is used for non-leaf entries: the effective rights are the
	// intersection over all levels (SDM §4.6.1), so intermediate entries
	// are fully permissive and the leaf decides.
	tableFlags = PTEPresent | PTEWrite | PTEUser

	// leafFlagMask are the flags a caller may pass to Map.
	leafFlagMask = PTEWrite | PTEUser | PTEWriteThrough | PTECacheDisable |
		PTEAccessed | PTEDirty | PTEGlobal | PTEOwned | PTENoExec
)

// Addr returns the physical address held by a 4 KiB leaf or table entry.
func (e PTE) Addr() uintptr { return uintptr(e & pteAddr4K) }

// Flags returns e without its address bits.
func (e PTE) Flags() PTE { return e &^ pteAddr4K }

// Present reports the P bit.
func (e PTE) Present() bool { return e&PTEPresent != 0 }

// Huge reports the PS bit (meaningful in PDPTEs and PDEs only).
func (e PTE) Huge() bool { return e&PTEHuge != 0 }
