// Hosted tests of the Pi board's decoders: the image's locator, the mailbox's answer, the RAM
// and the module container with its command line.
// SPDX-License-Identifier: BSD-3-Clause

package rpi

import (
	"strings"
	"testing"

	"gmpos/boot"
	"gmpos/kernel/board/internal/modcont"
)

// locatorBytes is the locator gmpos/boot writes: the encoder the kernel's decoder must agree with.
func locatorBytes(flags uint32, off, size uint64) []byte {
	return boot.Arm64Locator{Flags: flags, ModOffset: off, ModSize: size}.Encode()
}

func TestLocator(t *testing.T) {
	if boot.Arm64LocatorOffset != locOffset || boot.Arm64LocatorSize != locSize || boot.Arm64LocatorMagic != locMagic ||
		boot.Arm64LocRecords != locRecords || boot.Arm64LocSemihosting != locSemihosting {
		t.Fatal("gmpos/boot's locator layout and the board's disagree")
	}
	l, why := decodeLocator(locatorBytes(locRecords|locSemihosting, 0x40_0000, 0x1234), 0x50_0000)
	if why != "" || l != (locator{locRecords | locSemihosting, 0x40_0000, 0x1234}) {
		t.Fatalf("decoded %+v (%s)", l, why)
	}
	for _, tt := range []struct {
		name string
		b    []byte
		size uint64
		want string
	}{
		{"no magic", make([]byte, locSize), 0, "no module locator"},
		{"short", locatorBytes(0, 0x1000, 1)[:16], 0, "no module locator"},
		{"unknown flag", locatorBytes(4, 0x1000, 1), 0, "unknown flags"},
		{"unaligned", locatorBytes(0, 0x1800, 1), 0, "page-aligned"},
		{"in the header page", locatorBytes(0, 0, 1), 0, "page-aligned"},
		{"empty", locatorBytes(0, 0x1000, 0), 0, "size is 0"},
		{"huge", locatorBytes(0, 0x1000, 1<<40), 0, "128 MiB"},
		{"past image_size", locatorBytes(0, 0x1000, 0x2000), 0x2000, "image_size"},
	} {
		if _, why := decodeLocator(tt.b, tt.size); !strings.Contains(why, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, why, tt.want)
		}
	}
}

// FuzzLocator: any header page is decoded without a panic, and an accepted locator names a
// container inside the 128 MiB the image may span and inside image_size.
func FuzzLocator(f *testing.F) {
	f.Add(locatorBytes(locRecords, 0x40_0000, 0x1234), uint64(0x50_0000))
	f.Add(make([]byte, locSize), uint64(0))
	f.Fuzz(func(t *testing.T, b []byte, size uint64) {
		l, why := decodeLocator(b, size)
		if why != "" {
			return
		}
		if l.off%4096 != 0 || l.size == 0 || l.off+l.size > maxImage || size != 0 && l.off+l.size > size {
			t.Fatalf("accepted %+v for image_size %#x", l, size)
		}
	})
}

// reply is the firmware's answer to armMemoryRequest, as QEMU writes it
// (hw/misc/bcm2835_property.c): success, the tag's response flag and length, base and size.
func reply(base, size uint32) [armMemWords]uint32 {
	var m [armMemWords]uint32
	armMemoryRequest(&m)
	m[1], m[4], m[5], m[6] = propSuccess, tagResponse|8, base, size
	return m
}

func TestARMMemory(t *testing.T) {
	var m [armMemWords]uint32
	armMemoryRequest(&m)
	if m != [armMemWords]uint32{32, 0, 0x10005, 8, 0, 0, 0, 0} {
		t.Fatalf("request %#x", m)
	}
	r := reply(0, 0x3c00_0000) // QEMU raspi3b: 1 GiB less 64 MiB for the VideoCore
	if base, size, why := armMemoryReply(&r); why != "" || base != 0 || size != 0x3c00_0000 {
		t.Fatalf("%#x %#x %s", base, size, why)
	}
	bad := []func(*[armMemWords]uint32){
		func(m *[armMemWords]uint32) { m[1] = 0x8000_0001 },     // the firmware's error code
		func(m *[armMemWords]uint32) { m[4] = 8 },               // no response flag
		func(m *[armMemWords]uint32) { m[2] = 0x10006 },         // another tag
		func(m *[armMemWords]uint32) { m[6] = 1 << 20 },         // 1 MiB
		func(m *[armMemWords]uint32) { m[5] = 0xf000_0000 },     // past 4 GiB
		func(m *[armMemWords]uint32) { m[4] = tagResponse | 4 }, // short answer
	}
	for i, mutate := range bad {
		r := reply(0, 0x3c00_0000)
		mutate(&r)
		if _, _, why := armMemoryReply(&r); why == "" {
			t.Errorf("bad answer %d accepted", i)
		}
	}
}

// FuzzARMMemory: whatever the firmware writes back, an accepted answer is at least 16 MiB and
// ends at or below 4 GiB.
func FuzzARMMemory(f *testing.F) {
	f.Add(uint32(propSuccess), uint32(tagGetARMMemory), uint32(tagResponse|8), uint32(0), uint32(0x3c00_0000))
	f.Fuzz(func(t *testing.T, code, tag, tcode, base, size uint32) {
		m := reply(base, size)
		m[1], m[2], m[4] = code, tag, tcode
		b, s, why := armMemoryReply(&m)
		if why == "" && (s < 16<<20 || b+s > 1<<32) {
			t.Fatalf("accepted %#x+%#x", b, s)
		}
	})
}

func TestRAM(t *testing.T) {
	var b Board
	b.setRAM(0, 0x3c00_0000)
	if got := b.RAM(); len(got) != 1 || got[0].Base != lowReserved || got[0].Len != 0x3c00_0000-lowReserved {
		t.Fatalf("RAM %+v", got)
	}
	if !b.inRAM(0x20_0000, 0x1000) || b.inRAM(0, 0x1000) || b.inRAM(0x3bff_f000, 0x2000) {
		t.Error("inRAM")
	}
}

func TestModules(t *testing.T) {
	var b Board
	c := modcont.Pack([]byte("args"), []byte("cpio"), []byte("klog=1 smp=4"))
	if why := b.setModules(0x100_0000, c); why != "" {
		t.Fatal(why)
	}
	pa, n := b.BootModule(1)
	if pa != 0x100_0000+8192 || n != 4 {
		t.Errorf("module 1 at %#x+%d", pa, n)
	}
	if pa, n := b.BootModule(2); pa != 0 || n != 0 {
		t.Error("the command line is not a boot module")
	}
	if string(b.Cmdline()) != "rpi klog=1 smp=4" {
		t.Errorf("command line %q", b.Cmdline())
	}
	long := modcont.Pack(nil, nil, make([]byte, maxCmdline+1))
	if why := b.setModules(0x100_0000, long); !strings.Contains(why, "longer") {
		t.Errorf("a long command line: %q", why)
	}
}

func TestSoC(t *testing.T) {
	if socFor(partA53) != socBCM2837 || socFor(partA72) != socBCM2711 || socFor(0xd07) != -1 {
		t.Error("socFor")
	}
	if s := socs[socBCM2711]; s.periph+offPL011 != 0xfe20_1000 || s.periph+offAux+0x40 != 0xfe21_5040 {
		t.Errorf("Pi 4 UARTs at %#x, %#x (issue #9: 0xfe20_1000, 0xfe21_5040)", s.periph+offPL011, s.periph+offAux+0x40)
	}
}
