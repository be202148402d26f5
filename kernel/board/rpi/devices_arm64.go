// The board's own devices, device interrupts, and the way out.
// SPDX-License-Identifier: BSD-3-Clause

package rpi

import (
	"gmpos/drivers/mmio"
	"gmpos/kernel/arch/arm64"
	"gmpos/kernel/board/internal/counter"
)

// MapDevices identity-maps the UARTs the console writes (console.go) before the kernel switches
// to its own page table. Boot.
func (b *Board) MapDevices(mapDevice func(pa, size uintptr) bool) bool {
	for _, base := range [...]uintptr{b.con.rec.UART.Base, b.con.pl011.Base, b.con.mini.Base} {
		if base != 0 && !mapDevice(base&^0xfff, 0x1000) {
			return false
		}
	}
	return true
}

// BCM2835 ARM interrupt controller: the disable registers of the two GPU banks and the basic
// bank (§7.5), offsets from its base.
const (
	armDisable1     = 0x1c
	armDisable2     = 0x20
	armDisableBasic = 0x24
)

// InitIRQ brings up the device interrupt controller with every line masked: on the Pi 3 the
// BCM2835 controller (its GPU lines are the board's lines; the ARM-local controller is the CPU
// package's), on the Pi 4 the GIC-400's distributor (arm64.InitGICDistributor). Boot.
func (b *Board) InitIRQ(mapDevice func(pa, size uintptr) bool) bool {
	s := b.soc()
	if s.local != 0 {
		if !mapDevice(s.armctrl&^0xfff, 0x1000) {
			return false
		}
		mmio.Write32(s.armctrl+armDisable1, 0xffff_ffff)
		mmio.Write32(s.armctrl+armDisable2, 0xffff_ffff)
		mmio.Write32(s.armctrl+armDisableBasic, 0xff)
		return true
	}
	if !mapDevice(s.gicDist, 0x1000) || !mapDevice(s.gicCPU, 0x2000) {
		return false
	}
	return arm64.InitGICDistributor()
}

// IRQLines is the number of device lines: the BCM2835's 64 GPU lines, or the GIC's SPIs.
func (b *Board) IRQLines() int {
	if b.soc().local != 0 {
		return arm64.BCMLines()
	}
	return arm64.GICLines()
}

// EnableIRQ unmasks line (routed to the boot core: the BCM2836 sends all GPU lines to core 0,
// the GIC's SPIs are routed there by InitGICDistributor). BKL held.
func (b *Board) EnableIRQ(line int) bool {
	if line < 0 || line >= b.IRQLines() {
		return false
	}
	if b.soc().local != 0 {
		arm64.BCMEnableLine(line, true)
	} else {
		arm64.GICEnableSPI(line, true)
	}
	return true
}

// DisableIRQ masks line. BKL held.
func (b *Board) DisableIRQ(line int) {
	if line < 0 || line >= b.IRQLines() {
		return
	}
	if b.soc().local != 0 {
		arm64.BCMEnableLine(line, false)
	} else {
		arm64.GICEnableSPI(line, false)
	}
}

// Exit stops the machine with status v: under QEMU (the locator's locSemihosting) through
// semihosting's SYS_EXIT, as on virt; on a board, where that call is an undefined instruction,
// it says so on the console and halts this core for good (the others idle: nothing is left to
// run). Never returns. Any context.
func (b *Board) Exit(v uint8) {
	if b.loc.flags&locSemihosting != 0 {
		b.con.drain()
		arm64.SemihostExit(int(v))
	}
	if b.con.plain {
		var d [3]byte
		n := len(d)
		for x := v; n == len(d) || x > 0; x /= 10 {
			n--
			d[n] = '0' + x%10
		}
		b.ConsoleWrite(consoleControl, []byte("halted, exit status "))
		b.ConsoleWrite(1, d[n:])
		b.ConsoleWrite(1, []byte("\n"))
	}
	b.con.drain()
	for {
		arm64.Halt()
	}
}

// MeasureHz measures read against the generic counter (19.2 MHz on the Pi 3, 54 MHz on the
// Pi 4, as the firmware sets CNTFRQ_EL0). Boot.
func (b *Board) MeasureHz(read func() uint64, ns int64, goodPPM uint64) (hz, ppm uint64) {
	return counter.MeasureGeneric(read, ns, goodPPM)
}
