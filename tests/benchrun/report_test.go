// Tests of the pure parts of benchrun: BENCH lines, ratios, percentiles and the report.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseBench(t *testing.T) {
	for _, c := range []struct {
		line, name string
		f          figure
	}{
		{"BENCH chan_pingpong 3004.5 ns/roundtrip", "chan_pingpong", figure{3004.5, "ns/roundtrip"}},
		{"BENCH kernel_boot_to_main 52 ms\r", "kernel_boot_to_main", figure{52, "ms"}},
		// After firmware escapes on the same line, as on a serial console.
		{"\x1b[2J\x1b[01;01HBENCH x1 -0.5 MB/s", "x1", figure{-0.5, "MB/s"}},
		{"[    1.2] noise BENCH a 1e3 us", "a", figure{1000, "us"}},
	} {
		n, f, ok := parseBench(c.line)
		if !ok || n != c.name || f != c.f {
			t.Errorf("%q: got %q %+v %v, want %q %+v", c.line, n, f, ok, c.name, c.f)
		}
	}
	for _, bad := range []string{"", "BENCH", "BENCH a 1", "BENCH a 1 ms extra", "BENCH A 1 ms", "BENCH a.b 1 ms",
		"BENCH a x ms", "BENCH a NaN ms", "BENCH a +Inf ms", "INFO a 1 ms", "BENCHa 1 ms",
		"BENCH " + strings.Repeat("a", 65) + " 1 ms"} {
		if n, f, ok := parseBench(bad); ok {
			t.Errorf("%q accepted as %q %+v", bad, n, f)
		}
	}
}

// FuzzParseBench: what a guest prints is outside data; an accepted line must make a
// well-formed BENCH line again.
func FuzzParseBench(f *testing.F) {
	f.Add("BENCH chan_pingpong 3004.5 ns/roundtrip")
	f.Add("junk BENCH a 1 ms\r")
	f.Fuzz(func(t *testing.T, line string) {
		n, fig, ok := parseBench(line)
		if !ok {
			return
		}
		again := "BENCH " + n + " " + fmtValue(fig.value) + " " + fig.unit
		n2, fig2, ok := parseBench(again)
		if !ok || n2 != n || fig2 != fig || math.IsNaN(fig.value) {
			t.Fatalf("%q → %q %+v → %q: %v", line, n, fig, again, ok)
		}
	})
}

func TestRatio(t *testing.T) {
	if r, ok := ratio(figure{3, "ms"}, figure{2, "ms"}); !ok || r != 1.5 {
		t.Errorf("3/2 ms = %v %v", r, ok)
	}
	for _, c := range [][2]figure{
		{{1, "ms"}, {1, "us"}}, // different units
		{{1, "ms"}, {0, "ms"}}, // no peer figure
		{{-1, "ms"}, {1, "ms"}},
	} {
		if r, ok := ratio(c[0], c[1]); ok {
			t.Errorf("ratio(%v, %v) = %v", c[0], c[1], r)
		}
	}
}

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		r    float64
		unit string
		want string
	}{
		{0.5, "ms", "gmpos faster"}, {2, "ns/op", "gmpos slower"}, {2, "req/s", "gmpos faster"},
		{0.5, "MB/s", "gmpos slower"}, {1.02, "us", "same"}, {0.97, "req/s", "same"},
	} {
		if got := verdict(c.r, c.unit); got != c.want {
			t.Errorf("verdict(%v, %s) = %q, want %q", c.r, c.unit, got, c.want)
		}
	}
}

func TestFmtRatio(t *testing.T) {
	for r, want := range map[float64]string{157.3: "157", 10.64: "10.6", 1.054: "1.05", 0.38: "0.38", 0.0123: "0.012"} {
		if got := fmtRatio(r); got != want {
			t.Errorf("fmtRatio(%v) = %q, want %q", r, got, want)
		}
	}
}

