// The CPU package's variables, for protectKernelData.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/kernel/arch/amd64"

// archKernelData lists the CPU package's variables — descriptor tables, boot and IST stacks,
// per-CPU state (protectKernelData).
func archKernelData(add func(p, n uintptr)) { amd64.KernelData(add) }
