// Image: write the Multiboot header into a validated ELF.
// SPDX-License-Identifier: BSD-3-Clause

package boot

import "fmt"

// Image is the result of Make.
type Image struct {
	Data   []byte  // the bootable file: the input ELF plus the header
	Header Header  // the header written
	Offset int     // its file offset
	Layout *Layout // the analysed ELF layout
}

// Make validates elfFile (see the package documentation) and returns a
// copy with a Multiboot v1 a.out-kludge header written into an unused gap
// of its first 8 KiB. An input that already carries a Multiboot header
// (an earlier output of Make) gets the header rewritten in place, so Make
// is idempotent.
func Make(elfFile []byte) (*Image, error) {
	l, err := Analyze(elfFile)
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), elfFile...)
	_, off := Find(out)
	if off >= 0 {
		// A loader takes the first valid header it finds, so an existing
		// one must be reused (or it would shadow ours); it must also sit
		// in space no ELF structure uses.
		if l.overlaps(uint64(off), uint64(off+HeaderSpace)) || uint64(off+HeaderSpace) > l.Segments[0].Filesz {
			return nil, fmt.Errorf("file already contains bytes that look like a Multiboot header at offset %#x, inside ELF data; refusing to guess", off)
		}
		clear(out[off : off+HeaderSpace])
	} else if off, err = l.FindGap(out); err != nil {
		return nil, err
	}
	h := Header{
		Flags:       Flags,
		HeaderAddr:  uint32(l.Base + uint64(off)),
		LoadAddr:    uint32(l.Base),
		LoadEndAddr: uint32(l.LoadEnd),
		BSSEndAddr:  uint32(l.BSSEnd),
		EntryAddr:   uint32(l.Entry),
	}
	if err := h.Validate(off, int64(len(out))); err != nil {
		return nil, fmt.Errorf("internal error: computed header is invalid: %v", err)
	}
	copy(out[off:], h.Encode())
	return &Image{Data: out, Header: h, Offset: off, Layout: l}, nil
}
