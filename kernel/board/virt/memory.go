// RAM: the device tree's memory ranges minus the reservations.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import "gmpos/kernel/mm"

// The device tree describes RAM in /memory nodes' reg (§3.4), and memory the kernel must not
// use in the header's memory reservation block (§5.3) and under /reserved-memory (§3.5; its
// children's reg). QEMU's virt has one memory node, [0x4000_0000, +ram size), and no
// reservations; a firmware (U-Boot, a Pi's) may reserve what it keeps, such as the spin table
// or its own runtime services. The board keeps the difference, page-aligned inwards.

// addRAM records [base, base+size) page-aligned inwards; a range that wraps, or rounds to
// nothing, is dropped; ranges beyond mm.MaxRegions are dropped too (the kernel keeps no more).
func (b *Board) addRAM(base, size uint64) {
	end := base + size
	if end < base || base > uint64(^uintptr(0))-(mm.PageSize-1) || end > uint64(^uintptr(0)) {
		return
	}
	lo := (uintptr(base) + mm.PageSize - 1) &^ (mm.PageSize - 1)
	hi := uintptr(end) &^ (mm.PageSize - 1)
	if hi > lo && b.nram < len(b.ram) {
		b.ram[b.nram] = mm.Region{Base: lo, Len: hi - lo}
		b.nram++
	}
}

// reserve removes [base, base+size), rounded out to pages, from the RAM list: a region it
// covers goes, one it overlaps shrinks, one it lies inside splits in two (dropped halves if
// the list is full: losing RAM is safe, handing out reserved memory is not).
func (b *Board) reserve(base, size uint64) {
	if size == 0 {
		return
	}
	end := base + size
	if end < base {
		end = ^uint64(0)
	}
	lo := base &^ (mm.PageSize - 1)
	hi := end
	if hi <= ^uint64(0)-(mm.PageSize-1) {
		hi = (hi + mm.PageSize - 1) &^ (mm.PageSize - 1)
	}
	var out [mm.MaxRegions]mm.Region
	n := 0
	keep := func(a, e uint64) {
		if e > a && n < len(out) {
			out[n] = mm.Region{Base: uintptr(a), Len: uintptr(e - a)}
			n++
		}
	}
	for _, r := range b.ram[:b.nram] {
		a, e := uint64(r.Base), uint64(r.Base+r.Len)
		if e <= lo || a >= hi {
			keep(a, e)
			continue
		}
		keep(a, lo)
		keep(hi, e)
	}
	b.ram, b.nram = out, n
}

// inRAM reports whether [pa, pa+size) lies inside one RAM region.
func (b *Board) inRAM(pa, size uint64) bool { return mm.InRegions(b.ram[:b.nram], pa, size) }
