// ELF header and program header decoding for execve.
// SPDX-License-Identifier: BSD-3-Clause

package elf

// Constants of the ELF-64 format (include/uapi/linux/elf.h).
const (
	ehdrSize = 64 // sizeof(Elf64_Ehdr)
	phdrSize = 56 // sizeof(Elf64_Phdr)

	etExec = 2 // e_type: an executable at fixed addresses
	etDyn  = 3 // e_type: position-independent (refused: nothing here relocates)

	ptLoad   = 1
	ptInterp = 3

	// Segment flags.
	PF_X = 1
	PF_W = 2
	PF_R = 4

	pageSize = 4096

	// MaxSegments bounds the loadable segments of an image (a Go executable has four).
	MaxSegments = 8
	// maxPhnum bounds the program headers read (Linux: 64 KiB of them; a Go executable has
	// about a dozen).
	maxPhnum = 64
)

// Machines (e_machine).
const (
	MachineX86_64  = 62
	MachineAArch64 = 183
)

// Segment is one PT_LOAD program header: [Vaddr, Vaddr+Memsz) in memory, of which the first
// Filesz bytes come from the file at Off; the rest are zero.
type Segment struct {
	Vaddr, Memsz uint64
	Off, Filesz  uint64
	Flags        uint32 // PF_R, PF_W, PF_X
}

// Image is what the loader maps: the segments in address order, and where to start.
type Image struct {
	Entry uint64
	N     int
	Seg   [MaxSegments]Segment
}

// Parse decodes the headers at the start of an executable of fileSize bytes; hdr holds its
// first bytes (at least the ELF header and the program headers, or Parse says so). Every
// segment must lie in [lo, hi) and be page-congruent with its file offset; machine is the
// e_machine this kernel runs. why is "" or the reason the file cannot be loaded (ENOEXEC).
func Parse(hdr []byte, fileSize int64, lo, hi uint64, machine uint16) (img Image, why string) {
	if len(hdr) < ehdrSize || fileSize < ehdrSize {
		return img, "shorter than an ELF header"
	}
	if hdr[0] != 0x7f || hdr[1] != 'E' || hdr[2] != 'L' || hdr[3] != 'F' {
		return img, "not an ELF file"
	}
	if hdr[4] != 2 || hdr[5] != 1 || hdr[6] != 1 {
		return img, "not a 64-bit little-endian ELF file of version 1"
	}
	switch u16(hdr[16:]) {
	case etExec:
	case etDyn:
		return img, "a position-independent executable (ET_DYN): only fixed-address executables load"
	default:
		return img, "not an executable (e_type)"
	}
	if u16(hdr[18:]) != machine {
		return img, "built for another machine (e_machine)"
	}
	img.Entry = u64(hdr[24:])
	phoff, phentsize, phnum := u64(hdr[32:]), u16(hdr[54:]), u16(hdr[56:])
	if phentsize != phdrSize || phnum == 0 || phnum > maxPhnum {
		return img, "bad program header table size"
	}
	end := phoff + uint64(phnum)*phdrSize
	if phoff < ehdrSize || end < phoff || end > uint64(fileSize) {
		return img, "program headers outside the file"
	}
	if end > uint64(len(hdr)) {
		return img, "program headers beyond the first page"
	}
	entryOK := false
	for i := uint64(0); i < uint64(phnum); i++ {
		p := hdr[phoff+i*phdrSize:]
		switch u32(p) {
		case ptInterp:
			return img, "needs a program interpreter (dynamically linked)"
		case ptLoad:
		default:
			continue
		}
		s := Segment{Flags: u32(p[4:]), Off: u64(p[8:]), Vaddr: u64(p[16:]), Filesz: u64(p[32:]), Memsz: u64(p[40:])}
		if s.Memsz == 0 {
			continue
		}
		if img.N == MaxSegments {
			return img, "too many loadable segments"
		}
		if s.Filesz > s.Memsz {
			return img, "a segment's file size exceeds its memory size"
		}
		if s.Off+s.Filesz < s.Off || s.Off+s.Filesz > uint64(fileSize) {
			return img, "a segment's bytes lie outside the file"
		}
		if s.Vaddr%pageSize != s.Off%pageSize {
			return img, "a segment's address and file offset are not congruent modulo the page size"
		}
		send := s.Vaddr + s.Memsz
		if send < s.Vaddr || s.Vaddr < lo || send > hi {
			return img, "a segment lies outside the exec region"
		}
		if img.N > 0 && pageDown(s.Vaddr) < pageUp(img.Seg[img.N-1].Vaddr+img.Seg[img.N-1].Memsz) {
			return img, "segments overlap or are out of order"
		}
		if s.Flags&PF_X != 0 && img.Entry >= s.Vaddr && img.Entry < send {
			entryOK = true
		}
		img.Seg[img.N] = s
		img.N++
	}
	if img.N == 0 {
		return img, "no loadable segment"
	}
	if !entryOK {
		return img, "the entry point is not in an executable segment"
	}
	return img, ""
}

func pageDown(v uint64) uint64 { return v &^ (pageSize - 1) }
func pageUp(v uint64) uint64   { return (v + pageSize - 1) &^ (pageSize - 1) }

func u16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func u32(b []byte) uint32 { return uint32(u16(b)) | uint32(u16(b[2:]))<<16 }
func u64(b []byte) uint64 { return uint64(u32(b)) | uint64(u32(b[4:]))<<32 }
