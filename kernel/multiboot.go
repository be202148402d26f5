package kernel

import (
	"gmpos/kernel/mm"
)

// Multiboot information structure fields (Multiboot Specification 0.6.96 §3.3).
const (
	mbMagic        = 0x2badb002
	mbFlagMem      = 1 << 0
	mbFlagCmdline  = 1 << 2
	mbFlagMmap     = 1 << 6
	mbMemAvailable = 1
)

// bootInfo is what the kernel keeps from the loader. It is copied out of the loader's memory before
// that memory becomes allocatable.
var bootInfo struct {
	ram     [mm.MaxRegions]mm.Region
	nram    int
	cmdline [4096]byte
	ncmd    int
}

// peek32/peek64 read physical memory through the boot identity map.
func peek32(pa uintptr) uint32 { return *(*uint32)(ptr(pa)) }
func peek64(pa uintptr) uint64 { return *(*uint64)(ptr(pa)) }

// parseMultiboot copies the memory map and command line.
func parseMultiboot(magic, info uint32) bool {
	if magic != mbMagic {
		return false
	}
	mbi := uintptr(info)
	flags := peek32(mbi)
	if flags&mbFlagCmdline != 0 {
		p := uintptr(peek32(mbi + 16))
		for bootInfo.ncmd < len(bootInfo.cmdline)-1 {
			c := *(*byte)(ptr(p + uintptr(bootInfo.ncmd)))
			if c == 0 {
				break
			}
			bootInfo.cmdline[bootInfo.ncmd] = c
			bootInfo.ncmd++
		}
	}
	if flags&mbFlagMmap != 0 {
		addr := uintptr(peek32(mbi + 48))
		end := addr + uintptr(peek32(mbi+44))
		for addr < end && bootInfo.nram < len(bootInfo.ram) {
			size := uintptr(peek32(addr))
			base := uintptr(peek64(addr + 4))
			length := uintptr(peek64(addr + 12))
			typ := peek32(addr + 20)
			if typ == mbMemAvailable && length > 0 {
				bootInfo.ram[bootInfo.nram] = mm.Region{Base: base, Len: length}
				bootInfo.nram++
			}
			addr += size + 4
		}
	} else if flags&mbFlagMem != 0 {
		// mem_upper: KiB of RAM from 1 MiB up.
		bootInfo.ram[0] = mm.Region{Base: 1 << 20, Len: uintptr(peek32(mbi+8)) << 10}
		bootInfo.nram = 1
	}
	return bootInfo.nram > 0
}

// usableRAM removes everything the kernel must not hand out: the first MiB (firmware, the loader's
// structures and the early page tables) and the loaded image [imageStart, imageEnd).
func usableRAM(imageStart, imageEnd uintptr, out []mm.Region) int {
	n := 0
	add := func(base, end uintptr) {
		if end > base && n < len(out) {
			out[n] = mm.Region{Base: base, Len: end - base}
			n++
		}
	}
	for i := 0; i < bootInfo.nram; i++ {
		base, end := bootInfo.ram[i].Base, bootInfo.ram[i].Base+bootInfo.ram[i].Len
		if base < 1<<20 {
			base = 1 << 20
		}
		base = (base + mm.PageSize - 1) &^ (mm.PageSize - 1)
		end &^= mm.PageSize - 1
		if base >= end {
			continue
		}
		if end <= imageStart || base >= imageEnd {
			add(base, end)
			continue
		}
		add(base, imageStart)
		add(imageEnd, end)
	}
	return n
}