func TestFmtValue(t *testing.T) {
	for v, want := range map[float64]string{9.100000000000001: "9.1", 237.10000000000002: "237.1", 129180.85: "129180.85",
		3004: "3004", 0.125: "0.13", 1e6: "1000000"} {
		if got := fmtValue(v); got != want {
			t.Errorf("fmtValue(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 200; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{0.5: 100 * time.Millisecond, 0.99: 198 * time.Millisecond,
		1: 200 * time.Millisecond, 0: time.Millisecond} {
		if got := percentile(d, p); got != want {
			t.Errorf("p%v = %v, want %v", p*100, got, want)
		}
	}
	if got := percentile([]time.Duration{7}, 0.99); got != 7 {
		t.Errorf("one sample: %v", got)
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("no samples: %v", got)
	}
}

func TestBenchLines(t *testing.T) {
	gm := figures{"chan_pingpong": {3000, "ns/roundtrip"}, "qemu_start_to_kernel_entry": {100, "ms"},
		"boot_to_main": {500, "ms"}}
	li := figures{"chan_pingpong": {2000, "ns/roundtrip"}, "boot_to_main": {2500, "ms"}, "linux_init": {90, "ms"}}
	var b strings.Builder
	benchLines(&b, ".smp1", gm, "linux", li, "ratio")
	want := `BENCH gmpos.boot_to_main.smp1 500 ms
BENCH linux.boot_to_main.smp1 2500 ms
BENCH ratio.boot_to_main.smp1 0.20 gmpos/linux
BENCH gmpos.chan_pingpong.smp1 3000 ns/roundtrip
BENCH linux.chan_pingpong.smp1 2000 ns/roundtrip
BENCH ratio.chan_pingpong.smp1 1.50 gmpos/linux
BENCH linux.linux_init.smp1 90 ms
BENCH gmpos.qemu_start_to_kernel_entry.smp1 100 ms
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestSummary(t *testing.T) {
	var b strings.Builder
	summary(&b, []column{
		{"1 vCPU", figures{"http_req_per_s": {3000, "req/s"}}, figures{"http_req_per_s": {1500, "req/s"}}},
		{"2 vCPUs", figures{"http_req_per_s": {3000, "req/s"}}, figures{}},
	})
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "# ") {
			t.Errorf("line %q does not start with '# '", l)
		}
	}
	if f := strings.Fields(lines[1]); !strings.Contains(lines[1], "2.00  gmpos faster") || f[1] != "http_req_per_s" || f[2] != "req/s" {
		t.Errorf("row %q", lines[1])
	}
}

func TestParseClock(t *testing.T) {
	if d, ok := parseClock("CLOCK 1234.5 ms"); !ok || d != 1234500*time.Microsecond {
		t.Errorf("got %v %v", d, ok)
	}
	for _, bad := range []string{"CLOCK", "CLOCK 1 s", "CLOCK x ms", "CLOCK -1 ms", "CLOCK NaN ms", "CLOCK 1e300 ms"} {
		if d, ok := parseClock(bad); ok {
			t.Errorf("%q accepted: %v", bad, d)
		}
	}
}

func TestCheckClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	mark := func(guest, host time.Duration) clockMark { return clockMark{guest, t0.Add(host)} }
	start := mark(5*time.Second, 0)
	for _, c := range []struct {
		end clockMark
		ok  bool
	}{
		{mark(35*time.Second, 30*time.Second), true},
		{mark(37*time.Second, 30*time.Second), true},                  // 1.07×
		{mark(39*time.Second, 30*time.Second), false},                 // 1.13× fast
		{mark(31*time.Second, 30*time.Second), false},                 // 0.87×: gmpos measuring 2.8 GHz for 2.445
		{mark(5*time.Second+time.Second, 100*time.Millisecond), true}, // too short to judge
		{mark(155*time.Second, 30*time.Second), false},                // 5× fast
		{mark(15*time.Second, 30*time.Second), false},                 // a third of the speed
	} {
		if err := checkClock(start, c.end, 2*time.Second); (err == nil) != c.ok {
			t.Errorf("guest %v, host %v: %v", c.end.guest-start.guest, c.end.host.Sub(start.host), err)
		}
	}
}

func TestMedianFigures(t *testing.T) {
	b := func(err error, v ...float64) boot {
		f := figures{"x": {v[0], "ms"}}
		if len(v) > 1 {
			f["y"] = figure{v[1], "us"}
		}
		return boot{figs: f, err: err}
	}
	failed := errors.New("clock off")
	got := medianFigures([]boot{b(nil, 3, 10), b(nil, 1), b(failed, 1000, 1000), b(nil, 2, 20)})
	want := figures{"x": {2, "ms"}, "y": {15, "us"}} // the failed boot does not count
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := medianFigures([]boot{b(failed, 7)}); got["x"].value != 7 {
		t.Errorf("only failed boots: %v", got)
	}
	mixed := []boot{{figs: figures{"x": {1, "ms"}}}, {figs: figures{"x": {1, "s"}}}}
	if got := medianFigures(mixed); len(got) != 0 {
		t.Errorf("mixed units: %v", got)
	}
	if got := medianFigures(nil); len(got) != 0 {
		t.Errorf("no boots: %v", got)
	}
}
