// The board this kernel runs on: the PC.
// SPDX-License-Identifier: BSD-3-Clause

//go:build amd64

package kernel

import "gmpos/kernel/board/pc"

// board is the machine. Immutable after boot except where its methods say otherwise.
var board pc.Board

var _ Board = &board

// boardKernelData lists the board package's variables (protectKernelData).
func boardKernelData(add func(p, n uintptr)) { pc.KernelData(add) }
