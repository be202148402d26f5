// The board this kernel runs on: the PC.
// SPDX-License-Identifier: BSD-3-Clause

//go:build amd64

package kernel

import "gmpos/kernel/board/pc"

// The image is linked at 1 MiB (docs/contract.md: -T 0x101000): its first page holds the ELF and
// program headers, which the Multiboot loader copied along with the rest of the file.
const (
	imageBase = 0x100000  // the ELF header
	imageLoad = imageBase // the first byte the loader placed
)

// board is the machine. Immutable after boot except where its methods say otherwise.
var board pc.Board

var _ Board = &board

// boardKernelData lists the board package's variables (protectKernelData).
func boardKernelData(add func(p, n uintptr)) { pc.KernelData(add) }
