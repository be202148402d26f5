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
