// Errno conformance: one program of bad-input system calls, run on Linux and under gmpos, compared case by case.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// knownDifferences lists the conformance cases gmpos answers differently from Linux on purpose:
// what gmpos answers, and why it cannot or should not answer as Linux does. Every other
// difference is a bug. An entry whose case no longer differs, or whose gmpos answer changed,
// fails the test, so the list stays true.
var knownDifferences = map[string]struct{ guest, why string }{
	"getppid/": {"=0",
		"the program is the first process, without a parent: 0 is what Linux itself returns when the parent is outside the caller's pid namespace"},
	"kill/pid=-1,0": {"ESRCH",
		"kill(-1) reaches every process but the caller and pid 1; the guest's program has no other process at that point, and ESRCH is Linux's answer then (kill_something_info); the host has many"},
	"kill/pid=-1,65": {"ESRCH",
		"as kill/pid=-1,0: with no process to send to, Linux says ESRCH before any signal check"},
	"futex/TRYLOCK_PI,free": {"ENOSYS",
		"no priority-inheritance futexes (the Go runtime never uses them): ENOSYS is Linux's own answer without CONFIG_FUTEX_PI"},
	"futex/UNLOCK_PI,owner": {"ENOSYS",
		"no priority-inheritance futexes (the Go runtime never uses them): ENOSYS is Linux's own answer without CONFIG_FUTEX_PI"},
	"rseq/NULL,len=0": {"ENOSYS",
		"no restartable sequences (glibc's optional per-thread area; Go never registers one): ENOSYS is Linux's own answer without CONFIG_RSEQ"},
	"rseq/flags=2": {"ENOSYS",
		"no restartable sequences (glibc's optional per-thread area; Go never registers one): ENOSYS is Linux's own answer without CONFIG_RSEQ"},
	"arch_prctl/ARCH_SET_GS,0": {"EPERM",
		"the kernel keeps its per-CPU data behind GS and enters without SWAPGS, so there is no user GS base to set; Go on amd64 never sets GS"},
	"socket/domain=INET6,STREAM": {"EAFNOSUPPORT",
		"no IPv6: refusing AF_INET6 sockets makes Go's net use IPv4 alone (ipStackCapabilities); Linux without IPv6 answers the same"},
	"socket/domain=INET6,DGRAM": {"EAFNOSUPPORT",
		"no IPv6: refusing AF_INET6 sockets makes Go's net use IPv4 alone (ipStackCapabilities); Linux without IPv6 answers the same"},
	"connect/UNSPEC,unconnected": {"EAFNOSUPPORT",
		"connect(AF_UNSPEC), Linux's way to dissolve an association, is not supported (Go's net never makes it): the family is refused"},
}

// maxKnownFraction bounds the deliberate differences (issue "kernel/: draw the seams", item 9).
const maxKnownFraction = 0.05

// TestGuestConformance builds tests/testdata/conformance, runs it natively (the host's Linux is
// the reference) and under gmpos, and compares the answers case by case.
//
// Both runs see the same process environment where it matters: natively, the harness gives the
// program /dev/null as stdin and pipes as stdout and stderr, which answer like gmpos's console
// (a read-only stdin at end of file, write-only stdout and stderr, none of them a terminal). The
// program never depends on fd numbers: it opens every other fd it uses itself, after the Go
// runtime has opened its own. The reference is the host's kernel; the cases assume Linux 6.1 or
// later (MADV_POPULATE_*, ARCH_GET_XCOMP_*, 32-bit system call numbers).
func TestGuestConformance(t *testing.T) {
	skipOnArm64(t, "the cases are written with x86-64 system call numbers (testdata/conformance)")
	if native() {
		t.Skip("compares gmpos with Linux, and runs the program natively itself")
	}
	host := runNative(t, pkg("conformance"), opts{timeout: defaultTimeout}) // boot sets the default; runNative does not
	if host.code != 0 {
		host.dump(t)
		t.Fatalf("native run: exit code %d", host.code)
	}
	want, order, err := parseConformance(host.stdout)
	if err != nil {
		host.dump(t)
		t.Fatalf("native run: %v", err)
	}
	g := boot(t, pkg("conformance"), opts{})
	got, _, gerr := parseConformance(g.stdout) // a guest that stopped part-way still counts what it printed

	type diff struct{ name, linux, gmpos, note string }
	var unexpected []diff
	allowed := 0
	for _, name := range order {
		w := want[name]
		gv, ok := got[name]
		k, listed := knownDifferences[name]
		switch {
		case !ok:
			unexpected = append(unexpected, diff{name, w, "(missing)", "gmpos never printed this case"})
		case gv == w && listed:
			unexpected = append(unexpected, diff{name, w, gv, "listed in knownDifferences but no longer differs: remove the entry"})
		case gv == w:
		case listed && gv != k.guest:
			unexpected = append(unexpected, diff{name, w, gv, fmt.Sprintf("knownDifferences expects gmpos to answer %s", k.guest)})
		case listed:
			allowed++
			t.Logf("allowed: %s: Linux %s, gmpos %s: %s", name, w, gv, k.why)
		default:
			unexpected = append(unexpected, diff{name, w, gv, ""})
		}
	}
	var extra []string
	for name := range got {
		if _, ok := want[name]; !ok {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		unexpected = append(unexpected, diff{name, "(missing)", got[name], "only gmpos printed this case"})
	}
	var stale []string
	for name := range knownDifferences {
		if _, ok := want[name]; !ok {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)

	n := len(order)
	t.Logf("conformance: %d cases, %d differ (allowed), %d unexpected", n, allowed, len(unexpected))
	if len(unexpected) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%d cases answer differently from Linux (case: Linux → gmpos):\n", len(unexpected))
		for _, d := range unexpected {
			fmt.Fprintf(&b, "  %-58s %-22s → %s", d.name, d.linux, d.gmpos)
			if d.note != "" {
				fmt.Fprintf(&b, "   (%s)", d.note)
			}
			b.WriteByte('\n')
		}
		t.Error(b.String())
	}
	if len(stale) > 0 {
		t.Errorf("knownDifferences names cases the program does not have: %s", strings.Join(stale, ", "))
	}
	if float64(allowed) > maxKnownFraction*float64(n) {
		t.Errorf("%d deliberate differences out of %d cases: more than %.0f%%", allowed, n, 100*maxKnownFraction)
	}
	if gerr != nil || g.code != 0 {
		g.dump(t)
		t.Errorf("guest run: exit code %d, output: %v", g.code, gerr)
	}
}

// parseConformance reads "name<TAB>result" lines ending with "done<TAB>count". It returns the
// results by name and the names in order, and an error if the output is malformed or
// incomplete (what was read is still returned).
func parseConformance(out string) (map[string]string, []string, error) {
	res := map[string]string{}
	var order []string
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		name, result, ok := strings.Cut(line, "\t")
		if !ok {
			return res, order, fmt.Errorf("line %d is not name<TAB>result: %q", i+1, line)
		}
		if name == "done" {
			if n, err := strconv.Atoi(result); err != nil || n != len(order) {
				return res, order, fmt.Errorf("done line says %q cases, %d were printed", result, len(order))
			}
			return res, order, nil
		}
		if _, dup := res[name]; dup {
			return res, order, fmt.Errorf("case %q printed twice", name)
		}
		res[name] = result
		order = append(order, name)
	}
	return res, order, fmt.Errorf("no done line: the program stopped after %d cases", len(order))
}
