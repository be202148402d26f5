// ELF64 layout analysis: is this Go executable a flat image Multiboot can load?
// SPDX-License-Identifier: BSD-3-Clause

package boot

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Segment is one PT_LOAD program header, reduced to what the loader needs.
type Segment struct {
	Off, Vaddr, Filesz, Memsz uint64
	Exec                      bool
}

// Layout describes a validated flat ELF64 image.
type Layout struct {
	Base     uint64    // vaddr of the first PT_LOAD (file offset 0)
	LoadEnd  uint64    // vaddr just past the last file-backed byte
	BSSEnd   uint64    // vaddr just past the last byte of any segment
	Entry    uint64    // e_entry
	Segments []Segment // PT_LOADs in file order
	// used lists the file byte ranges [lo, hi) that ELF structures occupy
	// within the first SearchLimit bytes; the header must avoid them.
	used []span
}

type span struct{ lo, hi uint64 }

// target is what one loader needs of a flat image: the ELF machine, where the
// image may lie, and the link flags that produce it (for the error messages).
type target struct {
	goarch  string
	machine elf.Machine
	link    string // the contract's -T/-R flags
	// base: the first PT_LOAD's lowest (minBase, exact: false) or only (exact: true) address.
	minBase  uint64
	exact    bool
	baseWhy  string // why, for the error
	maxEnd   uint64 // the image must end at or below this (0: anywhere without wrapping)
	endWhy   string // "does not fit below 4 GiB"
	paddrWhy string // why p_paddr must equal p_vaddr
}

// amd64Target is QEMU's Multiboot loader's (package documentation).
var amd64Target = target{
	goarch: "amd64", machine: elf.EM_X86_64, link: "-T 0x101000 -R 0x1000",
	minBase: MinLoadAddr, baseWhy: "is below 1 MiB",
	maxEnd: 1 << 32, endWhy: "does not fit below 4 GiB",
	paddrWhy: "Multiboot loads at physical addresses, so they must be equal",
}

// Analyze parses file as an ELF64 x86-64 executable and checks every
// assumption listed in the package documentation.
func Analyze(file []byte) (*Layout, error) { return analyze(file, &amd64Target) }

func analyze(file []byte, tg *target) (*Layout, error) {
	if len(file) < 64 || !bytes.Equal(file[:4], []byte(elf.ELFMAG)) {
		return nil, fmt.Errorf("not an ELF file (no \\x7fELF magic)")
	}
	if elf.Class(file[elf.EI_CLASS]) != elf.ELFCLASS64 {
		return nil, fmt.Errorf("ELF class is %v, want ELFCLASS64 (build with GOARCH=%s)", elf.Class(file[elf.EI_CLASS]), tg.goarch)
	}
	f, err := elf.NewFile(bytes.NewReader(file))
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("parsing ELF: a table runs past the end of the %#x-byte file (truncated?)", len(file))
		}
		return nil, fmt.Errorf("parsing ELF: %v", err)
	}
	if f.ByteOrder.String() != "LittleEndian" {
		return nil, fmt.Errorf("ELF is big-endian, want little-endian %s", tg.goarch)
	}
	if f.Machine != tg.machine {
		return nil, fmt.Errorf("ELF machine is %v, want %v (build with GOARCH=%s)", f.Machine, tg.machine, tg.goarch)
	}
	if f.Type != elf.ET_EXEC {
		return nil, fmt.Errorf("ELF type is %v, want ET_EXEC (a position-dependent static executable: CGO_ENABLED=0, no -buildmode=pie)", f.Type)
	}

	l := &Layout{Entry: f.Entry}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		l.Segments = append(l.Segments, Segment{
			Off: p.Off, Vaddr: p.Vaddr, Filesz: p.Filesz, Memsz: p.Memsz,
			Exec: p.Flags&elf.PF_X != 0,
		})
		if p.Paddr != p.Vaddr {
			return nil, fmt.Errorf("PT_LOAD at vaddr %#x has paddr %#x: %s", p.Vaddr, p.Paddr, tg.paddrWhy)
		}
	}
	if err := l.checkSegments(file, tg); err != nil {
		return nil, err
	}
	l.findUsed(f, file)
	return l, nil
}

