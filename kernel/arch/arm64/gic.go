// The Generic Interrupt Controller: each core's interface, the distributor, and IPIs.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

import "gmpos/drivers/mmio"

// The GIC routes three kinds of interrupt (GIC architecture v2, IHI 0048B §2.2.1; v3/v4,
// IHI 0069 §2.2.1): SGIs 0-15, software-generated, the kernel's IPIs (sgiWake, sgiFlush); PPIs
// 16-31, private to a core, such as its timer (intidTimer); SPIs 32-1019, the board's device lines
// (line n is INTID 32+n). A core acknowledges an interrupt by reading its interface's IAR (the
// entry does, vectors_arm64.s) and ends it by writing the value back to EOIR (EOI).
//
// GICv2 (QEMU virt's default, the Raspberry Pi 4's GIC-400): the distributor and each core's CPU
// interface are memory-mapped. GICv3 (-M virt,gic-version=3): the distributor and one
// redistributor per core are memory-mapped, the CPU interface is system registers (ICC_*).
//
// Written here rather than taken from tamago's arm64/gic: that driver is GICv3-only and waits with
// the runtime's clock, while this code runs before the runtime exists and in trap context.
//
// gic is set by the board at boot (UseGICv2/UseGICv3) and immutable afterwards.
var gic struct {
	v3     bool
	dist   uintptr // GICD
	cpu    uintptr // GICv2: GICC
	redist uintptr // GICv3: the first redistributor frame
	lines  int     // SPIs the distributor implements (at most MaxIRQLines)
}

// Distributor registers (IHI 0048B §4.1.2 Table 4-1; IHI 0069 §12.9).
const (
	gicdCTLR       = 0x000
	gicdTYPER      = 0x004
	gicdIGROUPR    = 0x080
	gicdISENABLER  = 0x100
	gicdICENABLER  = 0x180
	gicdICPENDR    = 0x280
	gicdICFGR      = 0xc00 // 2 bits an INTID: bit 1 set = edge-triggered (§4.3.13)
	gicdIPRIORITYR = 0x400
	gicdITARGETSR  = 0x800
	gicdSGIR       = 0xf00
	gicdIROUTER    = 0x6000 // v3: INTID n's 64-bit route at 0x6000 + 8n, n >= 32 (§12.9.22)

	gicdCtlrRWP = 1 << 31 // v3: register write pending

	// v2 CPU interface (IHI 0048B §4.1.3 Table 4-2).
	giccCTLR = 0x000
	giccPMR  = 0x004
	giccEOIR = 0x010

	// v3 redistributor frames (IHI 0069 §12.10): RD_base then SGI_base, 64 KiB each.
	gicrTYPER   = 0x0008
	gicrWAKER   = 0x0014
	gicrSGIBase = 0x10000
	gicrStride  = 0x20000

	irqPriority = 0xa0 // every interrupt the same: the kernel never nests them
)

// UseGICv2 records a GICv2's distributor and CPU interface (physical addresses, identity-mapped
// by InitInterrupts). The board calls it while probing, before InitInterrupts.
func UseGICv2(dist, cpu uintptr) { gic.v3, gic.dist, gic.cpu = false, dist, cpu }

// UseGICv3 records a GICv3's distributor and the first of its redistributors.
func UseGICv3(dist, redist uintptr) { gic.v3, gic.dist, gic.redist = true, dist, redist }

