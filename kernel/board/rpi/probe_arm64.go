// Boot: the console at entry, then the memory, the modules and the wiring.
// SPDX-License-Identifier: BSD-3-Clause

package rpi

import (
	"gmpos/drivers/miniuart"
	"gmpos/drivers/pl011"
	"gmpos/kernel/arch/arm64"
)

// earlyRAMEnd is where the early identity map's RAM ends (kernel/arch/arm64, early_rpi.go:
// Normal memory below 0x3f00_0000): everything Probe reads must lie below it.
const earlyRAMEnd = 0x3f00_0000

// readLocator decodes the locator in the Image's header page, which the loader left at
// loadAddr (the kernel keeps the whole image out of the allocator).
func (b *Board) readLocator() (locator, string) {
	return decodeLocator(physBytes(loadAddr+locOffset, locSize), le64(physBytes(loadAddr+16, 8)))
}

// EarlyInit finds the SoC by the core's part number and the image's locator, and brings up the
// console the locator asks for (console.go): the runner's start marker and "entry" record, or a
// plain greeting. Boot, first.
func (b *Board) EarlyInit() {
	b.socID = socFor(arm64.MIDR() >> 4 & 0xfff)
	s := b.soc()
	loc, why := b.readLocator()
	if why == "" && loc.flags&locRecords != 0 {
		b.con.rec.UART.Base = s.periph + offPL011
		b.con.rec.IRQ = -1
		b.con.rec.UART.Init(0, 0) // QEMU's PL011 does not pace bytes: the divisors do not matter
		b.con.rec.Start()
		return
	}
	b.con.plain = true
	if u := (pl011.UART{Base: s.periph + offPL011}); u.Enabled() {
		b.con.pl011 = u
	}
	if u := (miniuart.UART{Base: s.periph + offAux}); u.Enabled() {
		b.con.mini = u
	}
	if b.con.pl011.Base == 0 && b.con.mini.Base == 0 {
		// Neither is on: a firmware that left the UARTs off, or QEMU (whose PL011 starts
		// disabled). The PL011 is switched on with the divisors it has (QEMU ignores them).
		b.con.pl011 = pl011.UART{Base: s.periph + offPL011}
		b.con.pl011.Init(0, 0)
	}
	b.con.putString("\ngmpos on a ")
	b.con.putString(s.name)
	b.con.putString("\n")
	b.ConsoleWrite(consoleControl, []byte("entry\n"))
}

// Probe checks what EarlyInit found, asks the firmware for the ARM cores' memory, reads the
// module container the locator points at and tells the CPU package how interrupts reach the
// cores and how to start the others. ok false, with the reason, on a core that is not a Pi's,
// an image without a good locator or container, or no memory. Boot, on the early identity map.
func (b *Board) Probe() (ok bool, why string) {
	if b.socID < 0 {
		return false, "not a Raspberry Pi 3 or 4: the core is neither a Cortex-A53 nor a Cortex-A72"
	}
	loc, why := b.readLocator()
	if why != "" {
		return false, why
	}
	b.loc = loc
	base, size, why := b.armMemory()
	if why != "" {
		return false, why
	}
	b.setRAM(base, size)
	pa := uint64(loadAddr) + b.loc.off
	if pa+b.loc.size > earlyRAMEnd || !b.inRAM(pa, b.loc.size) {
		return false, "module container: not in the ARM cores' RAM"
	}
	if why := b.setModules(uintptr(pa), physBytes(uintptr(pa), uintptr(b.loc.size))); why != "" {
		return false, why
	}
	s := b.soc()
	if s.local != 0 {
		arm64.UseBCM2836(s.local, s.armctrl)
	} else {
		arm64.UseGICv2(s.gicDist, s.gicCPU)
	}
	arm64.UseSpinTable(spinTable, cores)
	if !b.con.plain {
		b.con.rec.IRQ = s.pl011Line
	}
	return true, ""
}
