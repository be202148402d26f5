// Base address registers: where a function's registers are and how large they are.
// SPDX-License-Identifier: BSD-3-Clause

package pci

// BAR is a decoded base address register (PCI 3.0 §6.2.5.1). Size 0 means the register is not
// implemented or is invalid, and the rest is then meaningless. Base is what the firmware
// assigned (0: unassigned), a bus address: on the PC and arm64 virt equal to the physical one.
type BAR struct {
	Base, Size uint64
	IO         bool // I/O space (else memory space)
	Is64       bool // a 64-bit memory BAR: it also occupies the next register
	Prefetch   bool // prefetchable memory
}

// BAR low bits (§6.2.5.1, Figures 6-5 and 6-6).
const (
	barIO       = 1 << 0
	barMemType  = 3 << 1 // memory: 00 32-bit, 10 64-bit, 01 and 11 reserved
	barMem64    = 2 << 1
	barPrefetch = 1 << 3
)

// maxBARs is the number of BARs of each header layout (Figure 6-1; Bridge 1.2 §3.2).
func maxBARs(headerType uint8) int {
	switch headerType & 0x7f {
	case HeaderNormal:
		return 6
	case HeaderBridge:
		return 2
	}
	return 0
}

// ReadBAR decodes and sizes BAR i of f; next is the index of the following BAR (i+2 after a
// 64-bit one, always > i), so that
//
//	for i := 0; i < 6; { b, next := pci.ReadBAR(f, i); ...; i = next }
//
// visits each once. Sizing writes all ones to the register and reads back which address bits
// stick (§6.2.5.1, "Address Maps"); memory and I/O decoding are switched off in the Command
// register meanwhile, so that the function does not answer at the transient address, and the
// register and the Command register are restored afterwards. Invalid: an index the header
// layout does not have, a reserved memory type, a 64-bit BAR in the last slot, a size mask with
// holes (sizes are powers of two, and every address bit above the size is writable), a base not
// aligned to the size. Boot; the device must not be in use (its decoding is off for a moment).
func ReadBAR(f Func, i int) (b BAR, next int) {
	n := maxBARs(f.HeaderType())
	if i < 0 || i >= n {
		return BAR{}, max(i+1, n)
	}
	off := RegBAR0 + 4*uint16(i)
	cmd := f.Command()
	if cmd&(CmdIO|CmdMemory) != 0 {
		f.SetCommand(cmd &^ (CmdIO | CmdMemory))
	}
	lo := f.Read32(off)
	f.Write32(off, 0xffffffff)
	szlo := f.Read32(off)
	f.Write32(off, lo)
	var hi, szhi uint32
	is64 := lo&barIO == 0 && lo&barMemType == barMem64
	if is64 && i+1 < n {
		hi = f.Read32(off + 4)
		f.Write32(off+4, 0xffffffff)
		szhi = f.Read32(off + 4)
		f.Write32(off+4, hi)
	}
	if cmd&(CmdIO|CmdMemory) != 0 {
		f.SetCommand(cmd)
	}
	next = i + 1
	if is64 {
		next = i + 2
		if i+1 >= n {
			return BAR{}, next
		}
	}
	return decodeBAR(lo, hi, szlo, szhi), next
}

// decodeBAR decodes a BAR from its value (lo, and hi for the upper half of a 64-bit one) and
// what reads back after writing all ones (szlo, szhi).
func decodeBAR(lo, hi, szlo, szhi uint32) BAR {
	var b BAR
	var mask uint64
	switch {
	case lo&barIO != 0:
		// Bit 1 is reserved; a function decoding only 16 address bits returns zeros above
		// (§6.2.5.1), which the hole check below accepts.
		b.IO, b.Base, mask = true, uint64(lo&^3), uint64(szlo&^3)
	case lo&barMemType == 0:
		b.Base, mask = uint64(lo&^0xf), uint64(szlo&^0xf)
	case lo&barMemType == barMem64:
		b.Is64 = true
		b.Base = uint64(hi)<<32 | uint64(lo&^0xf)
		mask = uint64(szhi)<<32 | uint64(szlo&^0xf)
	default:
		return BAR{}
	}
	b.Prefetch = !b.IO && lo&barPrefetch != 0
	if mask == 0 {
		return BAR{} // not implemented: no address bit is writable
	}
	size := mask & -mask // the lowest writable address bit
	if m := mask / size; m&(m+1) != 0 || b.Base&(size-1) != 0 {
		return BAR{} // a hole among the writable bits, or a base the function cannot decode
	}
	b.Size = size
	return b
}
