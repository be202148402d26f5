// The Raspberry Pi machines: QEMU's raspi3b and raspi4b boot the demo on their four cores.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gmpos/qemu/runner"
	"gmpos/qemu/sdimage"
)

// rpiOnce reports why the Pi tests do not run in this pass ("" when they do): they need the
// arm64 guest and run once per make test, in its first arm64 pass (1 vCPU on virt): the Pi's
// machines have four cores whatever GMPOS_TEST_SMP says.
func rpiOnce() string {
	switch {
	case native():
		return "the Raspberry Pi kernel exists only under gmpos"
	case testArch() != "arm64":
		return "arm64 only (GMPOS_TEST_ARCH=arm64)"
	case os.Getenv("GMPOS_TEST_MACHINE") != "" || os.Getenv("GMPOS_TEST_SMP") != "" && os.Getenv("GMPOS_TEST_SMP") != "1":
		return "run once, in the first arm64 pass"
	}
	return ""
}

// demoStats matches the demo's last line (examples/demo/kernelstats.go).
var demoStats = regexp.MustCompile(`kernel scheduler: (\d+) cores, threads started per core \[([\d ]+)\]; \d+ switches \(\d+ from runnext\), (\d+) steals, (\d+) preemptions`)

// wantDemoOnFourCores checks the demo's output: it ran to the end, and the kernel's statistics
// show four cores that all ran threads, stealing and preemption.
func wantDemoOnFourCores(t *testing.T, g guest) {
	t.Helper()
	g.wantCode(t, 0)
	if !strings.Contains(g.stdout, "pipeline: sum of squares 1..100 = 338350") || !strings.Contains(g.stdout, "recovered: runtime error: invalid memory address or nil pointer dereference") {
		t.Errorf("the demo's output:\n%s", g.stdout)
	}
	m := demoStats.FindStringSubmatch(g.stdout)
	if m == nil {
		t.Fatalf("no kernel statistics in:\n%s", g.stdout)
	}
	t.Logf("%s", m[0])
	if m[1] != "4" {
		t.Errorf("%s cores, want 4", m[1])
	}
	for _, n := range strings.Fields(m[2]) {
		if n == "0" {
			t.Errorf("a core started no threads: [%s]", m[2])
		}
	}
	steals, _ := strconv.Atoi(m[3])
	preempt, _ := strconv.Atoi(m[4])
	if steals == 0 || preempt == 0 {
		t.Errorf("%d steals, %d preemptions: want both", steals, preempt)
	}
}

// TestGuestRPi boots examples/demo on QEMU's Raspberry Pi 3 (BCM2836 ARM-local interrupt
// controller, no GIC) and Pi 4 (GIC-400; QEMU >= 9, which the runner fetches from Debian's
// bookworm-backports when the system's QEMU is older): the rpi kernel's spin-table start, its
// mailbox memory probe, the appended module container and the record console.
func TestGuestRPi(t *testing.T) {
	if why := rpiOnce(); why != "" {
		t.Skip(why)
	}
	for _, m := range []string{"raspi3b", "raspi4b"} {
		t.Run(m, func(t *testing.T) {
			g := boot(t, []string{"../examples/demo"}, opts{smp: 4, machine: m})
			wantDemoOnFourCores(t, g)
		})
	}
}

// TestGuestSDImage writes the demo's SD card image for each Pi (gmpos image), checks its FAT
// partition — kernel8.img, config.txt, the firmware from Debian's raspi-firmware — and boots
// the kernel8.img it holds on the matching QEMU machine as a board runs it: no runner on the
// other end, plain text on the mini UART (QEMU's second serial port), and a halt at the end.
func TestGuestSDImage(t *testing.T) {
	if why := rpiOnce(); why != "" {
		t.Skip(why)
	}
	root, err := runner.FindGmposRoot()
	if err != nil {
		t.Fatal(err)
	}
	for board, firmware := range map[string][]string{
		"rpi3": {"bootcode.bin", "start.elf", "fixup.dat"},
		"rpi4": {"start4.elf", "fixup4.dat"},
	} {
		t.Run(board, func(t *testing.T) {
			sd := filepath.Join(t.TempDir(), "sd.img")
			cfg := runner.DefaultConfig()
			cfg.Log = testWriter{t}
			cfg.Build.GmposRoot = root
			if err := runner.SDImage(context.Background(), []string{"../examples/demo"}, cfg, board, sd, 0); err != nil {
				t.Fatal(err)
			}
			files, err := sdimage.ReadRoot(sd)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range append([]string{"kernel8.img", "config.txt"}, firmware...) {
				if len(files[f]) == 0 {
					t.Errorf("%s is missing or empty on the card", f)
				}
			}
			for _, l := range []string{"arm_64bit=1", "kernel=kernel8.img", "kernel_address=0x200000", "enable_uart=1"} {
				if !strings.Contains(string(files["config.txt"]), "\n"+l+"\n") {
					t.Errorf("config.txt lacks %q", l)
				}
			}
			kernel := filepath.Join(t.TempDir(), "kernel8.img")
			if err := os.WriteFile(kernel, files["kernel8.img"], 0o644); err != nil {
				t.Fatal(err)
			}
			out := bootBoardImage(t, runner.SDBoards[board], kernel, root)
			if !strings.Contains(out, "\r\n[gmpos] halted, exit status 0\r\n") {
				t.Errorf("no halt with status 0 in:\n%s", out)
			}
			wantDemoOnFourCores(t, guest{stdout: strings.ReplaceAll(out, "\r\n", "\n")})
		})
	}
}

// bootBoardImage boots kernel on QEMU's machine with the board's view of the console — the
// PL011 on the first serial port, the mini UART on the second — and returns what the second
// one printed once the kernel says it halted (a board's kernel does not end QEMU), or after
// two minutes.
func bootBoardImage(t *testing.T, machine, kernel, root string) string {
	t.Helper()
	var m runner.Machine
	if err := m.Select("arm64", machine); err != nil {
		t.Fatal(err)
	}
	qemu, err := runner.CheckQEMUMachine(m, root, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-M", machine, "-accel", "tcg", "-kernel", kernel, "-display", "none", "-monitor", "none",
		"-no-reboot", "-serial", "null", "-serial", "stdio"}
	if machine == "raspi4b" {
		args = append(args, "-audio", "none")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, qemu, args...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); pw.Close() }()
	var out strings.Builder
	buf := make([]byte, 4096)
	for !haltedLine.MatchString(out.String()) {
		n, err := pr.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	cancel()
	return out.String()
}

// haltedLine is the kernel's last line on a board (kernel/board/rpi, Exit).
var haltedLine = regexp.MustCompile(`halted, exit status \d+\r\n`)

// testWriter sends the runner's log lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
