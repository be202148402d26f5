// The early identity map on QEMU's virt machine.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64 && !rpi

package arm64

// QEMU virt (hw/arm/virt.c, base_memmap): flash, the GIC, the UART, the RTC and PCIe's windows
// below 1 GiB, RAM from 1 GiB. The early map covers the first 4 GiB: the kernel image, its
// boot stack, the device tree and the initrd lie in RAM there, the UART below.
const (
	earlyGiB0  = earlyDevice
	earlyGiB1  = earlyNormal
	earlyGiB2  = earlyNormal
	earlyGiB3  = earlyNormal
	earlySplit = 0 // the first GiB is one block
)
