// Message-signalled interrupts: the GICv2m frame turns a PCI function's MSI write into an SPI.
// (With a GICv3 the ITS does the job: its.go.)
// SPDX-License-Identifier: BSD-3-Clause

package virt

// A GICv2 has no way to receive a message itself; ARM's GICv2m extension (ARM SBSA, appendix
// "GICv2m") adds a frame whose MSI_SETSPI_NS register raises the SPI whose INTID is written to
// it. QEMU virt with GICv2 has one frame (hw/intc/arm_gicv2m.c, at 0x0802_0000 under the GIC
// node of the tree): MSI_TYPER says which SPIs it raises — QEMU: 64 from INTID 80. A PCI
// function's MSI-X entry then holds the frame's MSI_SETSPI_NS as the address and the INTID as
// the data, and the device's write is the interrupt (edge-triggered: there is no level behind
// it). With a GICv3 the messages go to the ITS instead, which turns them into LPIs (its.go).
//
// The frame's SPIs (or the ITS's LPIs) are the board's MSI lines (Board.MSILines): lines
// [first, first+n), and IRQLines stops below them, so the kernel never takes one for a wired
// device. The frame's are configured edge-triggered at InitIRQ and unmasked when a driver
// registers one (EnableIRQ).
//
// msi is set by InitIRQ (gic_arm64.go) and immutable afterwards.
type msiInfo struct {
	first, n int // the frame's SPIs or the ITS's LPIs, as board lines
}

// GICv2m frame registers (SBSA, GICv2m appendix).
const (
	v2mTYPER      = 0x008 // bits 25:16 the first SPI's INTID, bits 9:0 their number
	v2mSETSPI     = 0x040 // MSI_SETSPI_NS: a write of an INTID raises it
	v2mFrameSize  = 0x1000
	intidFirstSPI = 32
)

// decodeV2MTyper turns MSI_TYPER into board lines [first, first+n), given the SPIs the
// distributor implements; ok false for a frame whose SPIs are not all the distributor's (a
// register read from a device is outside data).
func decodeV2MTyper(typer uint32, spis int) (first, n int, ok bool) {
	base, count := int(typer>>16&0x3ff), int(typer&0x3ff)
	first = base - intidFirstSPI
	if base < intidFirstSPI || count == 0 || first+count > spis {
		return 0, 0, false
	}
	return first, count, true
}

// MSILines returns the GICv2m frame's SPIs as board lines (none without a frame, or before
// InitIRQ).
func (b *Board) MSILines() (first, n int) { return b.msi.first, b.msi.n }

// MSIMessage is the address and data that raise MSI line: with the GICv2m frame its
// MSI_SETSPI_NS and the line's INTID (the SPI is routed to the boot core by
// InitGICDistributor); with the ITS, GITS_TRANSLATER and the event the line becomes for the
// function with this requester ID (its.go). Boot.
func (b *Board) MSIMessage(line int, requester uint16) (addr uint64, data uint32, ok bool) {
	if b.msi.n == 0 || line < b.msi.first || line >= b.msi.first+b.msi.n {
		return 0, 0, false
	}
	if b.its.base != 0 {
		return b.itsMessage(line, requester)
	}
	return uint64(b.gic.v2m + v2mSETSPI), uint32(intidFirstSPI + line), true
}

// msiLine reports whether line is one of the MSI lines.
func (b *Board) msiLine(line int) bool {
	return b.msi.n != 0 && line >= b.msi.first && line < b.msi.first+b.msi.n
}
