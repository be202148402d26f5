package simulator

// Virtual time and the event queue.
//
// The simulator is a classic discrete-event simulation: nothing happens
// between events, and the clock jumps from one event's time to the next.
// Events with the same time are ordered by the sequence number they were
// scheduled with, so a run is a pure function of its inputs and seed.

// Time is virtual time in nanoseconds since the start of a run.
type Time = int64

// Durations in virtual nanoseconds.
const (
	Nanosecond  Time = 1
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
)

// evKind says what an event does when it fires.
type evKind uint8

const (
	evCoreSched evKind = iota // core asks its P for work (Schedule); also how an IPI or IRQ wakes a halted core
	evBurstEnd                // the running G finished its CPU burst
	evTick                    // periodic timer interrupt on a core
	evTimer                   // a sleeping G's timer expired
	evPacket                  // a virtual network packet arrived
	evRetry                   // a parked core's one-shot timer (TimerPlatform.WakeMAt)
)

var evNames = [...]string{"sched", "burst-end", "tick", "timer", "packet", "retry"}

func (k evKind) String() string { return evNames[k] }

// event is one pending occurrence. core and g are indices, not pointers,
// so the queue stays a flat slice.
type event struct {
	at   Time
	seq  uint64 // tie-break: FIFO among equal times
	kind evKind
	core int
	g    int
	gen  uint64 // generation of the core/G state it refers to; stale events are dropped
}

// eventQueue is a binary min-heap ordered by (at, seq).
type eventQueue struct {
	h    []event
	seq  uint64
	real int // pending events other than ticks: with none, halted cores stay halted
}

func (q *eventQueue) less(i, j int) bool {
	a, b := &q.h[i], &q.h[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push schedules e, stamping its sequence number.
func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	if e.kind != evTick {
		q.real++
	}
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

// pop removes and returns the earliest event. The queue must not be empty.
func (q *eventQueue) pop() event {
	top := q.h[0]
	if top.kind != evTick {
		q.real--
	}
	n := len(q.h) - 1
	q.h[0] = q.h[n]
	q.h = q.h[:n]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && q.less(l, m) {
			m = l
		}
		if r < n && q.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	return top
}

func (q *eventQueue) len() int { return len(q.h) }
