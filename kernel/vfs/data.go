// File data: frames found through a radix tree of index frames, as a tmpfs's page cache.
// SPDX-License-Identifier: BSD-3-Clause

package vfs

import (
	"unsafe"

	"gmpos/kernel/mm"
)

// An inode's data is a tree of 4 KiB frames. At depth 0 the root is the file's only data frame;
// at depth d the root is an index frame of 512 physical addresses, each the root of a depth d-1
// tree, so a tree of depth d holds 512^d pages (depth 3: 512 GiB, MaxFileSize). A zero address
// is a hole: it reads as zeros and takes no memory, which is how a sparse file (a write far past
// the end, or ftruncate upwards) stays small. The tree grows at the top when a write goes past
// what it covers (the old root becomes slot 0 of a new one) and loses frames from the end when
// the file is truncated. The frames come from the same allocator as the program's memory, so
// the files in /tmp and the Go heap share the machine's RAM; a write that finds none left is
// ENOSPC for the part that did not fit.
//
// A file unpacked from the initramfs has no tree at first: ext points at its bytes in the
// loader's module (never freed, never written), and the first write or growing truncate copies
// them into frames (materialize).
const (
	pageSize    = mm.PageSize
	fanout      = pageSize / 8
	maxDepth    = 3
	MaxFileSize = int64(pageSize) << (9 * maxDepth)
)

// capPages is how many pages a tree of depth d covers.
func capPages(d uint8) uint64 { return 1 << (9 * uint64(d)) }

// frame returns a frame's bytes; slots its index entries.
func frame(pa uintptr) *[pageSize]byte { return mm.FrameBytes(pa) }
func slots(pa uintptr) *[fanout]uint64 { return (*[fanout]uint64)(unsafe.Pointer(mm.FrameBytes(pa))) }

// ptrAt turns an address outside the Go heap into a pointer (see mm.ptrAt).
func ptrAt(va uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&va)) }

// extBytes is an unpacked file's data in the module.
func extBytes(in *Inode) []byte { return unsafe.Slice((*byte)(ptrAt(in.ext)), in.Size) }

// page returns the data frame holding page idx of the file, or 0 for a hole. With alloc it
// fills the hole (and the index frames above it), growing the tree as needed; ENOSPC when the
// allocator has no frame left.
func page(in *Inode, idx uint64, alloc bool) (uintptr, Errno) {
	for in.root == 0 || idx >= capPages(in.depth) {
		if !alloc {
			return 0, OK
		}
		pa, ok := mm.AllocZeroFrame()
		if !ok {
			return 0, ENOSPC
		}
		if in.root == 0 { // an empty tree: start as deep as idx needs
			in.depth = 0
			for idx >= capPages(in.depth) {
				in.depth++
			}
			in.root = pa
			if in.depth == 0 {
				in.pages++
				return pa, OK
			}
			break
		}
		slots(pa)[0] = uint64(in.root)
		in.root = pa
		in.depth++
	}
	pa := in.root
	for d := in.depth; d > 0; d-- {
		s := &slots(pa)[(idx>>(9*uint64(d-1)))%fanout]
		if *s == 0 {
			if !alloc {
				return 0, OK
			}
			n, ok := mm.AllocZeroFrame()
			if !ok {
				return 0, ENOSPC
			}
			*s = uint64(n)
			if d == 1 {
				in.pages++
			}
		}
		pa = uintptr(*s)
	}
	return pa, OK
}

// dataFrames is the number of data frames the file holds (for st_blocks); an unpacked file
// reports its size in pages.
func dataFrames(in *Inode) uint64 {
	if in.ext != 0 {
		return uint64(in.Size+pageSize-1) / pageSize
	}
	return in.pages
}

