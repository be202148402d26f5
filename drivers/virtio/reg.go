// MMIO access to device registers: accesses the compiler cannot drop, merge or reorder.
// SPDX-License-Identifier: BSD-3-Clause

package virtio

import "unsafe"

// Register access for device memory (the BARs' mapped addresses). Each helper is a separate,
// never-inlined function performing exactly one access of its width: the compiler cannot see
// through the call, so it can neither drop a store it thinks dead (two writes to queue_select in
// a row), nor merge two loads of a status register, nor move an access across another call.
// That is the "volatile" Go lacks. Plain (non-atomic) instructions are used on purpose: device
// memory is uncached, and a hypervisor must decode the access (a MOV, not an XCHG).
//
// Ordering against normal memory (the rings) is the Queue's business (see queue.go): on x86-64
// uncached accesses are ordered with everything (SDM Vol. 3A §12.3); on arm64 Device memory
// accesses are ordered among themselves, and the notify store follows an atomic (LDAR) load.
//
// The virtio PCI rule for widths (§4.1.3.1): 8-bit fields with 8-bit accesses, 16-bit with
// 16-bit, 32- and 64-bit fields with 32-bit accesses (a 64-bit field as two, low word first).
// Write64/Read64 are for other devices' registers.

// ptr turns an address into a pointer without go vet's unsafeptr complaint (the address is
// device memory or pinned memory, never a Go heap object that could move).
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// Read8 reads the byte at device address a.
//
//go:noinline
func Read8(a uintptr) uint8 { return *(*uint8)(ptr(a)) }

// Read16 reads the 16-bit register at a (a must be 2-byte aligned).
//
//go:noinline
func Read16(a uintptr) uint16 { return *(*uint16)(ptr(a)) }

// Read32 reads the 32-bit register at a (4-byte aligned).
//
//go:noinline
func Read32(a uintptr) uint32 { return *(*uint32)(ptr(a)) }

// Read64 reads the 64-bit register at a (8-byte aligned) in one access.
//
//go:noinline
func Read64(a uintptr) uint64 { return *(*uint64)(ptr(a)) }

// Write8 writes the byte at device address a.
//
//go:noinline
func Write8(a uintptr, v uint8) { *(*uint8)(ptr(a)) = v }

// Write16 writes the 16-bit register at a (2-byte aligned).
//
//go:noinline
func Write16(a uintptr, v uint16) { *(*uint16)(ptr(a)) = v }

// Write32 writes the 32-bit register at a (4-byte aligned).
//
//go:noinline
func Write32(a uintptr, v uint32) { *(*uint32)(ptr(a)) = v }

// Write64 writes the 64-bit register at a (8-byte aligned) in one access.
//
//go:noinline
func Write64(a uintptr, v uint64) { *(*uint64)(ptr(a)) = v }
