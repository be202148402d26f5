// G: the schedulable entity (a kernel thread) and its handle.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import "sync/atomic"

// MaxG is the capacity of the statically allocated G table. GID 0 is never
// handed out, so MaxG-1 Gs can exist at once.
const MaxG = 4096

// GID is a small-integer handle for a G: an index into Sched.allg. 0 means
// "no G" (the runtime's nil *g). Queues store GIDs, never Go pointers, so
// queue operations from interrupt context perform no write barriers. The
// kernel keeps its own thread table indexed by the same GID.
type GID uint32

// GStatus is a G's state. Mirrors runtime2.go's _Gidle.._Gdead, minus the
// states only the Go runtime needs (_Gsyscall, _Gcopystack, _Gpreempted).
type GStatus uint32

const (
	// Gidle: the slot is free (on the free list). Mirrors _Gidle/_Gdead-on-gFree.
	Gidle GStatus = iota
	// Grunnable: on exactly one run queue (some P's runnext or LRQ, the
	// GRQ, a policy list) or in flight between two of them during a steal.
	// Not running.
	Grunnable
	// Grunning: P.curg of exactly one P; on no run queue.
	Grunning
	// Gwaiting: blocked (park); on no run queue. Only Ready or the Poller
	// make it runnable again.
	Gwaiting
	// Gdead: off the free list but not a live G: being set up (between gfget
	// and NewG, as the runtime's newproc1 keeps a new g _Gdead) or exited
	// (between Exit and gfput). On no queue, not counted in Live.
	Gdead
)

// String names the status for traces and test failures.
func (s GStatus) String() string {
	switch s {
	case Gidle:
		return "idle"
	case Grunnable:
		return "runnable"
	case Grunning:
		return "running"
	case Gwaiting:
		return "waiting"
	case Gdead:
		return "dead"
	}
	return "bad"
}

// G is one schedulable entity. Mirrors runtime2.go's g, keeping only what a
// scheduler needs: no stack, no registers (the kernel owns those, indexed by
// GID).
//
// Ownership: "owned by the holder" below means the P that currently has the G
// in hand: the P running it, or the P that just took it off a queue, or the
// lock holder of the queue it sits on. Handing a G from one holder to another
// goes through a queue whose atomics or spinlock order the accesses.
type G struct {
	// Immutable after Init:
	id GID

	// Atomic (any P may read it):
	status atomic.Uint32 // GStatus

	// Owned by the holder:

	// schedlink links the G into an intrusive list (GRQ, gFree, policy
	// lists) by index. Mirrors g.schedlink.
	schedlink GID
	// runnableSince is Now() when the G last became runnable; execute
	// turns it into run-queue wait time.
	runnableSince int64
	// runStart is Now() when the G last started running.
	runStart int64

	// Fair-policy state (weighted virtual time, EEVDF-lite). See policy_fair.go.
	weight   uint32 // 1..; default 1024 (nice 0)
	vruntime int64  // weighted virtual run time, ns * 1024 / weight
	deadline int64  // virtual deadline = eligible time + slice*1024/weight

	// lastP is the P that created or last ran the G (policies use it for
	// affinity; the local policy pins Gs to it). Atomic: GInfo reads it.
	lastP atomic.Int32
	// Atomic accounting, readable by any P or the platform (GInfo).
	runTotal  atomic.Int64  // ns spent Grunning
	waitTotal atomic.Int64  // ns spent Grunnable
	nrun      atomic.Uint32 // times executed
}

// GInfo is a copy of a G's accounting, for the kernel's ps and the
// simulator's fairness figures.
type GInfo struct {
	ID        GID
	Status    GStatus
	LastP     int
	RunTotal  int64 // ns spent running
	WaitTotal int64 // ns spent runnable on a queue
	Runs      uint32
	Weight    uint32
}
