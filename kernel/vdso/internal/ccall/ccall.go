// Calling machine code with the C ABI from Go, for the vDSO's hosted tests.
// SPDX-License-Identifier: BSD-3-Clause

// Package ccall calls a function given as an address, with the System V AMD64 C ABI, from Go:
// the vDSO's tests map its image with mmap and run it on the host (kernel/vdso
// exec_amd64_test.go). It exists only for tests.
package ccall

// Call2 calls the C function at fn with the arguments a0 (RDI) and a1 (RSI) and returns RAX.
// Before the call it fills the registers the C ABI says a callee must preserve — RBX, R12, R13
// and R15 — with known values; saved reports whether they all came back. fn runs on the
// goroutine's stack, so it must use no stack beyond its return address (the vDSO's functions
// use none).
func Call2(fn, a0, a1 uintptr) (r uintptr, saved bool)

// Cycles reads the time-stamp counter as the vDSO does: LFENCE, then RDTSC.
func Cycles() uint64
