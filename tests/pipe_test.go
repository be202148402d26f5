// Tests of pipes and of the exceptions user code raises on purpose.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"strings"
	"testing"
)

// TestGuestPipes runs testdata/pipes: os.Pipe through the netpoller (4 MiB with a checksum, EOF),
// EPIPE with SIGPIPE, non-blocking EAGAIN, PIPE_BUF atomicity, a full pipe, fstat, lseek,
// F_GETPIPE_SZ, a blocking read, bad flags and pointers without leaked fds, splice between pipes,
// and a read deadline.
// Every check must hold, as it does natively (GMPOS_GUEST=native).
func TestGuestPipes(t *testing.T) {
	g := boot(t, pkg("pipes"), opts{})
	g.wantCode(t, 0)
	wantChecks(t, g, 27)
}

// TestGuestUserTrap: INT3 in user code is SIGTRAP and INT 4 is SIGSEGV with SI_KERNEL, as on
// Linux; the IDT gates of vectors 3 and 4 must admit CPL 3 (a DPL-0 gate made INT3 a #GP, and
// the runtime said SIGSEGV). On arm64, BRK is SIGTRAP and UDF SIGILL, as on Linux.
func TestGuestUserTrap(t *testing.T) {
	wants := map[string][]string{
		"int3": {"SIGTRAP: trace trap\nPC=", " sigcode=128\n"}, // SI_KERNEL
		"int4": {"[signal SIGSEGV: segmentation violation code=0x80 addr=0x0 pc="},
	}
	if testArch() == "arm64" {
		// Linux arm64: TRAP_BRKPT and ILL_ILLOPC (1), the address (not printed by the runtime) is the instruction's.
		wants = map[string][]string{
			"brk": {"SIGTRAP: trace trap\nPC=", " sigcode=1\n"},
			"udf": {"SIGILL: illegal instruction\nPC=", " sigcode=1\n"},
		}
	}
	for mode, want := range wants {
		t.Run(mode, func(t *testing.T) {
			g := boot(t, pkg("usertrap"), opts{args: []string{mode}})
			g.wantCode(t, 2)
			g.wantStdout(t, "raising "+mode+"\n")
			wantContains(t, g, "stderr", g.stderr, want...)
		})
	}
}

// TestGuestDevFiles opens the memory devices as programs do (/dev/null, /dev/zero, /dev/full,
// /dev/urandom; every check as natively) and starts a command with os/exec, which opens
// /dev/null first: it must get as far as starting the process, and say in Go's words what Linux
// says without the file ("fork/exec /bin/true: no such file or directory"; the guest's tree has
// no /bin/true) — before /dev/null it said "open /dev/null: no such file or directory", and
// before processes existed "function not implemented".
func TestGuestDevFiles(t *testing.T) {
	g := boot(t, pkg("devfiles"), opts{})
	g.wantCode(t, 0)
	lines := strings.Split(strings.TrimSpace(g.stdout), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d lines:\n%s", len(lines), g.stdout)
	}
	for _, l := range lines[:7] {
		if !strings.HasSuffix(l, ": true") {
			t.Errorf("failed: %s", l)
		}
	}
	want := "exec: fork/exec /bin/true: no such file or directory"
	if native() {
		want = "exec: <nil>"
	}
	if lines[7] != want {
		t.Errorf("%q, want %q", lines[7], want)
	}
}
