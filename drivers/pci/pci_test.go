// Tests of enumeration, BAR sizing, capability walks, MSI-X and ECAM against fake config spaces.
// SPDX-License-Identifier: BSD-3-Clause

package pci

import (
	"runtime"
	"testing"
	"unsafe"
)

// q35ish builds: bus 0 dev 0 a host bridge, dev 1 a multi-function device (fns 0 and 2), dev 2 a
// single-function device that also answers at fn 1 (which must be ignored), dev 3 a bridge to
// bus 2; on bus 2, dev 0 a NIC and dev 5 a bridge back to bus 0 and another to bus 2 (loops).
func q35ish() *fakeConfig {
	c := &fakeConfig{}
	c.add(Addr{0, 0, 0}, newFn(0x8086, 0x29c0, 0x060000, 0))
	c.add(Addr{0, 1, 0}, newFn(0x8086, 0x2918, 0x060100, 0x80))
	c.add(Addr{0, 1, 2}, newFn(0x8086, 0x2922, 0x010601, 0))
	c.add(Addr{0, 2, 0}, newFn(0x1234, 0x1111, 0x030000, 0))
	c.add(Addr{0, 2, 1}, newFn(0x1234, 0x2222, 0x030000, 0))
	br := newFn(0x1b36, 0x000c, 0x060400, HeaderBridge)
	br.space[regSecondaryBus] = 2
	c.add(Addr{0, 3, 0}, br)
	nic := newFn(0x1af4, 0x1041, 0x020000, 0)
	nic.space[RegIntPin], nic.space[RegIntLine] = 1, 11
	c.add(Addr{2, 0, 0}, nic)
	back := newFn(0x1b36, 0x000c, 0x060400, HeaderBridge|0x80)
	back.space[regSecondaryBus] = 0
	c.add(Addr{2, 5, 0}, back)
	self := newFn(0x1b36, 0x000c, 0x060400, HeaderBridge)
	self.space[regSecondaryBus] = 2
	c.add(Addr{2, 5, 1}, self)
	return c
}

func TestEnumerate(t *testing.T) {
	c := q35ish()
	var out [16]Function
	n := Enumerate(c, out[:])
	want := []Addr{{0, 0, 0}, {0, 1, 0}, {0, 1, 2}, {0, 2, 0}, {0, 3, 0}, {2, 0, 0}, {2, 5, 0}, {2, 5, 1}}
	if n != len(want) {
		t.Fatalf("found %d functions, want %d: %+v", n, len(want), out[:n])
	}
	for i, a := range want {
		if out[i].A != a {
			t.Errorf("function %d at %+v, want %+v", i, out[i].A, a)
		}
	}
	nic := out[5]
	if nic.Vendor != 0x1af4 || nic.Device != 0x1041 || nic.Class != 0x020000 || nic.IntPin != 1 || nic.IntLine != 11 || nic.HeaderType != 0 {
		t.Errorf("NIC decoded as %+v", nic)
	}
	if out[1].HeaderType != 0x80 || out[4].HeaderType != HeaderBridge {
		t.Errorf("header types %#x %#x", out[1].HeaderType, out[4].HeaderType)
	}
	// A short out gets the first functions, and nothing is written past it.
	var short [3]Function
	if n := Enumerate(c, short[:]); n != 3 || short[2].A != (Addr{0, 1, 2}) {
		t.Errorf("short: %d, %+v", n, short)
	}
}

// TestEnumerateBounded: a function answering everywhere as a multi-function bridge to bus 7 (and
// the walk's buses all alias) still scans each bus once: 2 buses × 32 devices × 8 functions.
func TestEnumerateBounded(t *testing.T) {
	all := newFn(0x1b36, 0x000c, 0x060400, HeaderBridge|0x80)
	all.space[regSecondaryBus] = 7
	c := &fakeConfig{all: all}
	n := Enumerate(c, make([]Function, 1000))
	if n != 2*32*8 {
		t.Errorf("found %d functions, want %d", n, 2*32*8)
	}
}

