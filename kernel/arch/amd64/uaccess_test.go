// Hosted test: LoadUser32's normal path, and FixupUserAccess's frame rewrite.
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

// TestLoadUser32Insn checks what FixupUserAccess relies on: the linker filled in both addresses
// (uaccess_amd64.s), and the instruction at loadUser32InsnPC is the user load — a 32-bit load
// through RAX — so a fault there has exactly that RIP.
func TestLoadUser32Insn(t *testing.T) {
	if loadUser32InsnPC == 0 || loadUser32FailPC == 0 || loadUser32InsnPC == loadUser32FailPC {
		t.Fatalf("loadUser32InsnPC = %#x, loadUser32FailPC = %#x", loadUser32InsnPC, loadUser32FailPC)
	}
	// Code, not Go memory: the word is read as the pointer it is, which go vet's unsafeptr check
	// accepts where it would reject a uintptr conversion.
	code := unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&loadUser32InsnPC))), 16)
	inst, err := x86asm.Decode(code, 64)
	if err != nil {
		t.Fatalf("decoding % x: %v", code, err)
	}
	mem, isMem := inst.Args[1].(x86asm.Mem)
	if inst.Op != x86asm.MOV || inst.MemBytes != 4 || !isMem || mem.Base != x86asm.RAX || mem.Index != 0 || mem.Disp != 0 {
		t.Errorf("first instruction of loadUser32Insn is %v (% x), want a 32-bit MOV from [RAX]",
			x86asm.GoSyntax(inst, uint64(loadUser32InsnPC), nil), code[:inst.Len])
	}
}

// TestFixupUserAccess feeds FixupUserAccess frames as trapCommon builds them: only a kernel-mode
// #PF or #GP at the load is fixed, and the fixed frame resumes at the failure exit, every other
// register as it was.
func TestFixupUserAccess(t *testing.T) {
	fault := Frame{Vector: VecPage, Err: 0, IP: uint64(loadUser32InsnPC), CS: KernelCS, SS: KernelDS,
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
		{"#PF at the failure exit", func(f *Frame) { f.IP = uint64(loadUser32FailPC) }, false},
		{"#UD at the load", func(f *Frame) { f.Vector = VecInvalidOp }, false},
		{"interrupt at the load", func(f *Frame) { f.Vector = vecTimer }, false},
	}
	for _, c := range cases {
		f := fault
		c.edit(&f)
		want := f
		if c.fixed {
			want.IP = uint64(loadUser32FailPC)
		}
		n := UserFixups()
		got := FixupUserAccess(&f)
		if got != c.fixed || f != want {
			t.Errorf("%s: FixupUserAccess = %v, frame %+v; want %v, frame %+v", c.name, got, f, c.fixed, want)
		}
		if d := UserFixups() - n; (d == 1) != c.fixed || d > 1 {
			t.Errorf("%s: UserFixups went up by %d", c.name, d)
		}
	}
}
