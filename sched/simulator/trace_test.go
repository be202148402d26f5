package simulator

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// traceFile is the subset of the Trace Event Format the checks read.
type traceFile struct {
	TraceEvents []struct {
		Name string          `json:"name"`
		Cat  string          `json:"cat"`
		Ph   string          `json:"ph"`
		S    string          `json:"s"`
		Ts   *json.Number    `json:"ts"`
		Dur  *json.Number    `json:"dur"`
		Pid  *int            `json:"pid"`
		Tid  *int            `json:"tid"`
		Args json.RawMessage `json:"args"`
	} `json:"traceEvents"`
	DisplayTimeUnit string `json:"displayTimeUnit"`
}

// ns parses a µs timestamp with up to three decimals back to integer ns,
// so the overlap checks are exact.
func ns(n *json.Number) (Time, error) {
	if n == nil {
		return 0, fmt.Errorf("missing ts/dur")
	}
	s := n.String()
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) != 4 || frac[3] != '5' || strings.HasPrefix(s, "-") {
		return 0, fmt.Errorf("timestamp %q: want a non-negative number of µs with 3 decimals and the half-ns 5", s)
	}
	frac = frac[:3]
	// What an importer computes (Perfetto: int64(double * 1000.0)) must
	// be the exact nanosecond.
	f, err := n.Float64()
	if err != nil {
		return 0, err
	}
	imported := int64(f * 1000.0)
	for len(frac) < 3 {
		frac += "0"
	}
	var v Time
	for _, c := range whole + frac {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("timestamp %q is not a plain decimal number", s)
		}
		v = v*10 + Time(c-'0')
	}
	if imported != v {
		return 0, fmt.Errorf("timestamp %q imports as %d ns, want %d", s, imported, v)
	}
	return v, nil
}

// checkTrace parses a trace and checks the structure Perfetto needs and the
// simulator promises: every slice on a named core track of a named
// process, ts non-decreasing, no two slices of one core overlapping, no G
// running on two cores at once. It returns the number of slices.
func checkTrace(data []byte, cores int) (int, error) {
	var f traceFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return 0, fmt.Errorf("trace is not valid JSON of the expected shape: %v", err)
	}
	type track struct{ pid, tid int }
	procNamed := map[int]bool{}
	threadNamed := map[track]bool{}
	tidNamed := map[int]bool{}
	lastEnd := map[track]Time{}
	type gkey struct{ pid, g int }
	gRuns := map[gkey][][2]Time{}
	var lastTs Time
	nslices := 0
	for i, ev := range f.TraceEvents {
		if ev.Pid == nil || ev.Tid == nil {
			return 0, fmt.Errorf("event %d (%s): pid and tid must be integers", i, ev.Name)
		}
		tr := track{*ev.Pid, *ev.Tid}
		switch ev.Ph {
		case "M":
			var args struct {
				Name      *string `json:"name"`
				SortIndex *int    `json:"sort_index"`
			}
			if err := json.Unmarshal(ev.Args, &args); err != nil {
				return 0, fmt.Errorf("metadata %d: %v", i, err)
			}
			if strings.HasPrefix(ev.Name, "process_") && tr.tid != tr.pid {
				return 0, fmt.Errorf("metadata %d (%s) on tid %d, want tid == pid (tids are global in Perfetto)", i, ev.Name, tr.tid)
			}
			switch ev.Name {
			case "process_name":
				procNamed[tr.pid] = args.Name != nil && *args.Name != ""
			case "thread_name":
				if tidNamed[tr.tid] {
					return 0, fmt.Errorf("tid %d named twice: Perfetto keys threads by tid alone", tr.tid)
				}
				tidNamed[tr.tid] = true
				threadNamed[tr] = args.Name != nil && *args.Name != ""
			case "process_sort_index", "thread_sort_index":
				if args.SortIndex == nil {
					return 0, fmt.Errorf("metadata %d (%s) without sort_index", i, ev.Name)
				}
			default:
				return 0, fmt.Errorf("unknown metadata event %q", ev.Name)
			}
		case "X":
			nslices++
			if !procNamed[tr.pid] || !threadNamed[tr] {
				return 0, fmt.Errorf("slice %d (%s) on pid %d tid %d before that track was named", i, ev.Name, tr.pid, tr.tid)
			}
			if c := tr.tid - 1000*tr.pid; c < 0 || c >= cores {
				return 0, fmt.Errorf("slice %d on pid %d tid %d, want tid 1000*pid + core (0..%d)", i, tr.pid, tr.tid, cores-1)
			}
			ts, err := ns(ev.Ts)
			if err != nil {
				return 0, fmt.Errorf("slice %d: %v", i, err)
			}
			dur, err := ns(ev.Dur)
			if err != nil {
				return 0, fmt.Errorf("slice %d: %v", i, err)
			}
			if ts < lastTs {
				return 0, fmt.Errorf("slice %d: ts %d before the previous event's %d", i, ts, lastTs)
			}
			lastTs = ts
			if ts < lastEnd[tr] {
				return 0, fmt.Errorf("slice %d (%s) at %d overlaps the previous slice on tid %d, which ends at %d", i, ev.Name, ts, tr.tid, lastEnd[tr])
			}
			lastEnd[tr] = ts + dur
			var args struct {
				G      int    `json:"g"`
				Policy string `json:"policy"`
				Reason string `json:"reason"`
			}
			if err := json.Unmarshal(ev.Args, &args); err != nil || args.G == 0 || args.Policy == "" || args.Reason == "" {
				return 0, fmt.Errorf("slice %d args %s: want g, policy and reason (%v)", i, ev.Args, err)
			}
			if !strings.HasPrefix(ev.Name, "G") {
				return 0, fmt.Errorf("slice %d named %q, want the G", i, ev.Name)
			}
			k := gkey{tr.pid, args.G}
			gRuns[k] = append(gRuns[k], [2]Time{ts, ts + dur})
		case "i":
			if c := tr.tid - 1000*tr.pid; !procNamed[tr.pid] || !threadNamed[tr] || c < 0 || c >= cores {
				return 0, fmt.Errorf("instant %d (%s) on unnamed or bad track pid %d tid %d", i, ev.Name, tr.pid, tr.tid)
			}
			ts, err := ns(ev.Ts)
			if err != nil {
				return 0, fmt.Errorf("instant %d: %v", i, err)
			}
			if ts < lastTs {
				return 0, fmt.Errorf("instant %d: ts %d before the previous event's %d", i, ts, lastTs)
			}
			lastTs = ts
			if ev.S != "t" {
				return 0, fmt.Errorf("instant %d: scope %q, want \"t\" (the core's track)", i, ev.S)
			}
		default:
			return 0, fmt.Errorf("event %d has ph %q, want M, X or i", i, ev.Ph)
		}
	}
	for k, runs := range gRuns {
		// File order is by start time only; a zero-length run (a G that
		// yields at once) may share its start with the next run elsewhere.
		slices.SortFunc(runs, func(a, b [2]Time) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
		for i := 1; i < len(runs); i++ {
			if runs[i][0] < runs[i-1][1] {
				return 0, fmt.Errorf("pid %d: G%d runs at %d before its previous run ends at %d (on two cores at once)", k.pid, k.g, runs[i][0], runs[i-1][1])
			}
		}
	}
	return nslices, nil
}

