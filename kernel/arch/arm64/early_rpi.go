// The early identity map on the Raspberry Pi 3 and 4 (the kernel built with -tags rpi).
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64 && rpi

package arm64

// RAM starts at 0 on both boards. The Pi 3's (BCM2837) peripherals fill 0x3f00_0000-0x3fff_ffff
// and its ARM-local controller sits at 0x4000_0000 ("BCM2835 ARM Peripherals" §1.2.3; QA7
// §4.1); the Pi 4's (BCM2711) are at 0xfc00_0000-0xffff_ffff in its low-peripheral mode, the
// firmware's default ("BCM2711 ARM Peripherals" §1.2.4). One map serves both, so that one image
// boots either: the first GiB is RAM in 2 MiB blocks up to 0x3f00_0000 and Device above, the
// other three Device. On a Pi 4 that leaves its RAM above 0x3f00_0000 unreachable until the
// kernel's own table is loaded — the kernel image, its boot stack and the module container
// lie far below it.
const (
	earlyGiB0  = 0 // unused: earlySplit
	earlyGiB1  = earlyDevice
	earlyGiB2  = earlyDevice
	earlyGiB3  = earlyDevice
	earlySplit = 0x3f00_0000
)
