// The guest instruction counter: qemu/tbprof's plugin and report.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"gmpos/qemu/runner"
)

// TestGuestTBProf builds the plugin, counts the instructions of a getpid loop, and reads the
// report: the loop is nothing but system calls that do nothing, so the kernel's trap path must
// take most of each call's instructions (gmpos/kernel and its arch package), and the trap entry
// must be among the functions listed (getpid itself runs without the BKL: self_unlocked.go).
func TestGuestTBProf(t *testing.T) {
	if native() {
		t.Skip("counts a QEMU guest")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no C compiler to build the plugin (apt-get install -y gcc)")
	}
	root, err := runner.FindGmposRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	so := filepath.Join(dir, "libtbprof.so")
	if out, err := exec.Command(gcc, "-O2", "-Wall", "-shared", "-fPIC", "-o", so,
		filepath.Join(root, "qemu/tbprof/plugin/tbprof.c")).CombinedOutput(); err != nil {
		t.Fatalf("building the plugin: %v\n%s", err, out)
	}
	counts := filepath.Join(dir, "counts.txt")
	t.Setenv("TBPROF_OUT", counts) // QEMU inherits it
	const calls = 20000
	g := boot(t, []string{"../examples/pingpong"}, opts{smp: 1, args: []string{"getpid", strconv.Itoa(calls)}, plugin: so, keep: dir})
	g.wantCode(t, 0)
	if _, err := os.Stat(counts); err != nil {
		t.Fatalf("the plugin wrote no counts: %v\n%s", err, g.res.QEMU)
	}
	cmd := exec.Command("go", "run", "./qemu/tbprof", "-n", strconv.Itoa(calls), "-top", "60", filepath.Join(dir, "pingpong.elf"), counts)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tbprof: %v\n%s", err, out)
	}
	report := string(out)
	t.Logf("%.1500s", report)
	share := func(pkg string) float64 {
		m := regexp.MustCompile(`(?m)^\s*([0-9.]+)%\s+\d+\s+` + regexp.QuoteMeta(pkg) + `$`).FindStringSubmatch(report)
		if m == nil {
			return 0
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	if k := share("gmpos/kernel") + share("gmpos/kernel/arch/"+testArch()); k < 50 {
		t.Errorf("the kernel has %.1f%% of a getpid loop's instructions, want most of them", k)
	}
	if !regexp.MustCompile(`(?m)\sgmpos/kernel\.trap$`).MatchString(report) {
		t.Errorf("the trap entry (gmpos/kernel.trap) is not among the functions listed")
	}
}
