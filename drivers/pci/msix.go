// MSI-X: interrupts as memory writes, one table entry per vector.
// SPDX-License-Identifier: BSD-3-Clause

package pci

import "gmpos/drivers/mmio"

// MSIX describes a function's MSI-X capability (PCI 3.0 §6.8.2): a table of TableSize entries,
// each an address, data and mask, at TableOffset in the memory BAR TableBAR, and the pending bit
// array (PBA) at PBAOffset in PBABAR. A device raises interrupt i by writing entry i's data to
// its address, which the board's interrupt controller turns into a CPU vector (on the PC: the
// local APIC; kernel/board/pc msi.go makes the message).
type MSIX struct {
	Cap         uint8 // offset of the capability in configuration space
	TableSize   int   // entries, 1-2048
	TableBAR    int   // BAR index (BIR) 0-5
	TableOffset uint32
	PBABAR      int
	PBAOffset   uint32
}

// MSI-X capability layout (§6.8.2.1-§6.8.2.5) and table entry layout (§6.8.2.6-§6.8.2.9).
const (
	msixControl  = 2 // Message Control: table size-1 in 10:0
	msixTable    = 4 // Table Offset/BIR: BIR in 2:0, offset (8-byte aligned) above
	msixPBA      = 8 // PBA Offset/BIR, the same
	msixCapBytes = 12

	msixCtlSize     = 0x7ff
	msixCtlFuncMask = 1 << 14 // every vector masked, whatever the entries say
	msixCtlEnable   = 1 << 15

	msixEntryBytes  = 16 // address low, address high, data, vector control
	msixEntryMasked = 1  // vector control bit 0
)

// ReadMSIX finds and decodes f's MSI-X capability. false: none, or one that is cut off by the
// end of configuration space or names a reserved BIR (6, 7). It does not check that the BARs
// exist or hold the table (TableFits, PBAFits).
func ReadMSIX(f Func) (MSIX, bool) {
	c := NextCap(f, CapMSIX, 0)
	if c == 0 || uint16(c)+msixCapBytes > 256 {
		return MSIX{}, false
	}
	ctl := f.Read16(uint16(c) + msixControl)
	t := f.Read32(uint16(c) + msixTable)
	p := f.Read32(uint16(c) + msixPBA)
	if t&7 > 5 || p&7 > 5 {
		return MSIX{}, false
	}
	return MSIX{Cap: c, TableSize: int(ctl&msixCtlSize) + 1,
		TableBAR: int(t & 7), TableOffset: t &^ 7, PBABAR: int(p & 7), PBAOffset: p &^ 7}, true
}

// TableFits reports whether the table lies inside b, the decoded BAR TableBAR: check before
// mapping it, since the device chose both.
func (m MSIX) TableFits(b BAR) bool {
	return b.Size != 0 && !b.IO && uint64(m.TableOffset)+uint64(m.TableSize)*msixEntryBytes <= b.Size
}

// PBAFits reports whether the pending bit array (one bit per entry, in 64-bit words, §6.8.2.10)
// lies inside b, the decoded BAR PBABAR.
func (m MSIX) PBAFits(b BAR) bool {
	return b.Size != 0 && !b.IO && uint64(m.PBAOffset)+uint64(m.TableSize+63)/64*8 <= b.Size
}

// SetVector programs entry i of the table, mapped (uncached) at table: the message address and
// data, then unmasks it. The entry is masked while its address and data change (§6.8.2.9: the
// function may otherwise send a half-written message); the reserved bits of vector control are
// preserved. false: i is not an entry. Each access is one aligned dword (§6.8.2: the table must
// be accessed with aligned dwords or qwords).
func (m MSIX) SetVector(table uintptr, i int, addr uint64, data uint32) bool {
	if i < 0 || i >= m.TableSize {
		return false
	}
	e := table + uintptr(i)*msixEntryBytes
	ctl := e + 12
	v := mmio.Read32(ctl)
	mmio.Write32(ctl, v|msixEntryMasked)
	mmio.Write32(e, uint32(addr))
	mmio.Write32(e+4, uint32(addr>>32))
	mmio.Write32(e+8, data)
	mmio.Write32(ctl, v&^msixEntryMasked)
	return true
}

// MaskVector masks (or unmasks) entry i: while masked, the function holds the interrupt as a
// pending bit instead of sending it (§6.8.2.9).
func (m MSIX) MaskVector(table uintptr, i int, masked bool) bool {
	if i < 0 || i >= m.TableSize {
		return false
	}
	ctl := table + uintptr(i)*msixEntryBytes + 12
	v := mmio.Read32(ctl) &^ msixEntryMasked
	if masked {
		v |= msixEntryMasked
	}
	mmio.Write32(ctl, v)
	return true
}

// Enable turns MSI-X on for f with the function mask off, so that each entry's own mask
// decides, and disables INTx: a function with MSI-X enabled must not assert INTx# anyway
// (§6.8.2), and the Command bit makes sure a legacy line stays quiet.
func (m MSIX) Enable(f Func) {
	off := uint16(m.Cap) + msixControl
	f.Write16(off, f.Read16(off)&^msixCtlFuncMask|msixCtlEnable)
	f.SetCommand(f.Command() | CmdINTxDisable)
}

// Disable turns MSI-X off for f (its interrupts fall back to INTx, which stays disabled until
// the Command register's INTx Disable bit is cleared).
func (m MSIX) Disable(f Func) {
	off := uint16(m.Cap) + msixControl
	f.Write16(off, f.Read16(off)&^msixCtlEnable)
}
