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
// (GMPOS_GUEST=native) — three children at once too, each with its own value in the same
// variable at the same address (a page table per child).
func TestGuestProcesses(t *testing.T) {
	g := boot(t, pkg("procs"), opts{})
	g.wantCode(t, 0)
	checks := 0
	for _, l := range strings.Split(strings.TrimSpace(g.stdout), "\n") {
		checks++
		if !strings.HasPrefix(l, "check ") || !strings.HasSuffix(l, ": true") {
			t.Errorf("failed: %s", l)
		}
	}
	if checks != 18 {
		t.Errorf("%d checks ran, want 18", checks)
	}
	if t.Failed() {
		g.dump(t)
	}
}