func TestBARs(t *testing.T) {
	f := newFn(0x1af4, 0x1041, 0x020000, 0)
	f.bar32(0, 0xc040, 0x20, true, 0)
	f.wmask[RegBAR0/4] &= 0xffff // 16-bit I/O decoder: upper bits read back zero
	f.bar32(1, 0xfebd1000, 0x1000, false, 0)
	f.bar64(2, 0x8_0000_4000, 0x4000, true)
	// BAR 4 unimplemented (read-only zero); BAR 5 claims to be 64-bit.
	f.put32(RegBAR0+20, barMem64)
	f.wmask[RegBAR0/4+5] = 0xfffff000
	f.put16(RegCommand, CmdIO|CmdMemory|CmdBusMaster)
	f.put16(RegStatus, 0x0010)
	before := f.space
	c := &fakeConfig{}
	c.add(Addr{0, 4, 0}, f)
	fn := Func{C: c, A: Addr{0, 4, 0}}

	want := []struct {
		b    BAR
		next int
	}{
		{BAR{Base: 0xc040, Size: 0x20, IO: true}, 1},
		{BAR{Base: 0xfebd1000, Size: 0x1000}, 2},
		{BAR{Base: 0x8_0000_4000, Size: 0x4000, Is64: true, Prefetch: true}, 4},
		{BAR{}, 5},
		{BAR{}, 7},
	}
	i := 0
	for k, w := range want {
		b, next := ReadBAR(fn, i)
		if b != w.b || next != w.next {
			t.Errorf("BAR %d: %+v next %d, want %+v next %d", i, b, next, w.b, w.next)
		}
		if k < len(want)-1 && next <= i {
			t.Fatalf("next %d after %d", next, i)
		}
		i = next
	}
	if f.space != before {
		t.Errorf("configuration space not restored:\n%x\n%x", f.space[:0x28], before[:0x28])
	}
	for _, cmd := range f.cmdAtSizing {
		if cmd&(CmdIO|CmdMemory) != 0 {
			t.Errorf("BAR sized with decoding on: command %#x", cmd)
		}
	}
	if len(f.cmdAtSizing) == 0 {
		t.Error("no BAR was sized")
	}
	if b, next := ReadBAR(fn, 6); b.Size != 0 || next <= 6 {
		t.Errorf("BAR 6 of a type-0 header: %+v, %d", b, next)
	}
}

func TestDecodeBARInvalid(t *testing.T) {
	for _, c := range []struct {
		name               string
		lo, hi, szlo, szhi uint32
	}{
		{"reserved type 01", 0x2, 0, 0xfffff002, 0},
		{"reserved type 11", 0x6, 0, 0xfffff006, 0},
		{"hole in mask", 0, 0, 0xffef0000, 0},
		{"misaligned base", 0x1800, 0, 0xfffff000, 0},
		{"64-bit hole", 0x4, 0, 0x4, 0xfff0ffff},
		{"I/O unimplemented", 0x1, 0, 0x1, 0},
	} {
		if b := decodeBAR(c.lo, c.hi, c.szlo, c.szhi); b.Size != 0 {
			t.Errorf("%s: decoded %+v", c.name, b)
		}
	}
	if b := decodeBAR(0x4, 0x1, 0x4, 0xffffffff); !b.Is64 || b.Size != 1<<32 || b.Base != 1<<32 {
		t.Errorf("4 GiB 64-bit BAR above 4 GiB: %+v", b)
	}
}

