// Test harness: build and boot a guest (or run it natively), collect its output.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gmpos/qemu/runner"
)

// testArch is the architecture the suite boots: GMPOS_TEST_ARCH (amd64 or arm64; the machine
// from GMPOS_TEST_MACHINE, e.g. virt,gic-version=3), amd64 by default.
func testArch() string {
	if a := os.Getenv("GMPOS_TEST_ARCH"); a != "" {
		return a
	}
	if m := os.Getenv("GMPOS_TEST_MACHINE"); strings.HasPrefix(m, "virt") || strings.HasPrefix(m, "raspi") {
		return "arm64"
	}
	return "amd64"
}

// skipOnArm64 skips a test of something the arm64 port does not have yet, saying what.
func skipOnArm64(t *testing.T, what string) {
	t.Helper()
	if testArch() == "arm64" {
		t.Skipf("arm64: %s", what)
	}
}

// selectMachine sets cfg's machine from o.machine, else GMPOS_TEST_ARCH and GMPOS_TEST_MACHINE.
func selectMachine(t *testing.T, cfg *runner.Config, o opts) {
	t.Helper()
	machine := os.Getenv("GMPOS_TEST_MACHINE")
	if o.machine != "" {
		machine = o.machine
	}
	if err := cfg.Machine.Select(os.Getenv("GMPOS_TEST_ARCH"), machine); err != nil {
		t.Fatalf("GMPOS_TEST_ARCH/GMPOS_TEST_MACHINE: %v", err)
	}
}

// skipWithoutPCIDevices skips a test that needs the runner's virtio PCI devices (a NIC,
// shares, the virtio console) on a machine that cannot have them (runner.NoPCIDevicesWhy:
// arm64 virt with GICv3, the Raspberry Pis).
func skipWithoutPCIDevices(t *testing.T, o opts) {
	t.Helper()
	if native() {
		return
	}
	var cfg runner.Config
	selectMachine(t, &cfg, o)
	if why := runner.NoPCIDevicesWhy(cfg.Machine); why != "" {
		t.Skipf("%s: %s", cfg.Machine.Machine, why)
	}
}

// native reports whether GMPOS_GUEST=native asks for host runs.
func native() bool { return os.Getenv("GMPOS_GUEST") == "native" }

// opts are per-boot settings.
type opts struct {
	args    []string
	kopts   []string
	profile string        // -profile: the whole-machine profile's file (guest only)
	timeout time.Duration // default defaultTimeout
	smp     int
	net     runner.NetMode   // -net; "" is auto
	stdin   []byte           // the program's stdin (nil: empty)
	mem     string           // guest RAM (-m); "" is the runner's default
	env     []string         // the program's environment (nil: empty)
	fs      []runner.FSMount // -fs
	shares  []runner.Share   // -share
	bios    string           // -firmware; "" is the runner's default (qboot)
	plugin  string           // -plugin: a QEMU TCG plugin
	keep    string           // keep the image and its ELF in this directory (Result.Image)
	machine string           // -machine; "" is GMPOS_TEST_MACHINE's
	slowOut bool             // stdout read at 1.6 MB/s (rateWriter): the guest's console ring fills
}

// defaultTimeout bounds one boot under TCG, build excluded.
const defaultTimeout = 2 * time.Minute

// guest is the outcome of one run.
type guest struct {
	stdout, stderr, log string
	code                int
	why                 string
	res                 *runner.Result // nil in native mode
}

