// The Raspberry Pi machines: QEMU's raspi3b and raspi4b boot the demo on their four cores.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
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
