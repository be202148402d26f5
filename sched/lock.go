// Spinlock: the only lock type in sched.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import "sync/atomic"

// spinlock is a test-and-test-and-set lock built on sync/atomic alone.
//
// Why not sync.Mutex: on bare metal there is no Go scheduler beneath the
// kernel to park a waiter on, and the scheduler itself is called from
// timer-interrupt context. A spinlock never sleeps; it is held only for a
// few list operations. On the kernel side the caller runs with interrupts
// disabled while it holds one (see "Contexts" in doc.go), so a lock holder
// is never interrupted by a handler that wants the same lock.
//
// The zero value is unlocked, so a statically allocated Sched needs no init.
// Lock order: see "Lock order" in doc.go.
type spinlock struct {
	key atomic.Uint32
}

// lock spins until the lock is acquired.
func (l *spinlock) lock() {
	for {
		// Test first with a plain load so that waiters spin on a shared
		// cache line instead of bouncing it with failed CASes.
		if l.key.Load() == 0 && l.key.CompareAndSwap(0, 1) { // cas-acquire
			return
		}
		procyield()
	}
}

// unlock releases the lock.
func (l *spinlock) unlock() {
	if l.key.Swap(0) == 0 { // store-release
		throw("spinlock: unlock of unlocked lock")
	}
}

// procyield is the polite-spin hint. The runtime uses PAUSE (runtime.procyield);
// portable Go has no PAUSE, so a few dummy atomic loads stand in. The loop
// bounds the spin between retries without calling into the Go scheduler.
func procyield() {
	for i := 0; i < 8; i++ {
		spinSink.Load()
	}
}

var spinSink atomic.Uint32

// throw reports a broken scheduler invariant. It panics with a constant
// string (no allocation: constant strings convert to interfaces statically).
func throw(s string) {
	panic(s)
}
