// RAM and the module container.
// SPDX-License-Identifier: BSD-3-Clause

package rpi

import (
	"gmpos/kernel/board/internal/modcont"
	"gmpos/kernel/mm"
)

// setRAM records the firmware's ARM memory [base, base+size), page-aligned inwards, minus
// [0, lowReserved). On a Pi 4 with more than 1 GiB the rest (from 0x4000_0000) is only in the
// device tree, which the board does not read yet: the kernel uses the first GiB's share.
func (b *Board) setRAM(base, size uint64) {
	lo := max(base, lowReserved)
	hi := (base + size) &^ (mm.PageSize - 1)
	lo = (lo + mm.PageSize - 1) &^ (mm.PageSize - 1)
	b.nram = 0
	if hi > lo {
		b.ram[0] = mm.Region{Base: uintptr(lo), Len: uintptr(hi - lo)}
		b.nram = 1
	}
}

// inRAM reports whether [pa, pa+size) lies inside one RAM region.
func (b *Board) inRAM(pa, size uint64) bool { return mm.InRegions(b.ram[:b.nram], pa, size) }

// setModules decodes the container c, loaded at physical pa, keeps modules 0 and 1 as physical
// ranges and copies module 2, the command line, after cmdlinePrefix. Boot, with c read through
// the early identity map (Probe checked the container lies in it).
func (b *Board) setModules(pa uintptr, c []byte) string {
	var mods [modcont.Max]modcont.Module
	n, why := modcont.Decode(c[:min(len(c), modcont.MaxTable)], uint64(len(c)), &mods)
	if why != "" {
		return why
	}
	for i := 0; i < n && i < modCmdline; i++ {
		if mods[i].Size != 0 {
			b.mods[i].pa, b.mods[i].size = pa+uintptr(mods[i].Off), uintptr(mods[i].Size)
		}
	}
	b.ncmd = copy(b.cmdline[:], cmdlinePrefix)
	if n > modCmdline && mods[modCmdline].Size != 0 {
		m := mods[modCmdline]
		if m.Size > maxCmdline {
			return "module container: the command line is longer than 4096 bytes"
		}
		b.ncmd += copy(b.cmdline[b.ncmd:], c[m.Off:m.Off+m.Size]) // Decode checked the bounds
	}
	return ""
}
