package elf

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"runtime"
	"testing"
)

// machine is this test binary's e_machine.
func machine() uint16 {
	if runtime.GOARCH == "arm64" {
		return MachineAArch64
	}
	return MachineX86_64
}

// ownHeader is the first page of this (static, fixed-address) test binary and its size.
func ownHeader(t testing.TB) ([]byte, int64) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	n := min(len(b), 4096)
	return b[:n], int64(len(b))
}

// TestParseOwnBinary decodes the test binary itself and compares the loadable segments with
// what debug/elf reads.
func TestParseOwnBinary(t *testing.T) {
	hdr, size := ownHeader(t)
	exe, _ := os.Executable()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC {
		t.Skip("the test binary is not a fixed-address executable:", f.Type)
	}
	img, why := Parse(hdr, size, 0, 1<<47, machine())
	if why != "" {
		t.Fatal(why)
	}
	if img.Entry != f.Entry {
		t.Errorf("entry %#x, debug/elf says %#x", img.Entry, f.Entry)
	}
	n := 0
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Memsz == 0 {
			continue
		}
		s := img.Seg[n]
		if s.Vaddr != p.Vaddr || s.Memsz != p.Memsz || s.Off != p.Off || s.Filesz != p.Filesz || s.Flags != uint32(p.Flags) {
			t.Errorf("segment %d: %+v, debug/elf says %+v", n, s, p.ProgHeader)
		}
		n++
	}
	if n != img.N {
		t.Errorf("%d segments, debug/elf has %d", img.N, n)
	}
	// The region bounds are enforced.
	if _, why := Parse(hdr, size, img.Seg[0].Vaddr+4096, 1<<47, machine()); why == "" {
		t.Error("a segment below the region was accepted")
	}
	if _, why := Parse(hdr, size, 0, img.Seg[img.N-1].Vaddr, machine()); why == "" {
		t.Error("a segment above the region was accepted")
	}
}

// TestParseRejects: each malformed header is refused with a reason.
func TestParseRejects(t *testing.T) {
	hdr, size := ownHeader(t)
	phoff := binary.LittleEndian.Uint64(hdr[32:])
	firstLoad := -1
	for i := 0; i < int(binary.LittleEndian.Uint16(hdr[56:])); i++ {
		if binary.LittleEndian.Uint32(hdr[phoff+uint64(i)*phdrSize:]) == ptLoad {
			firstLoad = i
			break
		}
	}
	ph := func(b []byte) []byte { return b[phoff+uint64(firstLoad)*phdrSize:] }
	cases := []struct {
		name   string
		mutate func(b []byte) []byte
	}{
		{"short", func(b []byte) []byte { return b[:40] }},
		{"magic", func(b []byte) []byte { b[1] = 'X'; return b }},
		{"32-bit", func(b []byte) []byte { b[4] = 1; return b }},
		{"big-endian", func(b []byte) []byte { b[5] = 2; return b }},
		{"ET_DYN", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[16:], etDyn); return b }},
		{"ET_REL", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[16:], 1); return b }},
		{"machine", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[18:], 3); return b }},
		{"phentsize", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[54:], 32); return b }},
		{"phnum 0", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[56:], 0); return b }},
		{"phoff past the file", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[32:], 1<<62); return b }},
		{"phoff in the header", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[32:], 8); return b }},
		{"filesz > memsz", func(b []byte) []byte {
			p := ph(b)
			binary.LittleEndian.PutUint64(p[32:], binary.LittleEndian.Uint64(p[40:])+1)
			return b
		}},
		{"bytes past the file", func(b []byte) []byte { binary.LittleEndian.PutUint64(ph(b)[8:], uint64(size)); return b }},
		{"incongruent", func(b []byte) []byte {
			p := ph(b)
			binary.LittleEndian.PutUint64(p[16:], binary.LittleEndian.Uint64(p[16:])+8)
			return b
		}},
		{"wrapping segment", func(b []byte) []byte { binary.LittleEndian.PutUint64(ph(b)[40:], 1<<64-4096); return b }},
		{"entry outside", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[24:], 8); return b }},
		{"interpreter", func(b []byte) []byte { binary.LittleEndian.PutUint32(ph(b), ptInterp); return b }},
	}
	for _, c := range cases {
		b := c.mutate(append([]byte(nil), hdr...))
		if _, why := Parse(b, size, 0, 1<<47, machine()); why == "" {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

// FuzzParse: any input gives an image or a reason, never a panic, and an accepted image keeps
// the promises the loader relies on.
func FuzzParse(f *testing.F) {
	hdr, size := ownHeader(f)
	f.Add(hdr, size)
	f.Add(hdr[:64], int64(64))
	f.Fuzz(func(t *testing.T, b []byte, size int64) {
		const lo, hi = 0x10000, 1 << 47
		img, why := Parse(b, size, lo, hi, machine())
		if why != "" {
			return
		}
		if img.N < 1 || img.N > MaxSegments {
			t.Fatalf("%d segments", img.N)
		}
		entry := false
		for i := 0; i < img.N; i++ {
			s := img.Seg[i]
			if s.Vaddr < lo || s.Vaddr+s.Memsz > hi || s.Vaddr+s.Memsz < s.Vaddr || s.Filesz > s.Memsz ||
				s.Off+s.Filesz > uint64(size) || s.Off+s.Filesz < s.Off {
				t.Fatalf("segment %d breaks the rules: %+v", i, s)
			}
			if i > 0 && pageDown(s.Vaddr) < pageUp(img.Seg[i-1].Vaddr+img.Seg[i-1].Memsz) {
				t.Fatalf("segments %d and %d overlap", i-1, i)
			}
			if s.Flags&PF_X != 0 && img.Entry >= s.Vaddr && img.Entry < s.Vaddr+s.Memsz {
				entry = true
			}
		}
		if !entry {
			t.Fatal("entry not in an executable segment")
		}
	})
}
