// Tests of the user-memory helpers and the alternate-stack rules.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"math/big"
	"testing"
)

// FuzzArrayBytes: arrayBytes is n*size exactly when that fits a uintptr, and refuses otherwise —
// the check every system call that copies an array relies on (gmpos_info with n = 1<<61 and
// 8-byte elements once wrapped to 0 bytes and passed).
func FuzzArrayBytes(f *testing.F) {
	f.Add(uint64(1)<<61, uint64(8))
	f.Add(uint64(1)<<59, uint64(12))
	f.Add(^uint64(0), uint64(1))
	f.Add(uint64(0), ^uint64(0))
	f.Add(uint64(3), uint64(0))
	f.Fuzz(func(t *testing.T, n, size uint64) {
		got, ok := arrayBytes(uintptr(n), uintptr(size))
		want := new(big.Int).Mul(new(big.Int).SetUint64(n), new(big.Int).SetUint64(size))
		fits := want.IsUint64()
		if ok != fits || (ok && uint64(got) != want.Uint64()) {
			t.Fatalf("arrayBytes(%d, %d) = %d, %v; want %v, fits %v", n, size, got, ok, want, fits)
		}
	})
}

// TestAltStack checks the one definition of "on the alternate signal stack" against Linux's
// on_sig_stack and sas_ss_flags: the top address belongs to the stack and the base does not, the
// comparison cannot overflow, a disabled stack has nothing on it, and SS_AUTODISARM answers no.
func TestAltStack(t *testing.T) {
	const base, size = 0x7000_0000, 0x8000
	top := uintptr(base + size)
	for _, c := range []struct {
		name     string
		sp, size uintptr
		spBase   uintptr
		flags    uint32
		on       bool
		ssFlags  uint64
	}{
		{"inside", base + 0x100, size, base, 0, true, ssOnstack},
		{"at the top", top, size, base, 0, true, ssOnstack},
		{"at the base", base, size, base, 0, false, 0},
		{"above", top + 1, size, base, 0, false, 0},
		{"disabled", base + 0x100, 0, 0, ssDisable, false, ssDisable},
		{"autodisarm", base + 0x100, size, base, ssAutodisarm, false, 0},
		// A stack at the very top of the address space: base+size wraps to 0, and a range
		// check written as sp <= base+size would say "not on it".
		{"wrapping", ^uintptr(0) - 0x10, 0x2000, ^uintptr(0) - 0xfff, 0, true, ssOnstack},
	} {
		th := &Thread{altSP: c.spBase, altSize: c.size, altFlags: c.flags}
		if got := onAltStack(th, c.sp); got != c.on {
			t.Errorf("%s: onAltStack = %v, want %v", c.name, got, c.on)
		}
		if got := altStackFlags(th, c.sp); got != c.ssFlags {
			t.Errorf("%s: altStackFlags = %d, want %d", c.name, got, c.ssFlags)
		}
	}
}
