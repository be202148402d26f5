// Tests of the arm64 image as a file, on any host: ELF structure, symbols and versions, the Go
// runtime's lookup, every instruction decoded and position independent, the vvar layout.
// SPDX-License-Identifier: BSD-3-Clause

package vdso

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
	"unsafe"

	"golang.org/x/arch/arm64/arm64asm"
)

// zvdso_arm64.go is compiled only for arm64, and the hosts these tests run on are mostly x86-64,
// so the tests read its constants from the source: go/types evaluates them exactly as the
// compiler would. (For the same reason this file's name does not end in _arm64_test.go.)
func arm64Consts(t *testing.T) map[string]constant.Value {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "zvdso_arm64.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := new(types.Config).Check("vdso", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]constant.Value{}
	for _, name := range pkg.Scope().Names() {
		if c, ok := pkg.Scope().Lookup(name).(*types.Const); ok {
			consts[name] = c.Val()
		}
	}
	return consts
}

// arm64Image is the arm64 Image, and u the value of one of the file's integer constants.
func arm64Image(t *testing.T) (img string, u func(name string) uint64) {
	t.Helper()
	consts := arm64Consts(t)
	u = func(name string) uint64 {
		v, ok := consts[name]
		if !ok || v.Kind() != constant.Int {
			t.Fatalf("zvdso_arm64.go has no integer constant %s", name)
		}
		n, _ := constant.Uint64Val(v)
		return n
	}
	if v, ok := consts["Image"]; !ok || v.Kind() != constant.String {
		t.Fatal("zvdso_arm64.go has no string constant Image")
	}
	return constant.StringVal(consts["Image"]), u
}

// arm64Functions are the exported functions, as Linux's arch/arm64/kernel/vdso/vdso.lds.S has
// them, the generated constants' name, and the system call each may fall back to.
var arm64Functions = []struct {
	name, id string
	nr       int
}{
	{"__kernel_clock_gettime", "ClockGettime", 113},
	{"__kernel_gettimeofday", "Gettimeofday", 169},
	{"__kernel_clock_getres", "ClockGetres", 114},
	{"__kernel_rt_sigreturn", "RtSigreturn", 139},
}

// TestARM64ELF: an AArch64 shared object of at most one page, loaded whole at 0, with nothing to
// relocate, exporting exactly the four functions, global, at LINUX_2.6.39 and where the
// generated constants say; SigreturnOffset is __kernel_rt_sigreturn's address.
func TestARM64ELF(t *testing.T) {
	img, u := arm64Image(t)
	checkELFHeaders(t, img, elf.EM_AARCH64)
	checkELFDynamic(t, img)
	var want []wantSym
	for _, fn := range arm64Functions {
		want = append(want, wantSym{fn.name, elf.STB_GLOBAL, u("off" + fn.id), u("size" + fn.id)})
	}
	checkELFSymbols(t, img, "LINUX_2.6.39", want)
	if u("SigreturnOffset") != u("offRtSigreturn") || u("SigreturnOffset") == 0 {
		t.Errorf("SigreturnOffset = %#x, __kernel_rt_sigreturn is at %#x", u("SigreturnOffset"), u("offRtSigreturn"))
	}
}

// arm64Keys are the Go runtime's look-ups on arm64 (runtime/vdso_linux_arm64.go).
var arm64Keys = runtimeKeys{"LINUX_2.6.39", 0x75fcb89, []runtimeSym{
	{"__kernel_clock_gettime", 0xb0cd725},
	{"__kernel_getrandom", 0x9800c0d},
}}

// TestARM64RuntimeLookup: the Go runtime's parser finds __kernel_clock_gettime where the symbol
// table says, and no __kernel_getrandom (it then makes the getrandom system call).
func TestARM64RuntimeLookup(t *testing.T) {
	img, u := arm64Image(t)
	got := runtimeLookup(t, []byte(img), arm64Keys)
	if got["__kernel_clock_gettime"] != u("offClockGettime") || got["__kernel_getrandom"] != 0 {
		t.Errorf("runtime lookup: %#x, want __kernel_clock_gettime at %#x and no __kernel_getrandom", got, u("offClockGettime"))
	}
}

// a64RegNum is the number of a general-purpose register operand (31: the zero register, or SP
// for a RegSP) and whether a is one.
func a64RegNum(a arm64asm.Arg) (n int, sp, ok bool) {
	switch r := a.(type) {
	case arm64asm.Reg:
		switch {
		case r <= arm64asm.WZR:
			return int(r - arm64asm.W0), false, true
		case r >= arm64asm.X0 && r <= arm64asm.XZR:
			return int(r - arm64asm.X0), false, true
		}
	case arm64asm.RegSP:
		n, _, ok := a64RegNum(arm64asm.Reg(r))
		return n, n == 31, ok
	}
	return 0, false, false
}

// a64NoDest are the instructions used here whose first operand is not written.
var a64NoDest = map[arm64asm.Op]bool{
	arm64asm.STR: true, arm64asm.STP: true, arm64asm.CMP: true, arm64asm.CBZ: true,
	arm64asm.CBNZ: true, arm64asm.TBZ: true, arm64asm.TBNZ: true, arm64asm.B: true,
	arm64asm.RET: true, arm64asm.SVC: true, arm64asm.ISB: true, arm64asm.DMB: true,
	arm64asm.YIELD: true,
}

