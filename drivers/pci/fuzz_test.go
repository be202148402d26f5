// Fuzz targets: configuration space as the device wants it, against the capability walk, MSI-X
// decoding and BAR sizing.
// SPDX-License-Identifier: BSD-3-Clause

package pci

import (
	"encoding/binary"
	"testing"
)

// fuzzFn builds a function from fuzz bytes: the first 256 are its configuration space, the next
// 256 the writable-bit masks (missing bytes are zero).
func fuzzFn(data []byte) (*fakeFn, Func) {
	f := &fakeFn{}
	copy(f.space[:], data)
	if len(data) > 256 {
		var m [256]byte
		copy(m[:], data[256:])
		for i := range f.wmask {
			f.wmask[i] = binary.LittleEndian.Uint32(m[4*i:])
		}
	}
	c := &fakeConfig{}
	c.add(Addr{}, f)
	return f, Func{C: c}
}

// capSeed is a list with a loop and an unaligned pointer.
func capSeed() []byte {
	f := newFn(0x1af4, 0x1041, 0x020000, 0)
	f.cap(0x40, CapVendorSpecific, 0x53)
	f.cap(0x50, CapMSIX, 0x60)
	f.put32(0x54, 0x2001)
	f.cap(0x60, CapVendorSpecific, 0x40)
	return f.space[:]
}

// FuzzCapWalk: every walk a caller can do ends within 48 steps at aligned offsets past the
// header, and ReadMSIX reports only a capability that fits and names real BARs.
func FuzzCapWalk(f *testing.F) {
	f.Add(capSeed())
	f.Add(make([]byte, 256))
	f.Add([]byte{0x34: 0xfe, 0x06: 0x10, 0xfc: 0x11, 0xfd: 0xfc})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, fn := fuzzFn(data)
		ids := []uint8{CapVendorSpecific, CapMSIX, CapPCIe, 0}
		if len(data) > 0 {
			ids = append(ids, data[0])
		}
		for _, id := range ids {
			steps := 0
			for p := NextCap(fn, id, 0); p != 0; p = NextCap(fn, id, p) {
				if p < capFirst || p%4 != 0 || fn.Read8(uint16(p)) != id {
					t.Fatalf("capability %#x at %#x", id, p)
				}
				if steps++; steps > maxCaps {
					t.Fatalf("walk for %#x does not end", id)
				}
			}
		}
		if m, ok := ReadMSIX(fn); ok {
			if int(m.Cap)+msixCapBytes > 256 || m.TableSize < 1 || m.TableSize > 2048 ||
				m.TableBAR > 5 || m.PBABAR > 5 || m.TableOffset%8 != 0 || m.PBAOffset%8 != 0 {
				t.Fatalf("MSI-X %+v", m)
			}
		}
	})
}

// barSeed is a function with I/O, 32-bit and 64-bit BARs and a 64-bit one in slot 5, with masks.
func barSeed() []byte {
	f := newFn(0x1af4, 0x1041, 0x020000, 0)
	f.bar32(0, 0xc040, 0x20, true, 0)
	f.bar32(1, 0xfebd1000, 0x1000, false, 0)
	f.bar64(2, 0x8_0000_4000, 0x4000, true)
	f.bar64(5, 0, 0x1000, false)
	f.put16(RegCommand, CmdIO|CmdMemory)
	out := append([]byte(nil), f.space[:]...)
	for _, m := range f.wmask {
		out = binary.LittleEndian.AppendUint32(out, m)
	}
	return out
}

// FuzzBAR: whatever the registers and their writable bits, ReadBAR makes progress, returns
// power-of-two sizes with aligned bases and no 64-bit BAR in the last slot, and leaves the
// Command register and the BARs as it found them.
func FuzzBAR(f *testing.F) {
	f.Add(barSeed())
	f.Add(make([]byte, 512))
	f.Add([]byte{0x0e: 1, 0x10: 4, 0x14: 4, 0x04: 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		ff, fn := fuzzFn(data)
		before := ff.space
		n := maxBARs(ff.space[RegHeaderType])
		for i := 0; i < 6; {
			b, next := ReadBAR(fn, i)
			if next <= i {
				t.Fatalf("BAR %d: next %d", i, next)
			}
			if b.Size != 0 {
				if b.Size&(b.Size-1) != 0 || b.Base&(b.Size-1) != 0 || (b.Is64 && i+1 >= n) || i >= n ||
					(b.IO && (b.Is64 || b.Prefetch)) {
					t.Fatalf("BAR %d: %+v", i, b)
				}
			}
			i = next
		}
		if ff.space[RegCommand] != before[RegCommand] || ff.space[RegCommand+1] != before[RegCommand+1] {
			t.Fatalf("command %#x, was %#x", ff.space[RegCommand:RegCommand+2], before[RegCommand:RegCommand+2])
		}
		if [24]byte(ff.space[RegBAR0:]) != [24]byte(before[RegBAR0:]) {
			t.Fatalf("BARs not restored")
		}
	})
}
