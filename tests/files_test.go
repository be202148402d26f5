// Tests of the file system as programs see it: /etc, the time-zone database, /tmp, /proc.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"strings"
	"testing"
)

// TestGuestFiles runs testdata/files: the files the initramfs provides (/etc/hosts and passwd
// through os/user and the resolver, the zoneinfo tree through WalkDir and time.LoadLocation, the
// program's own image as os.Executable, /proc), and files under /tmp made, read, written,
// seeked, truncated, renamed, linked, chmodded and removed with Linux's errnos, 8 MiB of data,
// 300 directory entries, and no fd leaked. Every check must hold, as it does natively
// (GMPOS_GUEST=native), /proc/self/fd's links and fd count among them.
// Starting a command must say what it says in TestGuestDevFiles: execve finds that the guest has
// no /bin/true.
func TestGuestFiles(t *testing.T) {
	g := boot(t, pkg("files"), opts{})
	g.wantCode(t, 0)
	checks, execs := 0, 0
	wantExec := "exec: fork/exec /bin/true: no such file or directory"
	if native() {
		wantExec = "exec: <nil>"
	}
	for _, l := range strings.Split(strings.TrimSpace(g.stdout), "\n") {
		switch {
		case strings.HasPrefix(l, "exec: "):
			execs++
			if l != wantExec {
				t.Errorf("%q, want %q", l, wantExec)
			}
		case strings.HasPrefix(l, "check ") && strings.HasSuffix(l, ": true"):
			checks++
		default:
			checks++
			t.Errorf("failed: %s", l)
		}
	}
	if checks != 55 || execs != 1 {
		t.Errorf("%d checks and %d exec lines, want 55 and 1", checks, execs)
	}
	if t.Failed() {
		g.dump(t)
	}
}
