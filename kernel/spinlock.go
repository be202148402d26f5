// Spin locks below the big kernel lock, with their rank checked on every acquisition.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
)

// A spinLock guards kernel data that paths without the BKL share with paths under it (the
// futex queue: futex.go). It is taken in trap context, interrupts off, for a few hundred
// instructions at most; nobody sleeps or allocates while holding one.
//
// While a core spins it acknowledges TLB-shootdown requests, as bklLock does: the BKL holder
// that sent one waits for every core, and may itself hold the lock this core wants.
//
// Rank: a lock may be taken only while every lock the core already holds has a lower rank
// (doc.go, "Lock order"; sched's locks, taken from inside S, rank above all of these but its
// poll try-lock, which never waits). lock
// checks it on every acquisition, the BKL counting as rank 1, and stops the machine with a
// fault report on a violation: an out-of-order acquisition is a deadlock waiting for the
// right interleaving, which the 4-vCPU suites would otherwise find only by luck.
type spinLock struct {
	v          atomic.Uint32 // 0 free, else holder's CPU index + 1
	rank       uint8
	name       string
	contended  atomic.Uint64 // acquisitions that had to wait (klog=1)
	spinCycles atomic.Uint64 // cycles spent waiting
}

// Ranks of the kernel's locks, outermost first.
const (
	rankBKL     = 1 // smp.go
	rankEpoll   = 2 // epoll.go epollLock
	rankFutex   = 3 // futex.go futexQ
	rankConsole = 4 // vconsole.go vconLock
)

// lockRanks is, per core, the set of ranks the core holds (bit r: rank r). Owned by the core.
var lockRanks [arch.MaxCPU]uint8

// lock takes l on behalf of core cpu.
func (l *spinLock) lock(cpu int) {
	if lockRanks[cpu]>>l.rank != 0 {
		rankViolation(l.name, l.rank, cpu)
	}
	me := uint32(cpu) + 1
	if !l.v.CompareAndSwap(0, me) {
		t0 := arch.Cycles()
		for !l.v.CompareAndSwap(0, me) {
			ackFlush(cpu)
			arch.Pause()
		}
		l.contended.Add(1)
		l.spinCycles.Add(arch.Cycles() - t0)
	}
	lockRanks[cpu] |= 1 << l.rank
}

// lockWithin is lock for a caller that must not wait long and may hold any lock, or none it
// can name: the kernel's own text (klog.go, the fault report). It spins at most ns
// nanoseconds, acknowledging shootdowns as lock does, and reports whether it took l. No rank
// check: a wait that ends cannot deadlock. false at once if this core holds l already (a fault
// inside the section the text would have to wait for).
func (l *spinLock) lockWithin(cpu int, ns int64) bool {
	me := uint32(cpu) + 1
	if l.v.Load() == me {
		return false
	}
	deadline := int64(0)
	for !l.v.CompareAndSwap(0, me) {
		if deadline == 0 {
			deadline = nanotime() + ns
		} else if nanotime() > deadline {
			return false
		}
		ackFlush(cpu)
		arch.Pause()
	}
	lockRanks[cpu] |= 1 << l.rank
	return true
}

// heldBy reports whether core cpu holds l.
func (l *spinLock) heldBy(cpu int) bool { return l.v.Load() == uint32(cpu)+1 }

// unlock releases l, which core cpu holds.
func (l *spinLock) unlock(cpu int) {
	lockRanks[cpu] &^= 1 << l.rank
	l.v.Store(0)
}

// rankViolation reports a lock taken out of order (or twice) and stops the machine: the
// runtime's fatal path ends in the kernel's fault report (trap.go kernelSyscall), as a panic in
// package mm does.
func rankViolation(name string, rank uint8, cpu int) {
	var k kbuf
	k.s("gmpos: lock order: core ").d(int64(cpu)).s(" takes ").s(name).s(" (rank ").d(int64(rank)).
		s(") holding ranks ").x(uint64(lockRanks[cpu])).s("\n").to(consoleStderr)
	panic("gmpos: lock order violated")
}
