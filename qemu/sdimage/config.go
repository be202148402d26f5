// What the boot partition holds besides the kernel: the board's firmware files and config.txt.
// SPDX-License-Identifier: BSD-3-Clause

package sdimage

import (
	"fmt"
	"strings"
)

// Boards are the boards FirmwareFiles and ConfigTxt know: the Raspberry Pi 3 (Model B and B+,
// BCM2837) and the Raspberry Pi 4 (Model B, BCM2711).
var Boards = []string{"rpi3", "rpi4"}

// KernelName is the kernel image's file name on the partition (config.txt's kernel=).
const KernelName = "kernel8.img"

// FirmwareFiles are the files board needs from the firmware directory
// (debfetch.RaspiFirmwareDir), nil for an unknown board. From the Raspberry Pi documentation,
// "The boot folder", "Boot Folder Contents":
//
//   - bootcode.bin is the second-stage loader that the SoC's boot ROM loads from the card; it
//     "is not used on the Raspberry Pi 4, because it has been replaced by boot code in the
//     onboard EEPROM".
//   - start.elf is the GPU firmware of the Pi 1-3, start4.elf the Pi 4's; each needs its
//     fixup file (fixup.dat, fixup4.dat): "matched pairs", unmatched ones do not boot.
//
// The _x, _db and _cd variants (camera codecs, debugging, cut-down) are not needed: the
// firmware picks them only when config.txt asks (start_x, start_debug, gpu_mem=16), and ours
// does not.
func FirmwareFiles(board string) []string {
	switch board {
	case "rpi3":
		return []string{"bootcode.bin", "start.elf", "fixup.dat"}
	case "rpi4":
		return []string{"start4.elf", "fixup4.dat"}
	}
	return nil
}

// ConfigTxt is the config.txt for board ("rpi3" or "rpi4") that boots KernelName loaded at
// kernelAddress. Each setting is explained below and, briefly, in the file itself (reference:
// the Raspberry Pi documentation, "config.txt", https://www.raspberrypi.com/documentation/
// computers/config_txt.html, sections "Boot options" and "Configuring UARTs").
//
//   - arm_64bit=1: start the cores in AArch64 state and load a 64-bit kernel; without it the
//     firmware starts them in AArch32 and looks for kernel7.img (Pi 3) or kernel7l.img (Pi 4).
//   - kernel=kernel8.img: arm_64bit's default name, stated so that the name Write is given and
//     the one the firmware loads cannot drift apart.
//   - kernel_address: where the firmware copies the image. Its default for 64-bit kernels is
//     0x200000 today but was 0x80000 in older firmware; the kernel is linked for one address,
//     so it is stated. It must lie above the first 512 KiB (the firmware's ARM stub with the
//     other cores' spin table, and the ATAGs at 0x100) and below 1 GiB (the Pi 3's RAM, whose
//     top the GPU takes), 4 KiB aligned (the image's first page is its header).
//   - enable_uart=1: the serial console on GPIO 14 (TXD) and 15 (RXD), pins 8 and 10. On the
//     Pi 3 and Pi 4 the PL011 (UART0) is wired to the Bluetooth module and the mini UART
//     (UART1) is the "primary UART" on GPIO 14/15, and the mini UART is disabled unless
//     enable_uart=1. The kernel writes its console to both UARTs, so the mini UART's copy is
//     what appears on the pins. dtoverlay=disable-bt would put the PL011 there instead, but an
//     overlay needs overlays/disable-bt.dtbo and a board .dtb on the card, and Debian's
//     raspi-firmware ships neither (gmpos/qemu/debfetch).
//   - core_freq=250 (rpi3), core_freq_min=500 (rpi4): the mini UART's baud rate is divided
//     from the VPU core clock, so that clock must not move. On the Pi 3 enable_uart=1 already
//     fixes it at 250 MHz unless force_turbo=1; stating it keeps 250 MHz either way. The Pi
//     4's core clock is 500 MHz at most and may drop to 200 MHz when idle; a minimum of 500
//     pins it. The kernel's baud divisor must match: 250 MHz (Pi 3), 500 MHz (Pi 4).
//   - uart_2ndstage=1: the loader (bootcode.bin, or the Pi 4's EEPROM) and start*.elf log their
//     progress to UART0 — which files they read, where they load them — the first thing to
//     look at when a board stays silent. It costs nothing when nobody listens.
//   - enable_gic=1 (rpi4): interrupts reach the cores through the GIC-400, which the kernel's
//     arm64 code drives (the GICv2 it also uses on QEMU's virt machine), not through the
//     legacy BCM2836-style controller. It is the default, stated because the kernel depends
//     on it.
//
// Left out on purpose: disable_commandline_tags (a legacy option: it stops the firmware from
// writing ATAGs at 0x100, below the kernel, which a 64-bit kernel ignores), gpu_mem (=16
// would need the cut-down firmware start_cd.elf, which FirmwareFiles does not copy),
// arm_peri_high (the Pi 4's peripherals stay at their low addresses from 0xFE00_0000: the
// mini UART at 0xFE21_5040, the PL011 at 0xFE20_1000; on the Pi 3 at 0x3F21_5040 and
// 0x3F20_1000) and initramfs (the runner appends the boot modules to the kernel image).
func ConfigTxt(board string, kernelAddress uint64) (string, error) {
	var model, firmware string
	switch board {
	case "rpi3":
		model, firmware = "Raspberry Pi 3", "start.elf"
	case "rpi4":
		model, firmware = "Raspberry Pi 4", "start4.elf"
	default:
		return "", fmt.Errorf("sdimage: board %q: want %s", board, strings.Join(Boards, " or "))
	}
	if kernelAddress%4096 != 0 || kernelAddress < 0x80000 || kernelAddress >= 1<<30 {
		return "", fmt.Errorf("sdimage: kernel address %#x: want a 4 KiB-aligned address from 0x80000 to below 1 GiB (the Pi's RAM starts at 0)", kernelAddress)
	}

	var b strings.Builder
	set := func(comment, setting string) { fmt.Fprintf(&b, "\n# %s\n%s\n", comment, setting) }
	fmt.Fprintf(&b, "# config.txt for gmpos on the %s, written by `gmpos image -board %s`.\n", model, board)
	fmt.Fprintf(&b, "# Read by the firmware (%s) before it loads the kernel. Reference:\n", firmware)
	b.WriteString("# https://www.raspberrypi.com/documentation/computers/config_txt.html\n")
	set("Start the ARM cores in AArch64 state: gmpos is a 64-bit kernel.", "arm_64bit=1")
	set("The kernel image on this partition.", "kernel="+KernelName)
	set("Load it at the address it is linked for.", fmt.Sprintf("kernel_address=%#x", kernelAddress))
	set("Serial console on GPIO 14 (TXD) and 15 (RXD), header pins 8 and 10: the mini UART\n"+
		"# (the PL011 drives Bluetooth). The kernel writes to both UARTs.", "enable_uart=1")
	switch board {
	case "rpi3":
		set("The mini UART's baud rate comes from the core clock: keep it at 250 MHz.", "core_freq=250")
	case "rpi4":
		set("The mini UART's baud rate comes from the core clock: keep it at 500 MHz.", "core_freq_min=500")
		set("Interrupts through the GIC-400, which the kernel drives (the default).", "enable_gic=1")
	}
	set("Log the loader's and the firmware's progress to UART0 before the kernel starts.", "uart_2ndstage=1")
	return b.String(), nil
}