// boot builds pkg (a directory or .go files) and runs it under QEMU, or
// natively with GMPOS_GUEST=native.
func boot(t *testing.T, pkg []string, o opts) guest {
	t.Helper()
	if o.timeout == 0 {
		o.timeout = defaultTimeout
	}
	if native() {
		return runNative(t, pkg, o)
	}
	var stdout, stderr, log bytes.Buffer
	cfg := runner.DefaultConfig()
	cfg.Stdout, cfg.Stderr, cfg.Log = &stdout, &stderr, &log
	var slow rateWriter
	if o.slowOut {
		cfg.Stdout = &slow
	}
	cfg.Timeout = o.timeout
	cfg.KOpts = o.kopts
	cfg.Args = o.args
	cfg.Net.Mode = o.net
	if o.stdin != nil {
		cfg.Stdin = bytes.NewReader(o.stdin)
	}
	if o.mem != "" {
		cfg.Mem = o.mem
	}
	cfg.Env = o.env
	cfg.FS, cfg.Shares = o.fs, o.shares
	if o.bios != "" {
		cfg.Firmware = o.bios
	}
	cfg.Plugin, cfg.KeepDir = o.plugin, o.keep
	if o.profile != "" {
		cfg.Profile = o.profile
		cfg.KOpts = append(cfg.KOpts, fmt.Sprintf("profile=%d", runner.ProfileHz))
	}
	selectMachine(t, &cfg, o)
	if o.smp > 0 {
		cfg.SMP = o.smp
	} else if n, err := strconv.Atoi(os.Getenv("GMPOS_TEST_SMP")); err == nil && n > 0 {
		cfg.SMP = n // run the whole suite on n cores
	}
	res, err := runner.Run(context.Background(), pkg, cfg)
	if err != nil {
		t.Fatalf("runner: %v", err)
	}
	g := guest{stdout: stdout.String(), stderr: stderr.String(), log: log.String(), code: res.ExitCode, why: res.Why, res: res}
	if o.slowOut {
		g.stdout = slow.b.String()
	}
	t.Logf("%s: exit %d; build %v, boot+run %v", strings.Join(pkg, " "), g.code, res.BuildTime.Round(time.Millisecond), res.End.Sub(res.QEMUStart).Round(time.Millisecond))
	return g
}

// runNative builds pkg for the host and runs it with the same timeout
// and exit-code conventions (124 on timeout).
func runNative(t *testing.T, pkg []string, o opts) guest {
	t.Helper()
	root, err := runner.FindGmposRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "guest")
	// Resolve as the runner does: a package directory is built in place
	// (in its own module), plain files from the gmpos module.
	tg, err := runner.Resolve(pkg, root)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = tg.Dir
	if tg.Kind == runner.KindPlain {
		cmd = exec.Command("go", append([]string{"build", "-o", bin}, tg.Files...)...)
		cmd.Dir = root
	}
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("native build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	run := exec.CommandContext(ctx, bin, o.args...)
	run.Stdout, run.Stderr = &stdout, &stderr
	if o.stdin != nil {
		run.Stdin = bytes.NewReader(o.stdin)
	}
	run.Env = o.env
	if run.Env == nil {
		run.Env = []string{} // as the guest: nothing inherited
	}
	err = run.Run()
	g := guest{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		g.code, g.why = runner.ExitTimeout, "timeout: killed after "+o.timeout.String()
	case errors.As(err, &ee):
		g.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("native run: %v", err)
	}
	return g
}

// dump logs everything a failing test needs to see.
func (g guest) dump(t *testing.T) {
	t.Helper()
	t.Logf("exit code %d %s\n--- stdout\n%s--- stderr\n%s--- runner log\n%s", g.code, g.why, g.stdout, g.stderr, g.log)
}

// wantCode fails the test unless the exit code is want.
func (g guest) wantCode(t *testing.T, want int) {
	t.Helper()
	if g.code != want {
		g.dump(t)
		t.Fatalf("exit code %d, want %d", g.code, want)
	}
}

// wantStdout fails the test unless stdout is exactly want.
func (g guest) wantStdout(t *testing.T, want string) {
	t.Helper()
	if g.stdout != want {
		g.dump(t)
		t.Fatalf("stdout:\n%s\nwant:\n%s", g.stdout, want)
	}
}

// wantContains fails the test unless s contains every one of subs.
func wantContains(t *testing.T, g guest, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			g.dump(t)
			t.Fatalf("%s lacks %q", what, sub)
		}
	}
}

// pkg names a guest program under testdata.
func pkg(name string) []string { return []string{"testdata/" + name} }

// wantChecks fails t unless every line the guest printed is "check NAME: true", and there are n
// of them (programs that check themselves, as testdata/pipes and testdata/procs do).
func wantChecks(t *testing.T, g guest, n int) {
	t.Helper()
	checks := 0
	for _, l := range strings.Split(strings.TrimSpace(g.stdout), "\n") {
		checks++
		if !strings.HasPrefix(l, "check ") || !strings.HasSuffix(l, ": true") {
			t.Errorf("failed: %s", l)
		}
	}
	if checks != n {
		t.Errorf("%d checks ran, want %d", checks, n)
	}
	if t.Failed() {
		g.dump(t)
	}
}
