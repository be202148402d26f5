// Paging: the page-table root and TLB maintenance.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

// SetPageTable loads a root into both TTBR0_EL1 and TTBR1_EL1 and drops this core's TLB.
// kernel/mm builds one 4-level root per address space whose upper half holds the kernel's
// slots: a TTBR1 walk indexes the root with VA bits 47:39 just as a TTBR0 walk does, so the same
// table serves the kernel half (0xffff_8000_0000_0000 up) and the user half. No ASIDs are used,
// so the switch flushes every translation, like a CR3 load without PCIDs.
func SetPageTable(root uintptr) { writeTTBRs(root) }

// PageTable returns the current root (TTBR0_EL1's base address).
func PageTable() uintptr { return uintptr(readTTBR0() &^ (0xffff << 48)) }

// FlushPage invalidates this core's translations of the page at va, any ASID (TLBI VAAE1).
func FlushPage(va uintptr) { tlbiVA(va) }

// FlushAll invalidates this core's whole TLB (TLBI VMALLE1).
//
// The kernel shoots other cores' TLBs down with IPIs (IPIFlush), as on x86. arm64 could instead
// broadcast the invalidation to the inner-shareable domain (TLBI ...IS, D8.13.4), with no
// interrupt at all; the IPI keeps one protocol for both architectures for now.
func FlushAll() { tlbiAll() }

// SpuriousFault reports whether the kernel-mode exception f is a translation fault on an address
// that translates now, and if so makes the retry see it: the fault is then the walker's view
// lagging behind a descriptor store, not a bug. On arm64 a store that makes a descriptor valid
// reaches this core's walker only after a DSB, and its later instructions only after an ISB (ARM
// ARM D8.2.6 and B2.3.12; kernel/mm pte_arm64.go, "TLB and barriers") — so the kernel writing to
// a page it has just mapped may fault once. QEMU's TCG never shows it; a Cortex-A53 or A72 may.
// Linux: is_spurious_el1_translation_fault. AT S1E1R/W asks the walker itself (D8.11.2), after
// a DSB ISH; the ISB before the retry orders it. A fault that repeats at the same instruction
// (same PC and address) more than a few times in a row is not spurious: the report then goes ahead. Trap context.
func SpuriousFault(f *Frame) bool {
	if f.Kind != kindSync || f.FromUser() {
		return false
	}
	switch f.esrClass() {
	case ecDAbortSame, ecIAbortSame:
	default:
		return false
	}
	if f.ESR&0x3c != fscTranslation {
		return false
	}
	c := Current()
	if c.spuriousPC == uintptr(f.ELR) && c.spuriousFAR == uintptr(f.FAR) {
		c.spuriousN++ // the same access again: the retry did not help
	} else {
		c.spuriousPC, c.spuriousFAR, c.spuriousN = uintptr(f.ELR), uintptr(f.FAR), 1
	}
	if c.spuriousN > spuriousRetries {
		c.spuriousPC, c.spuriousFAR, c.spuriousN = 0, 0, 0
		return false
	}
	dsb()
	write := f.esrClass() == ecDAbortSame && f.ESR&(1<<6) != 0
	return translates(uintptr(f.FAR), write)
}

// spuriousRetries bounds the retries of one instruction (SpuriousFault).
const spuriousRetries = 4
