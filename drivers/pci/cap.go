// Capability lists: the linked list of optional register blocks after the header.
// SPDX-License-Identifier: BSD-3-Clause

package pci

// Capability IDs (PCI Code and ID Assignment 1.11 §2).
const (
	CapMSI            = 0x05
	CapVendorSpecific = 0x09 // virtio's transport structures (virtio 1.2 §4.1.4)
	CapPCIe           = 0x10
	CapMSIX           = 0x11
)

// A capability is at least 4 bytes (ID, next pointer, 2 bytes of its own) somewhere in
// 0x40-0xff, on a dword boundary; so a list without repeats has at most 48 entries (PCI 3.0 §6.7).
const (
	capFirst = 0x40
	maxCaps  = (256 - capFirst) / 4
)

// NextCap returns the offset of the first capability with ID id that follows the one at after
// in f's capability list (after 0: from the start), or 0 if there is none; so
//
//	for c := pci.NextCap(f, id, 0); c != 0; c = pci.NextCap(f, id, c) { ... }
//
// visits every capability with that ID. The list starts at RegCapPtr when the Status register's
// Capabilities List bit is set; the low two bits of each pointer are reserved and masked off
// (§6.7). The walk ends at a null pointer, at a pointer into the header (< 0x40), and at the
// first capability it has already visited: a looping list is cut where it loops, so a caller's
// loop like the one above ends too, after at most 48 steps. Each call rewalks the list from its
// start (at most 48 reads of two bytes): it keeps no state, and after need not be trusted.
func NextCap(f Func, id uint8, after uint8) uint8 {
	if f.Status()&statusCapList == 0 {
		return 0
	}
	var seen uint64 // dwords of configuration space visited: bit p/4
	found := after == 0
	p := f.Read8(RegCapPtr) &^ 3
	for range maxCaps {
		if p < capFirst || seen&(1<<(p/4)) != 0 {
			return 0
		}
		seen |= 1 << (p / 4)
		hdr := f.Read16(uint16(p)) // ID, next pointer
		if found && uint8(hdr) == id {
			return p
		}
		if p == after {
			found = true
		}
		p = uint8(hdr>>8) &^ 3
	}
	return 0
}
