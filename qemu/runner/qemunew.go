// A QEMU new enough for raspi4b: the system's, a named one, or Debian backports' unpacked.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gmpos/qemu/debfetch"
)

// QEMU gained raspi4b in 9.0. Debian bookworm ships 7.2; its bookworm-backports suite, in the
// same archive, ships 10.0 (qemu-system-arm). The runner does not install it over the system's
// QEMU: it unpacks the package into the gmpos tree's build/ directory (debfetch: apt-get
// download and dpkg-deb -x under a private apt configuration, no root) and runs the binary from
// there. The unpacked 10.0 runs on bookworm's libraries; it shares the system QEMU's data
// directory (no firmware is needed to boot an Image on raspi4b) and module directory, whose
// modules it must not load (raspiArgs: -audio none).
const (
	// QEMUBackportsEnv names a qemu-system-aarch64 to use for machines the system's QEMU lacks.
	QEMUBackportsEnv = "GMPOS_QEMU_AARCH64"
	backportsSuite   = "bookworm-backports"
	backportsPackage = "qemu-system-arm"
)

// CheckQEMUMachine returns the emulator that boots m: CheckQEMUFor's, unless m is a machine
// it does not have (raspi4b on QEMU < 9), then $GMPOS_QEMU_AARCH64, or the backports build in
// root/build/qemu-backports, fetched on first use. log receives what takes a while.
func CheckQEMUMachine(m Machine, root string, log func(string)) (string, error) {
	p, err := CheckQEMUFor(m.arch())
	if m.Machine != "raspi4b" {
		return p, err
	}
	if err == nil && hasMachine(p, m.Machine) {
		return p, nil
	}
	if env := os.Getenv(QEMUBackportsEnv); env != "" {
		if !hasMachine(env, m.Machine) {
			return "", fmt.Errorf("$%s=%s has no machine %s", QEMUBackportsEnv, env, m.Machine)
		}
		return env, nil
	}
	dir := filepath.Join(root, "build", "qemu-backports")
	bin := filepath.Join(dir, "root-"+backportsPackage, "usr", "bin", QEMUBinaryArm64)
	if !hasMachine(bin, m.Machine) {
		log(fmt.Sprintf("%s has no %s (it needs QEMU >= 9.0): fetching Debian %s's %s into %s (unpacked, not installed)", p, m.Machine, backportsSuite, backportsPackage, dir))
		if _, err := debfetch.Fetch(dir, backportsSuite, "main", backportsPackage, log); err != nil {
			return "", fmt.Errorf("%s needs QEMU >= 9.0, and fetching it failed (set $%s to one): %v", m.Machine, QEMUBackportsEnv, err)
		}
		if !hasMachine(bin, m.Machine) {
			return "", fmt.Errorf("%s from %s has no machine %s", bin, backportsSuite, m.Machine)
		}
	}
	return bin, nil
}

// hasMachine reports whether the emulator at qemu lists machine name in -machine help.
func hasMachine(qemu, name string) bool {
	out, err := exec.Command(qemu, "-machine", "help").Output()
	if err != nil {
		return false
	}
	for _, l := range bytes.Split(out, []byte("\n")) {
		if f := strings.Fields(string(l)); len(f) > 0 && f[0] == name {
			return true
		}
	}
	return false
}
