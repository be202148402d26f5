// The board this kernel runs on: a Raspberry Pi 3 or 4 (built with -tags rpi).
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64 && rpi

package kernel

import "gmpos/kernel/board/rpi"

// The Pi's RAM starts at 0 and the loader puts kernel8.img at 0x20_0000 (config.txt's
// kernel_address; QEMU: text_offset): the image is linked at 0x20_2000 (docs/contract.md,
// "Raspberry Pi": -T 0x202000), the ELF and program headers in the page below, the Image
// header's page below that.
const (
	imageBase = 0x20_1000 // the ELF header
	imageLoad = 0x20_0000 // the Image header page: the first byte the loader placed
)

// board is the machine. Immutable after boot except where its methods say otherwise.
var board rpi.Board

var _ Board = &board

// boardKernelData lists the board package's variables (protectKernelData).
func boardKernelData(add func(p, n uintptr)) { rpi.KernelData(add) }
