// Property values: cells, addresses and sizes, strings (§2.2.4, §2.3).
// SPDX-License-Identifier: BSD-3-Clause

package fdt

// Cell returns the i-th 32-bit cell of a value (cells are big-endian, §2.2.4.1); ok false past
// the end.
func Cell(v []byte, i int) (uint32, bool) {
	if i < 0 || i > len(v)/4 {
		return 0, false
	}
	return be32(v, 4*i)
}

// Cells returns the number n of cells (1 or 2) starting at cell i as one number: how addresses
// and sizes are written, with n from #address-cells or #size-cells (§2.3.5). ok false if they
// run past the value or n is not 1 or 2 (0 size cells reads as 0: a bus without sizes).
func Cells(v []byte, i, n int) (uint64, bool) {
	switch n {
	case 0:
		return 0, i >= 0 && i <= len(v)/4
	case 1:
		c, ok := Cell(v, i)
		return uint64(c), ok
	case 2:
		hi, ok1 := Cell(v, i)
		lo, ok2 := Cell(v, i+1)
		return uint64(hi)<<32 | uint64(lo), ok1 && ok2
	}
	return 0, false
}

// U32 returns a one-cell value (a <u32> property such as #address-cells).
func U32(v []byte) (uint32, bool) {
	if len(v) != 4 {
		return 0, false
	}
	return be32(v, 0)
}

// Number returns a value of one or two cells (a <u32> or <u64> such as linux,initrd-start,
// which loaders write either way).
func Number(v []byte) (uint64, bool) {
	switch len(v) {
	case 4:
		return Cells(v, 0, 1)
	case 8:
		return Cells(v, 0, 2)
	}
	return 0, false
}

// AddressCells and SizeCells return n's #address-cells and #size-cells: how many cells its
// children's reg addresses and sizes take. Absent, they are 2 and 1 (§2.3.5). ok false for a
// malformed value or one above maxCells (a PCI bus has 3 address cells; Reg reads 1 or 2).
func (t *Tree) AddressCells(n Node) (int, bool) {
	return t.cellsProp(n, "#address-cells", 2, 1)
}

func (t *Tree) SizeCells(n Node) (int, bool) { return t.cellsProp(n, "#size-cells", 1, 0) }

// maxCells bounds #address-cells and #size-cells: no binding uses more than 3.
const maxCells = 4

func (t *Tree) cellsProp(n Node, name string, def, lo int) (int, bool) {
	v, ok := t.Prop(n, name)
	if !ok {
		return def, true
	}
	c, ok := U32(v)
	if !ok || c < uint32(lo) || c > maxCells {
		return 0, false
	}
	return int(c), true
}

// Reg returns the i-th (address, size) pair of a reg value whose parent has ac address cells and
// sc size cells (§2.3.6). ok false past the last pair, or if the value is not a whole number of
// pairs. The addresses are the parent bus's; on the root's children they are physical.
func Reg(v []byte, ac, sc, i int) (addr, size uint64, ok bool) {
	per := ac + sc
	if ac < 1 || ac > 2 || sc < 0 || sc > 2 || i < 0 || len(v)%(4*per) != 0 || i >= len(v)/(4*per) {
		return 0, 0, false
	}
	addr, ok1 := Cells(v, i*per, ac)
	size, ok2 := Cells(v, i*per+ac, sc)
	return addr, size, ok1 && ok2
}

// String returns a string value without its NUL; ok false if the value is not NUL-terminated
// (§2.2.4.1, <string>).
func String(v []byte) ([]byte, bool) {
	if len(v) == 0 || v[len(v)-1] != 0 {
		return nil, false
	}
	return v[:len(v)-1], true
}

// HasString reports whether the string list v (NUL-terminated strings one after the other,
// §2.2.4.1 <stringlist>, as in compatible) holds s.
func HasString(v []byte, s string) bool {
	for start := 0; start < len(v); {
		end := start
		for end < len(v) && v[end] != 0 {
			end++
		}
		if end == len(v) {
			return false // an unterminated last string is not a string
		}
		if same(v[start:end], bytesOf(s)) {
			return true
		}
		start = end + 1
	}
	return false
}

// Compatible reports whether node n's compatible property lists c (§2.3.1).
func (t *Tree) Compatible(n Node, c string) bool {
	v, ok := t.Prop(n, "compatible")
	return ok && HasString(v, c)
}
