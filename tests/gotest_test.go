// `gmpos test`: a package's own tests in the guest.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGmposTest runs package tests in the guest with the built command, as go test would: a
// standard package's tests and examples (container/heap, with -v and -run passed through as
// -test.v and -test.run) pass with "ok", and so do tests that read their package's testdata/
// and GOROOT's time zones (regexp, time); a package whose test fails says FAIL and the test's
// message and exits 1; -e reaches the test binary's environment.
func TestGmposTest(t *testing.T) {
	if native() {
		t.Skip("the runner's command")
	}
	cli := filepath.Join(t.TempDir(), "gmpos")
	if out, err := exec.Command("go", "build", "-o", cli, "../qemu").CombinedOutput(); err != nil {
		t.Fatalf("building the command: %v\n%s", err, out)
	}
	run := func(args ...string) (string, int) {
		out, err := exec.Command(cli, append([]string{"test", "-net", "none"}, args...)...).CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out), code
	}
	out, code := run("container/heap", "--", "-short", "-v", "-run", "Example|TestInit")
	if code != 0 || !strings.Contains(out, "--- PASS: TestInit") || !strings.Contains(out, "--- PASS: Example_intHeap") ||
		!strings.Contains(out, "ok  \tcontainer/heap\t") {
		t.Errorf("container/heap: exit %d\n%s", code, out)
	}
	// Tests that read files: regexp's testdata/ from its package directory (copied in, and the
	// working directory), time's GOROOT/lib/time/zoneinfo.zip by a relative path.
	out, code = run("regexp", "--", "-short", "-run", "TestFowler")
	if code != 0 || !strings.Contains(out, "ok  \tregexp\t") {
		t.Errorf("regexp -run TestFowler: exit %d\n%s", code, out)
	}
	out, code = run("time", "--", "-short", "-run", "TestLoadLocationFromTZData|TestMonotonicString")
	if code != 0 || !strings.Contains(out, "ok  \ttime\t") {
		t.Errorf("time: exit %d\n%s", code, out)
	}
	out, code = run("./testdata/failpkg")
	if code != 1 || !strings.Contains(out, "failing on purpose") || !strings.Contains(out, "FAIL\tgmpos/tests/testdata/failpkg\t") {
		t.Errorf("failpkg: exit %d, want 1\n%s", code, out)
	}
	out, code = run("-e", "FAILPKG_PASS=1", "./testdata/failpkg")
	if code != 0 || !strings.Contains(out, "ok  \tgmpos/tests/testdata/failpkg\t") {
		t.Errorf("failpkg with FAILPKG_PASS=1: exit %d, want 0\n%s", code, out)
	}
	out, code = run("./testdata/printenv")
	if code != 125 || !strings.Contains(out, "package main") {
		t.Errorf("a command: exit %d, want 125 saying it is package main\n%s", code, out)
	}
}
