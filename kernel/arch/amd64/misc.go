// Cycle counter, halt, hardware random numbers, CPUID.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

// Cycles reads the time-stamp counter (RDTSC after LFENCE, so that it is not read early: SDM
// Vol. 2B RDTSC). The kernel's clock is built on it; with -cpu max QEMU reports an invariant TSC
// (CPUID 80000007H:EDX[8]), constant-rate across cores.
func Cycles() uint64 { return rdtsc() }

// Halt waits for the next interrupt with interrupts as they are (HLT). With interrupts disabled
// only an NMI or INIT ends it: the kernel uses it to stop a core for good. The idle halt, which
// must enable interrupts and halt atomically, is in trap_amd64.s (resume's idle loop).
func Halt() { halt() }

// Random returns a hardware random number (RDSEED, falling back to RDRAND; SDM Vol. 1 §7.3.17).
// ok is false when the CPU has neither or both kept failing.
func Random() (v uint64, ok bool) { return hwrandom() }

// CPUID executes CPUID (SDM Vol. 2A) — for the Linux ABI's AT_HWCAP.
func CPUID(leaf, sub uint32) (a, b, c, d uint32) { return cpuid(leaf, sub) }

func hwrandom() (uint64, bool)
