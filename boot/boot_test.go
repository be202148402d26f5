// Tests for the image tool: round trip on a real Go binary, corrupted inputs.
// SPDX-License-Identifier: BSD-3-Clause

package boot

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// goBinary builds a tiny package main with the contract's -T/-R link flags (any
// main package has the layout the kernel will have). Built once.
var goBinary = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "boottest")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := "package main\n\nfunc main() { println(\"hello\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module tiny\n\ngo 1.26\n"), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "build", "-o", "tiny", "-ldflags=-T 0x101000 -R 0x1000", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, &buildError{string(out), err}
	}
	return os.ReadFile(filepath.Join(dir, "tiny"))
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

func tiny(t *testing.T) []byte {
	t.Helper()
	b, err := goBinary()
	if err != nil {
		t.Fatalf("building test binary: %v", err)
	}
	return append([]byte(nil), b...)
}

func TestRoundTrip(t *testing.T) {
	in := tiny(t)
	img, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	h, off := Find(img.Data)
	if off != img.Offset || h != img.Header {
		t.Fatalf("Find = %v at %#x, Make wrote %v at %#x", h, off, img.Header, img.Offset)
	}
	if off%4 != 0 || off+HeaderSize > SearchLimit {
		t.Errorf("header offset %#x not 4-aligned within the first 8 KiB", off)
	}
	if err := h.Validate(off, int64(len(img.Data))); err != nil {
		t.Error(err)
	}

	// Compare with what debug/elf says, independently of Analyze.
	f, err := elf.NewFile(strings.NewReader(string(img.Data)))
	if err != nil {
		t.Fatalf("output is no longer a readable ELF: %v", err)
	}
	var loads []*elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			loads = append(loads, p)
		}
	}
	last := loads[len(loads)-1]
	want := Header{
		Flags:       FlagMemInfo | FlagAddrKludge,
		HeaderAddr:  uint32(loads[0].Vaddr) + uint32(off),
		LoadAddr:    0x100000,
		LoadEndAddr: uint32(last.Vaddr + last.Filesz),
		BSSEndAddr:  uint32(last.Vaddr + last.Memsz),
		EntryAddr:   uint32(f.Entry),
	}
	if h != want {
		t.Errorf("header\n got %v\nwant %v", h, want)
	}
	if sum := Magic + h.Flags + Checksum(h.Flags); sum != 0 {
		t.Errorf("magic+flags+checksum = %#x, want 0", sum)
	}

	// Only the header's bytes changed, and every section still reads back.
	for i := range in {
		if in[i] != img.Data[i] && (i < off || i >= off+HeaderSize) {
			t.Fatalf("byte %#x changed outside the header", i)
		}
	}
	for _, s := range f.Sections {
		if uint64(off) < s.Offset+s.Size && s.Offset < uint64(off+HeaderSpace) && s.Type != elf.SHT_NOBITS && s.Size > 0 {
			t.Errorf("header [%#x,%#x) overlaps section %s", off, off+HeaderSpace, s.Name)
		}
	}

	// Idempotent: a second pass rewrites the same header in place.
	img2, err := Make(img.Data)
	if err != nil {
		t.Fatal(err)
	}
	if string(img2.Data) != string(img.Data) {
		t.Error("Make is not idempotent")
	}
}

func TestEncodeDecode(t *testing.T) {
	h := Header{Flags: Flags, HeaderAddr: 0x100810, LoadAddr: 0x100000, LoadEndAddr: 0x200000, BSSEndAddr: 0x300000, EntryAddr: 0x101234}
	b := make([]byte, 64)
	copy(b[8:], h.Encode())
	got, off := Find(b)
	if off != 8 || got != h {
		t.Fatalf("Find = %v at %d, want %v at 8", got, off, h)
	}
	b[8+8]++ // break the checksum
	if _, off := Find(b); off != -1 {
		t.Errorf("Find accepted a bad checksum at %d", off)
	}
}

// Offsets of fields in the ELF64 header and program headers (ELF-64 Object
// File Format 1.5, §"File header", §"Program header table").
const (
	ehType, ehMachine, ehEntry, ehPhoff, ehPhnum = 16, 18, 24, 32, 56
	phType, phFlags, phOff, phVaddr, phPaddr     = 0, 4, 8, 16, 24
	phFilesz, phMemsz, phSize                    = 32, 40, 56
)

// loadPh returns the file offset of the program header of the i-th PT_LOAD.
func loadPh(t *testing.T, b []byte, i int) int {
	le := binary.LittleEndian
	phoff, phnum := int(le.Uint64(b[ehPhoff:])), int(le.Uint16(b[ehPhnum:]))
	n := 0
	for k := 0; k < phnum; k++ {
		p := phoff + k*phSize
		if elf.ProgType(le.Uint32(b[p+phType:])) == elf.PT_LOAD {
			if n == i {
				return p
			}
			n++
		}
	}
	t.Fatalf("no PT_LOAD %d", i)
	return 0
}

