package mm

import "sync/atomic"

// The mm lock.
//
// Today the kernel runs mm code on one CPU at a time with interrupts
// disabled, so no spinning lock is needed. Every exported entry point that
// touches mm state (frame list, page tables, the VMA table, counters)
// nevertheless brackets its work with lockMM/unlockMM: that is exactly where
// the single SMP "mm" spin lock goes (interrupts off + spin). Internal
// helpers (lower-case names) assume it is held.
//
// Until then the bracket is an assertion: entering mm while mm is already
// active means either a fault/interrupt handler called back into mm in the
// middle of an update, or a second CPU entered concurrently. Both would
// corrupt the lists silently, so both panic with a constant string (no
// allocation). The flag is an atomic so that the cross-CPU case is detected
// reliably; sync/atomic operations are compiler intrinsics and need no
// runtime initialisation.

var mmActive atomic.Uint32

func lockMM() {
	if !mmActive.CompareAndSwap(0, 1) {
		panic("mm: re-entered (fault inside mm, or a second CPU without the SMP lock)")
	}
}

func unlockMM() { mmActive.Store(0) }
