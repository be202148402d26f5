// Message-signalled interrupts: none yet.
// SPDX-License-Identifier: BSD-3-Clause

package virt

// virt can turn a PCI function's MSI/MSI-X write into an SPI: with GICv2 through the GICv2m
// frame the tree lists under the GIC ("arm,gic-v2m-frame", at 0x0802_0000: MSI_TYPER at +0x008
// gives the first SPI's INTID in bits 25:16 and their number in bits 9:0 — QEMU: 64 SPIs from
// INTID 80 — and a write of an INTID to MSI_SETSPI_NS at +0x040 raises it; ARM SBSA, appendix
// "GICv2m"), with GICv3 through the ITS (IHI 0069 chapter 5, device and event tables in
// memory). Neither is driven yet, so the board offers no MSI lines, and the kernel's virtio PCI
// drivers, which use MSI-X only, find no interrupt on virt: the GICv2m is the next step (its
// SPIs would be lines below IRQLines, which Board.MSILines's "above the wired lines" would
// have to allow).

// MSILines returns no lines.
func (b *Board) MSILines() (first, n int) { return 0, 0 }

// MSIMessage: no line is an MSI line.
func (b *Board) MSIMessage(line int) (addr uint64, data uint32, ok bool) { return 0, 0, false }
