// A fake configuration mechanism for the tests: functions as byte arrays with writable-bit masks.
// SPDX-License-Identifier: BSD-3-Clause

package pci

import "encoding/binary"

// fakeFn is one function's 256-byte configuration space. wmask says which bits of each dword a
// write changes (the others are read-only); BAR sizing works as on hardware when a BAR's mask
// has the address bits above its size writable.
type fakeFn struct {
	space [256]byte
	wmask [64]uint32
	// cmdAtSizing records the Command register when all ones were written to a BAR.
	cmdAtSizing []uint16
}

// fakeConfig maps addresses to functions; absent ones read all ones. all, if set, answers for
// every address.
type fakeConfig struct {
	fns   map[Addr]*fakeFn
	all   *fakeFn
	reads int
}

func (c *fakeConfig) fn(a Addr) *fakeFn {
	if c.all != nil {
		return c.all
	}
	return c.fns[a]
}

func (c *fakeConfig) Read32(a Addr, off uint16) uint32 {
	c.reads++
	f := c.fn(a)
	if f == nil || off >= 256 {
		return 0xffffffff
	}
	return binary.LittleEndian.Uint32(f.space[off&^3:])
}

func (c *fakeConfig) Write32(a Addr, off uint16, v uint32) {
	f := c.fn(a)
	if f == nil || off >= 256 {
		return
	}
	off &^= 3
	if off >= RegBAR0 && off < RegBAR0+24 && v == 0xffffffff {
		f.cmdAtSizing = append(f.cmdAtSizing, binary.LittleEndian.Uint16(f.space[RegCommand:]))
	}
	old := binary.LittleEndian.Uint32(f.space[off:])
	m := f.wmask[off/4]
	binary.LittleEndian.PutUint32(f.space[off:], old&^m|v&m)
}

func (c *fakeConfig) add(a Addr, f *fakeFn) {
	if c.fns == nil {
		c.fns = map[Addr]*fakeFn{}
	}
	c.fns[a] = f
}

// newFn makes a function with IDs, class code and header type; Command is writable.
func newFn(vendor, device uint16, class uint32, ht uint8) *fakeFn {
	f := &fakeFn{}
	f.put32(RegVendorID, uint32(device)<<16|uint32(vendor))
	f.put32(RegClass, class<<8|1)
	f.space[RegHeaderType] = ht
	f.wmask[RegCommand/4] = 0xffff
	return f
}

func (f *fakeFn) put32(off int, v uint32) { binary.LittleEndian.PutUint32(f.space[off:], v) }
func (f *fakeFn) put16(off int, v uint16) { binary.LittleEndian.PutUint16(f.space[off:], v) }
func (f *fakeFn) get32(off int) uint32    { return binary.LittleEndian.Uint32(f.space[off:]) }

// bar32 installs a 32-bit memory BAR (or I/O BAR when io) of size at base in slot i.
func (f *fakeFn) bar32(i int, base uint32, size uint32, io bool, flags uint32) {
	off := RegBAR0 + 4*i
	low := uint32(0xf)
	if io {
		low, flags = 3, 1
	}
	f.put32(off, base|flags)
	f.wmask[off/4] = ^(size - 1) &^ low
}

// bar64 installs a 64-bit memory BAR in slots i, i+1.
func (f *fakeFn) bar64(i int, base uint64, size uint64, prefetch bool) {
	off := RegBAR0 + 4*i
	flags := uint32(barMem64)
	if prefetch {
		flags |= barPrefetch
	}
	f.put32(off, uint32(base)|flags)
	f.put32(off+4, uint32(base>>32))
	m := ^(size - 1)
	f.wmask[off/4] = uint32(m) &^ 0xf
	f.wmask[off/4+1] = uint32(m >> 32)
}

// cap adds a capability at off with id, pointing at next, and sets the Capabilities List bit.
func (f *fakeFn) cap(off int, id, next uint8) {
	f.space[off], f.space[off+1] = id, next
	f.space[RegStatus] |= statusCapList
	if f.space[RegCapPtr] == 0 {
		f.space[RegCapPtr] = uint8(off)
	}
}
