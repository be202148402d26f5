// Multiboot v1 header: encoding, decoding and the loader's sanity checks.
// SPDX-License-Identifier: BSD-3-Clause

package boot

import (
	"encoding/binary"
	"fmt"
)

// Multiboot v1 header constants (Multiboot Specification 0.6.96, §3.1.1).
const (
	// Magic is the value of the header's first field.
	Magic = 0x1BADB002
	// FlagMemInfo (bit 1) asks the loader for mem_lower/mem_upper and the
	// memory map in the Multiboot information structure (§3.1.2).
	FlagMemInfo = 1 << 1
	// FlagAddrKludge (bit 16) says the address fields are valid and must be
	// used instead of the executable format's headers (§3.1.2, §3.1.3).
	FlagAddrKludge = 1 << 16
	// Flags is what this package writes.
	Flags = FlagMemInfo | FlagAddrKludge

	// HeaderSize is the number of bytes Encode writes: magic, flags,
	// checksum and the five address fields.
	HeaderSize = 32
	// HeaderSpace is the size of the gap reserved for the header: the
	// full header including the graphics fields of §3.1.4 is 48 bytes, and
	// QEMU reads that far when it scans for the magic.
	HeaderSpace = 48
	// SearchLimit is how far into the file loaders look for the header
	// (§3.1.1: "within the first 8192 bytes").
	SearchLimit = 8192
	// MinLoadAddr is the lowest accepted load address: 1 MiB. Below it lie
	// the real-mode IVT/BDA, option ROMs and the BIOS, and QEMU puts its
	// Multiboot boot data there.
	MinLoadAddr = 0x100000
)

// Header is a Multiboot v1 header with the address fields (flag bit 16).
type Header struct {
	Flags       uint32
	HeaderAddr  uint32 // physical address of the header's magic field
	LoadAddr    uint32 // physical address of the start of the text segment
	LoadEndAddr uint32 // end of the data to copy from the file (0: to EOF)
	BSSEndAddr  uint32 // end of the zero-filled area (0: no bss)
	EntryAddr   uint32 // physical address to jump to, in 32-bit protected mode
}

// Checksum returns the value that makes magic+flags+checksum == 0 (mod 2^32).
func Checksum(flags uint32) uint32 { return -(Magic + flags) }

// Encode returns the HeaderSize bytes of h, little-endian.
func (h Header) Encode() []byte {
	b := make([]byte, HeaderSize)
	le := binary.LittleEndian
	le.PutUint32(b[0:], Magic)
	le.PutUint32(b[4:], h.Flags)
	le.PutUint32(b[8:], Checksum(h.Flags))
	le.PutUint32(b[12:], h.HeaderAddr)
	le.PutUint32(b[16:], h.LoadAddr)
	le.PutUint32(b[20:], h.LoadEndAddr)
	le.PutUint32(b[24:], h.BSSEndAddr)
	le.PutUint32(b[28:], h.EntryAddr)
	return b
}

// decodeAt reads a header at file offset off. ok is false when there is no
// magic with a valid checksum there.
func decodeAt(file []byte, off int) (h Header, ok bool) {
	if off < 0 || off+HeaderSize > len(file) {
		return Header{}, false
	}
	le := binary.LittleEndian
	b := file[off:]
	if le.Uint32(b[0:]) != Magic {
		return Header{}, false
	}
	h.Flags = le.Uint32(b[4:])
	if le.Uint32(b[8:]) != Checksum(h.Flags) {
		return Header{}, false
	}
	h.HeaderAddr = le.Uint32(b[12:])
	h.LoadAddr = le.Uint32(b[16:])
	h.LoadEndAddr = le.Uint32(b[20:])
	h.BSSEndAddr = le.Uint32(b[24:])
	h.EntryAddr = le.Uint32(b[28:])
	return h, true
}

// Find returns the first Multiboot header in file the way a loader finds
// it: the first 4-byte-aligned magic with a valid checksum in the first
// SearchLimit bytes. off is -1 when there is none.
func Find(file []byte) (h Header, off int) {
	for i := 0; i+HeaderSize <= len(file) && i+HeaderSize <= SearchLimit; i += 4 {
		if h, ok := decodeAt(file, i); ok {
			return h, i
		}
	}
	return Header{}, -1
}

// Validate applies the checks QEMU's load_multiboot makes before it
// copies an a.out-kludge image, for a header found at file offset off in a
// file of fileSize bytes, so that a bad image fails here with a clear
// message rather than inside QEMU.
func (h Header) Validate(off int, fileSize int64) error {
	if h.Flags&FlagAddrKludge == 0 {
		return fmt.Errorf("multiboot header: flag bit 16 (address fields) not set; QEMU refuses ELF64 without it")
	}
	if h.HeaderAddr < h.LoadAddr {
		return fmt.Errorf("multiboot header: header_addr %#x below load_addr %#x", h.HeaderAddr, h.LoadAddr)
	}
	textOff := int64(off) - int64(h.HeaderAddr-h.LoadAddr)
	if textOff < 0 {
		return fmt.Errorf("multiboot header: header_addr-load_addr = %#x exceeds the header's file offset %#x", h.HeaderAddr-h.LoadAddr, off)
	}
	loadSize := int64(h.LoadEndAddr) - int64(h.LoadAddr)
	if h.LoadEndAddr == 0 {
		loadSize = fileSize - textOff
	}
	if loadSize < 0 {
		return fmt.Errorf("multiboot header: load_end_addr %#x below load_addr %#x", h.LoadEndAddr, h.LoadAddr)
	}
	if textOff+loadSize > fileSize {
		return fmt.Errorf("multiboot header: loading %#x bytes from file offset %#x runs past the end of the %#x-byte file", loadSize, textOff, fileSize)
	}
	if int64(h.LoadAddr)+loadSize > 1<<32 {
		return fmt.Errorf("multiboot header: image does not fit below 4 GiB")
	}
	if h.BSSEndAddr != 0 && int64(h.BSSEndAddr) < int64(h.LoadAddr)+loadSize {
		return fmt.Errorf("multiboot header: bss_end_addr %#x below the end of the loaded data %#x", h.BSSEndAddr, int64(h.LoadAddr)+loadSize)
	}
	end := int64(h.LoadAddr) + loadSize
	if h.BSSEndAddr != 0 {
		end = int64(h.BSSEndAddr)
	}
	if h.EntryAddr < h.LoadAddr || int64(h.EntryAddr) >= end {
		return fmt.Errorf("multiboot header: entry_addr %#x outside the image [%#x, %#x)", h.EntryAddr, h.LoadAddr, end)
	}
	return nil
}

// String formats h the way `mkimage -v` prints it.
func (h Header) String() string {
	return fmt.Sprintf("flags=%#x header_addr=%#x load_addr=%#x load_end_addr=%#x bss_end_addr=%#x entry_addr=%#x",
		h.Flags, h.HeaderAddr, h.LoadAddr, h.LoadEndAddr, h.BSSEndAddr, h.EntryAddr)
}
