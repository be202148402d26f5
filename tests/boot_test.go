// The boot path: both firmwares, and the cycle counter's rate told by the runner.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"regexp"
	"strconv"
	"testing"
)

// bootRecord matches the kernel's boot record (klog=1): the cycle counter's rate, and whether it
// is the runner's tsc_hz, confirmed (kernel/calibrate.go).
var bootRecord = regexp.MustCompile(`boot: .*cycles=(\d+)kHz(\(tsc_hz\))? timer=(\d+)kHz`)

// TestGuestBootPaths boots a small program
//
//   - on qboot, the default firmware, which assigns no PCI BARs: the kernel assigns the virtio
//     console's (kernel/pci_devices.go), so the console must come up on virtio, not the UARTs;
//     the cycle counter's rate is the runner's, confirmed by the reference clock;
//   - on SeaBIOS, which assigns every BAR: the kernel keeps them;
//   - with a tsc_hz twice the host's: the kernel must refute it, say so, and measure the rate
//     itself, within 0.5% of the host's.
func TestGuestBootPaths(t *testing.T) {
	skipOnArm64(t, "QEMU loads the Image itself on virt: there is no firmware to choose")
	if native() {
		t.Skip("the kernel's boot")
	}
	var hostKHz int
	for _, fw := range []string{"qboot", "seabios"} {
		g := boot(t, pkg("exitcode"), opts{args: []string{"7"}, kopts: []string{"klog=1"}, bios: fw})
		g.wantCode(t, 7)
		wantContains(t, g, fw+" log", g.log, "kernel: console: virtio port 1")
		m := bootRecord.FindStringSubmatch(g.log)
		if m == nil {
			t.Fatalf("%s: no boot record in the log:\n%.3000s", fw, g.log)
		}
		if m[2] == "" {
			t.Logf("%s: the cycle rate was measured (no host TSC rate to pass on?): %s", fw, m[0])
			continue
		}
		hostKHz, _ = strconv.Atoi(m[1])
	}
	if hostKHz == 0 {
		t.Skip("the runner passed no tsc_hz: the host has no invariant TSC")
	}
	g := boot(t, pkg("exitcode"), opts{args: []string{"0"}, kopts: []string{"klog=1", "tsc_hz=" + strconv.Itoa(2*hostKHz*1000)}})
	g.wantCode(t, 0)
	wantContains(t, g, "log", g.log, "tsc_hz disagrees with the board's reference clock")
	m := bootRecord.FindStringSubmatch(g.log)
	if m == nil || m[2] != "" {
		t.Fatalf("a doubled tsc_hz was taken, or no boot record:\n%.3000s", g.log)
	}
	if got, _ := strconv.Atoi(m[1]); got < hostKHz*995/1000 || got > hostKHz*1005/1000 {
		t.Errorf("measured %d kHz, the host's TSC runs at %d kHz", got, hostKHz)
	}
}
