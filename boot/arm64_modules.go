// The arm64 Image with its boot modules appended, for loaders that take no initrd.
// SPDX-License-Identifier: BSD-3-Clause

package boot

import (
	"encoding/binary"
	"fmt"
)

// QEMU's virt machine loads the module container as the initrd and names it in the device
// tree. A Raspberry Pi's QEMU machine gets no device tree from the runner, and a real Pi's
// firmware passes an initramfs only through a device tree it may not have; so on the Pi the
// container travels inside kernel8.img: appended at the first 4 KiB boundary after the kernel's
// .bss, with image_size grown to cover it (a loader copies the whole file and keeps image_size
// free of its own data), and found through a locator in the header page, right after the
// 64-byte Linux header (docs/contract.md, "Raspberry Pi"):
//
//	offset  size  field
//	64      8     "GMPOSLOC"
//	72      4     flags, u32 LE (Arm64Loc*)
//	76      4     0 (reserved)
//	80      8     the container's offset from the Image's first byte, u64 LE, 4 KiB-aligned
//	88      8     its size, u64 LE
//
// The Linux header's own fields are unchanged; the locator lies in bytes that Linux's header
// page leaves free and no loader reads.
const (
	Arm64LocatorOffset = Arm64HeaderSize
	Arm64LocatorSize   = 32
	Arm64LocatorMagic  = "GMPOSLOC"

	// Arm64LocRecords: the console speaks the runner's records (docs/contract.md, "arm64"),
	// not plain text for a person at a serial terminal.
	Arm64LocRecords = 1 << 0
	// Arm64LocSemihosting: the machine answers semihosting calls (QEMU with -semihosting),
	// so the kernel exits through SYS_EXIT; on a board it halts after its last words.
	Arm64LocSemihosting = 1 << 1
)

// Arm64Locator says where the appended container is and how the kernel should talk.
type Arm64Locator struct {
	Flags     uint32
	ModOffset uint64
	ModSize   uint64
}

// Encode returns the Arm64LocatorSize bytes of l.
func (l Arm64Locator) Encode() []byte {
	b := append([]byte(Arm64LocatorMagic), make([]byte, Arm64LocatorSize-len(Arm64LocatorMagic))...)
	binary.LittleEndian.PutUint32(b[8:], l.Flags)
	binary.LittleEndian.PutUint64(b[16:], l.ModOffset)
	binary.LittleEndian.PutUint64(b[24:], l.ModSize)
	return b
}

// AppendModules appends container to the Image at the next 4 KiB boundary, writes the locator
// with flags, and grows image_size (rounded up to 4 KiB, as booting.rst wants) to cover it.
func (img *Arm64Image) AppendModules(container []byte, flags uint32) error {
	if len(container) == 0 {
		return fmt.Errorf("an empty module container")
	}
	off := (uint64(len(img.Data)) + arm64PageSize - 1) &^ (arm64PageSize - 1)
	end := off + uint64(len(container))
	size := (end + arm64PageSize - 1) &^ (arm64PageSize - 1)
	if size >= arm64BRange {
		return fmt.Errorf("the image with its modules is %#x bytes, more than 128 MiB", size)
	}
	data := make([]byte, end, size)
	copy(data, img.Data)
	copy(data[off:], container)
	img.Header.ImageSize = size
	copy(data, img.Header.Encode())
	copy(data[Arm64LocatorOffset:], Arm64Locator{Flags: flags, ModOffset: off, ModSize: uint64(len(container))}.Encode())
	if err := img.Header.Validate(int64(len(data))); err != nil {
		return fmt.Errorf("internal error: %v", err)
	}
	img.Data = data
	return nil
}
