// VMSAv8-64 stage 1 descriptors: the arm64 entry format, portable so that hosted tests cover it.
// SPDX-License-Identifier: BSD-3-Clause

package mm

// The arm64 page-table format (Arm ARM, DDI 0487 K.a, D8.3 "Translation
// table descriptor formats", for the 4 KiB granule and 48-bit addresses).
// pte_arm64.go binds the porting contract to these functions; they live in
// a file without an architecture suffix only so that `go test` on an x86-64
// host compiles and tests them (pte_vmsa_test.go). Nothing else on amd64
// uses them.
//
// One format serves every level; bits[1:0] say what an entry is:
//
//	0bx0  invalid (the walk faults; the other bits are free, D8.3)
//	0b11  table descriptor at L0-L2, page descriptor at L3
//	0b01  block descriptor at L1 (1 GiB) or L2 (2 MiB); reserved, so
//	      invalid, at L3, and not allowed at L0 with this granule
//
// Leaf (block and page) descriptors, stage 1 attribute fields (D8.3):
//
//	bits 4:2   AttrIndx: the Attr<n> byte of MAIR_EL1 giving the memory type
//	bit  6     AP[1]: EL0 may access (AP[2:1], D8.4 "Memory access control")
//	bit  7     AP[2]: read-only at every Exception level that may access
//	bits 9:8   SH: shareability of Normal memory, 0b11 = Inner Shareable
//	bit  10    AF: the Access flag; an entry with AF=0 faults on first use
//	           unless the CPU updates it (D8.5, FEAT_HAFDBS with
//	           TCR_EL1.HA), which gmpos does not enable: always set
//	bit  11    nG: not global, the TLB entry belongs to the current ASID
//	bits 47:12 output address (bits 20:12 RES0 in a 2 MiB block)
//	bit  53    PXN: EL1 may not execute
//	bit  54    UXN: EL0 may not execute
//	bits 58:55 reserved for software use: bit 55 is AttrOwned
//
// Table descriptors hold the next table's address in bits 47:12 and the
// hierarchical attributes that restrict everything below them (D8.4,
// hierarchical permissions): bit 60 UXNTable, bit 61 APTable[0] (no EL0
// access). They take effect only while TCR_EL1.HPD0/HPD1 are 0 (the arch
// must leave them so).
//
// Permissions (D8.4): AP[2:1] = 00 EL1 RW, EL0 none; 01 EL1 RW, EL0 RW;
// 10 EL1 RO, EL0 none; 11 EL1 RO, EL0 RO. Execution is separate from data
// access: EL0 may execute any page with UXN=0 — also one it cannot read
// (execute-only memory) — so supervisor pages always carry UXN. EL1 may
// execute a page with PXN=0 unless EL0 may write it: a page writable at EL0
// is never executable at EL1 (the rule Linux calls "implicit PXN"). The
// program and the kernel are one image, so text is AP=11 with PXN=0 and
// UXN=0: executable at EL0 and at EL1, writable at neither.
//
// Two rules are stricter than the portable Attr, because the architecture
// or gmpos's W^X demand them; mm never asks for either combination (image
// segments and leafAttr are W^X by construction, deviceAttr is NX):
//   - a writable leaf is never executable, at either Exception level
//     (PXN=UXN=1);
//   - a Device leaf is never executable (PXN=UXN=1): instruction fetches,
//     also speculative ones, must not reach device registers (DDI 0487
//     part B, "Device memory": only execute-never stops them).
//
// The memory types (D8.6 "Memory region attributes" and the MAIR_EL1
// register description): gmpos uses a fixed MAIR_EL1, which
// kernel/arch/arm64 loads (mm.MAIRValue in pte_arm64.go).

// Descriptor bits (D8.3).
const (
	vmsaValid    PTE = 1 << 0  // the descriptor is valid
	vmsaNotBlock PTE = 1 << 1  // table (L0-L2) or page (L3), not a block
	vmsaAttrIndx PTE = 7 << 2  // AttrIndx[2:0]
	vmsaAPUser   PTE = 1 << 6  // AP[1]: EL0 access
	vmsaAPRO     PTE = 1 << 7  // AP[2]: read-only
	vmsaSHInner  PTE = 3 << 8  // SH[1:0] = 0b11, Inner Shareable
	vmsaAF       PTE = 1 << 10 // Access flag
	vmsaNG       PTE = 1 << 11 // not global
	vmsaPXN      PTE = 1 << 53 // privileged (EL1) execute-never
	vmsaUXN      PTE = 1 << 54 // unprivileged (EL0) execute-never
	vmsaOwned    PTE = 1 << 55 // software: AttrOwned, the frame belongs to the allocator

	vmsaUXNTable   PTE = 1 << 60 // table: EL0 may not execute anything below
	vmsaAPTableEL1 PTE = 1 << 61 // table: APTable[0], EL0 may not access anything below

	// vmsaAddr selects the output address of a page or the address of
	// the next table: bits 47:12 (48-bit output addresses, no FEAT_LPA2).
	vmsaAddr PTE = 0x0000_ffff_ffff_f000
)

// vmsaPhysLimit is one past the highest output address a descriptor can
// hold: 48 bits without FEAT_LPA2 (D8.3). A CPU may implement fewer
// (ID_AA64MMFR0_EL1.PARange: 40 on Cortex-A53, 44 on Cortex-A72); RAM and
// devices lie below that anyway.
const vmsaPhysLimit uintptr = 1 << 48

// The MAIR_EL1 attribute indices gmpos uses and their Attr<n> bytes.
const (
	vmsaMAIRNormal   = 0 // Normal, Inner and Outer Write-Back non-transient, Read- and Write-Allocate
	vmsaMAIRDevice   = 1 // Device-nGnRE: no gathering, no reordering, early write acknowledgement
	vmsaMAIRNormalNC = 2 // Normal, Inner and Outer Non-cacheable (unused by mm; for frame buffers)

	vmsaAttrNormal   = 0xff // Attr<n>[7:4] = 0b1111 outer WB RA WA, [3:0] = 0b1111 inner WB RA WA
	vmsaAttrDevice   = 0x04 // Attr<n>[7:4] = 0b0000 Device, [3:0] = 0b0100 nGnRE
	vmsaAttrNormalNC = 0x44 // Attr<n>[7:4] = 0b0100 outer NC, [3:0] = 0b0100 inner NC

	// vmsaMAIR is MAIR_EL1: Attr<n> in bits 8n+7:8n, the others 0
	// (Device-nGnRnE, never referenced).
	vmsaMAIR uint64 = vmsaAttrNormal<<(8*vmsaMAIRNormal) |
		vmsaAttrDevice<<(8*vmsaMAIRDevice) |
		vmsaAttrNormalNC<<(8*vmsaMAIRNormalNC)
)

// vmsaTable returns a table descriptor for the next-level table at pa with
// no hierarchical restriction: the leaf decides (the counterpart of x86's
// fully permissive non-leaf entries).
func vmsaTable(pa uintptr) PTE { return PTE(pa)&vmsaAddr | vmsaValid | vmsaNotBlock }

// vmsaTableKernel returns a table descriptor that takes everything below it
// away from EL0: APTable[0] denies data access and UXNTable execution (the
// APTable alone would leave user text executable at EL0, see above). EL1
// keeps the rights of the leaves.
func vmsaTableKernel(pa uintptr) PTE { return vmsaTable(pa) | vmsaAPTableEL1 | vmsaUXNTable }

// vmsaPage returns a valid L3 page descriptor mapping the 4 KiB frame pa.
func vmsaPage(pa uintptr, a Attr) PTE {
	return PTE(pa)&vmsaAddr | vmsaValid | vmsaNotBlock | vmsaLeafBits(a)
}

// vmsaBlock returns a valid block descriptor mapping pa (2 MiB aligned at
// L2, 1 GiB at L1).
func vmsaBlock(pa uintptr, a Attr) PTE { return PTE(pa)&vmsaAddr | vmsaValid | vmsaLeafBits(a) }

// vmsaLeafBits encodes a's rights and memory type in a leaf descriptor.
func vmsaLeafBits(a Attr) PTE {
	e := vmsaAF | vmsaSHInner // SH is ignored for Device memory, which is always Outer Shareable
	if a&AttrDevice != 0 {
		e |= vmsaMAIRDevice << 2
	} else {
		e |= vmsaMAIRNormal << 2
	}
	if a&AttrUser != 0 {
		e |= vmsaAPUser
	}
	if a&AttrWrite == 0 {
		e |= vmsaAPRO
	}
	switch {
	case a&AttrExec == 0 || a&(AttrWrite|AttrDevice) != 0:
		e |= vmsaPXN | vmsaUXN // never executable (the two stricter rules above)
	case a&AttrUser == 0:
		e |= vmsaUXN // EL1 code: EL0 could otherwise execute what it cannot read
	}
	if a&AttrGlobal == 0 {
		e |= vmsaNG
	}
	if a&AttrOwned != 0 {
		e |= vmsaOwned
	}
	return e
}

// vmsaAttr decodes the rights of a leaf descriptor (without AttrHuge, which
// depends on the level).
func vmsaAttr(e PTE) Attr {
	var a Attr
	if e&vmsaAPRO == 0 {
		a |= AttrWrite
	}
	if e&vmsaAPUser != 0 {
		a |= AttrUser
		if e&vmsaUXN == 0 {
			a |= AttrExec
		}
	} else if e&vmsaPXN == 0 {
		a |= AttrExec
	}
	if e&vmsaNG == 0 {
		a |= AttrGlobal
	}
	if (e&vmsaAttrIndx)>>2 == vmsaMAIRDevice {
		a |= AttrDevice
	}
	if e&vmsaOwned != 0 {
		a |= AttrOwned
	}
	return a
}

// vmsaPresent reports whether e is valid (bit 0).
func vmsaPresent(e PTE) bool { return e&vmsaValid != 0 }

// vmsaHuge reports whether a valid entry above L3 is a block (bits[1:0] = 0b01).
func vmsaHuge(e PTE) bool { return e&(vmsaValid|vmsaNotBlock) == vmsaValid }

// vmsaAddress returns the address held by a table or page descriptor; a
// block's low bits are RES0 and zero here, so masking is the caller's only
// when it wants the block base of an address inside it.
func vmsaAddress(e PTE) uintptr { return uintptr(e & vmsaAddr) }

// vmsaCanonical reports whether va names exactly one translation in gmpos's
// arm64 layout. The hardware translates every address whose bits 63:48 are
// all 0 (through TTBR0_EL1) or all 1 (TTBR1_EL1), with T0SZ = T1SZ = 16 and
// top-byte-ignore off (D8.2 "Translation process", the two VA ranges).
// Both registers hold the same root, and both walks index L0 with bits
// 47:39 only, so 0x0000_8000_0000_0000 and 0xffff_8000_0000_0000 reach the
// same kernel slot 256, and 0xffff_0000_0000_0000 the user slot 0. mm
// refuses these aliases: an address is canonical when bits 63:47 are equal,
// the x86-64 rule.
func vmsaCanonical(va uintptr) bool {
	top := va >> 47
	return top == 0 || top == 1<<17-1
}
