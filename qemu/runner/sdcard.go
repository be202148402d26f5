// A Raspberry Pi SD card: kernel8.img, config.txt and the GPU firmware on a FAT32 partition.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"gmpos/boot"
	"gmpos/qemu/debfetch"
	"gmpos/qemu/sdimage"
)

// The Pi's boot ROM (Pi 3) or EEPROM (Pi 4) reads the first FAT partition of the SD card,
// starts the GPU firmware from it, which reads config.txt and loads kernel8.img at
// kernel_address and starts the ARM cores there (Raspberry Pi documentation, "The boot folder").
// The firmware is Broadcom's, redistributed by Debian as raspi-firmware (bookworm,
// non-free-firmware); it is downloaded once into build/raspi-firmware and not installed.
const (
	firmwareSuite     = "bookworm"
	firmwareComponent = "non-free-firmware"
	firmwarePackage   = "raspi-firmware"
	// sdMinMiB is the smallest card image written: FAT32 wants 65525 clusters and more, and
	// a few tens of MiB of slack cost nothing on any card.
	sdMinMiB = 64
)

// SDBoards maps gmpos image's -board to the QEMU machine whose kernel it is.
var SDBoards = map[string]string{"rpi3": "raspi3b", "rpi4": "raspi4b"}

// SDImage builds pkg for board ("rpi3" or "rpi4") as Run would for QEMU's Pi, but with the
// board's console (plain text on the UARTs, no semihosting: Config.ImageOnly), and writes the
// SD card image out: an MBR and one FAT32 partition with kernel8.img, config.txt and the
// firmware. sizeMiB 0 picks the smallest size that fits (at least sdMinMiB). cfg's machine is
// set here; its arguments, environment and kernel options are the program's.
func SDImage(ctx context.Context, pkg []string, cfg Config, board, out string, sizeMiB int) error {
	machine, ok := SDBoards[board]
	if !ok {
		return fmt.Errorf("-board %q: want rpi3 or rpi4", board)
	}
	if err := cfg.Machine.Select(ArchARM64, machine); err != nil {
		return err
	}
	cfg.SMP, cfg.Accel, cfg.Firmware = raspiCPUs, "tcg", ""
	if cfg.Build.GmposRoot == "" {
		root, err := FindGmposRoot()
		if err != nil {
			return err
		}
		cfg.Build.GmposRoot = root
	}
	work, err := os.MkdirTemp("", "gmpos-sd")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	cfg.ImageOnly = filepath.Join(work, "kernel8.img")
	if _, err := Run(ctx, pkg, cfg); err != nil {
		return err
	}
	kernel, err := os.ReadFile(cfg.ImageOnly)
	if err != nil {
		return err
	}
	log := func(s string) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "gmpos: %s\n", s)
		}
	}
	fwRoot, err := debfetch.Fetch(filepath.Join(cfg.Build.GmposRoot, "build", "raspi-firmware"), firmwareSuite, firmwareComponent, firmwarePackage, log)
	if err != nil {
		return fmt.Errorf("the Raspberry Pi firmware: %v", err)
	}
	fwDir, err := debfetch.RaspiFirmwareDir(fwRoot)
	if err != nil {
		return err
	}
	config, err := sdimage.ConfigTxt(board, boot.Arm64RPi.LoadAddr())
	if err != nil {
		return err
	}
	files := []sdimage.File{{Name: "kernel8.img", Data: kernel}, {Name: "config.txt", Data: []byte(config)}}
	for _, name := range sdimage.FirmwareFiles(board) {
		data, err := os.ReadFile(filepath.Join(fwDir, name))
		if err != nil {
			return fmt.Errorf("the Raspberry Pi firmware: %v", err)
		}
		files = append(files, sdimage.File{Name: name, Data: data})
	}
	if sizeMiB == 0 {
		sizeMiB = max(sdimage.MinSizeMiB(files), sdMinMiB)
	}
	return sdimage.Write(out, files, sizeMiB)
}
