// The mailbox's registers: one property request, polled.
// SPDX-License-Identifier: BSD-3-Clause

package rpi

import (
	"unsafe"

	"gmpos/drivers/mmio"
	"gmpos/kernel/arch/arm64"
)

// Mailbox 0 is the VideoCore's to the ARM, mailbox 1 the ARM's to the VideoCore (Linux
// drivers/mailbox/bcm2835-mailbox.c): the ARM writes a message's bus address with the channel
// in the low 4 bits to mailbox 1 when it is not full, and reads the answer from mailbox 0 when it
// is not empty.
const (
	mboxRead    = 0x00
	mboxStatus0 = 0x18
	mboxWrite   = 0x20
	mboxStatus1 = 0x38
	mboxFull    = 1 << 31
	mboxEmpty   = 1 << 30
	chanProp    = 8
	// busAlias is the bus address of RAM seen by the VideoCore, uncached: the firmware reads the
	// buffer there (Linux: the SoC's dma-ranges, 0xc000_0000 on both the BCM2837 and BCM2711).
	busAlias = 0xc000_0000
	// mboxSpins bounds each wait: a firmware that never answers stops the boot with a reason.
	mboxSpins = 1 << 24
)

// mboxBuf holds one message in a 64-byte cache line of its own inside it (the mailbox wants 16
// bytes of alignment: the low 4 bits carry the channel): the clean and invalidate around the
// firmware's access then touch no other variable's line.
var mboxBuf [32]uint32

// armMemory asks the firmware for the ARM cores' memory. Boot, on the early identity map (the
// image's physical and virtual addresses are equal).
func (b *Board) armMemory() (base, size uint64, why string) {
	m := (*[armMemWords]uint32)(ptr((uintptr(unsafe.Pointer(&mboxBuf)) + 63) &^ 63))
	armMemoryRequest(m)
	pa := uintptr(unsafe.Pointer(m))
	arm64.CleanInvalidate(pa, armMemWords*4)
	mb := b.soc().periph + offMailbox
	i := 0
	for ; i < mboxSpins && mmio.Read32(mb+mboxStatus1)&mboxFull != 0; i++ {
	}
	mmio.Write32(mb+mboxWrite, uint32(busAlias|pa|chanProp))
	for {
		for ; i < mboxSpins && mmio.Read32(mb+mboxStatus0)&mboxEmpty != 0; i++ {
		}
		if i >= mboxSpins {
			return 0, 0, "mailbox: no answer from the firmware"
		}
		if v := mmio.Read32(mb + mboxRead); v&0xf == chanProp {
			break // another channel's message is not ours: read on
		}
	}
	arm64.CleanInvalidate(pa, armMemWords*4)
	return armMemoryReply(m)
}
