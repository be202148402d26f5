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
