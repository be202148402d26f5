package runner

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"gmpos/sched/simulator"
)

// The guest's scheduler trace. With the kernel option trace=1 the kernel sends, at exit, one
// "trace EV CPU G NS" record per scheduler event (kernel/trace.go), preceded by "trace-lost N" if
// its ring buffer overflowed. WriteTrace turns them into the Trace Event JSON timeline the
// simulator writes: one track per core, one slice per run of a thread, named after the reason it
// stopped, and instants for steals, wake-ups and idling — loadable in ui.perfetto.dev.
//
// The network poller's story gets its own marks. A thread the scheduler's poll returned
// ("pollready", sched/schedule.go pollOnce) or the NIC's interrupt handler readied ("nicready",
// kernel/trace.go) is an instant on the track of the core that did it, "thread 12 readied by the
// network poller" or "… by the NIC interrupt", with a flow arrow to that thread's next run.
// Plain readies (futexes, timeouts, the stack's replies) are too many to draw.

// TraceStats summarises a converted trace.
type TraceStats struct {
	Events, Slices, Cores int
	Lost                  int64 // events the kernel's ring buffer dropped (oldest first)
	PollReady, NICReady   int   // threads readied by the network poller, by the NIC's interrupt
}

// readiedBy labels the ready events that get an instant and an arrow.
var readiedBy = map[string]string{
	"pollready": "the network poller",
	"nicready":  "the NIC interrupt",
}

// WriteTrace writes the guest's scheduler timeline from res's control records to w. title names
// the process track (the program), policy the scheduler policy.
func WriteTrace(w io.Writer, records []Record, title, policy string) (TraceStats, error) {
	type ev struct {
		kind   string
		cpu, g int
		at     int64
	}
	var st TraceStats
	var evs []ev
	for _, r := range records {
		switch r.Kind {
		case "trace-lost":
			n, err := strconv.ParseInt(strings.TrimSpace(r.Text), 10, 64)
			if err != nil {
				return st, fmt.Errorf("bad trace-lost record %q", r.Text)
			}
			st.Lost = n
		case "trace":
			f := strings.Fields(r.Text)
			if len(f) != 4 {
				return st, fmt.Errorf("bad trace record %q", r.Text)
			}
			cpu, err1 := strconv.Atoi(f[1])
			g, err2 := strconv.Atoi(f[2])
			at, err3 := strconv.ParseInt(f[3], 10, 64)
			if err1 != nil || err2 != nil || err3 != nil || cpu < 0 || cpu > 255 {
				return st, fmt.Errorf("bad trace record %q", r.Text)
			}
			evs = append(evs, ev{f[0], cpu, g, at})
			if cpu+1 > st.Cores {
				st.Cores = cpu + 1
			}
		}
	}
	st.Events = len(evs)
	if len(evs) == 0 {
		return st, fmt.Errorf("the guest sent no scheduler trace (was it built with an older kernel, or did it not exit normally?)")
	}
	var tr simulator.Trace
	run := tr.AddRun(title, policy, st.Cores)
	t0 := evs[0].at
	type open struct {
		g     int
		start int64
		flow  int // the arrow from the instant that readied it, 0 if none
	}
	running := map[int]*open{} // cpu → the run in progress
	last := map[int]int{}      // cpu → index of the last finished slice's G, for its stop reason
	readied := map[int]int{}   // G → the flow of the instant that readied it, until it runs
	flows := 0
	var pending []simulator.Slice
	closeRun := func(cpu int, at int64) {
		if o := running[cpu]; o != nil {
			pending = append(pending, simulator.Slice{Core: cpu, G: o.g, Name: "thread " + strconv.Itoa(o.g),
				Start: o.start - t0, Dur: at - o.start, Reason: "stop", Flow: o.flow})
			last[o.g] = len(pending) - 1
			delete(running, cpu)
		}
	}
	for _, e := range evs {
		switch e.kind {
		case "run":
			closeRun(e.cpu, e.at)
			running[e.cpu] = &open{e.g, e.at, readied[e.g]}
			delete(readied, e.g)
		case "pollready", "nicready":
			if e.kind == "pollready" {
				st.PollReady++
			} else {
				st.NICReady++
			}
			flows++
			readied[e.g] = flows
			tr.AddInstant(run, simulator.Instant{Core: e.cpu, At: e.at - t0, G: e.g, Flow: flows,
				Name: "thread " + strconv.Itoa(e.g) + " readied by " + readiedBy[e.kind]})
		case "stop":
			closeRun(e.cpu, e.at)
		case "park", "preempt", "yield", "exit":
			// The event after a stop says why the thread left its core.
			if i, ok := last[e.g]; ok && pending[i].Reason == "stop" {
				pending[i].Reason = e.kind
			}
		case "steal", "wake", "idle", "spin":
			tr.AddInstant(run, simulator.Instant{Core: e.cpu, At: e.at - t0, Name: e.kind, G: e.g})
		}
	}
	for cpu, o := range running {
		if end := evs[len(evs)-1].at; end > o.start {
			pending = append(pending, simulator.Slice{Core: cpu, G: o.g, Name: "thread " + strconv.Itoa(o.g),
				Start: o.start - t0, Dur: end - o.start, Reason: "running at exit", Flow: o.flow})
		}
	}
	for _, s := range pending {
		tr.AddSlice(run, s)
	}
	st.Slices = len(pending)
	_, err := tr.WriteTo(w)
	return st, err
}
