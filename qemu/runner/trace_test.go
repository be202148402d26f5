package runner

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func recs(lines ...string) []Record {
	var rs []Record
	for _, l := range lines {
		r, err := ParseRecord(l)
		if err != nil {
			panic(err)
		}
		rs = append(rs, r)
	}
	return rs
}

// TestWriteTrace pairs run/stop events into slices per core, names each slice after the event that
// follows its stop, and turns steal/idle into instants.
func TestWriteTrace(t *testing.T) {
	var b bytes.Buffer
	st, err := WriteTrace(&b, recs(
		"trace-lost 7",
		"trace run 0 5 1000",
		"trace run 1 6 1500",
		"trace stop 0 5 3000",
		"trace park 0 5 3000",
		"trace idle 0 0 3100",
		"trace stop 1 6 4000",
		"trace preempt 1 6 4000",
		"trace steal 1 5 4100",
		"trace run 1 5 4200",
		"log unrelated",
		"trace stop 1 5 5000",
		"trace exit 1 5 5000",
	), "prog", "gmp")
	if err != nil {
		t.Fatal(err)
	}
	if st.Events != 11 || st.Slices != 3 || st.Cores != 2 || st.Lost != 7 {
		t.Fatalf("stats %+v", st)
	}
	var f struct {
		TraceEvents []struct {
			Ph   string         `json:"ph"`
			Tid  int            `json:"tid"`
			Ts   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			Name string         `json:"name"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &f); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	var got []string
	instants := 0
	for _, e := range f.TraceEvents {
		switch e.Ph {
		case "X":
			got = append(got, e.Name+":"+e.Args["reason"].(string))
		case "i":
			instants++
		}
	}
	want := "thread 5:park thread 6:preempt thread 5:exit"
	if strings.Join(got, " ") != want {
		t.Errorf("slices %q, want %q", strings.Join(got, " "), want)
	}
	if instants != 2 {
		t.Errorf("%d instants, want 2 (idle, steal)", instants)
	}
}

func TestWriteTraceErrors(t *testing.T) {
	for _, lines := range [][]string{
		{"log nothing here"},
		{"trace run 0 x 1"},
		{"trace run 0 1"},
		{"trace-lost many"},
	} {
		if _, err := WriteTrace(new(bytes.Buffer), recs(lines...), "p", "gmp"); err == nil {
			t.Errorf("%q: no error", lines)
		}
	}
}

// TestWriteTraceReadied: a thread readied by the network poller or the NIC's interrupt is an
// instant on the readying core, named for who did it, with a flow arrow to its next run (on
// whatever core); plain readies draw nothing, and a thread that never ran again gets no arrow.
func TestWriteTraceReadied(t *testing.T) {
	var b bytes.Buffer
	st, err := WriteTrace(&b, recs(
		"trace run 0 5 1000",
		"trace stop 0 5 2000",
		"trace park 0 5 2000",
		"trace run 1 6 2100",
		"trace pollready 0 5 3000", // P0's findRunnable polls and runs it at once
		"trace run 0 5 3000",
		"trace nicready 1 7 3500", // the NIC's interrupt on core 1, while 6 runs
		"trace ready 1 8 3600",    // a futex wake: no mark
		"trace stop 0 5 4000",
		"trace park 0 5 4000",
		"trace steal 0 7 4100",
		"trace run 0 7 4200", // 7 runs on the other core
		"trace pollready 1 9 4300",
		"trace stop 1 6 5000", // 9 never runs before the trace ends
		"trace exit 1 6 5000",
		"trace stop 0 7 6000",
		"trace exit 0 7 6000",
	), "prog", "gmp")
	if err != nil {
		t.Fatal(err)
	}
	if st.PollReady != 2 || st.NICReady != 1 {
		t.Errorf("stats %+v, want 2 pollready and 1 nicready", st)
	}
	var f struct {
		TraceEvents []struct {
			Ph      string         `json:"ph"`
			Cat     string         `json:"cat"`
			Tid     int            `json:"tid"`
			Ts      float64        `json:"ts"`
			Name    string         `json:"name"`
			BindID  *uint64        `json:"bind_id"`
			FlowIn  bool           `json:"flow_in"`
			FlowOut bool           `json:"flow_out"`
			Args    map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &f); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	type mark struct {
		name string
		tid  int
	}
	outs := map[uint64]mark{}
	ins := map[uint64]mark{}
	var names []string
	for _, e := range f.TraceEvents {
		if strings.Contains(e.Name, "readied") {
			names = append(names, e.Name)
		}
		switch {
		case e.FlowOut && e.BindID != nil:
			outs[*e.BindID] = mark{e.Name, e.Tid}
		case e.FlowIn && e.BindID != nil:
			ins[*e.BindID] = mark{e.Name, e.Tid}
		}
	}
	want := "thread 5 readied by the network poller|thread 7 readied by the NIC interrupt|thread 9 readied by the network poller"
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("marks %q, want %q", got, want)
	}
	if len(outs) != 2 || len(ins) != 2 {
		t.Fatalf("arrows from %v to %v, want two (5's and 7's; 9 never ran)", outs, ins)
	}
	for id, from := range outs {
		to := ins[id]
		g := strings.Fields(from.name)[1]
		if to.name != "thread "+g {
			t.Errorf("the arrow from %q ends on %q, want thread %s's next run", from.name, to.name, g)
		}
		if g == "7" && from.tid == to.tid {
			t.Errorf("thread 7's arrow stays on track %d: readied on core 1, ran on core 0", from.tid)
		}
	}
}
