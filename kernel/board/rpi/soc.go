// The two SoCs: where their devices are.
// SPDX-License-Identifier: BSD-3-Clause

package rpi

// socInfo is what differs between the BCM2837 (Pi 3) and the BCM2711 (Pi 4) for gmpos. The
// board tells them apart by the core (MIDR_EL1's part number, ARM ARM D17.2.100): Cortex-A53 on
// the Pi 3, Cortex-A72 on the Pi 4 — no device tree needed, which QEMU's raspi machines do not
// pass unless asked.
type socInfo struct {
	name   string
	periph uintptr // the main peripherals' base: bus 0x7e00_0000 seen by the ARM cores
	// Interrupts: the Pi 3 has the BCM2836 ARM-local controller and the BCM2835 one behind it;
	// the Pi 4 a GIC-400 (GICv2) — the firmware's default with enable_gic=1.
	local, armctrl  uintptr // Pi 3
	gicDist, gicCPU uintptr // Pi 4
	// The board's line of each UART's interrupt: a BCM2835 GPU line (Pi 3) or a GIC SPI
	// (Pi 4, whose VideoCore lines start at SPI 64).
	pl011Line, auxLine int
}

// Offsets from periph ("BCM2835 ARM Peripherals" §1.2.3 and the chapters below; the BCM2711
// keeps them: "BCM2711 ARM Peripherals" §1.2.4).
const (
	offPL011   = 0x20_1000 // UART0 (§13)
	offAux     = 0x21_5000 // the auxiliary block: mini UART (§2)
	offMailbox = 0x00_b880 // the VideoCore mailboxes (mailbox.go)
	offARMCtrl = 0x00_b200 // the BCM2835 ARM interrupt controller (§7.5)
)

// MIDR part numbers (MIDR_EL1 bits 15:4; the Cortex-A53 and A72 TRMs, "Main ID Register").
const (
	partA53 = 0xd03
	partA72 = 0xd08
)

// socs are the SoCs gmpos knows, indexed by Board.socID.
var socs = [...]socInfo{
	{
		name: "BCM2837 (Raspberry Pi 3)", periph: 0x3f00_0000,
		local: 0x4000_0000, armctrl: 0x3f00_0000 + offARMCtrl,
		pl011Line: 57, auxLine: 29, // GPU IRQs (§7.5 table "ARM peripherals interrupts")
	},
	{
		name: "BCM2711 (Raspberry Pi 4)", periph: 0xfe00_0000,
		gicDist: 0xff84_1000, gicCPU: 0xff84_2000, // the GIC-400 ("BCM2711 ARM Peripherals" §6.1)
		pl011Line: 64 + 57, auxLine: 64 + 29, // SPI 121 and 93 (Linux bcm2711.dtsi)
	},
}

const (
	socBCM2837 = 0
	socBCM2711 = 1
)

// socFor returns the index in socs of the SoC whose cores have MIDR part number part; -1 for
// another core.
func socFor(part uint64) int {
	switch part {
	case partA53:
		return socBCM2837
	case partA72:
		return socBCM2711
	}
	return -1
}
