// Hosted test: LoadUser32's and CopyUser's normal paths, the exception table's instructions, and
// FixupUserAccess's frame rewrite.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

import (
	"testing"
	"unsafe"

	"golang.org/x/arch/x86/x86asm"
)

// TestLoadUser32 reads words of this process's memory: in a hosted process every address is a
// user address, so the load cannot fault and LoadUser32 must return the word and ok.
func TestLoadUser32(t *testing.T) {
	words := []uint32{0, 1, 0x8000_0000, 0xdead_beef, 0xffff_ffff}
	for i := range words {
		v, ok := LoadUser32(uintptr(unsafe.Pointer(&words[i])))
		if v != words[i] || !ok {
			t.Errorf("LoadUser32(&%#x) = %#x, %v; want %#x, true", words[i], v, ok, words[i])
		}
	}
}

// TestLoadUser32Fail calls the failure exit directly: with the argument frame of a call it must
// report nothing read, as it does when a fault resumes it in LoadUser32's place.
func TestLoadUser32Fail(t *testing.T) {
	var w uint32 = 7
	if v, ok := loadUser32Fail(uintptr(unsafe.Pointer(&w))); v != 0 || ok {
		t.Errorf("loadUser32Fail = %#x, %v; want 0, false", v, ok)
	}
}

// TestCopyUser copies between buffers of this process (every address a user address: nothing
// faults) at every length from 0 to 40 and every misalignment: the words and the bytes after
// them must all arrive, and nothing past n.
func TestCopyUser(t *testing.T) {
	var src, dst [64]byte
	for i := range src {
		src[i] = byte(i + 1)
	}
	for off := 0; off < 8; off++ {
		for n := 0; n <= 40; n++ {
			dst = [64]byte{}
			if !CopyUser(uintptr(unsafe.Pointer(&dst[off])), uintptr(unsafe.Pointer(&src[8-off])), uintptr(n)) {
				t.Fatalf("CopyUser(n=%d) failed", n)
			}
			for i := range dst {
				want := byte(0)
				if i >= off && i < off+n {
					want = src[8-off+i-off]
				}
				if dst[i] != want {
					t.Fatalf("off %d, n %d: dst[%d] = %d, want %d", off, n, i, dst[i], want)
				}
			}
		}
	}
}

// TestCopyUserFail calls the failure exit directly: with the argument frame of a call it must
// report the copy failed, as it does when a fault resumes it in CopyUser's place.
func TestCopyUserFail(t *testing.T) {
	var a, b [8]byte
	if copyUserFail(uintptr(unsafe.Pointer(&a)), uintptr(unsafe.Pointer(&b)), 8) {
		t.Error("copyUserFail reports success")
	}
}

// TestFixupTable checks what FixupUserAccess relies on: the linker filled in the exception table
// (uaccess_amd64.s), and each entry's instruction is the user access it stands for — LoadUser32's
// 32-bit load through RAX, CopyUser's REP MOVSQ and REP MOVSB — so a fault there has exactly that
// RIP; each failure exit is a different address.
func TestFixupTable(t *testing.T) {
	want := []struct {
		name string
		ok   func(x86asm.Inst) bool
	}{
		{"a 32-bit MOV from [RAX]", func(inst x86asm.Inst) bool {
			mem, isMem := inst.Args[1].(x86asm.Mem)
			return inst.Op == x86asm.MOV && inst.MemBytes == 4 && isMem && mem.Base == x86asm.RAX && mem.Index == 0 && mem.Disp == 0
		}},
		{"REP MOVSQ", func(inst x86asm.Inst) bool { return inst.Op == x86asm.MOVSQ && inst.Prefix[0]&0xff == x86asm.PrefixREP }},
		{"REP MOVSB", func(inst x86asm.Inst) bool { return inst.Op == x86asm.MOVSB && inst.Prefix[0]&0xff == x86asm.PrefixREP }},
	}
	for i, e := range fixups {
		if e[0] == 0 || e[1] == 0 || e[0] == e[1] {
			t.Fatalf("entry %d: %#x → %#x", i, e[0], e[1])
		}
		// Code, not Go memory: the word is read as the pointer it is, which go vet's unsafeptr
		// check accepts where it would reject a uintptr conversion.
		code := unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&fixups[i][0]))), 16)
		inst, err := x86asm.Decode(code, 64)
		if err != nil {
			t.Fatalf("entry %d: decoding % x: %v", i, code, err)
		}
		if !want[i].ok(inst) {
			t.Errorf("entry %d's instruction is %v (% x), want %s", i, x86asm.GoSyntax(inst, uint64(e[0]), nil), code[:inst.Len], want[i].name)
		}
	}
}

// TestFixupUserAccess feeds FixupUserAccess frames as trapCommon builds them: only a kernel-mode
// #PF or #GP at the load is fixed, and the fixed frame resumes at the failure exit, every other
// register as it was.
func TestFixupUserAccess(t *testing.T) {
	for _, e := range fixups {
		testFixup(t, e[0], e[1])
	}
}

func testFixup(t *testing.T, insn, fail uintptr) {
	fault := Frame{Vector: VecPage, Err: 0, IP: uint64(insn), CS: KernelCS, SS: KernelDS,
		SP: 0x1000, AX: 0x4000, BP: 0x2000, Flags: flagsFixed}
	cases := []struct {
		name  string
		edit  func(*Frame)
		fixed bool
	}{
		{"#PF at the load", func(*Frame) {}, true},
		{"#GP at the load", func(f *Frame) { f.Vector = VecGP }, true},
		{"#PF from user mode", func(f *Frame) { f.CS, f.SS = UserCS, UserDS }, false},
		{"#PF elsewhere", func(f *Frame) { f.IP++ }, false},
		{"#PF at the failure exit", func(f *Frame) { f.IP = uint64(fail) }, false},
		{"#UD at the load", func(f *Frame) { f.Vector = VecInvalidOp }, false},
		{"interrupt at the load", func(f *Frame) { f.Vector = vecTimer }, false},
	}
	for _, c := range cases {
		f := fault
		c.edit(&f)
		want := f
		if c.fixed {
			want.IP = uint64(fail)
		}
		n := UserFixups()
		got := FixupUserAccess(&f)
		if got != c.fixed || f != want {
			t.Errorf("%#x: %s: FixupUserAccess = %v, frame %+v; want %v, frame %+v", insn, c.name, got, f, c.fixed, want)
		}
		if d := UserFixups() - n; (d == 1) != c.fixed || d > 1 {
			t.Errorf("%s: UserFixups went up by %d", c.name, d)
		}
	}
}
