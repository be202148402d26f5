package mm

// The architecture-neutral view of a translation.
//
// Portable code (the page-table walk, the kernel mappings, the user address
// space) never looks at PTE bits. It builds entries with pteTable, pteLeaf
// and pteBlock, and reads them with Present, Huge, Addr and attr; each
// architecture implements those in pte_GOARCH.go (see "Porting" in doc.go).

// PTE is one 64-bit paging-structure entry in the architecture's format
// (x86-64: SDM Vol. 3A §4.5, Tables 4-14..4-19; arm64: VMSAv8-64 stage 1
// descriptors, Arm ARM D8.3). Both architectures use 64-bit entries, 512 to a
// 4 KiB table.
type PTE uint64

// Attr describes what a leaf translation allows, independently of how the
// architecture encodes it. A present translation is always readable by the
// privilege level it is accessible to (neither architecture can express a
// present but unreadable page without extensions gmpos does not use).
type Attr uint16

// Attributes.
const (
	// AttrWrite: writes are allowed.
	AttrWrite Attr = 1 << iota
	// AttrExec: instruction fetches are allowed (x86: XD clear; arm64:
	// UXN/PXN clear for the level that may access the page).
	AttrExec
	// AttrUser: user mode (x86 CPL3, arm64 EL0) may access the page;
	// without it the page is supervisor only.
	AttrUser
	// AttrGlobal: the translation is the same in every address space, so
	// a switch of address space need not drop it (x86 G, arm64 nG=0).
	AttrGlobal
	// AttrDevice: strongly ordered, uncached device memory: no
	// speculative reads, no write combining (x86 PAT UC, arm64
	// Device-nGnRE). Normal memory otherwise (write-back).
	AttrDevice
	// AttrOwned (software): the frame belongs to the frame allocator and
	// is freed when the page is unmapped (user pages, kernel stacks).
	AttrOwned
	// AttrHuge is reported by Lookup and Unmap2M for a leaf above the
	// last level (2 MiB or 1 GiB); Map and Protect refuse it, Map2M
	// implies it.
	AttrHuge
)

// attrMapMask are the attributes Map, Map2M and Protect accept.
const attrMapMask = AttrWrite | AttrExec | AttrUser | AttrGlobal | AttrDevice | AttrOwned

// Writable reports whether the translation allows writes.
func (a Attr) Writable() bool { return a&AttrWrite != 0 }

// Executable reports whether the translation allows instruction fetches.
func (a Attr) Executable() bool { return a&AttrExec != 0 }

// UserAccessible reports whether user mode may access the page.
func (a Attr) UserAccessible() bool { return a&AttrUser != 0 }
