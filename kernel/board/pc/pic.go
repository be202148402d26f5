// The legacy 8259 programmable interrupt controllers, masked for good.
// SPDX-License-Identifier: BSD-3-Clause

package pc

import "gmpos/kernel/arch/amd64"

// 8259A ports: master and slave data ports take the interrupt mask (OCW1, 8259A datasheet).
const (
	picMasterData = 0x21
	picSlaveData  = 0xa1
)

// maskPIC masks every line of both PICs: gmpos routes device interrupts through the I/O APIC
// (ioapic.go). A PIC left unmasked would deliver its IRQ 0 on vector 8 — #DF — as the BIOS
// programmed it.
func maskPIC() {
	amd64.Outb(picMasterData, 0xff)
	amd64.Outb(picSlaveData, 0xff)
}