// InitInterrupts enables this core's side of the GIC: its CPU interface (v2: GICC; v3: wake its
// redistributor and enable the ICC system registers), and its private interrupts — the two IPIs
// and the timer. mapDevice identity-maps device registers (first call only: later cores find them
// mapped).
func InitInterrupts(mapDevice func(pa, size uintptr) bool) bool {
	c := Current()
	if local.base != 0 {
		return initLocal(c, mapDevice)
	}
	if gic.dist == 0 {
		return false
	}
	if c.id == 0 {
		if !mapDevice(gic.dist, 0x10000) {
			return false
		}
		if gic.v3 {
			if !mapDevice(gic.redist, MaxCPU*gicrStride) {
				return false
			}
		} else if !mapDevice(gic.cpu, 0x2000) {
			return false
		}
	}
	private := uint32(1<<sgiWake | 1<<sgiFlush | 1<<intidTimer)
	if !gic.v3 {
		// GICD_ISENABLER0 and the priority bytes of INTIDs 0-31 are banked per core.
		for _, id := range [...]int{sgiWake, sgiFlush, intidTimer} {
			mmio.Write8(gic.dist+gicdIPRIORITYR+uintptr(id), irqPriority)
		}
		mmio.Write32(gic.dist+gicdISENABLER, private)
		// GICD_ITARGETSR0..7 read back this core's own interface bit (§4.3.12).
		c.gicMask = uintptr(mmio.Read8(gic.dist + gicdITARGETSR))
		mmio.Write32(gic.cpu+giccPMR, 0xff)
		mmio.Write32(gic.cpu+giccCTLR, 1)
		c.gicc = gic.cpu
		return true
	}
	rd := redistributor(uint64(c.mpidr))
	if rd == 0 {
		return false
	}
	waker := mmio.Read32(rd + gicrWAKER)
	mmio.Write32(rd+gicrWAKER, waker&^(1<<1))                // ProcessorSleep = 0
	for i := 0; mmio.Read32(rd+gicrWAKER)&(1<<2) != 0; i++ { // ChildrenAsleep
		if i > 1_000_000 {
			return false
		}
	}
	sgi := rd + gicrSGIBase
	mmio.Write32(sgi+gicdIGROUPR, 0xffff_ffff) // group 1 (the IRQ group, non-secure)
	for _, id := range [...]int{sgiWake, sgiFlush, intidTimer} {
		mmio.Write8(sgi+gicdIPRIORITYR+uintptr(id), irqPriority)
	}
	mmio.Write32(sgi+gicdISENABLER, private)
	gicv3CPUInit()
	c.gicc = 0
	return true
}

// redistributor finds the redistributor frame whose GICR_TYPER affinity (bits 63:32) is mpidr's
// (IHI 0069 §12.10.37); the frames are contiguous and the last has GICR_TYPER.Last (bit 4).
func redistributor(mpidr uint64) uintptr {
	aff := (mpidr>>32&0xff)<<24 | mpidr&0xff_ffff
	for i := uintptr(0); i < MaxCPU; i++ {
		rd := gic.redist + i*gicrStride
		t := mmio.Read64(rd + gicrTYPER)
		if t>>32 == aff {
			return rd
		}
		if t&(1<<4) != 0 {
			break
		}
	}
	return 0
}

// InitGICDistributor brings up the distributor with every SPI disabled, routed to the boot core.
// The board calls it from its InitIRQ. Boot.
func InitGICDistributor() bool {
	if gic.dist == 0 {
		return false
	}
	d := gic.dist
	mmio.Write32(d+gicdCTLR, 0)
	n := int(mmio.Read32(d+gicdTYPER)&0x1f+1)*32 - 32 // ITLinesNumber (§4.3.2)
	if n > MaxIRQLines {
		n = MaxIRQLines
	}
	gic.lines = n
	for i := 0; i < n; i += 32 {
		mmio.Write32(d+gicdICENABLER+uintptr(4+i/8), 0xffff_ffff)
		mmio.Write32(d+gicdICPENDR+uintptr(4+i/8), 0xffff_ffff)
		if gic.v3 {
			mmio.Write32(d+gicdIGROUPR+uintptr(4+i/8), 0xffff_ffff)
		}
	}
	for i := 0; i < n; i++ {
		id := uintptr(intidSPI + i)
		mmio.Write8(d+gicdIPRIORITYR+id, irqPriority)
		if gic.v3 {
			mmio.Write64(d+gicdIROUTER+8*id, uint64(cpus[0].mpidr&0xff_ffff)|uint64(cpus[0].mpidr>>32&0xff)<<32)
		} else {
			mmio.Write8(d+gicdITARGETSR+id, uint8(cpus[0].gicMask|1))
		}
	}
	if gic.v3 {
		// ARE (bit 4, affinity routing), EnableGrp1 (bit 1); with one security state (DS = 1,
		// QEMU virt without secure=on) these are the only group enables (§12.9.4).
		mmio.Write32(d+gicdCTLR, 1<<4|1<<1)
		for i := 0; mmio.Read32(d+gicdCTLR)&gicdCtlrRWP != 0 && i < 1_000_000; i++ {
		}
	} else {
		mmio.Write32(d+gicdCTLR, 1)
	}
	return true
}

