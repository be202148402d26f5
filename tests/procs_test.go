// Tests of child processes: vfork, execve, wait (kernel/proc.go).
// SPDX-License-Identifier: BSD-3-Clause

package tests

import "testing"

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
	wantChecks(t, g, 18)
}
