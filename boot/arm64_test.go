// Tests of the arm64 Image: a real GOARCH=arm64 link, the header decoded back, bad inputs.
// SPDX-License-Identifier: BSD-3-Clause

package boot

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/arch/arm64/arm64asm"
)

// goBinaryArm64 builds the same tiny program as goBinary for linux/arm64 with the contract's
// arm64 link flags and an -E of its own entry (the runtime's), as the runner links the kernel.
var goBinaryArm64 = sync.OnceValues(func() ([]byte, error) {
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
	cmd := exec.Command("go", "build", "-o", "tiny", "-ldflags="+Arm64LinkFlags+" -E _rt0_arm64_linux", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, &buildError{string(out), err}
	}
	return os.ReadFile(filepath.Join(dir, "tiny"))
})

func tinyArm64(t *testing.T) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no arm64 build (the first compiles the standard library for arm64)")
	}
	b, err := goBinaryArm64()
	if err != nil {
		t.Fatalf("building the arm64 test binary: %v", err)
	}
	return append([]byte(nil), b...)
}

func TestArm64Image(t *testing.T) {
	in := tinyArm64(t)
	img, err := MakeArm64(in)
	if err != nil {
		t.Fatal(err)
	}
	h, err := DecodeArm64Header(img.Data)
	if err != nil {
		t.Fatal(err)
	}
	if h != img.Header {
		t.Fatalf("decoded %v, MakeArm64 wrote %v", h, img.Header)
	}
	if err := h.Validate(int64(len(img.Data))); err != nil {
		t.Error(err)
	}

	// Independently of Analyze: what debug/elf says the program is.
	f, err := elf.NewFile(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var loads []*elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			loads = append(loads, p)
		}
	}
	first, last := loads[0], loads[len(loads)-1]
	if first.Vaddr != 0x4020_1000 || first.Off != 0 {
		t.Fatalf("the link flags put the first PT_LOAD at %#x (file offset %#x), want 0x40201000 at 0", first.Vaddr, first.Off)
	}
	if text := f.Section(".text"); text == nil || text.Addr != 0x4020_2000 {
		t.Errorf(".text not at 0x40202000: %v", text)
	}
	wantSize := (0x1000 + last.Vaddr + last.Memsz - first.Vaddr + 0xfff) &^ 0xfff
	le := binary.LittleEndian
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"code1", uint64(le.Uint32(img.Data[4:])), 0},
		{"text_offset", le.Uint64(img.Data[8:]), 0x20_0000},
		{"image_size", le.Uint64(img.Data[16:]), wantSize},
		{"flags", le.Uint64(img.Data[24:]), 2},
		{"res2", le.Uint64(img.Data[32:]), 0},
		{"res3", le.Uint64(img.Data[40:]), 0},
		{"res4", le.Uint64(img.Data[48:]), 0},
		{"res5", uint64(le.Uint32(img.Data[60:])), 0},
		{"file size", uint64(len(img.Data)), wantSize},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
	if string(img.Data[56:60]) != "ARM\x64" {
		t.Errorf("magic %q", img.Data[56:60])
	}

	// code0, decoded by the Go team's disassembler: B to e_entry from the load address.
	inst, err := arm64asm.Decode(img.Data[0:4])
	if err != nil {
		t.Fatal(err)
	}
	rel, ok := inst.Args[0].(arm64asm.PCRel)
	if inst.Op != arm64asm.B || !ok || 0x4020_0000+uint64(rel) != f.Entry {
		t.Errorf("code0 is %v (%v), want b to e_entry %#x", inst, inst.Args[0], f.Entry)
	}
	if e, ok := h.Entry(); !ok || e != f.Entry {
		t.Errorf("Entry() = %#x %v, want %#x", e, ok, f.Entry)
	}

	// The rest of the header page is zero; each segment's file bytes sit at their address,
	// everything else (gaps, .bss) is zero.
	want := make([]byte, wantSize)
	copy(want, img.Data[:64])
	for _, p := range loads {
		at := 0x1000 + p.Vaddr - first.Vaddr
		copy(want[at:], in[p.Off:p.Off+p.Filesz])
	}
	if !bytes.Equal(img.Data, want) {
		t.Error("the image is not header page + segments + zeros")
	}
	if !bytes.Equal(img.Data[0x1000:0x1040], in[:0x40]) {
		t.Error("the ELF header is not at 0x40201000 (file offset 0x1000)")
	}
}

