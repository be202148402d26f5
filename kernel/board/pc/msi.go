// Message-signalled interrupts: device interrupt lines that are memory writes to a local APIC.
// SPDX-License-Identifier: BSD-3-Clause

package pc

import "gmpos/kernel/arch/amd64"

// A PCI function with MSI or MSI-X raises an interrupt by writing a message — data to an
// address — that the platform delivers to a local APIC without any I/O APIC (Intel SDM Vol. 3A
// §11.11): the address 0xfee00000 | destination APIC ID<<12 (§11.11.1, Figure 11-24; redirection
// hint 0 and destination mode 0: physical, to that one core) and the data the vector, with
// fixed delivery and edge trigger (§11.11.2, Figure 11-25: delivery mode bits 10:8 = 000,
// trigger mode bit 15 = 0). The end of interrupt goes to the local APIC as for any interrupt.
//
// The kernel numbers interrupt lines; line n arrives on vector amd64.IRQVector(n). The I/O
// APIC's lines come first; the lines above them, up to amd64.MaxIRQLines, are MSI lines, each
// one vector that one device's message targets. They cannot be masked here (the I/O APIC knows
// nothing of them): drivers mask at the device (MSI-X vector control), so EnableIRQ and
// DisableIRQ accept them and do nothing. Every MSI line targets the boot core, as EnableIRQ's
// wired lines do.
const (
	msiAddressBase = 0xfee00000 // §11.11.1: bits 31:20 are 0xfee
	msiDestShift   = 12         // destination ID, bits 19:12 (an 8-bit xAPIC ID)
)

// MSILines returns the MSI lines: [first, first+n). They start above the I/O APIC's lines, and
// never below the 16 ISA IRQs, so that a legacy line number is never taken for a message one.
func (b *Board) MSILines() (first, n int) {
	first = max(b.ioapics.lines, isaIRQs)
	return first, max(amd64.MaxIRQLines-first, 0)
}

// msiLine reports whether line is an MSI line.
func (b *Board) msiLine(line int) bool {
	first, n := b.MSILines()
	return line >= first && line < first+n
}

// MSIMessage returns the message a device must write to raise MSI line: address and data for
// an MSI-X table entry (or the MSI capability). false: not an MSI line, or the boot core's APIC
// ID does not fit the message's 8 bits (x2APIC IDs need interrupt remapping, which the kernel
// does not set up). The local APIC does not care who writes: requester is not used. Boot
// (after the local APIC is up) or BKL.
func (b *Board) MSIMessage(line int, requester uint16) (addr uint64, data uint32, ok bool) {
	if !b.msiLine(line) {
		return 0, 0, false
	}
	id := amd64.APICID(0)
	if id > 0xff {
		return 0, 0, false
	}
	return msiAddressBase | uint64(id)<<msiDestShift, uint32(amd64.IRQVector(line)), true
}
