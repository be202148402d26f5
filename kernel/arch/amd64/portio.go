// Port and memory-mapped I/O for the board and device drivers.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

// Outb writes an I/O port (OUT, SDM Vol. 2B). The PC board's devices (UARTs, PIT, CMOS, PIC,
// isa-debug-exit) are reached through ports; this is the CPU's side of it.
func Outb(port uint16, v uint8) { outb(port, v) }

// Inb reads an I/O port (IN).
func Inb(port uint16) uint8 { return inb(port) }

// Outl writes a 32-bit I/O port (OUT with a doubleword operand). The PC's PCI configuration
// mechanism #1 (CONFIG_ADDRESS 0xcf8, CONFIG_DATA 0xcfc) needs whole-dword accesses: a byte
// write to 0xcf8 is not a configuration address at all (PCI Local Bus 3.0 §3.2.2.3.2).
func Outl(port uint16, v uint32) { outl(port, v) }

// Inl reads a 32-bit I/O port (IN with a doubleword operand).
func Inl(port uint16) uint32 { return inl(port) }

// MMIOWrite32 writes a 32-bit device register with exactly one store (written in assembly so
// that the compiler can neither merge, split nor drop the access). The register must be mapped
// uncached.
func MMIOWrite32(a uintptr, v uint32) { mmioWrite32(a, v) }

// MMIORead32 reads a 32-bit device register with exactly one load (assembly, as MMIOWrite32).
func MMIORead32(a uintptr) uint32 { return mmioRead32(a) }

// The 32-bit port instructions (portio_amd64.s). Safe in any context; they touch no memory.
func outl(port uint16, v uint32)
func inl(port uint16) uint32
