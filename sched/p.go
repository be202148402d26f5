// P: the logical processor, its local run queue and runnext slot.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import "sync/atomic"

// MaxP is the capacity of the statically allocated P table. 64 also lets the
// idle-P set be a single atomic word (Sched.pidle).
const MaxP = 64

// runqSize is the capacity of a P's local run queue. Mirrors len(p.runq).
const runqSize = 256

// P is a logical processor: the right to run Gs, plus the local queues.
// Mirrors runtime2.go's p.
//
// gmpos binds M i to P i: every core is one M and owns one P for good, so
// "acquire an idle P and start an M for it" (startm) becomes "wake the core
// of an idle P" (Platform.WakeM). See "Ms and cores" in doc.go.
type P struct {
	// Immutable after Init:
	id int32

	// Owned by the owner P; others read atomically:

	// runqhead/runqtail index runq. Lock-free: only the owner P writes
	// runqtail (single producer); any P may advance runqhead with a CAS
	// (many consumers: the owner in runqget, thieves in runqgrab).
	runqhead atomic.Uint32
	runqtail atomic.Uint32
	runq     [runqSize]atomic.Uint32 // GIDs; atomic so thieves' reads are race-free

	// runnext, if non-zero, is a runnable G that was readied by the G
	// running on this P and should run next instead of what is in runq,
	// inheriting the time slice. Mirrors p.runnext: only the owner P may
	// CAS it from 0 to a G; any P may CAS it to 0 (a thief, last steal
	// pass only, and only after runnextSince is old enough).
	runnext      atomic.Uint32
	runnextSince atomic.Int64 // Now() when runnext was last set
	// runnextWoken is the G gmp last put in runnext because it was woken
	// (Ready, not a new G): while runnext still holds it, it may preempt
	// the running G (policy_gmp.go Tick, the wake-up preemption). Written
	// by the owner P; a stale value names a G no longer in runnext.
	runnextWoken atomic.Uint32

	// curg is the G running on this P, 0 if none. Written by the owner P.
	curg atomic.Uint32

	// Owned by the owner P:

	// schedtick counts scheduler calls that did not inherit a time slice.
	// Mirrors p.schedtick; every 61st one checks the GRQ first.
	schedtick uint32
	// sliceStart is Now() when the current time slice began. A G taken
	// from runnext inherits it (the slice is not reset).
	sliceStart int64
	// fastrand state for steal order (a per-P xorshift, seeded at Init).
	rand uint64
	// retryAt, if non-zero, is when a Steal that failed only because a
	// victim's runnext was too fresh could succeed; findRunnable asks the
	// platform to wake this P then (TimerPlatform), where runqgrab would
	// usleep(3).
	retryAt int64

	// Atomic (owner writes, anyone reads):

	// spinning: this P's M is looking for work (stealing). Mirrors
	// m.spinning. Written only by the owner P (a waker's reservation is
	// adopted in unpark).
	spinning atomic.Bool
	// parked: the P published itself idle (pidleput) and has not resumed
	// yet. Written only by the owner P; atomic for CheckInvariants. A
	// parked P whose idle bit is clear has been claimed by a waker.
	parked atomic.Bool

	// Protected by lock (policies' own per-P lists):

	lock  spinlock
	list  gList // policy-owned intrusive list (local FIFO, fair set)
	minVR int64 // fair: vruntime floor of this P's queue (monotonic)
	sumW  int64 // fair: sum of the weights of the queued Gs

	// Poller buffer: filled by Poller.Poll on this P, drained at once.
	pollBuf [pollBatch]GID

	// Atomic counters, read by anyone without locks.
	stats Stats
}

// pollBatch is how many ready Gs one Poller.Poll call may return.
const pollBatch = 64
