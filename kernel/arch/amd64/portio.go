// Port and memory-mapped I/O for the board and device drivers.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

// Outb writes an I/O port (OUT, SDM Vol. 2B). The PC board's devices (UARTs, PIT, CMOS, PIC,
// isa-debug-exit) are reached through ports; this is the CPU's side of it.
func Outb(port uint16, v uint8) { outb(port, v) }

// Inb reads an I/O port (IN).
func Inb(port uint16) uint8 { return inb(port) }

// MMIOWrite32 writes a 32-bit device register with exactly one store (written in assembly so
// that the compiler can neither merge, split nor drop the access). The register must be mapped
// uncached.
func MMIOWrite32(a uintptr, v uint32) { mmioWrite32(a, v) }
