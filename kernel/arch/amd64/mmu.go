// Paging: the page-table root and TLB maintenance.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

// SetPageTable loads CR3 with the physical address of a PML4, which also flushes every non-global
// TLB entry (SDM Vol. 3A §4.10.4.1).
func SetPageTable(root uintptr) { writeCR3(root) }

// PageTable returns the current page-table root (CR3).
func PageTable() uintptr { return readCR3() }

// FlushPage invalidates this core's TLB entry for va, global or not (INVLPG, §4.10.4.1).
func FlushPage(va uintptr) { invlpg(va) }

// FlushAll invalidates this core's non-global TLB entries by reloading CR3. User pages are never
// global (kernel/mm), so this drops every user translation.
func FlushAll() { writeCR3(readCR3()) }

// SpuriousFault reports whether a kernel-mode fault is the walker lagging behind a descriptor
// store (arm64 can take one: kernel/arch/arm64, mmu.go). Never on x86: a not-present entry is
// never cached, and a store to a paging structure is seen by the next walk without a barrier
// (SDM Vol. 3A §4.10.2.3, §4.10.4.3).
func SpuriousFault(f *Frame) bool { return false }

// SyncICache makes stored code visible to instruction fetch: nothing to do on x86, whose
// instruction fetch snoops stores (SDM Vol. 3A §11.6, "Self-modifying code"); a jump to the code
// — a return to user mode — is enough.
func SyncICache(va, n uintptr) {}
