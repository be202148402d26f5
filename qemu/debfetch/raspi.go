// Where Debian's raspi-firmware package keeps the Raspberry Pi GPU firmware.
// SPDX-License-Identifier: BSD-3-Clause

package debfetch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Raspberry Pi firmware as Debian packages it: suite, component and package for Fetch.
const (
	RaspiSuite     = "bookworm"
	RaspiComponent = "non-free-firmware"
	RaspiPackage   = "raspi-firmware"
)

// RaspiFirmwareFiles are the files RaspiFirmwareDir insists on: the Pi 3's second-stage loader
// and GPU firmware (bootcode.bin, start.elf, fixup.dat) and the Pi 4's (start4.elf,
// fixup4.dat; its loader is in EEPROM). Each start*.elf needs its matching fixup*.dat.
var RaspiFirmwareFiles = []string{"bootcode.bin", "start.elf", "fixup.dat", "start4.elf", "fixup4.dat"}

// raspiDirs are the places the firmware has lived in Debian's packages, newest first.
//
// What raspi-firmware 1.20220830+ds-1 (bookworm) holds, checked by unpacking it:
//   - usr/lib/raspi-firmware/: bootcode.bin; start.elf, start_cd.elf, start_db.elf,
//     start_x.elf; start4.elf, start4cd.elf, start4db.elf, start4x.elf; and the fixup*.dat of
//     each (the _cd, _db and _x variants are the cut-down, debug and camera firmware);
//   - lib/firmware/brcm/: Wi-Fi calibration files (brcmfmac434*-sdio.*);
//   - etc/: the kernel and initramfs hooks that copy the firmware to /boot/firmware on an
//     installed system.
//
// It ships no device trees: no *.dtb and no overlays/*.dtbo (so no disable-bt.dtbo either).
// Debian's device trees come with its kernel packages (linux-image-*-arm64, under
// usr/lib/linux-image-*/broadcom/); a bare-metal kernel boots without one.
var raspiDirs = []string{
	"usr/lib/raspi-firmware",  // raspi-firmware, bullseye and later
	"usr/lib/raspi3-firmware", // raspi3-firmware, buster
}

// RaspiFirmwareDir is the directory below root (a tree Fetch unpacked raspi-firmware into)
// that holds the Raspberry Pi firmware, after checking that every file in RaspiFirmwareFiles
// is there. It looks in the package's known places first, then anywhere below root.
func RaspiFirmwareDir(root string) (string, error) {
	for _, d := range raspiDirs {
		dir := filepath.Join(root, d)
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir, checkRaspiFiles(dir)
		}
	}
	// A future package may move the files: take the directory that holds start4.elf.
	var found string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "start4.elf" {
			found = filepath.Dir(path)
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("debfetch: looking for the Raspberry Pi firmware in %s: %w", root, err)
	}
	if found == "" {
		return "", fmt.Errorf("debfetch: no Raspberry Pi firmware (start4.elf) below %s (looked in %s first)", root, strings.Join(raspiDirs, ", "))
	}
	return found, checkRaspiFiles(found)
}

// checkRaspiFiles says which of RaspiFirmwareFiles dir lacks, if any.
func checkRaspiFiles(dir string) error {
	var missing []string
	for _, f := range RaspiFirmwareFiles {
		fi, err := os.Stat(filepath.Join(dir, f))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, f)
		case err != nil:
			return fmt.Errorf("debfetch: %w", err)
		case !fi.Mode().IsRegular() || fi.Size() == 0:
			missing = append(missing, f+" (empty or not a file)")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("debfetch: %s lacks Raspberry Pi firmware files: %s", dir, strings.Join(missing, ", "))
	}
	return nil
}