// readData copies the file's bytes at off into dst, up to the end of the file, and returns how
// many it copied.
func readData(in *Inode, off int64, dst []byte) int {
	if off >= in.Size {
		return 0
	}
	dst = dst[:min(int64(len(dst)), in.Size-off)]
	if in.ext != 0 {
		return copy(dst, extBytes(in)[off:])
	}
	n := 0
	for n < len(dst) {
		at := off + int64(n)
		pa, _ := page(in, uint64(at/pageSize), false)
		chunk := dst[n:min(len(dst), n+pageSize-int(at%pageSize))]
		if pa == 0 {
			clear(chunk)
		} else {
			copy(chunk, frame(pa)[at%pageSize:])
		}
		n += len(chunk)
	}
	return n
}

// writeData copies src into the file at off, extending it, and returns how many bytes it wrote:
// fewer than len(src) with ENOSPC (no memory) or EFBIG (past MaxFileSize).
func writeData(in *Inode, off int64, src []byte) (int, Errno) {
	if off >= MaxFileSize {
		return 0, EFBIG
	}
	e := OK
	if off+int64(len(src)) > MaxFileSize {
		src, e = src[:MaxFileSize-off], EFBIG
	}
	if in.ext != 0 {
		if e := materialize(in); e != OK {
			return 0, e
		}
	}
	n := 0
	for n < len(src) {
		at := off + int64(n)
		pa, pe := page(in, uint64(at/pageSize), true)
		if pe != OK {
			e = pe
			break
		}
		n += copy(frame(pa)[at%pageSize:], src[n:])
	}
	if end := off + int64(n); end > in.Size {
		in.Size = end
	}
	if n > 0 || len(src) == 0 {
		in.Mtime, in.Ctime = now, now
	}
	if n == len(src) && e == EFBIG && n > 0 {
		return n, OK // the short count says it; EFBIG comes with the next call
	}
	return n, e
}

// materialize gives an unpacked file frames of its own, copying its bytes from the module.
func materialize(in *Inode) Errno {
	src := extBytes(in)
	in.ext = 0
	for off := 0; off < len(src); off += pageSize {
		pa, e := page(in, uint64(off/pageSize), true)
		if e != OK {
			freeData(in)
			in.ext = uintptr(unsafe.Pointer(unsafe.SliceData(src)))
			return e
		}
		copy(frame(pa)[:], src[off:])
	}
	return OK
}

// truncateData sets the file's size: frames past the new end are freed and the rest of the
// last page cleared (so that growing again reads zeros); growing leaves a hole.
func truncateData(in *Inode, size int64) Errno {
	if size > MaxFileSize {
		return EFBIG
	}
	if in.ext != 0 {
		if size <= in.Size {
			in.Size = size // the module's bytes are only read up to Size
			return OK
		}
		if e := materialize(in); e != OK {
			return e
		}
	}
	if size < in.Size && in.root != 0 {
		keep := uint64(size+pageSize-1) / pageSize
		if trim(in, in.root, in.depth, 0, keep) {
			in.root, in.depth = 0, 0
		}
		if size%pageSize != 0 {
			if pa, _ := page(in, uint64(size/pageSize), false); pa != 0 {
				clear(frame(pa)[size%pageSize:])
			}
		}
	}
	in.Size = size
	return OK
}

// trim frees the data frames of pages from index keep on in the subtree rooted at pa (depth d,
// first page base), and the index frames left empty. It reports whether it freed pa itself.
// Its recursion is bounded by maxDepth.
func trim(in *Inode, pa uintptr, d uint8, base, keep uint64) bool {
	if d == 0 {
		if base < keep {
			return false
		}
		mm.FreeFrame(pa)
		in.pages--
		return true
	}
	span := capPages(d - 1)
	left := false
	for i := range slots(pa) {
		s := &slots(pa)[i]
		if *s == 0 {
			continue
		}
		if base+uint64(i+1)*span <= keep || !trim(in, uintptr(*s), d-1, base+uint64(i)*span, keep) {
			left = true
			continue
		}
		*s = 0
	}
	if left {
		return false
	}
	mm.FreeFrame(pa)
	return true
}

// freeData frees all of the file's frames.
func freeData(in *Inode) {
	if in.root != 0 {
		trim(in, in.root, in.depth, 0, 0)
	}
	in.root, in.depth, in.ext = 0, 0, 0
}