// GICLines is the number of SPIs (device lines) the distributor routes.
func GICLines() int { return gic.lines }

// GICEnableSPI unmasks (on) or masks SPI n at the distributor.
func GICEnableSPI(n int, on bool) {
	if n < 0 || n >= gic.lines {
		return
	}
	id := uintptr(intidSPI + n)
	reg := gicdICENABLER
	if on {
		reg = gicdISENABLER
	}
	mmio.Write32(gic.dist+uintptr(reg)+id/32*4, 1<<(id%32))
}

// GICEdgeSPI makes SPI n edge-triggered (GICD_ICFGR): for a line raised by a message, a pulse
// with no level behind it (GICv2m, ARM SBSA appendix "GICv2m"; Linux sets them edge-rising too).
// Only while the SPI is disabled (§4.3.13: changing an enabled interrupt's configuration is
// UNPREDICTABLE). Boot.
func GICEdgeSPI(n int) {
	if n < 0 || n >= gic.lines {
		return
	}
	id := uintptr(intidSPI + n)
	r := gic.dist + gicdICFGR + id/16*4
	mmio.Write32(r, mmio.Read32(r)|2<<(id%16*2))
}

// EOI ends the interrupt f acknowledged: its whole acknowledge value back to GICC_EOIR (v2), or
// to ICC_EOIR1_EL1 (v3). Priority drop and deactivation happen together (EOImode 0).
func EOI(f *Frame) {
	if f.Kind != kindIRQ || local.base != 0 { // the BCM2836's sources are cleared at the source
		return
	}
	if c := Current(); c.gicc != 0 {
		mmio.Write32(c.gicc+giccEOIR, uint32(f.IntID))
	} else {
		gicv3EOI(f.IntID)
	}
}

// SendIPI interrupts core cpu with an SGI of kind k.
func SendIPI(cpu int, k IPI) {
	id := uint64(sgiWake)
	if k == IPIFlush {
		id = sgiFlush
	}
	if local.base != 0 {
		localSendIPI(cpu, id)
		return
	}
	t := &cpus[cpu]
	if !gic.v3 {
		dsb()
		mmio.Write32(gic.dist+gicdSGIR, uint32(t.gicMask)<<16|uint32(id)) // TargetListFilter 0: the list
		return
	}
	m := uint64(t.mpidr)
	// ICC_SGI1R_EL1 (IHI 0069 §12.11.29): Aff3 63:48, Aff2 39:32, INTID 27:24, Aff1 23:16, and
	// the target list 15:0 (one bit per Aff0 value).
	gicv3SGI(m>>32&0xff<<48 | m>>16&0xff<<32 | id<<24 | m>>8&0xff<<16 | 1<<(m&0xf))
}

// SendIPIOthers interrupts every other core.
func SendIPIOthers(k IPI) {
	id := uint64(sgiWake)
	if k == IPIFlush {
		id = sgiFlush
	}
	if local.base != 0 { // no broadcast: one mailbox write per core
		self := Current().id
		for i := range apNext {
			if uintptr(i) != self {
				localSendIPI(i, id)
			}
		}
		return
	}
	if !gic.v3 {
		dsb()
		mmio.Write32(gic.dist+gicdSGIR, 1<<24|uint32(id)) // TargetListFilter 1: all but self
		return
	}
	gicv3SGI(1<<40 | id<<24) // IRM: all but self
}
