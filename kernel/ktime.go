// Where the kernel's time goes: cycles and counts per kind of trap and per system call.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/kernel/netabi"
)

// The kernel runs with interrupts off (doc.go), so no timer can ever sample it: a sampling
// profiler sees a trap as one instant. Instead trap measures each visit and charges it to a
// bucket — the system call by number (gmpos_net by op), a page fault, the timer, a device
// interrupt — the way Linux's perf trace -s summarises system calls. With klog=1 the exit report
// lists the buckets that took the most time (ktimeReport); cpuState has the per-core totals.
//
// Measured from trap entry to the way out, so a bucket includes waiting for the BKL, the
// scheduler's work and signal delivery on the way out; a call that blocks is charged for the
// entry that parked the thread, and the wait itself is not kernel time. Protected by the BKL.

const (
	ktimeSyscalls = len(sysNames)  // buckets 0..: system calls by number
	ktimeNet      = ktimeSyscalls  // gmpos_net by op (0..15)
	ktimeInfo     = ktimeNet + 16  // gmpos_info
	ktimeFault    = ktimeInfo + 1  // exceptions: page faults, others
	ktimeTimer    = ktimeFault + 1 // the per-core timer
	ktimeIRQ      = ktimeTimer + 1 // device interrupts
	ktimeIPI      = ktimeIRQ + 1   // wake-up IPIs
	ktimeOther    = ktimeIPI + 1   // unknown calls, spurious interrupts
	ktimeBuckets  = ktimeOther + 1
)

var ktime struct {
	cycles [ktimeBuckets]uint64
	count  [ktimeBuckets]uint64
}

// ktimeBucket is the bucket of a trap of kind with frame f, decided at entry (the handler may
// change the frame).
func ktimeBucket(f *arch.Frame, kind arch.TrapKind) int {
	switch kind {
	case arch.TrapSyscall:
		nr, a0 := syscallNr(f)
		switch {
		case nr < uint64(ktimeSyscalls):
			return int(nr)
		case nr == netabi.NrGmposNet && a0 < 16:
			return ktimeNet + int(a0)
		case nr == nrGmposInfo:
			return ktimeInfo
		}
	case arch.TrapFault:
		return ktimeFault
	case arch.TrapTimer:
		return ktimeTimer
	case arch.TrapIRQ:
		return ktimeIRQ
	case arch.TrapIPI:
		return ktimeIPI
	}
	return ktimeOther
}

// ktimeCharge adds one visit of c cycles to bucket b. Atomic: idle wake-ups are charged without
// the BKL (wake_unlocked.go).
func ktimeCharge(b int, c uint64) {
	atomic.AddUint64(&ktime.cycles[b], c)
	atomic.AddUint64(&ktime.count[b], 1)
}

// ktimeName names bucket b into k.
func ktimeName(k *kbuf, b int) {
	switch {
	case b < ktimeSyscalls:
		if sysNames[b] != "" {
			k.s(sysNames[b])
		} else {
			k.s("syscall_").d(int64(b))
		}
	case b < ktimeInfo:
		k.s("gmpos_net.").d(int64(b - ktimeNet))
	case b == ktimeInfo:
		k.s("gmpos_info")
	case b == ktimeFault:
		k.s("fault")
	case b == ktimeTimer:
		k.s("timer")
	case b == ktimeIRQ:
		k.s("irq")
	case b == ktimeIPI:
		k.s("ipi")
	default:
		k.s("other")
	}
}

// ktimeReport logs the top buckets by time, one line each: name, visits, total µs, ns per
// visit. Called at exit with klog=1; selection by repeated maximum (no sorting buffer).
func ktimeReport() {
	var done [ktimeBuckets]bool
	var k kbuf
	for line := 0; line < 16; line++ {
		best := -1
		for b := range ktime.cycles {
			if !done[b] && ktime.count[b] > 0 && (best < 0 || ktime.cycles[b] > ktime.cycles[best]) {
				best = b
			}
		}
		if best < 0 {
			return
		}
		done[best] = true
		k.n = 0
		k.s("log ktime ")
		ktimeName(&k, best)
		ns := cyclesToNS(ktime.cycles[best])
		k.s(" n=").d(int64(ktime.count[best])).s(" us=").d(ns / 1000).s(" ns/op=").d(ns / int64(ktime.count[best])).record()
	}
}
