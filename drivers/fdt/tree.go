// The blob: its header (§5.2), Open's validation, and the memory reservation block (§5.3).
// SPDX-License-Identifier: BSD-3-Clause

package fdt

// Header fields, big-endian u32s at these offsets (§5.2, struct fdt_header). Version 17's header
// is 40 bytes; size_dt_struct (added in version 17) is what bounds the structure block, so an
// older tree is refused rather than walked to wherever its tokens lead.
const (
	Magic = 0xd00dfeed

	hdrMagic           = 0
	hdrTotalSize       = 4
	hdrOffStruct       = 8
	hdrOffStrings      = 12
	hdrOffRsvmap       = 16
	hdrVersion         = 20
	hdrLastCompVersion = 24
	hdrBootCPU         = 28
	hdrSizeStrings     = 32
	hdrSizeStruct      = 36
	HeaderSize         = 40

	version = 17 // the version this package reads (and every tree since 2007 is)
)

// MaxDepth is how deeply nodes may nest, the root being depth 1. QEMU's trees are 4 deep at
// most (/pcie/.../...); Linux's libfdt allows 64 (FDT_MAX_DEPTH).
const MaxDepth = 32

// Tree is a validated flattened device tree: views of the caller's blob, nothing copied. The
// zero Tree is empty: every accessor answers "none".
type Tree struct {
	blob    []byte // the whole tree, totalsize bytes
	structs []byte // the structure block (size_dt_struct bytes)
	strings []byte // the strings block (size_dt_strings bytes)
	rsvmap  int    // offset of the memory reservation block in blob
	nrsv    int    // its entries before the terminator
	root    Node
}

// be32 reads the big-endian u32 at off of b; ok false if it does not fit.
func be32(b []byte, off int) (uint32, bool) {
	if off < 0 || off > len(b)-4 {
		return 0, false
	}
	return uint32(b[off])<<24 | uint32(b[off+1])<<16 | uint32(b[off+2])<<8 | uint32(b[off+3]), true
}

// be64 reads the big-endian u64 at off of b.
func be64(b []byte, off int) (uint64, bool) {
	hi, ok1 := be32(b, off)
	lo, ok2 := be32(b, off+4)
	return uint64(hi)<<32 | uint64(lo), ok1 && ok2
}

// TotalSize returns the totalsize field of the header at the start of b (at least HeaderSize
// bytes), 0 if b does not start with the magic. A caller that only has a pointer reads the
// header first, to know how much to look at.
func TotalSize(b []byte) uint32 {
	if m, ok := be32(b, hdrMagic); !ok || m != Magic {
		return 0
	}
	n, _ := be32(b, hdrTotalSize)
	return n
}

// Open checks the tree in b and returns it; why is non-empty (a constant string, nothing
// allocated) if b is not a tree this package can read. Everything is checked here, once: see
// doc.go, "Trust". b may be longer than the tree (the tree is the first totalsize bytes).
func Open(b []byte) (t Tree, why string) {
	if len(b) < HeaderSize {
		return Tree{}, "device tree: shorter than its header"
	}
	h := func(off int) uint64 { v, _ := be32(b, off); return uint64(v) }
	if h(hdrMagic) != Magic {
		return Tree{}, "device tree: bad magic (want 0xd00dfeed)"
	}
	total := h(hdrTotalSize)
	if total < HeaderSize || total > uint64(len(b)) {
		return Tree{}, "device tree: totalsize outside the blob"
	}
	if h(hdrVersion) < version || h(hdrLastCompVersion) > version {
		return Tree{}, "device tree: not a version 17 tree"
	}
	offStruct, sizeStruct := h(hdrOffStruct), h(hdrSizeStruct)
	offStrings, sizeStrings := h(hdrOffStrings), h(hdrSizeStrings)
	offRsv := h(hdrOffRsvmap)
	// Offsets and sizes are u32s, summed in 64 bits: no wrap.
	switch {
	case offStruct < HeaderSize || offStruct%4 != 0 || offStruct+sizeStruct > total:
		return Tree{}, "device tree: structure block outside the blob"
	case offStrings < HeaderSize || offStrings+sizeStrings > total:
		return Tree{}, "device tree: strings block outside the blob"
	case offRsv < HeaderSize || offRsv%8 != 0 || offRsv > total:
		return Tree{}, "device tree: memory reservation block outside the blob"
	}
	t = Tree{
		blob:    b[:total],
		structs: b[offStruct : offStruct+sizeStruct],
		strings: b[offStrings : offStrings+sizeStrings],
		rsvmap:  int(offRsv),
	}
	// The reservation block: 16-byte entries up to one of address 0 and size 0 (§5.3.2).
	for i := 0; ; i++ {
		e := t.rsvmap + 16*i
		addr, ok1 := be64(t.blob, e)
		size, ok2 := be64(t.blob, e+8)
		if !ok1 || !ok2 {
			return Tree{}, "device tree: memory reservation block has no terminator"
		}
		if addr == 0 && size == 0 {
			t.nrsv = i
			break
		}
	}
	root, why := t.check()
	if why != "" {
		return Tree{}, why
	}
	t.root = root
	return t, ""
}

// check walks every token of the structure block once (§5.4.2): one root node, nesting balanced
// and at most MaxDepth deep, properties only inside a node and before its first subnode, and
// FDT_END after the root. It returns the root's offset.
func (t *Tree) check() (root Node, why string) {
	depth := 0
	seenRoot := false
	propOK := false // the last token other than NOP began a node or was a property
	for off := 0; ; {
		k, next, ok := t.token(off)
		if !ok {
			return -1, "device tree: malformed token in the structure block"
		}
		switch k {
		case tokBeginNode:
			if depth == 0 {
				if seenRoot {
					return -1, "device tree: more than one root node"
				}
				seenRoot, root = true, Node(off)
			}
			if depth++; depth > MaxDepth {
				return -1, "device tree: nodes nested too deeply"
			}
			propOK = true
		case tokEndNode:
			if depth == 0 {
				return -1, "device tree: FDT_END_NODE without a node"
			}
			depth--
			propOK = false
		case tokProp:
			if depth == 0 || !propOK {
				return -1, "device tree: property outside a node or after a subnode"
			}
		case tokNop:
		case tokEnd:
			if depth != 0 || !seenRoot {
				return -1, "device tree: FDT_END inside a node or before the root"
			}
			return root, ""
		default:
			return -1, "device tree: unknown token in the structure block"
		}
		off = next // token guarantees next > off: the walk ends
	}
}

// Reserved returns entry i of the memory reservation block (§5.3): physical memory the loader
// says the kernel must not use (QEMU's virt lists none). ok false past the last entry.
func (t *Tree) Reserved(i int) (addr, size uint64, ok bool) {
	if i < 0 || i >= t.nrsv {
		return 0, 0, false
	}
	addr, ok1 := be64(t.blob, t.rsvmap+16*i)
	size, ok2 := be64(t.blob, t.rsvmap+16*i+8)
	return addr, size, ok1 && ok2
}

// BootCPU returns the header's boot_cpuid_phys: the reg value (MPIDR affinity on arm64) of the
// /cpus node of the processor that booted (§5.2).
func (t *Tree) BootCPU() uint32 {
	v, _ := be32(t.blob, hdrBootCPU)
	return v
}
