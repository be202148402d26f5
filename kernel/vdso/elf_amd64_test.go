// Tests of the image as a file: ELF structure, symbols and versions, the Go runtime's lookup,
// position independence, and that the committed file is what mkvdso.go generates.
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
	"unsafe"

	"golang.org/x/arch/x86/x86asm"
)

// functions are the exported functions: symbol, weak alias, offset and size in Image.
var functions = []struct {
	name, alias string
	off, size   uint64
}{
	{"__vdso_clock_gettime", "clock_gettime", offClockGettime, sizeClockGettime},
	{"__vdso_gettimeofday", "gettimeofday", offGettimeofday, sizeGettimeofday},
	{"__vdso_time", "time", offTime, sizeTime},
	{"__vdso_clock_getres", "clock_getres", offClockGetres, sizeClockGetres},
}

func openImage(t *testing.T) *elf.File {
	t.Helper()
	f, err := elf.NewFile(strings.NewReader(Image))
	if err != nil {
		t.Fatalf("debug/elf cannot read the image: %v", err)
	}
	return f
}

// TestELFHeaders: an x86-64 shared object of at most one page, loaded whole by one read-only,
// executable PT_LOAD at address 0, with a PT_DYNAMIC inside it.
func TestELFHeaders(t *testing.T) {
	f := openImage(t)
	if f.Class != elf.ELFCLASS64 || f.Data != elf.ELFDATA2LSB || f.Type != elf.ET_DYN || f.Machine != elf.EM_X86_64 {
		t.Errorf("class %v data %v type %v machine %v", f.Class, f.Data, f.Type, f.Machine)
	}
	if len(Image) > PageSize {
		t.Errorf("image is %d bytes, more than a page", len(Image))
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
	if l.Off != 0 || l.Vaddr != 0 || l.Filesz != uint64(len(Image)) || l.Memsz != l.Filesz || l.Flags != elf.PF_R|elf.PF_X {
		t.Errorf("PT_LOAD %+v: want the whole file at 0, R+X", l.ProgHeader)
	}
	if d.Vaddr != d.Off || d.Off+d.Filesz > l.Filesz {
		t.Errorf("PT_DYNAMIC %+v not inside the loaded file", d.ProgHeader)
	}
}

// TestELFDynamic: the dynamic section names the soname and every table, and there is nothing
// to relocate or load besides.
func TestELFDynamic(t *testing.T) {
	f := openImage(t)
	if so, err := f.DynString(elf.DT_SONAME); err != nil || len(so) != 1 || so[0] != "linux-vdso.so.1" {
		t.Errorf("DT_SONAME = %q, %v", so, err)
	}
	for _, tag := range []elf.DynTag{elf.DT_HASH, elf.DT_STRTAB, elf.DT_SYMTAB, elf.DT_VERSYM, elf.DT_VERDEF} {
		if v, err := f.DynValue(tag); err != nil || len(v) != 1 || v[0] == 0 || v[0] >= uint64(len(Image)) {
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

// TestELFSymbols: each function is a global FUNC at version LINUX_2.6 in .text, with a weak alias,
// at the offsets the generator recorded; the versions are the file's base version and LINUX_2.6.
func TestELFSymbols(t *testing.T) {
	f := openImage(t)
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
	for _, fn := range functions {
		for name, bind := range map[string]elf.SymBind{fn.name: elf.STB_GLOBAL, fn.alias: elf.STB_WEAK} {
			s, ok := byName[name]
			switch {
			case !ok:
				t.Errorf("%s: not in .dynsym", name)
			case elf.ST_TYPE(s.Info) != elf.STT_FUNC || elf.ST_BIND(s.Info) != bind:
				t.Errorf("%s: %v %v, want FUNC %v", name, elf.ST_TYPE(s.Info), elf.ST_BIND(s.Info), bind)
			case !s.HasVersion || s.Version != "LINUX_2.6" || s.VersionIndex.Index() != 2:
				t.Errorf("%s: version %q (index %d), want LINUX_2.6 (2)", name, s.Version, s.VersionIndex.Index())
			case s.Value != fn.off || s.Size != fn.size:
				t.Errorf("%s: at %#x size %d, want %#x size %d", name, s.Value, s.Size, fn.off, fn.size)
			case f.Sections[s.Section] != text || s.Value < text.Addr || s.Value+s.Size > text.Addr+text.Size:
				t.Errorf("%s: not inside .text", name)
			}
		}
	}
	if len(syms) != 2*len(functions) {
		t.Errorf("%d dynamic symbols, want %d", len(syms), 2*len(functions))
	}
	vers, err := f.DynamicVersions()
	if err != nil {
		t.Fatal(err)
	}
	if len(vers) != 2 || vers[0].Name != "linux-vdso.so.1" || vers[0].Flags != elf.VER_FLG_BASE || vers[0].Index != 1 ||
		vers[1].Name != "LINUX_2.6" || vers[1].Flags != 0 || vers[1].Index != 2 {
		t.Errorf("versions %+v", vers)
	}
}

// runtimeKeys are the Go runtime's look-ups, with its precomputed hashes
// (runtime/vdso_linux_amd64.go): the version, and name, SysV hash, GNU hash of each symbol.
var runtimeKeys = struct {
	version string
	verHash uint32
	syms    []struct {
		name    string
		symHash uint32
	}
}{"LINUX_2.6", 0x3ae75f6, []struct {
	name    string
	symHash uint32
}{
	{"__vdso_gettimeofday", 0x315ca59},
	{"__vdso_clock_gettime", 0xd35ec75},
	{"__vdso_getrandom", 0x25425d},
}}

// TestRuntimeLookup runs the Go runtime's vDSO parser — vdsoInitFromSysinfoEhdr, vdsoFindVersion
// and vdsoParseSymbols of runtime/vdso_linux.go, transcribed for the DT_HASH case over the
// image's bytes — and checks that it finds __vdso_clock_gettime and __vdso_gettimeofday where
// the symbol table says, and no __vdso_getrandom.
func TestRuntimeLookup(t *testing.T) {
	img := []byte(Image)
	le := binary.LittleEndian
	u16 := func(o uint64) uint16 { return le.Uint16(img[o:]) }
	u32 := func(o uint64) uint32 { return le.Uint32(img[o:]) }
	u64 := func(o uint64) uint64 { return le.Uint64(img[o:]) }
	cstr := func(o uint64) string { return string(img[o : o+uint64(bytes.IndexByte(img[o:], 0))]) }

	// vdsoInitFromSysinfoEhdr: the first PT_LOAD gives the load offset, PT_DYNAMIC the table.
	phoff, phnum := u64(0x20), u16(0x38)
	var loadOffset, dyn uint64
	found := false
	for i := uint64(0); i < uint64(phnum); i++ {
		ph := phoff + i*56
		switch u32(ph) {
		case 1: // PT_LOAD
			if !found {
				found = true
				loadOffset = u64(ph+8) - u64(ph+16) // p_offset - p_vaddr (+ the load address, 0 here)
			}
		case 2: // PT_DYNAMIC
			dyn = u64(ph + 8)
		}
	}
	if !found || dyn == 0 {
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
		if flags&1 == 0 && vdHash == runtimeKeys.verHash && cstr(strtab+uint64(u32(def+uint64(aux)))) == runtimeKeys.version {
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
	want := map[string]uint64{"__vdso_gettimeofday": offGettimeofday, "__vdso_clock_gettime": offClockGettime, "__vdso_getrandom": 0}
	for _, k := range runtimeKeys.syms {
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
		if got != want[k.name] {
			t.Errorf("runtime lookup of %s = %#x, want %#x", k.name, got, want[k.name])
		}
	}
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

// TestPositionIndependent decodes every function: no instruction may name an absolute address
// (memory operands are RIP-relative into the vvar fields, or through a pointer argument),
// every branch must stay inside its function, and no instruction may write a register the C ABI
// tells a callee to preserve (RBX, RBP, RSP, R12–R15) or touch the stack.
func TestPositionIndependent(t *testing.T) {
	img := []byte(Image)
	vvarLo, vvarHi := int64(-PageSize), int64(-PageSize)+int64(unsafe.Sizeof(Data{}))
	preserved := map[x86asm.Reg]bool{}
	for _, r := range []x86asm.Reg{x86asm.RBX, x86asm.EBX, x86asm.BX, x86asm.BL, x86asm.BH,
		x86asm.RBP, x86asm.EBP, x86asm.BP, x86asm.BPB, x86asm.RSP, x86asm.ESP, x86asm.SP, x86asm.SPB,
		x86asm.R12, x86asm.R12L, x86asm.R12W, x86asm.R12B, x86asm.R13, x86asm.R13L, x86asm.R13W, x86asm.R13B,
		x86asm.R14, x86asm.R14L, x86asm.R14W, x86asm.R14B, x86asm.R15, x86asm.R15L, x86asm.R15W, x86asm.R15B} {
		preserved[r] = true
	}
	readsOnly := map[x86asm.Op]bool{x86asm.CMP: true, x86asm.TEST: true, x86asm.BT: true}
	total := 0
	for _, fn := range functions {
		for pc := fn.off; pc < fn.off+fn.size; {
			in, err := x86asm.Decode(img[pc:fn.off+fn.size], 64)
			if err != nil {
				t.Fatalf("%s+%#x: %v", fn.name, pc-fn.off, err)
			}
			next := pc + uint64(in.Len)
			text := x86asm.IntelSyntax(in, pc, nil)
			switch in.Op {
			case x86asm.PUSH, x86asm.POP, x86asm.CALL, x86asm.ENTER, x86asm.LEAVE, x86asm.LCALL, x86asm.LJMP, x86asm.LRET:
				t.Errorf("%s+%#x: %s touches the stack or leaves the function", fn.name, pc-fn.off, text)
			}
			for i, a := range in.Args {
				switch a := a.(type) {
				case x86asm.Mem:
					switch {
					case a.Base == x86asm.RIP:
						// x86asm keeps disp32 zero-extended; the CPU sign-extends it.
						target := int64(next) + int64(int32(a.Disp))
						if target < vvarLo || target >= vvarHi {
							t.Errorf("%s+%#x: %s reaches %#x, outside the vvar fields", fn.name, pc-fn.off, text, target)
						}
					case a.Base == 0 && a.Index == 0:
						t.Errorf("%s+%#x: %s uses an absolute address", fn.name, pc-fn.off, text)
					case a.Segment != 0:
						t.Errorf("%s+%#x: %s uses a segment", fn.name, pc-fn.off, text)
					}
				case x86asm.Rel:
					target := int64(next) + int64(a)
					if target < int64(fn.off) || target >= int64(fn.off+fn.size) {
						t.Errorf("%s+%#x: %s leaves the function", fn.name, pc-fn.off, text)
					}
				case x86asm.Reg:
					if i == 0 && !readsOnly[in.Op] && preserved[a] {
						t.Errorf("%s+%#x: %s writes a callee-saved register", fn.name, pc-fn.off, text)
					}
				}
			}
			if in.Op == x86asm.JMP || in.Op == x86asm.CALL {
				if _, ok := in.Args[0].(x86asm.Rel); !ok {
					t.Errorf("%s+%#x: %s is an indirect branch", fn.name, pc-fn.off, text)
				}
			}
			pc = next
			total++
		}
	}
	if total < 40 {
		t.Errorf("decoded only %d instructions", total)
	}
}

// TestVVarLayout: the code was assembled with Data's field offsets.
func TestVVarLayout(t *testing.T) {
	var d Data
	for _, c := range []struct {
		name     string
		asm, got uintptr
	}{
		{"seq", asmSeq, unsafe.Offsetof(d.seq)},
		{"mode", asmMode, unsafe.Offsetof(d.mode)},
		{"cycles0", asmCycles0, unsafe.Offsetof(d.cycles0)},
		{"mult", asmMult, unsafe.Offsetof(d.mult)},
		{"realBase", asmRealbase, unsafe.Offsetof(d.realBase)},
		{"coarseRes", asmCoarseres, unsafe.Offsetof(d.coarseRes)},
	} {
		if c.asm != c.got {
			t.Errorf("Data.%s is at %d, the code reads it at %d: change mkvdso.go's vvarFields and regenerate", c.name, c.got, c.asm)
		}
	}
}

// TestGenerated regenerates the image and fails if the committed zvdso_amd64.go differs: edit
// mkvdso.go, then run go generate ./kernel/vdso.
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	out := filepath.Join(t.TempDir(), "zvdso_amd64.go")
	cmd := exec.Command("go", "run", "mkvdso.go", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run mkvdso.go: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("zvdso_amd64.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, have) {
		t.Fatal("zvdso_amd64.go is stale: run go generate ./kernel/vdso")
	}
}
