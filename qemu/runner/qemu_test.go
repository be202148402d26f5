// End-to-end tests of the runner: real builds, real QEMU, the fake kernel.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeRun runs pkg linked with gmpos/qemu/fakekernel entered at entry.
func fakeRun(t *testing.T, entry string, pkg []string, mutate func(*Config)) (*Result, string, string, string) {
	t.Helper()
	if _, err := exec.LookPath(QEMUBinary); err != nil {
		t.Skipf("%s not installed; `make test` installs it (%s)", QEMUBinary, InstallHint)
	}
	var stdout, stderr, log bytes.Buffer
	cfg := DefaultConfig()
	cfg.Stdout, cfg.Stderr, cfg.Log = &stdout, &stderr, &log
	cfg.Timeout = time.Minute
	cfg.Build.KernelImport = "gmpos/qemu/fakekernel"
	cfg.Build.EntrySymbol = "gmpos/qemu/fakekernel." + entry
	if mutate != nil {
		mutate(&cfg)
	}
	res, err := Run(context.Background(), pkg, cfg)
	if err != nil {
		t.Fatalf("Run: %v\nlog: %s", err, log.String())
	}
	return res, stdout.String(), stderr.String(), log.String()
}

// TestFakeKernelKinds builds each kind of target, checks that the command
// line reaches the guest intact, output is split per port with the firmware
// banner stripped, and the full exit status (200, beyond isa-debug-exit's
// 7 bits) comes back from the exit record.
func TestFakeKernelKinds(t *testing.T) {
	plain := t.TempDir()
	writeFiles(t, plain, map[string]string{"prog.go": "package main\n\nfunc main() {}\n"})
	mod := t.TempDir()
	writeFiles(t, mod, map[string]string{
		"go.mod":      "module example.com/student\n\ngo 1.26\n",
		"greet/g.go":  "package greet\n\nfunc Hello() string { return \"hi\" }\n",
		"app/main.go": "package main\n\nimport \"example.com/student/greet\"\n\nfunc main() { println(greet.Hello()) }\n",
	})
	for _, tc := range []struct {
		name string
		pkg  []string
		prog string
	}{
		{"gmpos package", []string{"testdata/hello"}, "hello"},
		{"plain file", []string{filepath.Join(plain, "prog.go")}, "prog"},
		{"plain dir", []string{plain}, filepath.Base(plain)},
		{"other module", []string{filepath.Join(mod, "app")}, "app"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, stdout, stderr, log := fakeRun(t, "Entry32", tc.pkg, func(c *Config) {
				c.KOpts = []string{"sched=gmp"}
				c.Args = []string{"a b", "100%"}
			})
			if res.ExitCode != 200 {
				t.Fatalf("exit code %d (%s), want 200; log %s", res.ExitCode, res.Why, log)
			}
			// The fake kernel echoes the Multiboot command line: QEMU's
			// image path, then exactly what Cmdline produced.
			line := strings.TrimSuffix(stdout, "\n")
			opts, args, err := ParseCmdline(line)
			if err != nil {
				t.Fatalf("guest saw %q: %v", line, err)
			}
			// The host's TSC rate comes last, where the host has an invariant TSC (hosttsc.go).
			if n := len(opts); n > 0 && strings.HasPrefix(opts[n-1], "tsc_hz=") {
				hz, err := strconv.ParseUint(opts[n-1][7:], 10, 64)
				if err != nil || hz < 1e8 || hz > 1e11 || !hasRDTSC || !invariantTSC() {
					t.Errorf("%s: not a host TSC rate (hasRDTSC %v)", opts[n-1], hasRDTSC)
				}
				opts = opts[:n-1]
			} else if hasRDTSC && invariantTSC() {
				t.Errorf("no tsc_hz option on a host with an invariant TSC: %q", opts)
			}
			// The program's arguments travel in the argument module (argsmod.go), not here.
			// cwd=/: the test's directory is in no -fs.
			if strings.Join(opts, "|") != "argv0="+tc.prog+"|sched=gmp|cwd=/" || len(args) != 0 {
				t.Errorf("guest saw opts %q args %q (line %q)", opts, args, line)
			}
			if strings.Contains(stdout, "gmpos-start") || strings.Contains(stdout, "SeaBIOS") {
				t.Errorf("stdout not stripped: %q", stdout)
			}
			if stderr != "fake stderr\n" {
				t.Errorf("stderr = %q", stderr)
			}
			if !strings.Contains(log, "kernel: fake kernel log") {
				t.Errorf("kernel log record not shown: %q", log)
			}
			if !res.Started || res.Entry.IsZero() || res.FirstOutput.IsZero() || res.FirstOutput.Before(res.QEMUStart) {
				t.Errorf("timings: %+v", res)
			}
		})
	}
}

// TestFakeKernelModules: QEMU loads the two Multiboot modules, the argument module first and the
// root file system second (docs/contract.md), from the files the runner wrote.
func TestFakeKernelModules(t *testing.T) {
	res, stdout, _, log := fakeRun(t, "Modules32", []string{"testdata/hello"}, func(c *Config) { c.Verbose = true })
	if res.ExitCode != 0 {
		t.Fatalf("exit code %d (%s); log %s", res.ExitCode, res.Why, log)
	}
	mods := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(mods) != 2 || filepath.Base(mods[0]) != "args" || filepath.Base(mods[1]) != "initramfs" || filepath.Dir(mods[0]) != filepath.Dir(mods[1]) {
		t.Errorf("the guest's modules: %q", mods)
	}
	if !strings.Contains(log, "root file system: ") {
		t.Errorf("-v does not describe the root file system: %s", log)
	}
}

