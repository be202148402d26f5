// The vvar page: the clock the kernel publishes and the vDSO reads, under a sequence counter.
// SPDX-License-Identifier: BSD-3-Clause

package vdso

import (
	"math/bits"
	"sync/atomic"
)

// PageSize is the size of the vvar page and the granule the image is mapped with. The image is
// mapped at a page boundary exactly one page above the vvar page: its code finds the clock at a
// fixed distance from itself, whatever the address (doc.go, "Position independence").
const PageSize = 4096

// Modes: may the vDSO compute the time itself?
const (
	// ModeSyscall: no. Every function makes the system call it stands for. The page starts this
	// way (a zero frame), so a vDSO mapped before the kernel publishes a clock is still right.
	ModeSyscall = 0
	// ModeCounter: yes, from the CPU's cycle counter (x86: the TSC; arm64: CNTVCT_EL0) and the
	// fields below.
	ModeCounter = 1
)

// Data is the layout of the vvar page: what the machine code reads, at the offsets it was
// assembled with (the generated asm* constants; TestVVarLayout compares them). Linux's
// counterpart is struct vdso_data (include/vdso/datapage.h).
//
// Written only by Publish, in the kernel, with the BKL held (one writer); read by any number of
// threads in user mode, on any core, without a lock: see Publish and Read.
type Data struct {
	seq       uint32 // odd while Publish rewrites the fields below
	mode      uint32 // ModeSyscall or ModeCounter
	cycles0   uint64 // the counter at time 0 of CLOCK_MONOTONIC
	mult      uint64 // ns = (cycles - cycles0) * mult >> 32
	realBase  int64  // CLOCK_REALTIME at cycles0, ns since the Unix epoch
	coarseRes int64  // what clock_getres reports for the *_COARSE clocks, ns (less than a second)
}

// Clock is what the kernel publishes: the fields of Data without the sequence counter.
type Clock struct {
	Mode      uint32
	Cycles0   uint64
	Mult      uint64
	RealBase  int64
	CoarseRes int64
}

// Monotonic is CLOCK_MONOTONIC at counter value cycles: the kernel's nanotime (kernel/clock.go)
// and the vDSO's code compute exactly this, a 64×64→128-bit product shifted right by 32.
func (c *Clock) Monotonic(cycles uint64) int64 {
	hi, lo := bits.Mul64(cycles-c.Cycles0, c.Mult)
	return int64(hi<<32 | lo>>32)
}

// Realtime is CLOCK_REALTIME at counter value cycles.
func (c *Clock) Realtime(cycles uint64) int64 { return c.RealBase + c.Monotonic(cycles) }

// Publish writes c into the page as a seqlock writer does (Linux vdso_write_begin/_end): the
// counter becomes odd, the fields change, the counter becomes even again. A reader that saw an
// even counter, read the fields and then finds the same counter knows that no write overlapped
// its reads; otherwise it reads again. The stores are atomic, and so never reordered with one
// another by the compiler or the CPU (x86 stores are ordered anyway; on arm64 Go's atomic store
// is a store-release, STLR, which no earlier access may pass). One writer at a time: the
// kernel calls it with the BKL held, or at boot. Trap-context safe: no allocation.
func (d *Data) Publish(c *Clock) {
	s := atomic.LoadUint32(&d.seq)
	atomic.StoreUint32(&d.seq, s|1) // odd: an update is under way
	atomic.StoreUint32(&d.mode, c.Mode)
	atomic.StoreUint64(&d.cycles0, c.Cycles0)
	atomic.StoreUint64(&d.mult, c.Mult)
	atomic.StoreInt64(&d.realBase, c.RealBase)
	atomic.StoreInt64(&d.coarseRes, c.CoarseRes)
	atomic.StoreUint32(&d.seq, (s|1)+1) // even again, and different from s
}

// Read is the seqlock reader, in Go: the same loop as the vDSO's machine code, for tests and for
// any kernel code that wants the published clock.
func (d *Data) Read() Clock {
	for {
		s := atomic.LoadUint32(&d.seq)
		if s&1 != 0 {
			continue
		}
		c := Clock{
			Mode:      atomic.LoadUint32(&d.mode),
			Cycles0:   atomic.LoadUint64(&d.cycles0),
			Mult:      atomic.LoadUint64(&d.mult),
			RealBase:  atomic.LoadInt64(&d.realBase),
			CoarseRes: atomic.LoadInt64(&d.coarseRes),
		}
		if atomic.LoadUint32(&d.seq) == s {
			return c
		}
	}
}
