package simulator

import (
	"bufio"
	"cmp"
	"encoding/json"
	"io"
	"slices"
	"strconv"
)

// Chrome / Perfetto trace-event JSON.
//
// Format reference: "Trace Event Format" (Google, the document behind
// chrome://tracing, also read by ui.perfetto.dev). We use four shapes:
//
//   - {"ph":"M","name":"process_name",...}   names a pid (one per run: workload/policy)
//   - {"ph":"M","name":"thread_name",...}    names a tid (one per simulated core)
//   - {"ph":"X","ts":..,"dur":..,...}        a complete slice: one run of a G on a core
//   - {"ph":"i","s":"t","ts":..,...}         an instant on a core: steal, IPI, idle
//
// and flow arrows, version 2 of the format's flows: an instant and a slice
// that share a Flow (the runner's "thread 12 readied by the network poller"
// and that thread's next run) carry the same "bind_id", the instant with
// "flow_out":true and the slice with "flow_in":true. Perfetto binds flows to
// slices only, so such an instant is written as an "X" of zero duration,
// which it stores and draws exactly as an instant; cat says which it is
// ("run" for runs, "sched" for events).
//
// ts and dur are JSON numbers in microseconds; we print virtual
// nanoseconds as µs with three decimals plus a half-nanosecond "5" so that
// no precision is lost on import (see micros). pid and
// tid are integers: pid is the run (1, 2, ...) and tid = 1000*pid + core.
// Tids must be unique across the whole file, not just within a pid:
// Perfetto's JSON importer, like Linux, keys threads (and thread_name) by
// tid alone, so "core 0" of every run would otherwise merge into one track. All metadata comes first, then every timed event of
// every run sorted by (ts, pid, tid), so timestamps never go backwards in
// the file. The bytes depend only on what was recorded, so a seeded run
// produces an identical file.

// Slice is one run of a G on a core.
type Slice struct {
	Core   int
	G      int
	Name   string // G label shown on the slice
	Start  Time
	Dur    Time
	Reason string // why the run stopped: preempt, wait, sleep, net, gosched, goyield, exit
	Flow   int    // if non-zero: the arrow from the Instant with this Flow ends here
}

// Instant is a scheduler event on a core's track, from the Sched's trace
// hook: "steal" (this P stole Gs; G is the first one), "wake" (an IPI
// to this P's halted core), "idle" (this P found nothing and parked).
type Instant struct {
	Core int
	At   Time
	Name string
	G    int // simulator uid of the G involved, 0 if none
	Flow int // if non-zero (unique in the run): an arrow goes to the Slice with this Flow
}

// traceRun is the events of one (workload, policy) run.
type traceRun struct {
	name     string
	policy   string
	cores    int
	slices   []Slice
	instants []Instant
}

// Trace collects the runs that will go into one trace file.
type Trace struct {
	runs []traceRun
}

// addRun registers a run and returns its index (pid-1).
func (t *Trace) addRun(name, policy string, cores int) int {
	t.runs = append(t.runs, traceRun{name: name, policy: policy, cores: cores})
	return len(t.runs) - 1
}

func (t *Trace) add(run int, s Slice) {
	t.runs[run].slices = append(t.runs[run].slices, s)
}

func (t *Trace) addInstant(run int, in Instant) {
	t.runs[run].instants = append(t.runs[run].instants, in)
}

// AddRun starts a new process track group (one pid) named name/policy with cores core tracks, and
// returns its handle for AddSlice and AddInstant. The runner uses it to turn a real guest's
// scheduler trace into the same timeline format as the simulator's.
func (t *Trace) AddRun(name, policy string, cores int) int { return t.addRun(name, policy, cores) }

// AddSlice records one run of a G on a core of run.
func (t *Trace) AddSlice(run int, s Slice) { t.add(run, s) }

// AddInstant records a scheduler event on a core of run.
func (t *Trace) AddInstant(run int, in Instant) { t.addInstant(run, in) }

// timed is one X or i event in file order.
type timed struct {
	at, pid, core int64
	line          string
}