func TestCapWalk(t *testing.T) {
	f := newFn(0x1af4, 0x1041, 0x020000, 0)
	f.cap(0x40, CapVendorSpecific, 0x51) // unaligned pointer: masked to 0x50
	f.cap(0x50, CapMSIX, 0x60)
	f.cap(0x60, CapVendorSpecific, 0x70)
	f.cap(0x70, CapVendorSpecific, 0x40) // loops back
	c := &fakeConfig{}
	c.add(Addr{}, f)
	fn := Func{C: c}
	var got []uint8
	for p := NextCap(fn, CapVendorSpecific, 0); p != 0; p = NextCap(fn, CapVendorSpecific, p) {
		got = append(got, p)
		if len(got) > maxCaps {
			t.Fatalf("walk does not end: %x", got)
		}
	}
	if string(got) != "\x40\x60\x70" {
		t.Errorf("vendor capabilities at %x, want 40 60 70", got)
	}
	if p := NextCap(fn, CapMSIX, 0); p != 0x50 {
		t.Errorf("MSI-X at %#x", p)
	}
	if p := NextCap(fn, CapPCIe, 0); p != 0 {
		t.Errorf("PCIe capability found at %#x", p)
	}
	f.space[0x61] = 0x3c // into the header: the walk ends there
	if p := NextCap(fn, CapVendorSpecific, 0x40); p != 0x60 {
		t.Errorf("after 0x40: %#x", p)
	}
	if p := NextCap(fn, CapVendorSpecific, 0x60); p != 0 {
		t.Errorf("after 0x60 with a pointer into the header: %#x", p)
	}
	f.space[RegStatus] &^= statusCapList
	if p := NextCap(fn, CapVendorSpecific, 0); p != 0 {
		t.Errorf("capability list used without the Status bit: %#x", p)
	}
}

func TestMSIX(t *testing.T) {
	f := newFn(0x1af4, 0x1041, 0x020000, 0)
	f.cap(0x40, CapVendorSpecific, 0x98)
	f.cap(0x98, CapMSIX, 0)
	f.put16(0x98+2, 2|msixCtlFuncMask) // 3 entries, function masked
	f.wmask[0x98/4] = 0xc0000000       // enable and function mask are writable
	f.put32(0x98+4, 0x0000_0001)       // table: BAR 1 offset 0
	f.put32(0x98+8, 0x0000_0801)       // PBA: BAR 1 offset 0x800
	f.put16(RegStatus, statusCapList|0x8000)
	f.wmask[RegCommand/4] = 0xffffffff // status "writable" to catch a write-back of its bits
	c := &fakeConfig{}
	c.add(Addr{0, 3, 0}, f)
	fn := Func{C: c, A: Addr{0, 3, 0}}
	m, ok := ReadMSIX(fn)
	want := MSIX{Cap: 0x98, TableSize: 3, TableBAR: 1, TableOffset: 0, PBABAR: 1, PBAOffset: 0x800}
	if !ok || m != want {
		t.Fatalf("ReadMSIX = %+v %v, want %+v", m, ok, want)
	}
	bar := BAR{Base: 0xfebd1000, Size: 0x1000}
	if !m.TableFits(bar) || !m.PBAFits(bar) || m.TableFits(BAR{Size: 0x20}) || m.PBAFits(BAR{Size: 0x800}) {
		t.Error("TableFits/PBAFits wrong")
	}

	table := make([]uint32, 4*3)
	for i := 3; i < len(table); i += 4 {
		table[i] = 1 | 0xa0 // masked, with "reserved" bits to preserve
	}
	base := uintptr(unsafe.Pointer(&table[0]))
	if !m.SetVector(base, 1, 0xfee01000, 0x31) || m.SetVector(base, 3, 0, 0) || m.SetVector(base, -1, 0, 0) {
		t.Error("SetVector range check")
	}
	runtime.KeepAlive(table)
	if table[4] != 0xfee01000 || table[5] != 0 || table[6] != 0x31 || table[7] != 0xa0 || table[3] != 0xa1 {
		t.Errorf("table %x", table)
	}
	m.MaskVector(base, 1, true)
	if table[7] != 0xa1 {
		t.Errorf("masked entry control %#x", table[7])
	}

	EnableMemory(fn)
	EnableBusMaster(fn)
	m.Enable(fn)
	if ctl := fn.Read16(0x98 + 2); ctl != 2|msixCtlEnable {
		t.Errorf("message control %#x", ctl)
	}
	if cmd := fn.Command(); cmd != CmdMemory|CmdBusMaster|CmdINTxDisable {
		t.Errorf("command %#x", cmd)
	}
	if st := fn.Status(); st != 0 {
		t.Errorf("status written back: %#x (RW1C bits would be cleared)", st)
	}
	m.Disable(fn)
	if ctl := fn.Read16(0x98 + 2); ctl != 2 {
		t.Errorf("message control after Disable %#x", ctl)
	}

	f.put32(0x98+4, 6) // reserved BIR
	if _, ok := ReadMSIX(fn); ok {
		t.Error("reserved BIR accepted")
	}
	f.put32(0x98+4, 1)
	f.space[0x41] = 0xfc // an MSI-X capability cut off by the end of the space
	f.space[0xfc] = CapMSIX
	if m, ok := ReadMSIX(fn); ok {
		t.Errorf("truncated capability accepted: %+v", m)
	}
}

