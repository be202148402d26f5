// Tests of the time calls' pure logic: a timespec's value.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "testing"

// TestTimespecNS: valid timespecs convert exactly; a negative field or a tv_nsec of a second or
// more is invalid (EINVAL for the caller), as Linux's timespec64_valid says; huge seconds clamp.
func TestTimespecNS(t *testing.T) {
	for _, c := range []struct {
		sec, nsec int64
		want      int64
		ok        bool
	}{
		{0, 0, 0, true},
		{0, 3000, 3000, true},
		{2, 999_999_999, 2_999_999_999, true},
		{0, 1_000_000_000, 0, false},
		{-1, 0, 0, false},
		{0, -1, 0, false},
		{1 << 62, 5, (1<<62)/1_000_000_000*1_000_000_000 + 5, true},
	} {
		if got, ok := timespecNS(c.sec, c.nsec); got != c.want || ok != c.ok {
			t.Errorf("timespecNS(%d, %d) = %d, %v; want %d, %v", c.sec, c.nsec, got, ok, c.want, c.ok)
		}
	}
}

// FuzzTimespecNS: for any two 64-bit words a program may pass (the nanosleep path without the
// BKL reads them raw), the result is invalid exactly when Linux says so, and otherwise a
// non-negative value below 2^62 + 1 s that a deadline can add to the clock without overflow.
func FuzzTimespecNS(f *testing.F) {
	f.Add(int64(0), int64(1))
	f.Add(int64(-1), int64(0))
	f.Add(int64(1<<62), int64(999_999_999))
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		ns, ok := timespecNS(sec, nsec)
		valid := sec >= 0 && nsec >= 0 && nsec < 1e9
		if ok != valid {
			t.Fatalf("timespecNS(%d, %d): ok %v, want %v", sec, nsec, ok, valid)
		}
		if ok && (ns < 0 || ns >= 1<<62+1e9 || sec < 1<<30 && ns != sec*1e9+nsec) {
			t.Fatalf("timespecNS(%d, %d) = %d", sec, nsec, ns)
		}
	})
}