// WriteTo writes the trace as one JSON object.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	b := bufio.NewWriter(cw)
	b.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`)
	first := true
	emit := func(s string) {
		if !first {
			b.WriteString(",")
		}
		first = false
		b.WriteString("\n")
		b.WriteString(s)
	}
	var evs []timed
	for i, r := range t.runs {
		pid := strconv.Itoa(i + 1)
		// Process metadata goes on tid == pid (the "main thread" by the
		// Linux convention Perfetto follows), also unique in the file.
		emit(`{"name":"process_name","ph":"M","pid":` + pid + `,"tid":` + pid + `,"args":{"name":` + jstr(r.name) + `}}`)
		emit(`{"name":"process_sort_index","ph":"M","pid":` + pid + `,"tid":` + pid + `,"args":{"sort_index":` + pid + `}}`)
		for c := 0; c < r.cores; c++ {
			tid := traceTID(i, c)
			emit(`{"name":"thread_name","ph":"M","pid":` + pid + `,"tid":` + tid + `,"args":{"name":"core ` + strconv.Itoa(c) + `"}}`)
			emit(`{"name":"thread_sort_index","ph":"M","pid":` + pid + `,"tid":` + tid + `,"args":{"sort_index":` + strconv.Itoa(c) + `}}`)
		}
		pol := jstr(r.policy)
		// A flow is drawn only if both its ends were recorded.
		var flowIn, flowOut map[int]bool
		for _, s := range r.slices {
			if s.Flow != 0 {
				if flowIn == nil {
					flowIn = map[int]bool{}
				}
				flowIn[s.Flow] = true
			}
		}
		for _, in := range r.instants {
			if in.Flow != 0 && flowIn[in.Flow] {
				if flowOut == nil {
					flowOut = map[int]bool{}
				}
				flowOut[in.Flow] = true
			}
		}
		for _, s := range r.slices {
			flow := ""
			if flowOut[s.Flow] {
				flow = `,"bind_id":` + traceFlowID(i, s.Flow) + `,"flow_in":true`
			}
			evs = append(evs, timed{s.Start, int64(i), int64(s.Core),
				`{"name":` + jstr(s.Name) + `,"cat":"run","ph":"X","ts":` + micros(s.Start) + `,"dur":` + micros(s.Dur) +
					`,"pid":` + pid + `,"tid":` + traceTID(i, s.Core) + flow +
					`,"args":{"g":` + strconv.Itoa(s.G) + `,"policy":` + pol + `,"reason":` + jstr(s.Reason) + `}}`})
		}
		for _, in := range r.instants {
			shape := `"ph":"i","s":"t"`
			if flowOut[in.Flow] {
				shape = `"ph":"X","dur":` + micros(0) + `,"bind_id":` + traceFlowID(i, in.Flow) + `,"flow_out":true`
			}
			evs = append(evs, timed{in.At, int64(i), int64(in.Core),
				`{"name":` + jstr(in.Name) + `,"cat":"sched",` + shape + `,"ts":` + micros(in.At) +
					`,"pid":` + pid + `,"tid":` + traceTID(i, in.Core) +
					`,"args":{"g":` + strconv.Itoa(in.G) + `,"policy":` + pol + `}}`})
		}
	}
	// Stable: events with equal keys keep recording order (a run's slices
	// before its instants), which is itself deterministic.
	slices.SortStableFunc(evs, func(a, b timed) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.pid, b.pid), cmp.Compare(a.core, b.core))
	})
	for _, e := range evs {
		emit(e.line)
	}
	b.WriteString("\n]}\n")
	err := b.Flush()
	return cw.n, err
}

// traceTID is the tid of core c in run i (pid i+1): unique in the file.
func traceTID(i, c int) string { return strconv.Itoa(1000*(i+1) + c) }

// traceFlowID is the bind_id of flow f in run i: unique in the file, as
// Perfetto keys flows by id alone.
func traceFlowID(i, f int) string { return strconv.FormatInt(int64(i+1)<<32|int64(uint32(f)), 10) }

// micros prints ns as a decimal number of microseconds plus half a
// nanosecond, e.g. 1234 → 1.2345. Importers convert with
// int64(µs * 1000.0) (Perfetto's CoerceToTs), which truncates; 1.234 would
// come out as 1233 ns whenever the double lands just below, and a run that
// starts when the previous one ends would then overlap it by a nanosecond
// and be nested under it. With the half-nanosecond bias every value
// truncates to its exact nanosecond (TestTraceTimesSurviveFloat).
func micros(ns Time) string {
	return microsExact(ns) + "5"
}

// microsExact prints ns as microseconds with three decimals, 1234 → 1.234.
func microsExact(ns Time) string {
	frac := ns % 1000
	s := strconv.FormatInt(ns/1000, 10) + "."
	switch {
	case frac < 10:
		s += "00"
	case frac < 100:
		s += "0"
	}
	return s + strconv.FormatInt(frac, 10)
}

// jstr encodes s as a JSON string (strconv.Quote's \x escapes are not JSON).
func jstr(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
