// What the Pi board does not offer: a wall clock, MSI, a test interrupt source, PCI.
// SPDX-License-Identifier: BSD-3-Clause

package rpi

import "gmpos/drivers/pci"

// WallClock is 0: a Pi has no battery-backed clock (the time of day comes from the network on
// Raspberry Pi OS), and QEMU's raspi machines have no RTC either.
func (b *Board) WallClock() int64 { return 0 }

// MSILines: none. The Pi 4's PCIe root complex (its USB controller behind it) is not driven.
func (b *Board) MSILines() (first, n int) { return 0, 0 }

// MSIMessage: no line is an MSI line.
func (b *Board) MSIMessage(line int, requester uint16) (addr uint64, data uint32, ok bool) {
	return 0, 0, false
}

// TestIRQ is -1: no device here interrupts at a chosen rate that the board could offer the
// kernel's interrupt self-test (the BCM2835 system timer could; not driven yet).
func (b *Board) TestIRQ() int { return -1 }

// StartTestIRQ starts nothing.
func (b *Board) StartTestIRQ(hz int) int { return 0 }

// StopTestIRQ does nothing.
func (b *Board) StopTestIRQ() {}

// AckTestIRQ: no interrupt is the absent source's.
func (b *Board) AckTestIRQ() bool { return false }

// PCIConfig: no PCI (the Pi 3 has none; the Pi 4's PCIe is not driven).
func (b *Board) PCIConfig(mapDevice func(pa, size uintptr) bool) (pci.Config, bool) {
	return nil, false
}

// PCIWindow is empty.
func (b *Board) PCIWindow() pci.Window { return pci.Window{} }
