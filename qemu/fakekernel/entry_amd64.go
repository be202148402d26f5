// Go declarations of the fake 32-bit x86 entry points.
// SPDX-License-Identifier: BSD-3-Clause

package fakekernel

// Defined in entry_amd64.s. They are 32-bit code: never call them from Go.
// They are reachable only as the ELF entry (-ldflags=-E).
func Entry32()
func Hang32()
func Panic32()
func Reset32()
func Modules32()
