// Configuration space: addresses, the access mechanism, and a function's registers.
// SPDX-License-Identifier: BSD-3-Clause

package pci

// Addr names a function: bus 0-255, device 0-31, function 0-7 (PCI 3.0 §3.2.2.3.1).
type Addr struct{ Bus, Dev, Fn uint8 }

// Config is a configuration-access mechanism: ECAM, or the PC's ports. Offsets are byte offsets
// into the function's configuration space, 4-byte aligned (the low two bits are ignored); a read
// of a function that does not exist, or of an offset the mechanism cannot reach (>= 256 on the
// PC's ports, >= 4096 on ECAM), returns all ones, the value a master abort gives (PCI 3.0
// §6.1), and such a write is dropped. Boot, or serialised by the caller.
type Config interface {
	Read32(a Addr, off uint16) uint32
	Write32(a Addr, off uint16, v uint32)
}

// Offsets in the configuration header common to every header type (PCI 3.0 Figure 6-1).
const (
	RegVendorID   = 0x00
	RegDeviceID   = 0x02
	RegCommand    = 0x04
	RegStatus     = 0x06
	RegClass      = 0x08 // revision ID in bits 7:0, class code in 31:8
	RegHeaderType = 0x0e // bit 7: multi-function device; 6:0 the layout
	RegBAR0       = 0x10
	RegCapPtr     = 0x34 // type 0 and 1
	RegIntLine    = 0x3c
	RegIntPin     = 0x3d

	regSecondaryBus = 0x19 // type 1 (PCI-to-PCI Bridge Architecture 1.2 §3.2.5.4)
)

// Command register bits (PCI 3.0 §6.2.2).
const (
	CmdIO          = 1 << 0  // respond to I/O space accesses
	CmdMemory      = 1 << 1  // respond to memory space accesses
	CmdBusMaster   = 1 << 2  // may initiate transactions: DMA and MSI/MSI-X writes
	CmdINTxDisable = 1 << 10 // the function may not assert INTx#
)

// statusCapList is the Status register's bit 4: the capabilities list at RegCapPtr is valid.
const statusCapList = 1 << 4

// Header layouts (RegHeaderType bits 6:0).
const (
	HeaderNormal = 0 // a device: six BARs
	HeaderBridge = 1 // a PCI-to-PCI bridge: two BARs, bus numbers
)

// maxDev and maxFn bound Addr.Dev and Addr.Fn.
const (
	maxDev = 32
	maxFn  = 8
)

// Func is one function reached through a mechanism: its registers as bytes, words and dwords.
// Sub-dword writes read, modify and write the whole dword, because the mechanisms only move
// dwords. That would write back set RW1C bits of the Status register, clearing them, when the
// Command register is written; so in the dword at RegCommand the half a write does not target is
// written as zero (Status bits are read-only or RW1C, and writing zero to those changes
// nothing; PCI 3.0 §6.2.3). Other dwords mixing RW1C bits with others are not special-cased.
type Func struct {
	C Config
	A Addr
}

func (f Func) Read32(off uint16) uint32 { return f.C.Read32(f.A, off&^3) }

// Read16 reads the naturally aligned word containing off.
func (f Func) Read16(off uint16) uint16 { return uint16(f.Read32(off) >> ((off & 2) * 8)) }

func (f Func) Read8(off uint16) uint8 { return uint8(f.Read32(off) >> ((off & 3) * 8)) }

func (f Func) Write32(off uint16, v uint32) { f.C.Write32(f.A, off&^3, v) }

// Write16 writes the naturally aligned word containing off.
func (f Func) Write16(off uint16, v uint16) {
	f.writeSub(off&^1, uint32(v), 0xffff)
}

func (f Func) Write8(off uint16, v uint8) { f.writeSub(off, uint32(v), 0xff) }

// writeSub replaces the bits mask<<shift of the dword containing off with v (see Func).
func (f Func) writeSub(off uint16, v, mask uint32) {
	shift := (off & 3) * 8
	old := f.Read32(off)
	if off&^3 == RegCommand {
		old &= 0xffff // Status half: written as zero, never written back
	}
	f.Write32(off, old&^(mask<<shift)|(v&mask)<<shift)
}

// VendorID is 0xffff when no function answers at f.A.
func (f Func) VendorID() uint16 { return f.Read16(RegVendorID) }
func (f Func) DeviceID() uint16 { return f.Read16(RegDeviceID) }

// Class is the 24-bit class code: base class <<16 | subclass <<8 | programming interface.
func (f Func) Class() uint32 { return f.Read32(RegClass) >> 8 }

func (f Func) Command() uint16     { return f.Read16(RegCommand) }
func (f Func) Status() uint16      { return f.Read16(RegStatus) }
func (f Func) HeaderType() uint8   { return f.Read8(RegHeaderType) }
func (f Func) SetCommand(v uint16) { f.Write32(RegCommand, uint32(v)) } // Status half zero: see Func

// EnableMemory lets f respond to accesses to its memory BARs.
func EnableMemory(f Func) { f.SetCommand(f.Command() | CmdMemory) }

// EnableBusMaster lets f master the bus: DMA, and the memory writes that are MSI/MSI-X messages.
func EnableBusMaster(f Func) { f.SetCommand(f.Command() | CmdBusMaster) }
