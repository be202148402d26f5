// Figures: parsing the guests' BENCH lines, ratios, and the printed report.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A figure is one measured value.
type figure struct {
	value float64
	unit  string
}

// figures are one boot's results by benchmark name.
type figures map[string]figure

// parseBench parses a program's line "BENCH name value unit". On a serial console the line may
// follow other bytes (a firmware's terminal escapes, a kernel message without its newline):
// the line is read from its last "BENCH ". The name is [a-z0-9_]+, the value a finite number
// and the unit has no blanks.
func parseBench(line string) (name string, f figure, ok bool) {
	i := strings.LastIndex(line, "BENCH ")
	if i < 0 {
		return "", figure{}, false
	}
	fs := strings.Fields(line[i+len("BENCH "):])
	if len(fs) != 3 || !validName(fs[0]) {
		return "", figure{}, false
	}
	v, err := strconv.ParseFloat(fs[1], 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return "", figure{}, false
	}
	return fs[0], figure{v, fs[2]}, true
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// medianFigures returns, for each benchmark, the median of the boots' figures (of two middle
// values, their mean). Failed boots count only when no boot succeeded: their figures may be
// partial or timed by a wrong clock. A figure whose unit differs between boots is left out.
func medianFigures(boots []boot) figures {
	use := boots
	var ok []boot
	for _, b := range boots {
		if b.err == nil {
			ok = append(ok, b)
		}
	}
	if len(ok) > 0 {
		use = ok
	}
	vals := map[string][]float64{}
	units := map[string]string{}
	bad := map[string]bool{}
	for _, b := range use {
		for n, f := range b.figs {
			if u, seen := units[n]; seen && u != f.unit {
				bad[n] = true
			}
			units[n] = f.unit
			vals[n] = append(vals[n], f.value)
		}
	}
	out := figures{}
	for n, v := range vals {
		if bad[n] {
			continue
		}
		slices.Sort(v)
		m := v[len(v)/2]
		if len(v)%2 == 0 {
			m = (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		out[n] = figure{m, units[n]}
	}
	return out
}

// ratio is a/b when both are the same unit and b is positive.
func ratio(a, b figure) (float64, bool) {
	if a.unit != b.unit || b.value <= 0 || a.value < 0 {
		return 0, false
	}
	return a.value / b.value, true
}

// higherIsBetter says how to read a ratio of figures in unit: rates (req/s, MB/s) are better
// higher, times (ms, ns/op, us) lower.
func higherIsBetter(unit string) bool { return strings.HasSuffix(unit, "/s") }

// verdict reads a gmpos/peer ratio of unit: "gmpos faster", "gmpos slower" or "same"
// (within 5%).
func verdict(r float64, unit string) string {
	if r > 0.95 && r < 1.05 {
		return "same"
	}
	if (r > 1) == higherIsBetter(unit) {
		return "gmpos faster"
	}
	return "gmpos slower"
}

// fmtValue prints a value with the digits it has, at most two decimals (the guests print one;
// a median of two adds one).
func fmtValue(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

// fmtRatio prints a ratio with three significant digits or so, without exponents.
func fmtRatio(r float64) string {
	switch {
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64)
	case r >= 10:
		return strconv.FormatFloat(r, 'f', 1, 64)
	case r >= 0.1:
		return strconv.FormatFloat(r, 'f', 2, 64)
	}
	return strconv.FormatFloat(r, 'f', 3, 64)
}

// order is the report's order of the benchmarks; others follow, sorted.
var order = []string{
	"boot_to_main", "kernel_boot_to_main",
	"futex_pingpong", "chan_pingpong", "goroutine_spawn_join", "syscall_getpid",
	"syscall_preempt_median", "syscall_preempt_worst",
	"console_write_mbps", "console_sleep_median", "console_sleep_worst", "pipe_mbps",
	"file_tmpfs_write_mbps", "file_tmpfs_read_mbps", "file_share_write_mbps", "file_share_read_mbps",
	"http_req_per_s", "http_p50", "http_p99", "tcp_host_to_guest", "tcp_guest_to_host",
}

// names lists the benchmarks of any of ms in report order.
func names(ms ...figures) []string {
	var rest []string
	seen := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			if !seen[k] && !slices.Contains(order, k) {
				rest = append(rest, k)
			}
			seen[k] = true
		}
	}
	sort.Strings(rest)
	var out []string
	for _, k := range order {
		if seen[k] {
			out = append(out, k)
		}
	}
	return append(out, rest...)
}

// benchLines writes the BENCH lines of one vCPU count: for each benchmark the gmpos figure, the
// peer's and their ratio (gmpos/peer), when there are both. suffix names the vCPU count
// (".smp1"); ratioKind is "ratio" for the Linux guest, "hostratio" for the host.
func benchLines(w io.Writer, suffix string, gm figures, peer string, pf figures, ratioKind string) {
	for _, n := range names(gm, pf) {
		g, gok := gm[n]
		p, pok := pf[n]
		if gok {
			fmt.Fprintf(w, "BENCH gmpos.%s%s %s %s\n", n, suffix, fmtValue(g.value), g.unit)
		}
		if pok {
			fmt.Fprintf(w, "BENCH %s.%s%s %s %s\n", peer, n, suffix, fmtValue(p.value), p.unit)
		}
		if r, ok := ratio(g, p); gok && pok && ok {
			fmt.Fprintf(w, "BENCH %s.%s%s %s gmpos/%s\n", ratioKind, n, suffix, fmtRatio(r), peer)
		}
	}
}

// column is one vCPU count's figures of both guests, for the summary table.
type column struct {
	title     string
	gm, linux figures
}

// summary writes a table for people: one row per benchmark, per vCPU count gmpos, Linux and
// the ratio with how to read it. Every line starts with "# ", so that a reader of BENCH lines
// can skip the table.
func summary(w io.Writer, cols []column) {
	var all []figures
	for _, c := range cols {
		all = append(all, c.gm, c.linux)
	}
	head := []string{"benchmark", "unit"}
	for _, c := range cols {
		head = append(head, c.title+": gmpos", "linux", "gmpos/linux", "")
	}
	rows := [][]string{head}
	for _, n := range names(all...) {
		row := []string{n, ""}
		for _, c := range cols {
			g, gok := c.gm[n]
			l, lok := c.linux[n]
			cell := func(f figure, ok bool) string {
				if !ok {
					return "-"
				}
				row[1] = f.unit
				return fmtValue(f.value)
			}
			row = append(row, cell(g, gok), cell(l, lok))
			if r, ok := ratio(g, l); gok && lok && ok {
				row = append(row, fmtRatio(r), verdict(r, g.unit))
			} else {
				row = append(row, "", "")
			}
		}
		rows = append(rows, row)
	}
	// Names, units and verdicts to the left, numbers to the right.
	left := func(col int) bool { return col < 2 || (col-2)%4 == 3 }
	for _, l := range table(rows, left) {
		fmt.Fprintln(w, "# "+l)
	}
}

// table lays out rows in columns two blanks apart, each cell aligned left or right.
func table(rows [][]string, left func(col int) bool) []string {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var out []string
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if left(i) {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}
