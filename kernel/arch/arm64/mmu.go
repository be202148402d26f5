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
