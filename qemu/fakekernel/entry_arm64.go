// Go declarations of the fake arm64 entry points.
// SPDX-License-Identifier: BSD-3-Clause

package fakekernel

// Defined in entry_arm64.s. They run with the MMU off and no stack: never call them from Go.
// They are reachable only as the ELF entry (-ldflags=-E), through the Image header's branch.
func EntryA64()
func ModulesA64()
func EchoA64()