// checkSegments verifies that the PT_LOADs form a flat image where tg's loader puts it.
func (l *Layout) checkSegments(file []byte, tg *target) error {
	segs := l.Segments
	if len(segs) == 0 {
		return fmt.Errorf("no PT_LOAD segments")
	}
	first := segs[0]
	if first.Off != 0 {
		return fmt.Errorf("first PT_LOAD starts at file offset %#x, want 0 (ELF headers must be loaded; link with %s)", first.Off, tg.link)
	}
	if first.Vaddr < tg.minBase || (tg.exact && first.Vaddr != tg.minBase) {
		return fmt.Errorf("first PT_LOAD at %#x %s (link with %s)", first.Vaddr, tg.baseWhy, tg.link)
	}
	l.Base = first.Vaddr
	for i := 1; i < len(segs); i++ {
		s, prev := segs[i], segs[i-1]
		if s.Vaddr < prev.Vaddr+prev.Memsz {
			return fmt.Errorf("PT_LOAD %d at %#x is not above PT_LOAD %d [%#x, %#x): segments must ascend without overlap", i, s.Vaddr, i-1, prev.Vaddr, prev.Vaddr+prev.Memsz)
		}
	}
	for i, s := range segs {
		if s.Filesz > s.Memsz {
			return fmt.Errorf("PT_LOAD %d at %#x: filesz %#x > memsz %#x", i, s.Vaddr, s.Filesz, s.Memsz)
		}
		if s.Off != s.Vaddr-l.Base {
			return fmt.Errorf("PT_LOAD %d at %#x has file offset %#x, want vaddr-base = %#x: the file is not a flat image (link with %s)", i, s.Vaddr, s.Off, s.Vaddr-l.Base, tg.link)
		}
		if s.Off+s.Filesz > uint64(len(file)) {
			return fmt.Errorf("PT_LOAD %d at %#x: file data [%#x, %#x) runs past the end of the %#x-byte file (truncated?)", i, s.Vaddr, s.Off, s.Off+s.Filesz, len(file))
		}
		end := s.Vaddr + s.Memsz
		if end < s.Vaddr {
			return fmt.Errorf("PT_LOAD %d at %#x: memsz %#x wraps around the address space", i, s.Vaddr, s.Memsz)
		}
		if tg.maxEnd != 0 && end > tg.maxEnd {
			return fmt.Errorf("PT_LOAD %d [%#x, %#x) %s", i, s.Vaddr, end, tg.endWhy)
		}
		if i < len(segs)-1 && s.Memsz > s.Filesz {
			// The flat copy loads file bytes where this segment's .bss
			// should be zero. Acceptable only if those bytes are zero.
			lo, hi := s.Off+s.Filesz, min(s.Off+s.Memsz, uint64(len(file)))
			if lo < hi && !allZero(file[lo:hi]) {
				return fmt.Errorf("PT_LOAD %d at %#x has a .bss (memsz %#x > filesz %#x) but is not the last segment: the flat copy would fill it with file bytes", i, s.Vaddr, s.Memsz, s.Filesz)
			}
		}
		if end > l.BSSEnd {
			l.BSSEnd = end
		}
	}
	last := segs[len(segs)-1]
	l.LoadEnd = last.Vaddr + last.Filesz
	for _, s := range segs {
		if s.Exec && l.Entry >= s.Vaddr && l.Entry < s.Vaddr+s.Filesz {
			return nil
		}
	}
	return fmt.Errorf("entry point %#x is not inside an executable PT_LOAD (check -E)", l.Entry)
}

// findUsed records which bytes of the first SearchLimit bytes belong to
// the ELF header, program and section header tables, and sections.
func (l *Layout) findUsed(f *elf.File, file []byte) {
	le := f.ByteOrder
	phoff := le.Uint64(file[32:])
	shoff := le.Uint64(file[40:])
	ehsize := uint64(le.Uint16(file[52:]))
	phentsize, phnum := uint64(le.Uint16(file[54:])), uint64(le.Uint16(file[56:]))
	shentsize, shnum := uint64(le.Uint16(file[58:])), uint64(le.Uint16(file[60:]))
	l.used = append(l.used, span{0, ehsize})
	l.used = append(l.used, span{phoff, phoff + phentsize*phnum})
	if shoff != 0 {
		l.used = append(l.used, span{shoff, shoff + shentsize*shnum})
	}
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL || s.Size == 0 {
			continue
		}
		l.used = append(l.used, span{s.Offset, s.Offset + s.Size})
	}
	sort.Slice(l.used, func(i, j int) bool { return l.used[i].lo < l.used[j].lo })
}

// FindGap returns the lowest 4-byte-aligned file offset of HeaderSpace
// all-zero bytes inside the first PT_LOAD and the first SearchLimit bytes
// that no ELF structure uses.
func (l *Layout) FindGap(file []byte) (int, error) {
	limit := min(uint64(SearchLimit), l.Segments[0].Filesz, uint64(len(file)))
	for off := uint64(0); off+HeaderSpace <= limit; off += 4 {
		if l.overlaps(off, off+HeaderSpace) {
			continue
		}
		if allZero(file[off : off+HeaderSpace]) {
			return int(off), nil
		}
	}
	return 0, fmt.Errorf("no unused, zero-filled, 4-byte-aligned gap of %d bytes in the first %d bytes of the first PT_LOAD (ELF structures occupy %s)", HeaderSpace, limit, l.usedString(limit))
}

func (l *Layout) overlaps(lo, hi uint64) bool {
	for _, u := range l.used {
		if lo < u.hi && u.lo < hi {
			return true
		}
	}
	return false
}

func (l *Layout) usedString(limit uint64) string {
	s := ""
	for _, u := range l.used {
		if u.lo < limit {
			s += fmt.Sprintf("[%#x,%#x) ", u.lo, u.hi)
		}
	}
	return s
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
