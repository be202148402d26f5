package mm

import "sync/atomic"

// The mm lock.
//
// The kernel runs mm code under its big kernel lock, one core at a time with
// interrupts disabled, so no spinning lock is needed. Every exported entry
// point that touches mm state (frame list, page tables, the VMA table,
// counters) nevertheless brackets its work with lockMM/unlockMM: that is
// exactly where an mm spin lock goes once the BKL is split. Internal helpers
// (lower-case names) assume it is held.
//
// Until then the bracket is an assertion: entering mm while mm is already
// active means either a fault/interrupt handler called back into mm in the
// middle of an update, or a second core entered without the BKL. Both would
// corrupt the lists silently, so both panic with a constant string (no
// allocation). (The kernel's fault report never calls a locking entry point,
// so a fault inside mm is reported, not turned into this panic.) The flag is an atomic so that the cross-CPU case is detected
// reliably; sync/atomic operations are compiler intrinsics and need no
// runtime initialisation.

var mmActive atomic.Uint32

func lockMM() {
	if !mmActive.CompareAndSwap(0, 1) {
		panic("mm: re-entered (fault inside mm, or a second CPU without the SMP lock)")
	}
}

func unlockMM() { mmActive.Store(0) }