// TestARM64Code decodes every function: every word must be an instruction; a PC-relative
// operand must reach inside its function (a branch) or a vvar field (ADR, a literal load) and
// nothing else; no instruction may write a register other than x0–x17 (AAPCS64: x18 is the
// platform's, x19–x29 and SP the caller's — the Go runtime keeps g in x28 and its state in
// x20–x22 across the call), touch the stack or leave the function but by RET; each SVC is the
// function's own system call, its number moved into x8 just before. __kernel_rt_sigreturn is
// exactly Linux's two words, which unwinders match.
func TestARM64Code(t *testing.T) {
	img, u := arm64Image(t)
	vvarLo, vvarHi := int64(-PageSize), int64(-PageSize)+int64(unsafe.Sizeof(Data{}))
	total := 0
	for _, fn := range arm64Functions {
		off, size := u("off"+fn.id), u("size"+fn.id)
		prev := ""
		for pc := off; pc < off+size; pc += 4 {
			in, err := arm64asm.Decode([]byte(img[pc : pc+4]))
			if err != nil {
				t.Fatalf("%s+%#x: %08x: %v", fn.name, pc-off, binary.LittleEndian.Uint32([]byte(img[pc:])), err)
			}
			text := arm64asm.GNUSyntax(in)
			switch in.Op {
			case arm64asm.BL, arm64asm.BLR, arm64asm.BR, arm64asm.ADRP:
				t.Errorf("%s+%#x: %s leaves the function or depends on its page", fn.name, pc-off, text)
			case arm64asm.RET:
				if n, _, _ := a64RegNum(in.Args[0]); n != 30 {
					t.Errorf("%s+%#x: %s returns elsewhere than x30", fn.name, pc-off, text)
				}
			case arm64asm.SVC:
				if want := fmt.Sprintf("mov x8, #%#x", fn.nr); prev != want {
					t.Errorf("%s+%#x: svc after %q, want %q", fn.name, pc-off, prev, want)
				}
			}
			for i, a := range in.Args {
				if a == nil {
					break
				}
				switch a := a.(type) {
				case arm64asm.PCRel:
					target := int64(pc) + int64(a)
					switch in.Op {
					case arm64asm.ADR, arm64asm.LDR:
						if target < vvarLo || target >= vvarHi {
							t.Errorf("%s+%#x: %s reaches %#x, outside the vvar fields", fn.name, pc-off, text, target)
						}
					default:
						if target < int64(off) || target >= int64(off+size) {
							t.Errorf("%s+%#x: %s leaves the function", fn.name, pc-off, text)
						}
					}
				case arm64asm.MemImmediate:
					if n, sp, _ := a64RegNum(a.Base); sp || n == 29 {
						t.Errorf("%s+%#x: %s uses the stack", fn.name, pc-off, text)
					}
				case arm64asm.MemExtend:
					if n, sp, _ := a64RegNum(a.Base); sp || n == 29 {
						t.Errorf("%s+%#x: %s uses the stack", fn.name, pc-off, text)
					}
				default:
					n, sp, ok := a64RegNum(a)
					if ok && sp {
						t.Errorf("%s+%#x: %s uses SP", fn.name, pc-off, text)
					}
					if ok && i == 0 && !a64NoDest[in.Op] && n > 17 && n != 31 {
						t.Errorf("%s+%#x: %s writes x%d, which the caller keeps", fn.name, pc-off, text, n)
					}
				}
			}
			prev = text
			total++
		}
	}
	if total < 80 {
		t.Errorf("decoded only %d instructions", total)
	}
	sig := u("SigreturnOffset")
	if w0, w1 := binary.LittleEndian.Uint32([]byte(img[sig:])), binary.LittleEndian.Uint32([]byte(img[sig+4:])); w0 != 0xd2801168 || w1 != 0xd4000001 {
		t.Errorf("__kernel_rt_sigreturn is %08x %08x, want d2801168 d4000001 (mov x8, #139; svc #0)", w0, w1)
	}
}

// TestARM64VVarLayout: the arm64 code was assembled with Data's field offsets.
func TestARM64VVarLayout(t *testing.T) {
	_, u := arm64Image(t)
	var d Data
	for _, c := range []struct {
		name, asm string
		got       uintptr
	}{
		{"seq", "asmSeq", unsafe.Offsetof(d.seq)},
		{"mode", "asmMode", unsafe.Offsetof(d.mode)},
		{"cycles0", "asmCycles0", unsafe.Offsetof(d.cycles0)},
		{"mult", "asmMult", unsafe.Offsetof(d.mult)},
		{"realBase", "asmRealbase", unsafe.Offsetof(d.realBase)},
		{"coarseRes", "asmCoarseres", unsafe.Offsetof(d.coarseRes)},
	} {
		if uintptr(u(c.asm)) != c.got {
			t.Errorf("Data.%s is at %d, the arm64 code reads it at %d: change mkvdso.go's vvarFields and regenerate", c.name, c.got, u(c.asm))
		}
	}
}
