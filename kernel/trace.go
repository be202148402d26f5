package kernel

import "gmpos/sched"

// The scheduler trace: with the kernel option trace=1 every sched event (a thread starts or stops
// running on a core, parks, is readied, stolen, preempted; a core idles or is woken) is recorded
// in a ring buffer, and at exit the kernel sends the newest traceCap events on the control
// channel ("trace EV CPU G NS" records). `gmpos run -trace FILE` turns them into a Perfetto
// timeline of the real cores — the same format the simulator writes for virtual ones.
//
// Who made a thread runnable shows in the event's name: "pollready" (sched: the network poller
// returned it, net_poller.go), "nicready" (this file: the NIC's interrupt handler readied it, see
// traceNICReady) and "ready" (anyone else: a futex wake, a timeout, the stack's reply).
//
// Context: called by sched under the BKL (trap context): fixed buffer, no allocation.
const traceCap = 1 << 16

// traceNICReady is the kernel's one event of its own, numbered after sched's: a thread made
// runnable by the NIC's interrupt handler (nicIRQ → nicSignal → wakeThread → sched.Ready).
// sched sees a plain Ready; traceSched tells it apart by netWake.by, which nicIRQ sets to wakeIRQ
// around its wake-ups (the BKL keeps every other waker out meanwhile).
const traceNICReady = uint8(sched.NumTraceEvents)

type traceEvent struct {
	at  int64
	g   uint32
	ev  uint8
	cpu uint8
}

var traceBuf struct {
	ev   [traceCap]traceEvent
	next uint64 // total events recorded; the ring holds the last traceCap
}

// traceSched is the sched.TraceFunc installed when trace=1.
func traceSched(ev sched.TraceEvent, pid int, gp sched.GID, now int64) {
	e := uint8(ev)
	if ev == sched.TraceReady && netWake.by == wakeIRQ {
		e = traceNICReady
	}
	traceBuf.ev[traceBuf.next%traceCap] = traceEvent{at: now, g: uint32(gp), ev: e, cpu: uint8(pid)}
	traceBuf.next++
}

// traceName names a recorded event: sched's names, and the kernel's own.
func traceName(ev uint8) string {
	if ev == traceNICReady {
		return "nicready"
	}
	return sched.TraceEvent(ev).String()
}

// dumpTrace sends the recorded events, oldest first, and how many were overwritten.
func dumpTrace() {
	var k kbuf
	n := traceBuf.next
	first := uint64(0)
	if n > traceCap {
		first = n - traceCap
		k.s("trace-lost ").d(int64(first)).record()
	}
	for i := first; i < n; i++ {
		e := &traceBuf.ev[i%traceCap]
		k.s("trace ").s(traceName(e.ev)).c(' ').d(int64(e.cpu)).c(' ').d(int64(e.g)).c(' ').d(e.at).record()
	}
}
