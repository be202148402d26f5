// LPIs: a GICv3's message interrupts, which an ITS delivers to a redistributor.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

import "gmpos/drivers/mmio"

// A GICv3 has no GICv2m frame: a PCI function's MSI goes to an Interrupt Translation Service,
// which maps (device, event) to an LPI, INTID 8192 and up, and raises it at a redistributor
// (IHI 0069 §5.1). LPIs have no distributor state: each redistributor reads their enable bit and
// priority from a configuration table in memory, one byte per LPI (§5.1.1), and keeps their
// pending state in a pending table, one bit per INTID (§5.1.2). The ITS itself — its command
// queue and tables — is the board's (kernel/board/virt, its_arm64.go); the CPU package turns LPIs
// on at the boot core's redistributor, which all of them target, and numbers them as the board's
// lines for Trap.
//
// lpi is set by EnableLPIs at boot and immutable afterwards.
var lpi struct{ first, n int }

// Redistributor LPI registers (§12.10).
const (
	gicrCTLR      = 0x0000
	gicrPROPBASER = 0x0070
	gicrPENDBASER = 0x0078

	gicrCtlrEnableLPIs = 1 << 0
	gicrTyperPLPIS     = 1 << 0 // physical LPIs supported

	// The tables' memory attributes in PROPBASER and PENDBASER (§12.10.22, §12.10.23):
	// InnerCache 0b111 (write-back, read- and write-allocate), Shareability 0b01 (inner), as the
	// kernel maps RAM.
	lpiTableAttrs = 0b111<<7 | 0b01<<10
)

// EnableLPIs points the boot core's redistributor at the LPI configuration table prop (covering
// INTIDs below 1<<idBits) and the pending table pend (64 KiB-aligned, zeroed), enables LPIs there,
// and makes LPI 8192+k board line first+k for k < n. It returns the redistributor's physical base
// and its processor number (GICR_TYPER bits 23:8), the two ways an ITS may name it as a target
// (GITS_TYPER.PTA). ok false without a GICv3 or LPI support. Boot, after InitInterrupts.
func EnableLPIs(prop, pend uintptr, idBits, first, n int) (rd uintptr, proc uint64, ok bool) {
	if !gic.v3 || first < 0 || n <= 0 || first+n > MaxIRQLines {
		return 0, 0, false
	}
	rd = redistributor(uint64(cpus[0].mpidr))
	if rd == 0 {
		return 0, 0, false
	}
	t := mmio.Read64(rd + gicrTYPER)
	if t&gicrTyperPLPIS == 0 {
		return 0, 0, false
	}
	mmio.Write64(rd+gicrPROPBASER, uint64(prop)|lpiTableAttrs|uint64(idBits-1))
	mmio.Write64(rd+gicrPENDBASER, uint64(pend)|lpiTableAttrs)
	dsb()
	mmio.Write32(rd+gicrCTLR, mmio.Read32(rd+gicrCTLR)|gicrCtlrEnableLPIs)
	dsb()
	lpi.first, lpi.n = first, n
	return rd, t >> 8 & 0xffff, true
}
