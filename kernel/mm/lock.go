package mm

import "sync/atomic"

// The mm lock.
//
// Every exported entry point that touches mm state (frame list, page tables, the VMA table,
// counters) brackets its work with lockMM/unlockMM; internal helpers (lower-case names) assume
// it is held. The kernel calls mm under its big kernel lock, and, since page faults may be
// handled without it (kernel/fault_unlocked.go: FaultFast), from one other path: so the bracket
// is a spin lock, the holder's core in the word.
//
// It also keeps the assertion it began as: entering mm on a core that already holds the lock
// means a fault or interrupt handler called back into mm in the middle of an update, which would
// corrupt the lists silently, so it panics with a constant string (no allocation). (The
// kernel's fault report never calls a locking entry point, so a fault inside mm is reported,
// not turned into this panic.) The word is an atomic; sync/atomic operations are compiler
// intrinsics and need no runtime initialisation.
//
// A core that waits for the lock runs Relax between tries: the holder may be sending a TLB
// shootdown (SyncTLB) and waiting for this core's acknowledgement, which the kernel gives there.

var mmLock atomic.Uint32 // 0: free; else the holder's core (CPU) + 1

// CPU returns the calling core's index (the kernel's hook; nil: one core, as in hosted tests).
var CPU func() int

// Relax is run while a core spins for the mm lock (the kernel's hook: acknowledge a TLB
// shootdown, pause; nil: nothing).
var Relax func()

func lockMM() {
	me := uint32(1)
	if CPU != nil {
		me = uint32(CPU()) + 1
	}
	if mmLock.CompareAndSwap(0, me) {
		return
	}
	if mmLock.Load() == me {
		panic("mm: re-entered (fault inside mm)")
	}
	for !mmLock.CompareAndSwap(0, me) {
		if Relax != nil {
			Relax()
		}
	}
}

func unlockMM() { mmLock.Store(0) }

// Lock takes the mm lock for a caller that must look at its own state under it before it calls
// a function that needs it held (FaultFast). Trap context.
func Lock() { lockMM() }

// Unlock releases the mm lock Lock took.
func Unlock() { unlockMM() }
