// The arm64 entry format: VMSAv8-64 stage 1 descriptors, 4 KiB granule, 48-bit addresses.
// SPDX-License-Identifier: BSD-3-Clause

package mm

// The encoding itself is in pte_vmsa.go (portable, so that hosted tests on
// x86-64 cover it; the bit map is there). This file binds the porting
// contract (doc.go, "Porting") to it and exports what kernel/arch/arm64
// must program to match it.
//
// Levels: mm's level 3..0 (pagetable.go) are the Arm ARM's L0..L3 (DDI
// 0487 K.a, D8.2 "Translation process", 4 KiB granule: 9 VA bits per level,
// L0 indexed by bits 47:39). pteTable is used at L0-L2, pteBlock at L2 only
// (Map2M; an L1 block would also be valid), pteLeaf at L3 only.
//
// What the arch must set up for these descriptors to mean what mm means:
//   - MAIR_EL1 = MAIRValue (the AttrIndx values below);
//   - TCR_EL1: T0SZ = T1SZ = 16, TG0 = 4 KiB, TG1 = 4 KiB, IPS covering
//     the RAM and devices (ID_AA64MMFR0_EL1.PARange), table walks Inner
//     Shareable Write-Back (SH0/SH1 = 0b11, IRGN/ORGN = 0b01, like the
//     tables' own MAIRIndexNormal mapping), HPD0 = HPD1 = 0 (pteTableKernel
//     relies on hierarchical permissions), HA = HD = 0 (AF is always set,
//     dirty state unused), TBI0 = TBI1 = 0 (layout_arm64.go);
//   - TTBR0_EL1 and TTBR1_EL1 both = the root (layout_arm64.go);
//   - SCTLR_EL1.WXN may be set (no descriptor is writable and executable);
//     PAN must stay off, like SMAP on x86: the kernel lives in the
//     EL0-accessible image and copies user memory with plain loads and
//     stores after UserRange.
//
// TLB and barriers. A descriptor is written with one aligned 64-bit store
// (store64). What follows it:
//   - Removal and reduction of rights (Unmap, Unmap2M, Protect, munmap,
//     mprotect, MADV_DONTNEED, the W^X flip): mm calls FlushTLB(va) or
//     FlushAll afterwards, as on x86, and the arch's hooks issue DSB ISHST
//     (the store reaches the walkers), TLBI VAE1IS / VMALLE1IS (VAE1, not
//     VALE1: an Unmap2M'd block may become a table later), DSB ISH and ISB
//     (D8.16 "TLB maintenance"). The broadcast (…IS) form reaches every
//     core, which x86 does with the shootdown IPI (SyncTLB). mm changes
//     only permissions of a live descriptor in place, never its address,
//     memory type, nG or size, so no break-before-make sequence is needed
//     (D8.16); an address change always goes through an invalid entry.
//   - New entries (not valid → valid: Map, Map2M, demand paging,
//     UserRange's pre-faulting, MapKernelStack, MapDevice): an invalid
//     entry is never held in a TLB (D8.15), so no TLBI is needed and mm
//     calls no hook, as on x86 (SDM §4.10.4.3). But unlike x86, the walker
//     is only guaranteed to see the store after a DSB, and this core's
//     later instructions only after an ISB. Until then an access may take
//     a spurious Translation fault: at EL0 harmless (HandleFault finds the
//     page present, calls FlushTLB and the access is retried), at EL1 —
//     the kernel copying to a buffer UserRange just faulted in, a fresh
//     kernel stack, a device just mapped — the arch must either issue
//     DSB ISH; ISB on the way from such mm calls to the access, or treat an
//     EL1 Translation fault on an address that is now mapped as spurious
//     and retry (Linux: is_spurious_el1_translation_fault). SetPageTable
//     also orders every earlier table write with its DSB.

// MAIR_EL1 attribute indices of the descriptors mm writes, and the MAIR_EL1
// value that gives them their memory types (kernel/arch/arm64 loads it
// before it enables the MMU; see pte_vmsa.go for the Attr<n> encodings).
const (
	// MAIRIndexNormal: RAM, the image, page tables, kernel stacks:
	// Normal, Inner/Outer Write-Back non-transient, Read/Write-Allocate
	// (Attr 0xff), Inner Shareable.
	MAIRIndexNormal = vmsaMAIRNormal
	// MAIRIndexDevice: MapDevice's pages (AttrDevice): Device-nGnRE
	// (Attr 0x04).
	MAIRIndexDevice = vmsaMAIRDevice
	// MAIRIndexNormalNC: Normal Non-cacheable (Attr 0x44); mm does not
	// use it (no Attr selects it), it is there for a frame buffer or DMA
	// buffers a driver maps itself.
	MAIRIndexNormalNC = vmsaMAIRNormalNC
	// MAIRValue is MAIR_EL1: 0x0000_0000_0044_04ff.
	MAIRValue uint64 = vmsaMAIR
)

// physLimit is one past the highest physical address an entry can hold
// (48-bit output addresses, D8.3).
const physLimit uintptr = vmsaPhysLimit

// pteTable returns a valid L0-L2 table descriptor for the table at pa,
// without hierarchical restrictions: the leaf decides.
func pteTable(pa uintptr) PTE { return vmsaTable(pa) }

// pteTableKernel is pteTable with APTable[0] and UXNTable set: EL0 can
// neither access nor execute anything below it (process.go).
func pteTableKernel(pa uintptr) PTE { return vmsaTableKernel(pa) }

// pteLeaf returns a valid L3 page descriptor mapping frame pa.
func pteLeaf(pa uintptr, a Attr) PTE { return vmsaPage(pa, a) }

// pteBlock returns a valid L2 block descriptor mapping the 2 MiB at pa.
func pteBlock(pa uintptr, a Attr) PTE { return vmsaBlock(pa, a) }

// attr decodes the leaf attributes of e (without AttrHuge, which depends on
// the level the entry was found at).
func (e PTE) attr() Attr { return vmsaAttr(e) }

// Addr returns the address held by a table descriptor or an L3 page; for a
// block, mask it with the block size (the low bits are RES0 and zero).
func (e PTE) Addr() uintptr { return vmsaAddress(e) }

// Present reports whether the descriptor is valid (bit 0).
func (e PTE) Present() bool { return vmsaPresent(e) }

// Huge reports whether a valid entry above L3 is a block (bits[1:0] = 0b01;
// meaningful above the last level only, where 0b11 is a table).
func (e PTE) Huge() bool { return vmsaHuge(e) }
