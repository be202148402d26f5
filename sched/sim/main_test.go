package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-cores", "0"}, "-cores 0 out of range"},
		{[]string{"-cores", "65"}, "out of range"},
		{[]string{"-workload", "nope"}, `unknown workload "nope"`},
		{[]string{"-policy", "nope"}, `unknown policy "nope"`},
		{[]string{"-bogus"}, "flag provided but not defined"},
		{[]string{"stray"}, `unexpected argument "stray"`},
		{[]string{"-slice", "0s"}, "-slice 0s: want a positive duration"},
		{[]string{"-switch", "-1us"}, "-switch -1µs: want a positive duration"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: stderr %q, want it to mention %q", c.args, errb.String(), c.want)
		}
	}
}

func TestTraceFileUnwritable(t *testing.T) {
	var out, errb bytes.Buffer
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "t.json")
	if code := run([]string{"-workload", "ping-pong", "-policy", "gmp", "-trace", bad}, &out, &errb); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(errb.String(), "-trace") {
		t.Errorf("stderr %q does not name the -trace problem", errb.String())
	}
}

// The command end to end: one row per workload x policy, a trace file that
// is JSON with a traceEvents array, and byte-identical output on a re-run.
func TestRunAndTrace(t *testing.T) {
	dir := t.TempDir()
	var outs [2]string
	var traces [2][]byte
	for i := range outs {
		path := filepath.Join(dir, "t.json")
		var out, errb bytes.Buffer
		code := run([]string{"-cores", "2", "-seed", "9", "-workload", "all", "-policy", "all", "-detail", "-trace", path}, &out, &errb)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		outs[i] = out.String()
		var err error
		if traces[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	if outs[0] != outs[1] || !bytes.Equal(traces[0], traces[1]) {
		t.Errorf("two runs with the same flags differ")
	}
	for _, w := range []string{"spawn-storm", "fork-join", "mixed-io", "hog-latency", "ping-pong"} {
		for _, p := range []string{"gmp", "global", "local", "fair"} {
			if !strings.Contains(outs[0], w) || !strings.Contains(outs[0], p) {
				t.Errorf("output lacks %s/%s:\n%s", w, p, outs[0])
			}
		}
	}
	var f struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(traces[0], &f); err != nil || len(f.TraceEvents) == 0 {
		t.Fatalf("trace: %v, %d events", err, len(f.TraceEvents))
	}
}

// The model flags reach the engine: a shorter slice means more
// preemptions of the hogs.
func TestSliceFlag(t *testing.T) {
	preempts := func(slice string) string {
		var out, errb bytes.Buffer
		if code := run([]string{"-workload", "hog-latency", "-policy", "gmp", "-slice", slice, "-switch", "0s"}, &out, &errb); code != 0 {
			t.Fatalf("-slice %s: exit %d: %s", slice, code, errb.String())
		}
		return out.String()
	}
	if a, b := preempts("10ms"), preempts("2ms"); a == b {
		t.Errorf("-slice 10ms and 2ms printed the same table:\n%s", a)
	}
}

// -wakegrain reaches the engine: without gmp's wake-up preemption the hogs
// hold the latency Gs back longer, a different table.
func TestWakeGrainFlag(t *testing.T) {
	table := func(grain string) string {
		var out, errb bytes.Buffer
		if code := run([]string{"-workload", "hog-latency", "-policy", "gmp", "-wakegrain", grain}, &out, &errb); code != 0 {
			t.Fatalf("-wakegrain %s: exit %d: %s", grain, code, errb.String())
		}
		return out.String()
	}
	if a, b := table("1ms"), table("0s"); a == b {
		t.Errorf("-wakegrain 1ms and 0s printed the same table:\n%s", a)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-wakegrain", "-1ms"}, &out, &errb); code != 2 {
		t.Errorf("-wakegrain -1ms: exit %d, want 2", code)
	}
}

func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "-workload") {
		t.Errorf("-h: exit %d, usage %q", code, errb.String())
	}
}

func TestList(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-list"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "policy   gmp") {
		t.Errorf("-list: exit %d, output %q", code, out.String())
	}
}
