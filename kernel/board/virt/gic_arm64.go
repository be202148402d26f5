// Device interrupts: the GIC's shared peripheral interrupts (SPIs) are the board's lines.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import (
	"gmpos/drivers/mmio"
	"gmpos/kernel/arch/arm64"
)

// A device's interrupt wire ends at a GIC SPI (IHI 0048B, GICv2 §2.2.1; IHI 0069, GICv3 §2.2:
// INTIDs 32-1019); board line n is SPI n, INTID 32+n — the number the device tree's
// interrupts cells give (devicetree.go). The CPU package (kernel/arch/arm64) owns the GIC: the
// distributor's registers, the per-core CPU interface or redistributor, acknowledging and
// ending interrupts, SGIs as IPIs and the timer's PPI. The board tells it where the GIC is
// (Probe: UseGICv2/UseGICv3), maps the registers and has it set the distributor up (InitIRQ),
// and turns its lines on and off.

// InitIRQ identity-maps the GIC's distributor and its CPU interface (GICv2) or the
// redistributors of the cores the tree lists (GICv3) with mapDevice, then has the CPU
// package reset the distributor with every SPI masked (arm64.InitGICDistributor). Boot.
// false: no GIC, or its registers cannot be mapped.
func (b *Board) InitIRQ(mapDevice func(pa, size uintptr) bool) bool {
	g := &b.gic
	if g.version == 0 || !mapDevice(g.dist, g.distLen) || !mapDevice(g.cpu, g.cpuLen) {
		return false
	}
	if !arm64.InitGICDistributor() {
		return false
	}
	// The GICv2m frame (msi.go): its SPIs become the MSI lines, edge-triggered. A frame that
	// cannot be mapped or names SPIs the distributor lacks leaves the board without MSI.
	if g.v2m != 0 && mapDevice(g.v2m, v2mFrameSize) {
		if first, n, ok := decodeV2MTyper(mmio.Read32(g.v2m+v2mTYPER), arm64.GICLines()); ok {
			for i := first; i < first+n; i++ {
				arm64.GICEdgeSPI(i)
			}
			b.msi = msiInfo{first: first, n: n}
		}
	}
	// The GICv3 ITS (its.go): LPIs as MSI lines above the wired SPIs the board keeps.
	if g.its != 0 && arm64.GICLines() > itsWiredLines {
		first, n := itsWiredLines, arm64.MaxIRQLines-itsWiredLines
		if why := b.initITS(mapDevice, first, n); why == "" {
			b.msi = msiInfo{first: first, n: n}
		} else { // said on the control channel as a "log" record, piece by piece (no allocation)
			b.con.WriteString(consoleControl, "log ")
			b.con.WriteString(consoleControl, why)
			b.con.WriteString(consoleControl, "; no MSI lines\n")
		}
	}
	return true
}

// itsWiredLines is how many SPIs stay wired lines when the ITS's LPIs take the lines above them
// (the kernel's tables end at arm64.MaxIRQLines): virt's own devices use SPIs below 96
// (hw/arm/virt.c a15irqmap: the UART, RTC, PCIe INTx, GPIO, virtio-mmio, the SMMU at 74-77);
// its dynamic platform bus (SPIs 112-175) is not used by gmpos.
const itsWiredLines = 96

// itsMaxLines (its.go, portable) is arm64.MaxIRQLines: the array lengths below differ otherwise.
var _ [itsMaxLines - arm64.MaxIRQLines]struct{}
var _ [arm64.MaxIRQLines - itsMaxLines]struct{}

// IRQLines is the number of wired SPIs: those the distributor implements
// (GICD_TYPER.ITLinesNumber), up to the GICv2m frame's, which are the MSI lines; 0 before
// InitIRQ.
func (b *Board) IRQLines() int {
	if b.msi.n != 0 {
		return b.msi.first
	}
	return arm64.GICLines()
}

// EnableIRQ routes SPI line to the boot core and unmasks it (the CPU package's
// GICEnableSPI: GICD_ITARGETSR or GICD_IROUTER, then GICD_ISENABLER). false for a line the
// distributor does not have. BKL held.
func (b *Board) EnableIRQ(line int) bool {
	switch {
	case line < 0 || line >= b.IRQLines() && !b.msiLine(line):
		return false
	case b.its.base != 0 && b.msiLine(line):
		return b.itsEnable(line, true) // an LPI: its configuration byte
	default:
		arm64.GICEnableSPI(line, true)
	}
	return true
}

// DisableIRQ masks line: an SPI at the distributor (GICD_ICENABLER), an LPI in its
// configuration byte. BKL held.
func (b *Board) DisableIRQ(line int) {
	switch {
	case b.its.base != 0 && b.msiLine(line):
		b.itsEnable(line, false)
	case line >= 0 && line < arm64.GICLines():
		arm64.GICEnableSPI(line, false)
	}
}