func TestSubWordAccess(t *testing.T) {
	f := newFn(0x1af4, 0x1041, 0x020000, 0)
	f.wmask[0x40/4] = 0xffffffff
	f.put32(0x40, 0x44332211)
	c := &fakeConfig{}
	c.add(Addr{}, f)
	fn := Func{C: c}
	if fn.Read8(0x42) != 0x33 || fn.Read16(0x42) != 0x4433 || fn.Read16(0x43) != 0x4433 {
		t.Errorf("reads %#x %#x", fn.Read8(0x42), fn.Read16(0x42))
	}
	fn.Write8(0x41, 0xaa)
	fn.Write16(0x42, 0xbbcc)
	if v := f.get32(0x40); v != 0xbbccaa11 {
		t.Errorf("after writes %#x", v)
	}
	// A byte write to Command must not write the Status half back (its RW1C bits would clear).
	f.wmask[RegCommand/4] = 0xffffffff
	f.put32(RegCommand, 0x8010_0003)
	fn.Write8(RegCommand, 0x07)
	if v := f.get32(RegCommand); v != 0x0000_0007 {
		t.Errorf("command dword after Write8: %#x", v)
	}
	f.put32(RegCommand, 0x8010_0003)
	fn.Write16(RegStatus, 0x8000)
	if v := f.get32(RegCommand); v != 0x8000_0003 {
		t.Errorf("command dword after Write16(Status): %#x", v)
	}
}

func TestECAM(t *testing.T) {
	mem := make([]uint32, 1<<20/4) // bus 0
	base := uintptr(unsafe.Pointer(&mem[0]))
	e := &ECAM{Base: base, StartBus: 0, EndBus: 0}
	a := Addr{Bus: 0, Dev: 3, Fn: 2}
	idx := (3<<15 | 2<<12 | 0x10) / 4
	mem[idx] = 0xfebd1000
	if v := e.Read32(a, 0x10); v != 0xfebd1000 {
		t.Errorf("read %#x", v)
	}
	e.Write32(a, 0x14, 0x1234)
	if mem[idx+1] != 0x1234 {
		t.Errorf("write landed elsewhere")
	}
	for _, bad := range []struct {
		a   Addr
		off uint16
	}{{Addr{1, 0, 0}, 0}, {Addr{0, 32, 0}, 0}, {Addr{0, 0, 8}, 0}, {a, 4096}} {
		if v := e.Read32(bad.a, bad.off); v != 0xffffffff {
			t.Errorf("%+v+%#x read %#x, want all ones", bad.a, bad.off, v)
		}
		e.Write32(bad.a, bad.off, 0)
	}
	// StartBus > 0: Base still names bus 0, so bus 2 sits 2 MiB above it.
	e2 := &ECAM{Base: base - 2<<20, StartBus: 2, EndBus: 2}
	if v := e2.Read32(Addr{2, 3, 2}, 0x10); v != 0xfebd1000 {
		t.Errorf("StartBus 2: read %#x", v)
	}
	if v := e2.Read32(Addr{0, 3, 2}, 0x10); v != 0xffffffff {
		t.Errorf("bus below StartBus read %#x", v)
	}
	runtime.KeepAlive(mem)
}
