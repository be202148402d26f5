// The board this kernel runs on: QEMU's arm64 virt machine.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64 && !rpi

package kernel

import "gmpos/kernel/board/virt"

// The image is linked at 0x4020_2000 (docs/contract.md, "arm64 virt": -T 0x40202000): the ELF and
// program headers sit in the page below, and below that the page with the Linux Image header that
// QEMU loaded at RAM base + text_offset.
const (
	imageBase = 0x4020_1000 // the ELF header
	imageLoad = 0x4020_0000 // the Image header page: the first byte the loader placed
)

// board is the machine. Immutable after boot except where its methods say otherwise.
var board virt.Board

var _ Board = &board

// boardKernelData lists the board package's variables (protectKernelData).
func boardKernelData(add func(p, n uintptr)) { virt.KernelData(add) }
