// The CPU package's variables, for protectKernelData.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/kernel/arch/arm64"

// archKernelData lists the CPU package's variables — the early page tables, the boot stack,
// per-CPU state, the GIC's addresses (protectKernelData).
func archKernelData(add func(p, n uintptr)) { arm64.KernelData(add) }
