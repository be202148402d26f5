// The VideoCore mailbox's property interface: how much RAM the ARM cores have.
// SPDX-License-Identifier: BSD-3-Clause

package rpi

// On a Pi the GPU's firmware owns the memory split: the ARM cores get [base, base+size) of
// the first GiB and the VideoCore the rest. The firmware says so in the device tree it passes
// — when it passes one — and always through the mailbox's property channel (Raspberry Pi
// firmware wiki, "Mailbox property interface": channel 8, tag 0x0001_0005 "Get ARM memory").
// QEMU's raspi machines implement the same tag (hw/misc/bcm2835_property.c), and pass no
// device tree unless asked, so the board asks the mailbox.
//
// A property message is a 16-byte-aligned buffer of u32 words: total size, request code (0),
// then tags — id, value buffer size, request/response code, value words — and an end tag 0.
// The firmware writes its answer into the same buffer: code 0x8000_0000 for success, each tag's
// response code with bit 31 set and the response's length in bits 30:0.

const (
	propRequest     = 0
	propSuccess     = 0x8000_0000
	tagGetARMMemory = 0x0001_0005
	tagResponse     = 1 << 31

	// armMemWords is the message's length in words: size, code, tag id, value size, tag code,
	// base, size, end tag.
	armMemWords = 8
)

// armMemoryRequest fills m with the "Get ARM memory" request.
func armMemoryRequest(m *[armMemWords]uint32) {
	*m = [armMemWords]uint32{armMemWords * 4, propRequest, tagGetARMMemory, 8, 0, 0, 0, 0}
}

// armMemoryReply decodes the firmware's answer in m: the ARM cores' memory, or why it is not
// usable. The answer is outside data — a confused firmware, or an emulator's, must give a reason,
// not a wild memory map.
func armMemoryReply(m *[armMemWords]uint32) (base, size uint64, why string) {
	switch {
	case m[1] != propSuccess:
		return 0, 0, "mailbox: the firmware did not answer the ARM-memory request"
	case m[2] != tagGetARMMemory || m[4]&tagResponse == 0 || m[4]&^tagResponse < 8:
		return 0, 0, "mailbox: malformed answer to the ARM-memory request"
	case m[6] < 16<<20:
		return 0, 0, "mailbox: the firmware gives the ARM cores less than 16 MiB"
	case uint64(m[5])+uint64(m[6]) > 1<<32:
		return 0, 0, "mailbox: ARM memory past 4 GiB"
	}
	return uint64(m[5]), uint64(m[6]), ""
}