func TestCorruptInputs(t *testing.T) {
	le := binary.LittleEndian
	u64 := func(b []byte, off int) uint64 { return le.Uint64(b[off:]) }
	tests := []struct {
		name    string
		corrupt func(t *testing.T, b []byte) []byte
		want    string
	}{
		{"empty", func(t *testing.T, b []byte) []byte { return nil }, "not an ELF"},
		{"not ELF", func(t *testing.T, b []byte) []byte { b[0] = 'M'; return b }, "not an ELF"},
		{"ELF32", func(t *testing.T, b []byte) []byte { b[elf.EI_CLASS] = byte(elf.ELFCLASS32); return b }, "ELFCLASS64"},
		{"arm64", func(t *testing.T, b []byte) []byte { le.PutUint16(b[ehMachine:], uint16(elf.EM_AARCH64)); return b }, "EM_X86_64"},
		{"PIE", func(t *testing.T, b []byte) []byte { le.PutUint16(b[ehType:], uint16(elf.ET_DYN)); return b }, "ET_EXEC"},
		{"no PT_LOAD", func(t *testing.T, b []byte) []byte {
			for i := 2; i >= 0; i-- {
				le.PutUint32(b[loadPh(t, b, i)+phType:], uint32(elf.PT_NOTE))
			}
			return b
		}, "no PT_LOAD"},
		{"first not at offset 0", func(t *testing.T, b []byte) []byte {
			p := loadPh(t, b, 0)
			le.PutUint64(b[p+phOff:], 0x1000)
			return b
		}, "file offset 0x1000, want 0"},
		{"below 1 MiB", func(t *testing.T, b []byte) []byte {
			for i := 0; i < 3; i++ {
				p := loadPh(t, b, i)
				le.PutUint64(b[p+phVaddr:], u64(b, p+phVaddr)-0x80000)
				le.PutUint64(b[p+phPaddr:], u64(b, p+phPaddr)-0x80000)
			}
			return b
		}, "below 1 MiB"},
		{"paddr differs", func(t *testing.T, b []byte) []byte {
			p := loadPh(t, b, 1)
			le.PutUint64(b[p+phPaddr:], 0x4000000)
			return b
		}, "paddr"},
		{"descending", func(t *testing.T, b []byte) []byte {
			p1, p2 := loadPh(t, b, 1), loadPh(t, b, 2)
			tmp := append([]byte(nil), b[p1:p1+phSize]...)
			copy(b[p1:], b[p2:p2+phSize])
			copy(b[p2:], tmp)
			return b
		}, "must ascend"},
		{"not flat", func(t *testing.T, b []byte) []byte {
			p := loadPh(t, b, 1)
			le.PutUint64(b[p+phOff:], u64(b, p+phOff)+0x1000)
			return b
		}, "not a flat image"},
		{"beyond 4 GiB", func(t *testing.T, b []byte) []byte {
			p := loadPh(t, b, 2)
			le.PutUint64(b[p+phMemsz:], 1<<32)
			return b
		}, "below 4 GiB"},
		{"filesz > memsz", func(t *testing.T, b []byte) []byte {
			p := loadPh(t, b, 2)
			le.PutUint64(b[p+phMemsz:], u64(b, p+phFilesz)-1)
			return b
		}, "filesz"},
		{"bss in middle segment", func(t *testing.T, b []byte) []byte {
			// Grow .text's memsz into the non-zero bytes after it (they
			// belong to the next segment's file range when we shrink filesz).
			p := loadPh(t, b, 0)
			le.PutUint64(b[p+phFilesz:], u64(b, p+phFilesz)-0x100)
			return b
		}, "not the last segment"},
		{"truncated", func(t *testing.T, b []byte) []byte {
			p := loadPh(t, b, 2)
			return b[:u64(b, p+phOff)+10]
		}, "past the end"},
		{"entry outside text", func(t *testing.T, b []byte) []byte {
			p := loadPh(t, b, 2)
			le.PutUint64(b[ehEntry:], u64(b, p+phVaddr))
			return b
		}, "entry point"},
		{"no gap", func(t *testing.T, b []byte) []byte {
			// Fill every byte not used by an ELF structure with junk.
			l, err := Analyze(b)
			if err != nil {
				t.Fatal(err)
			}
			for off := uint64(0); off < SearchLimit; off++ {
				if !l.overlaps(off, off+1) {
					b[off] = 0xAA
				}
			}
			return b
		}, "no unused"},
		{"stray magic inside ELF data", func(t *testing.T, b []byte) []byte {
			// A valid-looking header inside the program headers would be
			// picked up by QEMU before ours.
			hdr := Header{Flags: Flags}.Encode()
			copy(b[64+8:], hdr[:12])
			return b
		}, "look like a Multiboot header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.corrupt(t, tiny(t))
			_, err := Make(b)
			if err == nil {
				t.Fatalf("Make accepted the corrupted input")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	good := Header{Flags: Flags, HeaderAddr: 0x100810, LoadAddr: 0x100000, LoadEndAddr: 0x200000, BSSEndAddr: 0x300000, EntryAddr: 0x101000}
	if err := good.Validate(0x810, 0x200000); err != nil {
		t.Fatalf("good header rejected: %v", err)
	}
	tests := []struct {
		name string
		edit func(*Header)
		want string
	}{
		{"no kludge", func(h *Header) { h.Flags = FlagMemInfo }, "bit 16"},
		{"header below load", func(h *Header) { h.LoadAddr = 0x100900 }, "below load_addr"},
		{"header offset", func(h *Header) { h.HeaderAddr = 0x101000 }, "exceeds"},
		{"load_end below load", func(h *Header) { h.LoadEndAddr = 0xff000 }, "below load_addr"},
		{"past file", func(h *Header) { h.LoadEndAddr = 0x300001 }, "past the end"},
		{"bss below load_end", func(h *Header) { h.BSSEndAddr = 0x1fffff }, "bss_end_addr"},
		{"entry outside", func(h *Header) { h.EntryAddr = 0x300000 }, "entry_addr"},
	}
	for _, tt := range tests {
		h := good
		tt.edit(&h)
		err := h.Validate(0x810, 0x200000)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want mention of %q", tt.name, err, tt.want)
		}
	}
}
