// The CPU package's variables, for protectKernelData.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/kernel/arch/amd64"

// amd64KernelData lists the CPU package's variables — descriptor tables, boot and IST stacks,
// per-CPU state (protectKernelData).
func amd64KernelData(add func(p, n uintptr)) { amd64.KernelData(add) }
