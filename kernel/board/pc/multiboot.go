// The Multiboot hand-off: memory map and command line (Multiboot Specification 0.6.96 §3.3).
// SPDX-License-Identifier: BSD-3-Clause

package pc

import (
	"unsafe"

	"gmpos/kernel/mm"
)

// Multiboot information structure fields (§3.3).
const (
	mbMagic        = 0x2badb002 // EAX at entry (§3.2)
	mbFlagMem      = 1 << 0     // mem_lower/mem_upper valid
	mbFlagCmdline  = 1 << 2     // cmdline valid
	mbFlagMods     = 1 << 3     // mods_count/mods_addr valid
	mbFlagMmap     = 1 << 6     // mmap_length/mmap_addr valid
	mbMemAvailable = 1          // memory map entry type: available RAM
)

// parseMultiboot copies the memory map and command line out of the loader's memory, which the
// frame allocator will hand out. The first MiB is removed from the RAM list (see RAM).
func (b *Board) parseMultiboot(magic, info uint32) bool {
	if magic != mbMagic {
		return false
	}
	mbi := uintptr(info)
	flags := peek32(mbi)
	if flags&mbFlagCmdline != 0 {
		p := uintptr(peek32(mbi + 16))
		for b.ncmd < len(b.cmdline)-1 {
			c := peek8(p + uintptr(b.ncmd))
			if c == 0 {
				break
			}
			b.cmdline[b.ncmd] = c
			b.ncmd++
		}
	}
	if flags&mbFlagMods != 0 {
		// The module entries (§3.3, "mods_*"): 16 bytes each, mod_start and mod_end first. A
		// range that is empty or wraps is ignored; the kernel checks the contents. Modules
		// beyond the ones the kernel knows are left alone.
		count, m := uintptr(peek32(mbi+20)), uintptr(peek32(mbi+24))
		for i := uintptr(0); i < count && i < uintptr(len(b.mods)); i++ {
			start, end := uintptr(peek32(m+16*i)), uintptr(peek32(m+16*i+4))
			if end > start {
				b.mods[i].pa, b.mods[i].len = start, end-start
			}
		}
	}
	if flags&mbFlagMmap != 0 {
		if n := peek32(mbi + 44); n <= 1<<16 { // a loader's map is a few hundred bytes
			b.parseMmap(unsafe.Slice((*byte)(ptr(uintptr(peek32(mbi+48)))), n))
		}
	} else if flags&mbFlagMem != 0 {
		// mem_upper: KiB of RAM from 1 MiB up.
		b.addRAM(1<<20, 1<<20+uintptr(peek32(mbi+8))<<10)
	}
	return b.nram > 0
}

// parseMmap reads the Multiboot memory map (§3.3, "mmap_*"): entries of a 4-byte size (not
// counting itself), a 64-bit base, a 64-bit length and a 32-bit type. The loader's data is
// checked, not trusted: an entry too short for its fields or running past the map ends the walk,
// and regions whose end wraps are dropped.
func (b *Board) parseMmap(m []byte) {
	for p := 0; p+4 <= len(m); {
		size := int(le32(m[p:]))
		if size < 20 || size > len(m)-p-4 {
			break
		}
		e := m[p+4 : p+4+size]
		base := uintptr(le32(e[0:])) | uintptr(le32(e[4:]))<<32
		length := uintptr(le32(e[8:])) | uintptr(le32(e[12:]))<<32
		if le32(e[16:]) == mbMemAvailable && base+length > base {
			b.addRAM(base, base+length)
		}
		p += 4 + size
	}
}

// addRAM records [base, end) minus the first MiB, page-aligned inwards. A region whose base
// rounds up past the top of the address space is dropped (FuzzMmap found the wrap).
func (b *Board) addRAM(base, end uintptr) {
	if base < 1<<20 {
		base = 1 << 20
	}
	if base > ^uintptr(0)-(mm.PageSize-1) {
		return
	}
	base = (base + mm.PageSize - 1) &^ (mm.PageSize - 1)
	end &^= mm.PageSize - 1
	if end > base && b.nram < len(b.ram) {
		b.ram[b.nram] = mm.Region{Base: base, Len: end - base}
		b.nram++
	}
}

// ptr turns a physical address of the boot identity map (or a device register address) into a
// pointer; the memory is never a Go heap object, so the garbage collector must not see it as
// one. The double conversion keeps go vet's unsafeptr check quiet about the deliberate cast.
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }
