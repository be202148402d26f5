// Tests of the x86-64 image as a file: ELF structure, symbols and versions, the Go runtime's
// lookup, position independence.
// SPDX-License-Identifier: BSD-3-Clause

package vdso

import (
	"debug/elf"
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

// TestELFHeaders: an x86-64 shared object of at most one page, loaded whole by one read-only,
// executable PT_LOAD at address 0, with a PT_DYNAMIC inside it.
func TestELFHeaders(t *testing.T) { checkELFHeaders(t, Image, elf.EM_X86_64) }

// TestELFDynamic: the dynamic section names the soname and every table, and there is nothing
// to relocate or load besides.
func TestELFDynamic(t *testing.T) { checkELFDynamic(t, Image) }

// TestELFSymbols: each function is a global FUNC at version LINUX_2.6 in .text, with a weak alias,
// at the offsets the generator recorded; the versions are the file's base version and LINUX_2.6.
func TestELFSymbols(t *testing.T) {
	var want []wantSym
	for _, fn := range functions {
		want = append(want, wantSym{fn.name, elf.STB_GLOBAL, fn.off, fn.size}, wantSym{fn.alias, elf.STB_WEAK, fn.off, fn.size})
	}
	checkELFSymbols(t, Image, "LINUX_2.6", want)
}

// amd64Keys are the Go runtime's look-ups on x86-64 (runtime/vdso_linux_amd64.go).
var amd64Keys = runtimeKeys{"LINUX_2.6", 0x3ae75f6, []runtimeSym{
	{"__vdso_gettimeofday", 0x315ca59},
	{"__vdso_clock_gettime", 0xd35ec75},
	{"__vdso_getrandom", 0x25425d},
}}

// TestRuntimeLookup runs the Go runtime's vDSO parser over the image (runtimeLookup) and checks
// that it finds __vdso_clock_gettime and __vdso_gettimeofday where the symbol table says, and no
// __vdso_getrandom.
func TestRuntimeLookup(t *testing.T) {
	got := runtimeLookup(t, []byte(Image), amd64Keys)
	want := map[string]uint64{"__vdso_gettimeofday": offGettimeofday, "__vdso_clock_gettime": offClockGettime, "__vdso_getrandom": 0}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("runtime lookup of %s = %#x, want %#x", name, got[name], w)
		}
	}
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
