// Tests of child processes: vfork, execve, wait (kernel/proc.go).
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"strings"
	"testing"
)

// TestGuestProcesses runs testdata/procs, which starts copies of itself with os/exec: exit codes
// one child after another, output and stdin through pipes, argv (an empty argument among them),
// pid and ppid, the environment, a working directory of the child's own, a panicking child, a
// child killed by SIGTERM and one that catches SIGINT, ENOENT, ENOEXEC and EACCES for files that
// cannot run, and ECHILD once every child is reaped. Every check must hold, as it does natively
// (GMPOS_GUEST=native). A second child while one runs is EAGAIN in the guest (one exec region);
// natively it runs.
func TestGuestProcesses(t *testing.T) {
	g := boot(t, pkg("procs"), opts{})
	g.wantCode(t, 0)
	checks := 0
	wantConcurrent := "concurrent: fork/exec /bin/procs: resource temporarily unavailable"
	if native() {
		wantConcurrent = "concurrent: <nil>"
	}
	concurrent := false
	for _, l := range strings.Split(strings.TrimSpace(g.stdout), "\n") {
		switch {
		case strings.HasPrefix(l, "concurrent: "):
			concurrent = true
			if l != wantConcurrent {
				t.Errorf("%q, want %q", l, wantConcurrent)
			}
		case strings.HasPrefix(l, "check ") && strings.HasSuffix(l, ": true"):
			checks++
		default:
			t.Errorf("failed: %s", l)
		}
	}
	if checks != 17 || !concurrent {
		t.Errorf("%d checks ran (want 17), concurrent line: %v", checks, concurrent)
	}
	if t.Failed() {
		g.dump(t)
	}
}