func TestArm64BadInputs(t *testing.T) {
	le := binary.LittleEndian
	for _, tt := range []struct {
		name string
		in   func(t *testing.T) []byte
		want string
	}{
		{"amd64 ELF", func(t *testing.T) []byte { return tiny(t) }, "want EM_AARCH64 (build with GOARCH=arm64)"},
		{"linked elsewhere", func(t *testing.T) []byte {
			b := tinyArm64(t)
			for i := 0; i < 3; i++ {
				p := loadPh(t, b, i)
				le.PutUint64(b[p+phVaddr:], le.Uint64(b[p+phVaddr:])+0x10_0000)
				le.PutUint64(b[p+phPaddr:], le.Uint64(b[p+phPaddr:])+0x10_0000)
			}
			le.PutUint64(b[ehEntry:], le.Uint64(b[ehEntry:])+0x10_0000)
			return b
		}, "first PT_LOAD at 0x40301000 is not 0x40201000"},
		{"not flat", func(t *testing.T) []byte {
			b := tinyArm64(t)
			p := loadPh(t, b, 1)
			le.PutUint64(b[p+phOff:], le.Uint64(b[p+phOff:])+0x1000)
			return b
		}, "link with -T 0x40202000 -R 0x1000"},
		{"entry outside text", func(t *testing.T) []byte {
			b := tinyArm64(t)
			le.PutUint64(b[ehEntry:], le.Uint64(b[loadPh(t, b, 2)+phVaddr:]))
			return b
		}, "entry point"},
		{"entry misaligned", func(t *testing.T) []byte {
			b := tinyArm64(t)
			le.PutUint64(b[ehEntry:], le.Uint64(b[ehEntry:])+2)
			return b
		}, "not reachable by a B instruction"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := MakeArm64(tt.in(t))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("MakeArm64: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestArm64Branch(t *testing.T) {
	const pc = 0x4020_0000
	for _, c := range []struct {
		target uint64
		insn   uint32
		ok     bool
	}{
		{pc + 4, 0x1400_0001, true},
		{pc, 0x1400_0000, true}, // b . (a loop)
		{pc - 4, 0x17ff_ffff, true},
		{pc + 1<<27 - 4, 0x15ff_ffff, true},
		{pc - 1<<27, 0x1600_0000, true},
		{pc + 1<<27, 0, false},
		{pc - 1<<27 - 4, 0, false},
		{pc + 2, 0, false},
	} {
		insn, ok := Arm64Branch(pc, c.target)
		if insn != c.insn || ok != c.ok {
			t.Errorf("Arm64Branch(%#x) = %#08x %v, want %#08x %v", c.target, insn, ok, c.insn, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if got, ok := Arm64BranchTarget(pc, insn); !ok || got != c.target {
			t.Errorf("Arm64BranchTarget(%#08x) = %#x %v, want %#x", insn, got, ok, c.target)
		}
	}
	if _, ok := Arm64BranchTarget(pc, 0x9400_0001); ok { // bl
		t.Error("BL taken for B")
	}
}

func goodArm64Header() Arm64Header {
	code0, _ := Arm64Branch(Arm64LoadAddr, Arm64LoadAddr+0x2000)
	return Arm64Header{Code0: code0, TextOffset: 0x20_0000, ImageSize: 0x10_0000, Flags: 2, Magic: Arm64Magic}
}

func TestArm64Validate(t *testing.T) {
	if err := goodArm64Header().Validate(0x8_0000); err != nil {
		t.Fatalf("good header rejected: %v", err)
	}
	for _, tt := range []struct {
		name string
		edit func(*Arm64Header)
		want string
	}{
		{"magic", func(h *Arm64Header) { h.Magic = 0x644d5242 }, "magic"},
		{"text_offset", func(h *Arm64Header) { h.TextOffset = 0x8_0000 }, "text_offset"},
		{"image_size 0", func(h *Arm64Header) { h.ImageSize = 0 }, "image_size"},
		{"image_size odd", func(h *Arm64Header) { h.ImageSize = 0x10_0800 }, "image_size"},
		{"image_size below the file", func(h *Arm64Header) { h.ImageSize = 0x4_0000 }, "within image_size"},
		{"big endian", func(h *Arm64Header) { h.Flags = 3 }, "flags"},
		{"reserved", func(h *Arm64Header) { h.Res4 = 1 }, "reserved"},
		{"not B", func(h *Arm64Header) { h.Code0 = 0xd503201f }, "not a B"}, // nop
		{"into the header page", func(h *Arm64Header) { h.Code0, _ = Arm64Branch(Arm64LoadAddr, Arm64LoadAddr+0x40) }, "outside the program"},
		{"past the image", func(h *Arm64Header) { h.Code0, _ = Arm64Branch(Arm64LoadAddr, Arm64LoadAddr+0x10_0000) }, "outside the program"},
	} {
		h := goodArm64Header()
		tt.edit(&h)
		if err := h.Validate(0x8_0000); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := DecodeArm64Header(make([]byte, 63)); err == nil {
		t.Error("a 63-byte header decoded")
	}
}

// FuzzArm64Header: any 64 bytes with the magic decode, and encode back to themselves; a header
// that validates branches into its program, and its code0 is what Arm64Branch makes of that.
func FuzzArm64Header(f *testing.F) {
	f.Add(goodArm64Header().Encode())
	f.Add(make([]byte, 64))
	f.Add([]byte("short"))
	bad := goodArm64Header()
	bad.Code0 = 0x17ff_ffff
	f.Add(bad.Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeArm64Header(b)
		if err != nil {
			if len(b) >= 64 && string(b[56:60]) == "ARM\x64" {
				t.Fatalf("magic present, yet: %v", err)
			}
			return
		}
		if !bytes.Equal(h.Encode(), b[:64]) {
			t.Fatalf("%v encodes to % x, decoded from % x", h, h.Encode(), b[:64])
		}
		if h.Validate(int64(h.ImageSize)) != nil {
			return
		}
		entry, ok := h.Entry()
		if !ok || entry < Arm64LoadAddr+Arm64HeaderPage || entry >= Arm64LoadAddr+h.ImageSize {
			t.Fatalf("valid header branches to %#x (%v)", entry, ok)
		}
		if insn, ok := Arm64Branch(Arm64LoadAddr, entry); !ok || insn != h.Code0 {
			t.Fatalf("re-encoding the branch to %#x: %#08x %v, header has %#08x", entry, insn, ok, h.Code0)
		}
	})
}
