// The board's own devices in the kernel's page table.
// SPDX-License-Identifier: BSD-3-Clause

package virt

// pl011Size and pl031Size are the register windows of the PrimeCells (one 4 KiB page each:
// DDI 0183 Table 3-1 and DDI 0224 §3.2 end with the identification registers at 0xfe0-0xffc).
const (
	pl011Size = 0x1000
	pl031Size = 0x1000
)

// MapDevices identity-maps the devices the board uses on its own, before InitIRQ: the PL011
// (every ConsoleWrite) and the PL031 (WallClock). Until the kernel's page tables are loaded they
// are reached through the early identity map; after, only through these mappings — so the
// kernel must call MapDevices after mm.BuildKernelSpace and before it switches to the new
// table (a proposed addition to the Board contract: the PC, whose console is I/O ports, maps
// nothing). false if a window cannot be mapped: the console would fault at the next write.
// Boot.
func (b *Board) MapDevices(mapDevice func(pa, size uintptr) bool) bool {
	if b.con.UART.Base != 0 && !mapDevice(b.con.UART.Base, pl011Size) {
		return false
	}
	if b.rtc != 0 && !mapDevice(b.rtc, pl031Size) {
		b.rtc = 0 // no wall clock rather than a fault
	}
	return true
}
