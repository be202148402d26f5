//go:build amd64

package mm

// The mm lock.
//
// Today the kernel runs mm code on one CPU with interrupts disabled, so no
// spinning lock is needed. Every exported entry point that touches mm state
// (frame list, page tables, the VMA table, counters) nevertheless brackets its
// work with lockMM/unlockMM: that is exactly where the single SMP "mm" spin
// lock goes (interrupts off + spin). Internal helpers (lower-case names) are
// documented as "mm lock held".
//
// Until then the bracket is a re-entrancy check: entering mm while mm is
// already active means a fault or interrupt handler called back into mm in
// the middle of an update, which would corrupt the lists; that is a kernel
// bug and panics with a constant string (no allocation).

var mmActive bool

func lockMM() {
	if mmActive {
		panic("mm: re-entered (SMP lock missing or fault inside mm)")
	}
	mmActive = true
}

func unlockMM() { mmActive = false }
