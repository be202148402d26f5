// Tests of the vvar page in Go: the formula, the writer and the reader.
// SPDX-License-Identifier: BSD-3-Clause

package vdso

import (
	"math/big"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
)

// TestMonotonicFormula: Clock.Monotonic is (cycles - Cycles0) * Mult >> 32, computed exactly
// (mod 2^64, as the kernel's nanotime and the machine code do) for any 64-bit values.
func TestMonotonicFormula(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(1))
	for i := 0; i < 10000; i++ {
		c := Clock{Cycles0: r.Uint64(), Mult: r.Uint64() >> uint(r.Intn(64))}
		cycles := r.Uint64()
		d := new(big.Int).SetUint64(cycles - c.Cycles0)
		want := d.Mul(d, new(big.Int).SetUint64(c.Mult))
		want.Rsh(want, 32).And(want, mask)
		if got := uint64(c.Monotonic(cycles)); got != want.Uint64() {
			t.Fatalf("%+v at %d: %d, want %d", c, cycles, got, want.Uint64())
		}
	}
	c := Clock{Cycles0: 100, Mult: (1e9 << 32) / 2e9, RealBase: 1e18} // 2 GHz
	if c.Monotonic(100+2e9) != 1e9 || c.Realtime(100+2e9) != 1e18+1e9 {
		t.Errorf("2e9 cycles at 2 GHz: %d, %d", c.Monotonic(100+2e9), c.Realtime(100+2e9))
	}
}

// TestPublishRead: what Publish writes, Read returns; each Publish moves the counter on by 2
// and leaves it even.
func TestPublishRead(t *testing.T) {
	var d Data
	if d.Read() != (Clock{}) || d.Read().Mode != ModeSyscall {
		t.Fatal("a zero page must read as ModeSyscall")
	}
	c := Clock{ModeCounter, 1, 2, 3, 4}
	d.Publish(&c)
	if d.Read() != c || d.seq != 2 {
		t.Errorf("read %+v, seq %d after one Publish of %+v", d.Read(), d.seq, c)
	}
	d.Publish(&c)
	if d.seq != 4 {
		t.Errorf("seq %d after two", d.seq)
	}
}

// TestReadConcurrent: Read never returns a mix of two published clocks (run it with -race too).
func TestReadConcurrent(t *testing.T) {
	var d Data
	a, b := Clock{ModeCounter, 1, 1, 1, 1}, Clock{ModeCounter, 2, 2, 2, 2}
	d.Publish(&a)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			d.Publish(&b)
			d.Publish(&a)
		}
	}()
	for i := 0; i < 100000; i++ {
		if c := d.Read(); c != a && c != b {
			stop.Store(true)
			t.Fatalf("torn read %+v", c)
		}
	}
	stop.Store(true)
	wg.Wait()
}
