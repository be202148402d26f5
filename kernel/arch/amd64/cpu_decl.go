// Privileged instructions, one tiny assembly function each (cpu_amd64.s).
// SPDX-License-Identifier: BSD-3-Clause

package amd64

// Each is safe in any context and touches no memory but its arguments' (lgdt/lidt read the
// descriptor pointer).
func setKernelTLS0()
func rdmsr(msr uint32) uint64
func wrmsr(msr uint32, val uint64)
func outb(port uint16, val uint8)
func inb(port uint16) uint8
func rdtsc() uint64
func halt()
func readCR2() uintptr
func readCR3() uintptr
func writeCR3(v uintptr)
func invlpg(va uintptr)
func lgdt(p uintptr)
func lidt(p uintptr)
func ltr(sel uint16)
func cpuid(leaf, sub uint32) (a, b, c, d uint32)
func mmioRead32(addr uintptr) uint32
func mmioWrite32(addr uintptr, v uint32)
func pause()
func mfence()