func TestTraceStructure(t *testing.T) {
	tr := new(Trace)
	total := 0
	for _, w := range Workloads {
		for _, p := range []string{"gmp", "local"} {
			r := run(t, Config{Cores: 4, Seed: 5, Workload: w, Policy: p, Trace: tr})
			total += r.Dispatches
		}
	}
	var buf bytes.Buffer
	n, err := tr.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo = %d, %v; buffer has %d bytes", n, err, buf.Len())
	}
	got, err := checkTrace(buf.Bytes(), 4)
	if err != nil {
		t.Fatal(err)
	}
	if got != total {
		t.Errorf("trace has %d slices, runs dispatched %d Gs: want one slice per run", got, total)
	}
	for _, name := range []string{`"name":"steal"`, `"name":"wake"`, `"name":"idle"`} {
		if !bytes.Contains(buf.Bytes(), []byte(name)) {
			t.Errorf("trace has no %s instant", name)
		}
	}
}

// The checker itself must reject what it is meant to catch.
func TestTraceCheckerRejects(t *testing.T) {
	good := &Trace{}
	run0 := good.addRun("w/p", "p", 2)
	good.add(run0, Slice{Core: 0, G: 1, Name: "G1 a", Start: 0, Dur: 1500, Reason: "exit"})
	good.add(run0, Slice{Core: 1, G: 2, Name: "G2 b", Start: 1000, Dur: 10, Reason: "exit"})
	var buf bytes.Buffer
	good.WriteTo(&buf)
	if n, err := checkTrace(buf.Bytes(), 2); n != 2 || err != nil {
		t.Fatalf("good trace: %d slices, %v", n, err)
	}
	if !strings.Contains(buf.String(), `"ts":1.0005,"dur":0.0105`) {
		t.Errorf("timestamps not printed as µs with 3 decimals:\n%s", buf.String())
	}
	for name, s := range map[string]Slice{
		"overlap on a core": {Core: 0, G: 3, Name: "G3 c", Start: 1000, Dur: 5, Reason: "exit"},
		"G on two cores":    {Core: 1, G: 1, Name: "G1 a", Start: 1200, Dur: 5, Reason: "exit"},
	} {
		bad := &Trace{}
		r := bad.addRun("w/p", "p", 2)
		bad.add(r, good.runs[0].slices[0])
		bad.add(r, s)
		buf.Reset()
		bad.WriteTo(&buf)
		if _, err := checkTrace(buf.Bytes(), 2); err == nil {
			t.Errorf("%s: checker accepted it", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// Without the half-nanosecond bias, importing µs as doubles and truncating
// loses a nanosecond on some values; with it, none of a large range does.
func TestTraceTimesSurviveFloat(t *testing.T) {
	lossy := 0
	for ns := Time(0); ns < 2_000_000; ns += 7 {
		for _, base := range []Time{0, 59 * Second} {
			v := base + ns
			exact, _ := strconv.ParseFloat(microsExact(v), 64)
			if int64(exact*1000.0) != v {
				lossy++
			}
			biased, _ := strconv.ParseFloat(micros(v), 64)
			if got := int64(biased * 1000.0); got != v {
				t.Fatalf("%d ns printed %s imports as %d", v, micros(v), got)
			}
		}
	}
	if lossy == 0 {
		t.Errorf("no value lost precision without the bias: the bias is unexplained")
	}
	t.Logf("%d values would have lost a nanosecond without the bias", lossy)
}

// An instant and a slice with the same Flow are joined by a version-2 flow:
// the instant becomes a zero-length "X" with flow_out, the slice gets
// flow_in, with one bind_id unique in the file. A Flow with only one end
// recorded draws nothing, and the instant stays an "i".
func TestTraceFlows(t *testing.T) {
	tr := new(Trace)
	for range 2 {
		r := tr.AddRun("w/p", "p", 2)
		tr.AddInstant(r, Instant{Core: 0, At: 100, Name: "ready a", G: 1, Flow: 1})
		tr.AddInstant(r, Instant{Core: 0, At: 150, Name: "ready b", G: 2, Flow: 2}) // b never runs
		tr.AddSlice(r, Slice{Core: 1, G: 1, Name: "G1", Start: 200, Dur: 50, Reason: "exit", Flow: 1})
		tr.AddSlice(r, Slice{Core: 1, G: 3, Name: "G3", Start: 300, Dur: 50, Reason: "exit", Flow: 3}) // no instant
	}
	var buf bytes.Buffer
	if _, err := tr.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	var f struct {
		TraceEvents []struct {
			Name    string       `json:"name"`
			Ph      string       `json:"ph"`
			Pid     int          `json:"pid"`
			Dur     *json.Number `json:"dur"`
			BindID  *uint64      `json:"bind_id"`
			FlowIn  bool         `json:"flow_in"`
			FlowOut bool         `json:"flow_out"`
		} `json:"traceEvents"`
	}
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	outs, ins := map[uint64]string{}, map[uint64]string{}
	for _, e := range f.TraceEvents {
		key := strconv.Itoa(e.Pid) + " " + e.Name
		switch {
		case e.FlowOut:
			if e.Ph != "X" || e.Dur == nil || e.Dur.String() != micros(0) || e.BindID == nil {
				t.Errorf("%s: flow start %s dur %v, want an X of zero duration with a bind_id", key, e.Ph, e.Dur)
				continue
			}
			outs[*e.BindID] = key
		case e.FlowIn:
			if e.Ph != "X" || e.BindID == nil {
				t.Errorf("%s: flow end %s without bind_id", key, e.Ph)
				continue
			}
			ins[*e.BindID] = key
		case e.BindID != nil:
			t.Errorf("%s: bind_id without flow_in or flow_out", key)
		case e.Name == "ready b" && e.Ph != "i":
			t.Errorf("%s: an instant without a flow is %q, want i", key, e.Ph)
		}
	}
	if len(outs) != 2 || len(ins) != 2 {
		t.Fatalf("flow starts %v, ends %v: want one flow per run", outs, ins)
	}
	for id, from := range outs {
		if to := ins[id]; strings.Fields(from)[0] != strings.Fields(to)[0] || !strings.HasSuffix(from, "ready a") || !strings.HasSuffix(to, "G1") {
			t.Errorf("bind_id %d joins %q to %q, want ready a → G1 of one run", id, from, to)
		}
	}
}