func TestFakeKernelTimeout(t *testing.T) {
	start := time.Now()
	res, stdout, _, _ := fakeRun(t, "Hang32", []string{"testdata/hello"}, func(c *Config) { c.Timeout = 3 * time.Second })
	if res.ExitCode != ExitTimeout || !strings.Contains(res.Why, "timeout") {
		t.Fatalf("exit %d (%s), want %d", res.ExitCode, res.Why, ExitTimeout)
	}
	if stdout != "hanging\n" {
		t.Errorf("stdout %q", stdout)
	}
	if d := time.Since(start) - res.BuildTime; d > 20*time.Second {
		t.Errorf("timeout took %v", d)
	}
}

func TestFakeKernelPanic(t *testing.T) {
	res, _, stderr, log := fakeRun(t, "Panic32", []string{"testdata/hello"}, nil)
	if res.ExitCode != ExitKernelPanic || stderr != "fake fault report\n" || !strings.Contains(res.Why, "kernel panic: fake fault") {
		t.Fatalf("exit %d (%s), stderr %q, log %q", res.ExitCode, res.Why, stderr, log)
	}
}

func TestFakeKernelReset(t *testing.T) {
	res, stdout, _, _ := fakeRun(t, "Reset32", []string{"testdata/hello"}, func(c *Config) { c.Machine.Machine = "pc" })
	if res.ExitCode != ExitRunnerError || !strings.Contains(res.Why, "without an exit record") || stdout != "" {
		t.Fatalf("exit %d (%s) stdout %q", res.ExitCode, res.Why, stdout)
	}
}

func TestRunBadInput(t *testing.T) {
	if _, err := exec.LookPath(QEMUBinary); err != nil {
		t.Skip("no QEMU")
	}
	for _, mutate := range []func(*Config){
		func(c *Config) { c.SMP = 0 },
		func(c *Config) { c.Accel = "hvf" },
		func(c *Config) { c.KOpts = []string{"novalue"} },
		func(c *Config) { c.Timeout = -time.Second },
	} {
		cfg := DefaultConfig()
		mutate(&cfg)
		if _, err := Run(context.Background(), []string{"testdata/hello"}, cfg); err == nil {
			t.Errorf("bad config accepted")
		}
	}
	cfg := DefaultConfig()
	cfg.Build.KernelImport = "gmpos/no/such/kernel"
	_, err := Run(context.Background(), []string{"testdata/hello"}, cfg)
	if err == nil || !strings.Contains(err.Error(), "go build failed") {
		t.Errorf("build failure not reported: %v", err)
	}
}

// TestFakeKernelCanceled: cancelling the context (Ctrl-C in the command)
// stops QEMU and reports context.Canceled.
func TestFakeKernelCanceled(t *testing.T) {
	if _, err := exec.LookPath(QEMUBinary); err != nil {
		t.Skip("no QEMU")
	}
	cfg := DefaultConfig()
	var out bytes.Buffer
	cfg.Stdout, cfg.Stderr, cfg.Log = &out, &out, &out
	cfg.Build.KernelImport = "gmpos/qemu/fakekernel"
	cfg.Build.EntrySymbol = "gmpos/qemu/fakekernel.Hang32"
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(3*time.Second, cancel)
	start := time.Now()
	_, err := Run(ctx, []string{"testdata/hello"}, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

// TestFakeKernelNetwork boots a guest that idles (the fake kernel's Hang32) with -hostfwd and
// -netinject, and checks from the host that QEMU accepted the network command line and bound
// both the forwarded TCP port and the inject UDP port on 127.0.0.1; then stops it.
func TestFakeKernelNetwork(t *testing.T) {
	if _, err := exec.LookPath(QEMUBinary); err != nil {
		t.Skip("no QEMU")
	}
	tcpPort, udpPort := freePort(t, "tcp"), freePort(t, "udp")
	cfg := DefaultConfig()
	var out bytes.Buffer
	cfg.Stdout, cfg.Stderr, cfg.Log = &out, &out, &out
	cfg.Verbose = true
	cfg.Build.KernelImport = "gmpos/qemu/fakekernel"
	cfg.Build.EntrySymbol = "gmpos/qemu/fakekernel.Hang32"
	cfg.Timeout = time.Minute
	cfg.Net = Network{HostFwd: []HostFwd{{tcpPort, 8080}}, Inject: fmt.Sprintf("127.0.0.1:%d", udpPort)}
	ctx, cancel := context.WithCancel(context.Background())
	bound := make(chan bool, 1)
	go func() {
		defer cancel()
		for deadline := time.Now().Add(45 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", tcpPort), time.Second)
			if err != nil {
				continue
			}
			c.Close()
			// QEMU holds the inject port: binding it must fail.
			u, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: udpPort})
			if err == nil {
				u.Close()
			}
			bound <- err != nil
			return
		}
		bound <- false
	}()
	_, err := Run(ctx, []string{"testdata/hello"}, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled once the ports were checked; log:\n%s", err, out.String())
	}
	if !<-bound {
		t.Errorf("the forwarded TCP port %d or the inject UDP port %d was not bound by QEMU; log:\n%s", tcpPort, udpPort, out.String())
	}
	for _, want := range []string{"network user: auto: -hostfwd implies user networking", "hubport,id=hp2,hubid=0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, out.String())
		}
	}
}

// freePort returns a port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T, network string) int {
	t.Helper()
	if network == "udp" {
		c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.LocalAddr().(*net.UDPAddr).Port
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
