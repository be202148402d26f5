// The image's locator: where the appended module container is, and how to talk.
// SPDX-License-Identifier: BSD-3-Clause

package rpi

// The runner (and gmpos image) append the module container to kernel8.img and describe it in a
// locator right after the 64-byte Linux header (gmpos/boot, arm64_modules.go; docs/contract.md,
// "Raspberry Pi"):
//
//	offset  size  field
//	64      8     "GMPOSLOC"
//	72      4     flags (locRecords, locSemihosting)
//	76      4     0
//	80      8     the container's offset from the Image's first byte, 4 KiB-aligned
//	88      8     its size
//
// The locator is the loader's data: checked before use, a bad one stops the boot with a reason.

const (
	locOffset = 64
	locSize   = 32
	locMagic  = "GMPOSLOC"

	locRecords     = 1 << 0 // the console speaks the runner's records (else plain text)
	locSemihosting = 1 << 1 // exit through semihosting's SYS_EXIT (QEMU), else halt
	locKnown       = locRecords | locSemihosting

	// maxImage bounds the Image with its modules: the header branch's reach, as gmpos/boot.
	maxImage = 128 << 20
)

// locator is the decoded locator.
type locator struct {
	flags     uint32
	off, size uint64
}

// decodeLocator checks the locator bytes b (locSize of them) of an Image whose header says
// it is imageSize bytes; why is the reason it is unusable.
func decodeLocator(b []byte, imageSize uint64) (l locator, why string) {
	if len(b) < locSize || string(b[:8]) != locMagic {
		return l, "no module locator in the image's header page (was kernel8.img made by gmpos?)"
	}
	l = locator{flags: le32(b[8:]), off: le64(b[16:]), size: le64(b[24:])}
	switch {
	case l.flags&^locKnown != 0 || le32(b[12:]) != 0:
		return l, "module locator: unknown flags (a newer gmpos made the image?)"
	case l.off%4096 != 0 || l.off < 4096:
		return l, "module locator: the container is not page-aligned after the header page"
	case l.size == 0 || l.off > maxImage || l.size > maxImage-l.off:
		return l, "module locator: the container's size is 0 or past 128 MiB"
	case imageSize != 0 && l.off+l.size > imageSize:
		return l, "module locator: the container runs past the header's image_size"
	}
	return l, ""
}

// le32 and le64 read little-endian fields.
func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }
