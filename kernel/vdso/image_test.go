// Tests of what the two images share: their ELF structure and the Go runtime's look-up of the
// clock functions, checked for either image, and that the committed files are what the
// generator writes.
// SPDX-License-Identifier: BSD-3-Clause

package vdso

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// openImage reads img with debug/elf, as a program inspecting its vDSO would.
func openImage(t *testing.T, img string) *elf.File {
	t.Helper()
	f, err := elf.NewFile(strings.NewReader(img))
	if err != nil {
		t.Fatalf("debug/elf cannot read the image: %v", err)
	}
	return f
}

// checkELFHeaders: img is a shared object for machine, of at most one page, loaded whole by one
// read-only, executable PT_LOAD at address 0, with a PT_DYNAMIC inside it.
func checkELFHeaders(t *testing.T, img string, machine elf.Machine) {
	t.Helper()
	f := openImage(t, img)
	if f.Class != elf.ELFCLASS64 || f.Data != elf.ELFDATA2LSB || f.Type != elf.ET_DYN || f.Machine != machine {
		t.Errorf("class %v data %v type %v machine %v", f.Class, f.Data, f.Type, f.Machine)
	}
	if len(img) > PageSize {
		t.Errorf("image is %d bytes, more than a page", len(img))
	}
	var load, dyn []*elf.Prog
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_LOAD:
			load = append(load, p)
		case elf.PT_DYNAMIC:
			dyn = append(dyn, p)
		}
		if p.Flags&elf.PF_W != 0 {
			t.Errorf("%v segment is writable", p.Type)
		}
	}
	if len(load) != 1 || len(dyn) != 1 {
		t.Fatalf("%d PT_LOAD and %d PT_DYNAMIC, want one each", len(load), len(dyn))
	}
	l, d := load[0], dyn[0]
	if l.Off != 0 || l.Vaddr != 0 || l.Filesz != uint64(len(img)) || l.Memsz != l.Filesz || l.Flags != elf.PF_R|elf.PF_X {
		t.Errorf("PT_LOAD %+v: want the whole file at 0, R+X", l.ProgHeader)
	}
	if d.Vaddr != d.Off || d.Off+d.Filesz > l.Filesz {
		t.Errorf("PT_DYNAMIC %+v not inside the loaded file", d.ProgHeader)
	}
}

// checkELFDynamic: img's dynamic section names the soname and every table, and there is
// nothing to relocate or load besides.
func checkELFDynamic(t *testing.T, img string) {
	t.Helper()
	f := openImage(t, img)
	if so, err := f.DynString(elf.DT_SONAME); err != nil || len(so) != 1 || so[0] != "linux-vdso.so.1" {
		t.Errorf("DT_SONAME = %q, %v", so, err)
	}
	for _, tag := range []elf.DynTag{elf.DT_HASH, elf.DT_STRTAB, elf.DT_SYMTAB, elf.DT_VERSYM, elf.DT_VERDEF} {
		if v, err := f.DynValue(tag); err != nil || len(v) != 1 || v[0] == 0 || v[0] >= uint64(len(img)) {
			t.Errorf("%v = %v, %v: want one address in the image", tag, v, err)
		}
	}
	for _, tag := range []elf.DynTag{elf.DT_NEEDED, elf.DT_REL, elf.DT_RELA, elf.DT_JMPREL, elf.DT_TEXTREL, elf.DT_INIT, elf.DT_FINI} {
		if v, _ := f.DynValue(tag); len(v) != 0 {
			t.Errorf("%v present: the vDSO needs no loader work", tag)
		}
	}
	for _, s := range f.Sections {
		if s.Type == elf.SHT_REL || s.Type == elf.SHT_RELA {
			t.Errorf("relocation section %s", s.Name)
		}
	}
}

// wantSym is a symbol img must export: a FUNC in .text, at version 2.
type wantSym struct {
	name      string
	bind      elf.SymBind
	off, size uint64
}

// checkELFSymbols: img exports exactly want, each at version, and defines two versions: the
// file's base version (the soname) and version.
func checkELFSymbols(t *testing.T, img, version string, want []wantSym) {
	t.Helper()
	f := openImage(t, img)
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]elf.Symbol{}
	for _, s := range syms {
		byName[s.Name] = s
	}
	text := f.Section(".text")
	if text == nil {
		t.Fatal("no .text")
	}
	for _, w := range want {
		s, ok := byName[w.name]
		switch {
		case !ok:
			t.Errorf("%s: not in .dynsym", w.name)
		case elf.ST_TYPE(s.Info) != elf.STT_FUNC || elf.ST_BIND(s.Info) != w.bind:
			t.Errorf("%s: %v %v, want FUNC %v", w.name, elf.ST_TYPE(s.Info), elf.ST_BIND(s.Info), w.bind)
		case !s.HasVersion || s.Version != version || s.VersionIndex.Index() != 2:
			t.Errorf("%s: version %q (index %d), want %s (2)", w.name, s.Version, s.VersionIndex.Index(), version)
		case s.Value != w.off || s.Size != w.size:
			t.Errorf("%s: at %#x size %d, want %#x size %d", w.name, s.Value, s.Size, w.off, w.size)
		case f.Sections[s.Section] != text || s.Value < text.Addr || s.Value+s.Size > text.Addr+text.Size:
			t.Errorf("%s: not inside .text", w.name)
		}
	}
	if len(syms) != len(want) {
		t.Errorf("%d dynamic symbols, want %d", len(syms), len(want))
	}
	vers, err := f.DynamicVersions()
	if err != nil {
		t.Fatal(err)
	}
	if len(vers) != 2 || vers[0].Name != "linux-vdso.so.1" || vers[0].Flags != elf.VER_FLG_BASE || vers[0].Index != 1 ||
		vers[1].Name != version || vers[1].Flags != 0 || vers[1].Index != 2 {
		t.Errorf("versions %+v", vers)
	}
}

// runtimeKeys are the Go runtime's look-ups on one architecture, with its precomputed hashes
// (runtime/vdso_linux_<arch>.go): the version, and each symbol's name and SysV hash.
type runtimeKeys struct {
	version string
	verHash uint32
	syms    []runtimeSym
}

type runtimeSym struct {
	name    string
	symHash uint32
}

// runtimeLookup runs the Go runtime's vDSO parser — vdsoInitFromSysinfoEhdr, vdsoFindVersion
// and vdsoParseSymbols of runtime/vdso_linux.go, transcribed for the DT_HASH case — over img,
// and returns where it finds each of keys' symbols (0: not found). It fails the test unless
// the version is definition 2, as the generator writes it.
func runtimeLookup(t *testing.T, img []byte, keys runtimeKeys) map[string]uint64 {
	t.Helper()
	le := binary.LittleEndian
	u16 := func(o uint64) uint16 { return le.Uint16(img[o:]) }
	u32 := func(o uint64) uint32 { return le.Uint32(img[o:]) }
	u64 := func(o uint64) uint64 { return le.Uint64(img[o:]) }
	cstr := func(o uint64) string { return string(img[o : o+uint64(bytes.IndexByte(img[o:], 0))]) }

	// vdsoInitFromSysinfoEhdr: the first PT_LOAD gives the load offset, PT_DYNAMIC the table.
	phoff, phnum := u64(0x20), u16(0x38)
	var loadOffset, dyn uint64
	loaded := false
	for i := uint64(0); i < uint64(phnum); i++ {
		ph := phoff + i*56
		switch u32(ph) {
		case 1: // PT_LOAD
			if !loaded {
				loaded = true
				loadOffset = u64(ph+8) - u64(ph+16) // p_offset - p_vaddr (+ the load address, 0 here)
			}
		case 2: // PT_DYNAMIC
			dyn = u64(ph + 8)
		}
	}
	if !loaded || dyn == 0 {
		t.Fatal("no PT_LOAD or PT_DYNAMIC")
	}
	var strtab, symtab, hash, versym, verdef uint64
	for d := dyn; u64(d) != 0; d += 16 {
		p := loadOffset + u64(d+8)
		switch u64(d) {
		case 5:
			strtab = p
		case 6:
			symtab = p
		case 4:
			hash = p
		case 0x6ffffff0:
			versym = p
		case 0x6ffffffc:
			verdef = p
		}
	}
	if strtab == 0 || symtab == 0 || hash == 0 || versym == 0 || verdef == 0 {
		t.Fatalf("dynamic table: strtab %#x symtab %#x hash %#x versym %#x verdef %#x", strtab, symtab, hash, versym, verdef)
	}
	nbucket, nchain := u32(hash), u32(hash+4)
	bucket := func(i uint32) uint32 { return u32(hash + 8 + 4*uint64(i)) }
	chain := func(i uint32) uint32 { return u32(hash + 8 + 4*uint64(nbucket) + 4*uint64(i)) }

	// vdsoFindVersion.
	version := int32(-1)
	for def := verdef; ; {
		flags, ndx, vdHash, aux, next := u16(def+2), u16(def+4), u32(def+8), u32(def+12), u32(def+16)
		if flags&1 == 0 && vdHash == keys.verHash && cstr(strtab+uint64(u32(def+uint64(aux)))) == keys.version {
			version = int32(ndx & 0x7fff)
			break
		}
		if next == 0 {
			break
		}
		def += uint64(next)
	}
	if version != 2 {
		t.Fatalf("vdsoFindVersion = %d, want 2", version)
	}

	// vdsoParseSymbols, DT_HASH branch.
	found := map[string]uint64{}
	for _, k := range keys.syms {
		if h := elfHashForTest(k.name); h != k.symHash {
			t.Errorf("SysV hash of %s = %#x, runtime has %#x", k.name, h, k.symHash)
		}
		var got uint64
		for c := bucket(k.symHash % nbucket); c != 0; c = chain(c) {
			if c >= nchain {
				t.Fatalf("chain index %d out of range %d", c, nchain)
			}
			s := symtab + 24*uint64(c)
			info, shndx := img[s+4], u16(s+6)
			typ, bind := info&0xf, info>>4
			if typ != 2 && typ != 0 || bind != 1 && bind != 2 || shndx == 0 {
				continue
			}
			if cstr(strtab+uint64(u32(s))) != k.name {
				continue
			}
			if int32(u16(versym+2*uint64(c))&0x7fff) != version {
				continue
			}
			got = loadOffset + u64(s+8)
			break
		}
		found[k.name] = got
	}
	return found
}

// elfHashForTest is the gABI hash, written again here (mkvdso.go has the one that built the file).
func elfHashForTest(name string) uint32 {
	var h uint32
	for _, c := range []byte(name) {
		h = h<<4 + uint32(c)
		if g := h & 0xf0000000; g != 0 {
			h ^= g >> 24
			h &^= g
		}
	}
	return h
}

// TestGenerated regenerates both images and fails if a committed zvdso_<arch>.go differs: edit
// mkvdso.go or mkvdso_arm64prog.go, then run go generate ./kernel/vdso.
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "mkvdso.go", "mkvdso_arm64prog.go", "-dir", dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run mkvdso.go mkvdso_arm64prog.go: %v\n%s", err, b)
	}
	for _, name := range []string{"zvdso_amd64.go", "zvdso_arm64.go"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, have) {
			t.Errorf("%s is stale: run go generate ./kernel/vdso", name)
		}
	}
}
