// SPDX-License-Identifier: BSD-3-Clause

package pci

import "testing"

func TestWindowAlloc(t *testing.T) {
	w := Window{Lo: 0xc000_0000, Hi: 0xfec0_0000}
	for _, c := range []struct {
		size, want uint64
		ok         bool
	}{
		{0x4000, 0xfebf_c000, true}, // top down, aligned to the size
		{0x1000, 0xfebf_b000, true},
		{0x10, 0xfebf_a000, true},       // a whole page
		{0x100_0000, 0xfd00_0000, true}, // 16 MiB: aligned down past the gap
		{0x1000, 0xfcff_f000, true},
		{0x18, 0, false},        // not a power of two
		{8, 0, false},           // below the architectural minimum
		{0x8000_0000, 0, false}, // 2 GiB: no aligned room above Lo
		{0x1000_0000, 0xe000_0000, true},
		{0x2000_0000, 0xc000_0000, true},
		{0x1000, 0, false}, // full
	} {
		got, ok := w.Alloc(c.size)
		if ok != c.ok || got != c.want {
			t.Errorf("Alloc(%#x) = %#x, %v; want %#x, %v", c.size, got, ok, c.want, c.ok)
		}
	}
	var zero Window
	if _, ok := zero.Alloc(0x1000); ok {
		t.Error("the zero Window handed out an address")
	}
}

func TestWindowBelow(t *testing.T) {
	w := Window{Lo: 0xc000_0000, Hi: 0xfec0_0000}
	w.Below(0xfebd_1000, 0x1000) // a firmware-assigned BAR inside
	w.Below(0x8_0000_0000, 0x4000)
	w.Below(0x1000, 0x1000) // outside: ignored
	w.Below(0xfd00_0000, 0) // unimplemented: ignored
	if w.Hi != 0xfebd_1000 {
		t.Fatalf("Hi = %#x, want just below the assigned BAR", w.Hi)
	}
	if b, ok := w.Alloc(0x1000); !ok || b != 0xfebd_0000 {
		t.Errorf("Alloc after Below = %#x, %v", b, ok)
	}
	w.Below(0xb000_0000, 0x2000_0000) // straddles Lo
	if w.Hi != w.Lo {
		t.Errorf("a range over Lo left Hi = %#x", w.Hi)
	}
}

func TestWindowKeep(t *testing.T) {
	f := newFn(0x1af4, 0x1041, 0x020000, 0)
	f.bar32(0, 0xc040, 0x20, true, 0)         // I/O: not memory
	f.bar32(1, 0xfebd_1000, 0x1000, false, 0) // assigned
	f.bar64(2, 0x8_0000_4000, 0x4000, true)   // above the window
	f.bar64(4, 0, 0x4000, false)              // unassigned
	c := &fakeConfig{}
	c.add(Addr{0, 2, 0}, f)
	w := Window{Lo: 0xc000_0000, Hi: 0xfec0_0000}
	w.Keep(Func{C: c, A: Addr{0, 2, 0}})
	if w.Hi != 0xfebd_1000 {
		t.Errorf("Hi = %#x after Keep, want 0xfebd1000", w.Hi)
	}
}

func TestAssignBAR(t *testing.T) {
	f := newFn(0x1af4, 0x1043, 0x078000, 0)
	f.bar32(1, 0, 0x1000, false, 0)
	f.bar64(4, 0, 0x4000, true)
	f.bar32(0, 0, 0x20, true, 0)
	f.put16(RegCommand, CmdMemory)
	c := &fakeConfig{}
	c.add(Addr{0, 3, 0}, f)
	fn := Func{C: c, A: Addr{0, 3, 0}}

	if b := AssignBAR(fn, 1, 0xfebf_f000); b.Base != 0xfebf_f000 || b.Size != 0x1000 || b.Is64 {
		t.Errorf("32-bit BAR: %+v", b)
	}
	if b := AssignBAR(fn, 4, 0x8_0000_4000); b.Base != 0x8_0000_4000 || !b.Is64 || !b.Prefetch {
		t.Errorf("64-bit BAR above 4 GiB: %+v", b)
	}
	if f.get32(RegBAR0+16)&0xf != barMem64|barPrefetch {
		t.Errorf("the type bits changed: %#x", f.get32(RegBAR0+16))
	}
	if b := AssignBAR(fn, 1, 1<<32); b.Size != 0 {
		t.Errorf("a 32-bit BAR took an address above 4 GiB: %+v", b)
	}
	if b := AssignBAR(fn, 0, 0xc000); b.Size != 0 {
		t.Errorf("an I/O BAR was assigned: %+v", b)
	}
	if b := AssignBAR(fn, 1, 0xfebf_f800); b.Size != 0 {
		t.Errorf("a misaligned base read back as assigned: %+v", b)
	}
	for _, cmd := range f.cmdAtSizing {
		if cmd&CmdMemory != 0 {
			t.Errorf("a BAR was written with memory decoding on (Command %#x)", cmd)
		}
	}
	if got := fn.Command(); got != CmdMemory {
		t.Errorf("Command = %#x afterwards, want it restored", got)
	}
}
