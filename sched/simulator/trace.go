package simulator

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
	"strconv"
)

// Chrome / Perfetto trace-event JSON.
//
// Format reference: "Trace Event Format" (Google, the document behind
// chrome://tracing, also read by ui.perfetto.dev). We use three shapes:
//
//   - {"ph":"M","name":"process_name",...}   names a pid (one per run: workload/policy)
//   - {"ph":"M","name":"thread_name",...}    names a tid (one per simulated core)
//   - {"ph":"X","ts":..,"dur":..,...}        a complete slice: one run of a G on a core
//
// ts and dur are JSON numbers in microseconds; we print virtual
// nanoseconds as µs with three decimals so no precision is lost. pid and
// tid are integers. The writer emits bytes that depend only on the
// recorded slices, so a seeded run produces an identical file.

// Slice is one run of a G on a core.
type Slice struct {
	Core   int
	G      int
	Name   string // G label shown on the slice
	Start  Time
	Dur    Time
	Reason string // why the run stopped: preempt, block, yield, exit, ...
}

// traceRun is the slices of one (workload, policy) run.
type traceRun struct {
	name   string
	policy string
	cores  int
	slices []Slice
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

// WriteTo writes the trace as one JSON object. Within each run, slices
// are sorted by (start, core), so timestamps never go backwards.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	b := bufio.NewWriter(cw)
	b.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`)
	first := true
	sep := func() {
		if !first {
			b.WriteString(",")
		}
		first = false
		b.WriteString("\n")
	}
	for i, r := range t.runs {
		pid := strconv.Itoa(i + 1)
		sep()
		b.WriteString(`{"name":"process_name","ph":"M","pid":` + pid + `,"tid":0,"args":{"name":`)
		b.WriteString(jstr(r.name))
		b.WriteString(`}}`)
		sep()
		b.WriteString(`{"name":"process_sort_index","ph":"M","pid":` + pid + `,"tid":0,"args":{"sort_index":` + pid + `}}`)
		for c := 0; c < r.cores; c++ {
			tid := strconv.Itoa(c)
			sep()
			b.WriteString(`{"name":"thread_name","ph":"M","pid":` + pid + `,"tid":` + tid + `,"args":{"name":"core ` + tid + `"}}`)
			sep()
			b.WriteString(`{"name":"thread_sort_index","ph":"M","pid":` + pid + `,"tid":` + tid + `,"args":{"sort_index":` + tid + `}}`)
		}
		ss := slices.Clone(r.slices)
		slices.SortStableFunc(ss, func(a, b Slice) int {
			if a.Start != b.Start {
				if a.Start < b.Start {
					return -1
				}
				return 1
			}
			return a.Core - b.Core
		})
		for _, s := range ss {
			sep()
			b.WriteString(`{"name":`)
			b.WriteString(jstr(s.Name))
			b.WriteString(`,"cat":"run","ph":"X","ts":`)
			b.WriteString(micros(s.Start))
			b.WriteString(`,"dur":`)
			b.WriteString(micros(s.Dur))
			b.WriteString(`,"pid":` + pid + `,"tid":` + strconv.Itoa(s.Core))
			b.WriteString(`,"args":{"g":` + strconv.Itoa(s.G) + `,"policy":`)
			b.WriteString(jstr(r.policy))
			b.WriteString(`,"reason":`)
			b.WriteString(jstr(s.Reason))
			b.WriteString(`}}`)
		}
	}
	b.WriteString("\n]}\n")
	err := b.Flush()
	return cw.n, err
}

// micros prints ns as a decimal number of microseconds, e.g. 1234 → 1.234.
func micros(ns Time) string {
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

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// jstr encodes s as a JSON string (strconv.Quote's \x escapes are not JSON).
func jstr(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
