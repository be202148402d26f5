// Policy: the pluggable operations table and selection by name.
// SPDX-License-Identifier: BSD-3-Clause

package sched

// Why tells Policy.Enqueue why a G became runnable. Policies treat the
// cases differently (gmp: New/Ready → runnext, Yield → LRQ tail,
// Gosched/Preempt → GRQ).
type Why uint8

const (
	WhyNew     Why = iota // NewProc: a fresh G (runtime newproc → runqput(next=true))
	WhyReady              // Ready: woken by a G or IRQ on P pid (goready → runqput(next=true))
	WhyPoll               // made ready by the Poller (injectglist)
	WhyYield              // GoYield: back of the local queue (goyield_m → runqput(next=false))
	WhyGosched            // Gosched: global queue (goschedImpl → globrunqput)
	WhyPreempt            // time slice used up (gopreempt_m → globrunqput)
)

// Wake hints returned by Policy.Enqueue.
const (
	WakeNone = -1 // nobody needs waking (the enqueuing P will see the G itself)
	WakeAny  = -2 // work is visible to every P: run wakep (wake one idle P if no M spins)
	// A value >= 0 names the one P that can run the G (e.g. the local
	// policy's home P); the Sched wakes it if it is idle.
)

// Policy is the scheduler's operations table, in the style of Linux
// sched_ext's struct sched_ext_ops. The Sched core owns the G/P tables,
// G states, time slices, spinning-M accounting, idle Ps, the poller and the
// counters; a Policy owns only "which queue does a runnable G sit on, and
// which G does a P run next".
//
// Rules for every method (see "Contexts" in doc.go):
//   - called on P pid's own M (the kernel: that core, interrupts off,
//     possibly in IRQ context), concurrently with other Ps' calls;
//   - no scheduler lock is held on entry; the method takes the locks it
//     needs, in the order of "Lock order" in doc.go;
//   - must not allocate, block, use maps/fmt, or store Go pointers: Gs
//     are GIDs, queues are the Sched's fixed arrays and intrusive lists;
//   - state lives in the Sched (P.runq, P.runnext, P.list, Sched.grq ...),
//     never in the policy value, so one policy value serves many Scheds.
//
// Callback order, as pseudocode (what Sched does):
//
//	NewProc/Ready/poll: status → Grunnable; w := Enqueue(why); wake(w)
//	Gosched/GoYield/Preempt: stop accounting; Enqueue(why)
//	Schedule(pid):
//	    gp := PickNext(pid)                      // local and global queues
//	    if gp == 0 { gp = poll(non-blocking) }
//	    if gp == 0 && may spin { gp = Steal(pid) }
//	    if gp == 0 { go idle; if HasWork(pid) { un-idle, retry } }
//	    execute(gp)
//	timer interrupt: if Tick(pid, gp, now) { Preempt(pid); Schedule(pid) }
//	arming it:       PreemptAt(pid) = TickAt(pid, gp, ...)
type Policy interface {
	// Name is the name for sched=NAME and the simulator's -policy flag.
	Name() string

	// Init resets the policy's state inside s. Called once by Sched.Init
	// (boot context, before any other call).
	Init(s *Sched)

	// Enqueue (enqueue/wake): make gp (already Grunnable) runnable on some
	// queue. pid is the P doing it (creator, readier, the P the G ran on).
	// Returns a wake hint: WakeNone, WakeAny, or a P id.
	Enqueue(s *Sched, pid int, gp GID, why Why) int

	// PickNext (pick next): the next G for P pid from the queues this P
	// may take from without stealing, or 0. inheritTime: gp continues the
	// current time slice (runnext). Non-blocking.
	PickNext(s *Sched, pid int) (gp GID, inheritTime bool)

	// Steal (steal/balance): called only on a spinning M after PickNext
	// and the poller found nothing; take work from other Ps and return one
	// G to run (the rest may go to pid's queues), or 0. Policies without
	// balancing return 0.
	Steal(s *Sched, pid int) GID

	// Tick (tick/preempt): called from the timer interrupt on P pid while
	// gp runs; report whether gp must be preempted. sliceStart is when the
	// current slice began (inherited through runnext), ran how long gp has
	// run since it was last picked.
	Tick(s *Sched, pid int, gp GID, now, sliceStart, ran int64) bool

	// TickAt (tick/preempt): the earliest time at which Tick could report
	// that gp must be preempted, were it called then (sliceStart and
	// runStart as for Tick: ran = now - runStart), so that a platform can
	// arm its timer for that moment instead of ticking periodically. It may
	// be in the past. Pure: no queue is looked at (Tick decides).
	TickAt(s *Sched, pid int, gp GID, sliceStart, runStart int64) int64

	// HasWork (idle): the final re-check before P pid parks, after it has
	// been published as idle: could pid find a G now (PickNext or Steal)?
	// Must be conservative: false negatives lose wakeups.
	HasWork(s *Sched, pid int) bool
}

// PolicyByName returns the policy called name, or nil. A switch over
// package-level values instead of a map: usable before package init() runs
// (kernel command line sched=NAME) and allocation-free.
func PolicyByName(name string) Policy {
	switch name {
	case "", "gmp":
		return &gmpPolicy
	case "global":
		return &globalPolicy
	case "local":
		return &localPolicy
	case "fair":
		return &fairPolicy
	}
	return nil
}

// policyNames lists the built-in policies, default first.
var policyNames = [...]string{"gmp", "global", "local", "fair"}

// PolicyNames returns the names PolicyByName accepts (do not modify).
func PolicyNames() []string { return policyNames[:] }
