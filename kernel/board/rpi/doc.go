// Package rpi is the Raspberry Pi 3 Model B (BCM2837) and 4 Model B (BCM2711) as a board:
// everything around the CPU that the kernel meets on those boards and on QEMU's raspi3b and
// raspi4b machines. One kernel image serves both (it is linked for RAM at 0, with -tags rpi
// choosing this package over gmpos/kernel/board/virt); the board tells the SoCs apart by the
// core's part number (soc.go). The CPU package (gmpos/kernel/arch/arm64) knows exception
// levels, traps, the MMU, the interrupt controllers' per-core side and the generic timer.
//
// # What the board provides (the kernel's Board contract, kernel/board.go)
//
//   - the hand-off: the firmware (or QEMU's -kernel) loads kernel8.img, a Linux arm64 Image,
//     at 0x20_0000 and enters it at EL2 with the MMU off. The module container — the runner's
//     argument module, the initramfs and the command line — is appended to the image and found
//     through a locator in its header page (locator.go, memory.go): a Pi passes its initramfs
//     only through a device tree, and QEMU's raspi machines pass none unless asked;
//   - RAM: the ARM cores' share of the first GiB, asked of the VideoCore firmware through the
//     mailbox's property interface (mailbox.go);
//   - the cores: four, released from the firmware's spin table at 0xd8 (arm64.UseSpinTable);
//   - interrupts: the Pi 3's BCM2836 ARM-local controller for timers and IPIs with the BCM2835
//     controller's 64 GPU lines as the board's lines; the Pi 4's GIC-400 (devices_arm64.go);
//   - the console (console.go): the runner's records on the PL011 under QEMU, plain text on the
//     PL011 and the mini UART (gmpos/drivers/miniuart) on a board;
//   - the way out: semihosting under QEMU, a halt with the exit status printed on a board.
//
// Not yet: a device tree reader (the Pi 4's RAM above 1 GiB), console input in plain mode, the
// BCM2835 system timer as a test interrupt source, the Pi 4's PCIe, USB and Ethernet, and a
// wall clock (neither board has one).
//
// # Contexts
//
// EarlyInit and Probe run once at boot, before the Go runtime exists, on the early identity map
// (kernel/arch/arm64, early_rpi.go: RAM below 0x3f00_0000, Device memory above): static data,
// no allocation. The board keeps no Go pointers and no strings, so no store into it needs a
// write barrier. Everything else may run in trap context under the BKL, or alone on the fault
// path (ConsoleWrite, Exit), where the console's write flag is taken with a bounded wait. Files
// ending in _arm64.go call the CPU package; the others build on any architecture, so that their
// tests run on the development host.
//
// # References
//
//   - "BCM2835 ARM Peripherals" (§1.2.3 addresses, §2 the mini UART, §7.5 the interrupt
//     controller, §13 the PL011); "BCM2711 ARM Peripherals" (§1.2.4, §6 the GIC-400);
//     "BCM2836 ARM-local peripherals" (QA7 rev 3.4, §4 the local interrupt controller).
//   - Raspberry Pi documentation: config.txt (kernel_address, arm_64bit, enable_uart), "UART
//     configuration"; the firmware wiki's "Mailbox property interface".
//   - Linux Documentation/arch/arm64/booting.rst (§4 the Image, §5 the spin table).
//   - QEMU hw/arm/raspi.c (the boot stub and spin table), hw/arm/bcm2836.c, bcm2838.c,
//     hw/misc/bcm2835_property.c, hw/intc/bcm2836_control.c.
//
// # Files
//
// board.go the Board type and the hand-off's accessors; soc.go the two SoCs; locator.go,
// memory.go the image's locator, RAM and the container; mailbox.go, mailbox_arm64.go the
// firmware's property interface; probe_arm64.go EarlyInit and Probe; console.go;
// devices_arm64.go device mappings, interrupts, Exit and MeasureHz; none.go what the board does
// not offer; zkdata_arm64.go (kernel/mkkdata.go).
package rpi
