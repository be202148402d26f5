// The Raspberry Pi 3's interrupt controllers: the BCM2836 ARM-local one and the BCM2835 behind it.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

import (
	"math/bits"

	"gmpos/drivers/mmio"
)

// The BCM2837 (Raspberry Pi 3) has no GIC. Each core's interrupt comes from the ARM-local
// controller the BCM2836 introduced ("BCM2836 ARM-local peripherals", QA7 rev 3.4, at physical
// 0x4000_0000): per core it routes the core's generic timers (§4.6), four mailboxes (§4.7, the
// IPIs) and the GPU's interrupt (§4.5: all of the BCM2835 controller's lines go to one core) to
// the core's IRQ, and names the source in the core's IRQ source register (§4.10). The GPU's
// lines are the BCM2835 ARM interrupt controller's ("BCM2835 ARM Peripherals" §7.5, registers at
// bus 0x7e00_b200, physical 0x3f00_b200): 64 GPU lines in two pending/enable/disable banks.
//
// Nothing here is acknowledged or ended the way a GIC's interrupts are: a source stays
// asserted until it is cleared where it comes from — the timer by disabling it (trap), a
// mailbox by writing its bits back, a device line at the device. So the entry only marks the
// frame (intidLocal, vectors_arm64.s) and localAcknowledge, in Go, names the source with the
// GIC's numbers (intidTimer, sgiWake/sgiFlush, intidSPI+n), so that Trap and the kernel above it
// see one numbering on every arm64 board. EOI does nothing for it.
//
// The kernel's IPIs use mailbox 0 of the target core, one bit per kind (1<<sgiWake,
// 1<<sgiFlush): the sender writes the bit to the core's set register, the target's
// acknowledge clears one bit at a time, and a second kind still set keeps the IRQ asserted, so
// it is taken next.
//
// local is set by the board at boot (UseBCM2836) and immutable afterwards, except enabled.
var local struct {
	base    uintptr   // the ARM-local registers, 0 when the machine has a GIC
	armctrl uintptr   // the BCM2835 controller's registers (base + 0x200 of its page)
	enabled [2]uint32 // GPU lines the board enabled (BKL): the pending banks are read through it
}

// ARM-local registers (QA7 §4.1 address map), per core n at the given stride.
const (
	localGPURouting = 0x0c // GPU IRQ routing: bits 1:0 name the core (§4.5)
	localTimerCtl   = 0x40 // + 4n: core n timers' interrupt control (§4.6)
	localMboxCtl    = 0x50 // + 4n: core n mailboxes' interrupt control (§4.7)
	localIRQSource  = 0x60 // + 4n: core n IRQ source (§4.10)
	localMboxSet    = 0x80 // + 16n + 4m: core n mailbox m, write 1s to set
	localMboxClr    = 0xc0 // + 16n + 4m: core n mailbox m, read; write 1s to clear

	localTimerCNTVIRQ = 1 << 3 // nCNTVIRQ to the core's IRQ
	localMbox0IRQ     = 1 << 0 // mailbox 0 to the core's IRQ

	srcCNTV  = 1 << 3 // IRQ source bits (§4.10)
	srcMbox0 = 1 << 4
	srcGPU   = 1 << 8

	// BCM2835 ARM interrupt controller (§7.5), offsets from its base.
	armPending1 = 0x04
	armPending2 = 0x08
	armEnable1  = 0x10
	armDisable1 = 0x1c

	// bcmLines is the GPU's interrupt lines: the board's lines 0-63.
	bcmLines = 64

	// intidLocal marks a frame whose source the entry left to localAcknowledge: a value no
	// GIC acknowledge returns (INTIDs 1020-1023 are special, 1024 and above do not exist).
	intidLocal = 0x1000
)

// UseBCM2836 records the ARM-local controller (physical base, 0x4000_0000 on the BCM2837) and
// the BCM2835 controller's registers (0x3f00_b200). The board calls it while probing, instead
// of UseGICv2/UseGICv3.
func UseBCM2836(base, armctrl uintptr) { local.base, local.armctrl = base, armctrl }

// initLocal is InitInterrupts for the ARM-local controller: the boot core maps both register
// pages and routes the GPU's interrupt to itself; every core enables its virtual timer's and
// its mailbox 0's interrupt and notes its IRQ source register, which tells the entry to take
// this path.
func initLocal(c *CPU, mapDevice func(pa, size uintptr) bool) bool {
	if c.id == 0 {
		if !mapDevice(local.base, 0x1000) || !mapDevice(local.armctrl&^0xfff, 0x1000) {
			return false
		}
		mmio.Write32(local.base+localGPURouting, 0) // core 0
	}
	n := c.mpidr & 0xff
	mmio.Write32(local.base+localTimerCtl+4*n, localTimerCNTVIRQ)
	mmio.Write32(local.base+localMboxClr+16*n, 0xffff_ffff)
	mmio.Write32(local.base+localMboxCtl+4*n, localMbox0IRQ)
	c.irqSrc = local.base + localIRQSource + 4*n
	return true
}

// localAcknowledge names the source of the interrupt the entry marked intidLocal, in the
// GIC's numbers (see local): the timer first, then IPIs, then device lines by number;
// intidSpur if nothing is asserted any more. A mailbox bit is cleared here, one at a time.
// Trap context.
func localAcknowledge(c *CPU) uint64 {
	src := mmio.Read32(c.irqSrc)
	switch {
	case src&srcCNTV != 0:
		return intidTimer
	case src&srcMbox0 != 0:
		clr := local.base + localMboxClr + 16*(c.mpidr&0xff)
		m := mmio.Read32(clr)
		if m == 0 {
			return intidSpur
		}
		bit := m & -m
		mmio.Write32(clr, bit)
		// The payload is read after the clear has taken effect: a second sender's bit set
		// between the read and the clear merges into this interrupt, and its data must be
		// visible too (a re-sent GIC SGI would be pending again instead).
		dsbSY()
		return uint64(bits.TrailingZeros32(bit))
	case src&srcGPU != 0:
		if p := mmio.Read32(local.armctrl+armPending1) & local.enabled[0]; p != 0 {
			return intidSPI + uint64(bits.TrailingZeros32(p))
		}
		if p := mmio.Read32(local.armctrl+armPending2) & local.enabled[1]; p != 0 {
			return intidSPI + 32 + uint64(bits.TrailingZeros32(p))
		}
	}
	return intidSpur
}

// BCMLines is the number of the BCM2835 controller's lines (the board's lines), 0 if the
// machine has none.
func BCMLines() int {
	if local.base == 0 {
		return 0
	}
	return bcmLines
}

// BCMEnableLine unmasks (on) or masks GPU line n at the BCM2835 controller. BKL held.
func BCMEnableLine(n int, on bool) {
	if local.base == 0 || n < 0 || n >= bcmLines {
		return
	}
	bank, bit := n/32, uint32(1)<<(n%32)
	if on {
		local.enabled[bank] |= bit
		mmio.Write32(local.armctrl+armEnable1+uintptr(4*bank), bit)
	} else {
		local.enabled[bank] &^= bit
		mmio.Write32(local.armctrl+armDisable1+uintptr(4*bank), bit)
	}
}

// localSendIPI sets IPI id's bit in core cpu's mailbox 0.
func localSendIPI(cpu int, id uint64) {
	dsb()
	mmio.Write32(local.base+localMboxSet+16*(cpus[cpu].mpidr&0xff), 1<<id)
}
