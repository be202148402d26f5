// Halt, spin-wait hint, hardware random numbers, semihosting.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

import "unsafe"

// Halt waits for the next interrupt with interrupts as they are (WFI). With them masked a pending
// interrupt still ends the wait (D1.16.2) but is not taken.
func Halt() { wfi() }

// Pause is the spin-wait hint (YIELD).
func Pause() { yield() }

// Fence is a full memory barrier among the cores (DMB ISH; ARM ARM B2.3.12): every load and store
// before it is observed before any after it, which Dekker-style hand-offs (store my flag, then
// load yours) need and Go's atomics, acquire and release only, do not give plain accesses.
func Fence() { dmbISH() }

// Random returns a hardware random number (RNDR, FEAT_RNG). ok is false when the CPU has no
// RNDR (ID_AA64ISAR0_EL1.RNDR, bits 63:60) — Cortex-A53 and A72 do not — or it kept failing.
func Random() (v uint64, ok bool) {
	if readISAR0()>>60 == 0 {
		return 0, false
	}
	for range 10 {
		if v, ok = rndr(); ok {
			return v, true
		}
	}
	return 0, false
}

// Semihosting operations (Arm "Semihosting for AArch32 and AArch64", §5).
const (
	shSysExit               = 0x18
	adpStoppedApplicationEx = 0x20026
)

// shExitBlock is SYS_EXIT's parameter block: the reason and the exit status.
var shExitBlock [2]uint64

// SemihostExit ends the machine through the debugger's semihosting interface: QEMU, started with
// -semihosting, exits with status. Without semihosting HLT is undefined: the caller's fault path
// takes over. Never returns while semihosting works.
func SemihostExit(status int) {
	shExitBlock[0] = adpStoppedApplicationEx
	shExitBlock[1] = uint64(status)
	semihost(shSysExit, uintptr(unsafe.Pointer(&shExitBlock)))
}
