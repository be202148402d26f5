// Package miniuart drives the BCM2835 auxiliary "mini UART" of the Raspberry Pi 3 and 4
// ("BCM2835 ARM Peripherals" §2.2, "Mini UART"; the BCM2711's is the same block), polled and
// transmit-only: the Pi's firmware puts it on GPIO 14/15 — the header's UART pins — whenever
// the PL011 drives the Bluetooth module (the default on the Pi 3 and 4), and with
// enable_uart=1 in config.txt it sets the mini UART up at 115200 8N1 before the kernel starts.
// gmpos writes its console there as plain text for a person at a serial terminal.
//
// Written here rather than taken from tamago's soc/bcm2835: that package needs the patched
// GOOS=tamago toolchain (it imports runtime/goos), and this is twenty lines of register reads.
//
// Contexts: any, including trap context; nothing allocates. The caller serializes writers.
package miniuart
