// Platform hooks: what the scheduler needs from the kernel or the simulator.
// SPDX-License-Identifier: BSD-3-Clause

package sched

// Platform is the scheduler's only way to touch the machine. The kernel
// implements it with the TSC/HPET clock, IPIs and HLT; the simulator with
// virtual time and an event queue; tests with a fake.
//
// All methods may be called from IRQ context with scheduler spinlocks NOT
// held (the scheduler never calls out while holding a lock). They must not
// allocate and must not call back into the Sched on the same P.
type Platform interface {
	// Now returns monotonic time in nanoseconds.
	Now() int64

	// WakeM asks the M (core) that owns P pid to call Sched.Schedule(pid)
	// soon: the kernel sends an IPI to a halted core, the simulator
	// schedules a wake-up event. The P was idle and has been claimed for
	// that core, with a spinning slot reserved that the P adopts when it
	// resumes. It must not be lost: if it arrives before the core halts,
	// the halt must end at once (sti; hlt, or a pending flag). It may be
	// spurious: if the core is already running, the platform ignores it.
	WakeM(pid int)

	// ParkM tells the platform that P pid found no work and is now idle:
	// after Schedule returns 0 the kernel halts the core (sti; hlt) until an
	// interrupt, and then calls Schedule(pid) again. Non-blocking: it is a
	// notification, the block happens in the caller.
	ParkM(pid int)
}

// TimerPlatform is an optional extension of Platform, passed as
// Config.Timer (or found by a type assertion on Config.Platform when Timer
// is nil — not usable before the Go runtime exists). With it, a P that parks while another P's runnext holds a
// G too fresh to steal (see RunnextGrace) asks to be woken when the G may be
// stolen: the non-blocking counterpart of runqgrab's usleep(3). Without it,
// such a G waits for its own P (at most one slice).
type TimerPlatform interface {
	// WakeMAt asks that Schedule(pid) be called at time when (kernel: a
	// one-shot LAPIC timer on that core; simulator: an event). It is a
	// hint: the P may be running again by then, and a spurious call is
	// harmless. IRQ context; must not allocate.
	WakeMAt(pid int, when int64)
}

// Poller is the device side of blocking I/O seen from the scheduler (the
// kernel-level counterpart of runtime netpoll): a G parked waiting for a device
// is handed back here once the device has completed its request.
//
// Who implements it: the kernel's network poller over the virtio-net NIC
// (kernel/net_poller.go, passed as Config.Poller by kernel/main.go), the
// tests' fakes (fake_test.go, proc_test.go) and the simulator's virtual
// network (sched/simulator). The Gs it returns are traced as TracePollReady,
// not TraceReady, so that a timeline shows who made them runnable. This is not
// the Go runtime's own netpoller, which runs inside the program on epoll; see
// "Two pollers" in docs/tour.md.
//
// The Gs it returns must be in Gwaiting (parked by the kernel on I/O); the
// scheduler makes them runnable. buf is storage owned by the Sched; Poll
// writes at most len(buf) GIDs and returns how many. It must not keep buf.
type Poller interface {
	// Poll returns Gs whose I/O is ready. block=false: return at once
	// (called from findRunnable and from Tick at least every 10 ms).
	// block=true: called by the last P to go idle while Waiters() is true;
	// the platform may wait, but must return promptly if WakeM is called for
	// any P. The kernel's poller and the simulator return at once (the
	// kernel arms the NIC's interrupt, and the core's halt after Schedule
	// returns 0 is the wait; the simulator lets the next packet's interrupt
	// wake the core).
	Poll(block bool, buf []GID) int

	// Waiters reports whether any G is parked on the poller.
	// Mirrors netpollAnyWaiters.
	Waiters() bool
}

// TraceEvent is the kind of a trace record.
type TraceEvent uint8

const (
	TraceNone      TraceEvent = iota
	TraceCreate               // G created runnable (NewProc)
	TraceRun                  // G starts running on P (execute)
	TraceStop                 // running G leaves P (any reason; the next event says why)
	TracePark                 // G blocks (Gwaiting)
	TraceReady                // G made runnable by Ready
	TracePollReady            // G made runnable by the Poller (pollOnce)
	TraceYield                // Gosched / GoYield
	TracePreempt              // slice expired, G preempted
	TraceExit                 // G exited
	TraceSteal                // P stole Gs (G = first stolen G)
	TraceIdle                 // P went idle
	TraceWake                 // P woken by wakep (G = 0)
	TraceSpin                 // P's M started spinning
	NumTraceEvents
)

var traceNames = [NumTraceEvents]string{
	TraceNone: "none", TraceCreate: "create", TraceRun: "run", TraceStop: "stop",
	TracePark: "park", TraceReady: "ready", TracePollReady: "pollready", TraceYield: "yield",
	TracePreempt: "preempt", TraceExit: "exit", TraceSteal: "steal", TraceIdle: "idle",
	TraceWake: "wake", TraceSpin: "spin",
}

// String names the event.
func (e TraceEvent) String() string {
	if e >= NumTraceEvents {
		return "?"
	}
	return traceNames[e]
}

// TraceFunc receives scheduler events. It is called synchronously on the P
// that caused the event, possibly from IRQ context, with no scheduler lock
// held: it must not allocate, block, or call into the Sched. pid is the P
// (-1 if none), gp the G (0 if none), now the Platform time.
type TraceFunc func(ev TraceEvent, pid int, gp GID, now int64)
