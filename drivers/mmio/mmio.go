// Package mmio reads and writes device registers: accesses the compiler cannot drop, merge or
// reorder, with the instructions a hypervisor can decode.
// SPDX-License-Identifier: BSD-3-Clause
//
// Register access for device memory (PCI configuration space through ECAM, the BARs' mapped
// addresses, MSI-X tables). Each helper is a separate,
// never-inlined function performing exactly one access of its width: the compiler cannot see
// through the call, so it can neither drop a store it thinks dead (two writes to queue_select in
// a row), nor merge two loads of a status register, nor move an access across another call.
// That is the "volatile" Go lacks.
//
// Plain (non-atomic) instructions are used on purpose: device memory is uncached, and a
// hypervisor must decode the access — a MOV, not the XCHG that sync/atomic's stores compile to
// on amd64. It matters in practice: under QEMU 7.2's multi-threaded TCG, an atomic instruction
// on MMIO cannot run in parallel, so the vCPU replays it alone (cpu_exec_step_atomic) outside
// the RCU read section the memory-map update of a PCI configuration write expects, and QEMU
// aborts ("rcu_read_unlock: Assertion `p_rcu_reader->depth != 0'") — seen with -smp 2 when the
// PCI code still used atomic.StoreUint32 for ECAM and MSI-X writes.
//
// Ordering against normal memory (a device's rings) is the driver's business (for virtio see
// drivers/virtio/queue.go): on x86-64 uncached accesses are ordered with everything (SDM Vol. 3A
// §12.3); on arm64 Device memory accesses are ordered among themselves.
//
// Widths are the device's: virtio PCI (§4.1.3.1) wants 8-bit fields read with 8-bit accesses,
// 16-bit with 16-bit, 32- and 64-bit fields with 32-bit accesses; PCI configuration space
// through ECAM is read and written in dwords here.
package mmio

import "unsafe"

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
