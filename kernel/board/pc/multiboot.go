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
	if flags&mbFlagMmap != 0 {
		addr := uintptr(peek32(mbi + 48))
		end := addr + uintptr(peek32(mbi+44))
		for addr < end {
			size := uintptr(peek32(addr)) // does not count the size field itself
			base := uintptr(peek64(addr + 4))
			length := uintptr(peek64(addr + 12))
			if peek32(addr+20) == mbMemAvailable {
				b.addRAM(base, base+length)
			}
			addr += size + 4
		}
	} else if flags&mbFlagMem != 0 {
		// mem_upper: KiB of RAM from 1 MiB up.
		b.addRAM(1<<20, 1<<20+uintptr(peek32(mbi+8))<<10)
	}
	return b.nram > 0
}

// addRAM records [base, end) minus the first MiB, page-aligned inwards.
func (b *Board) addRAM(base, end uintptr) {
	if base < 1<<20 {
		base = 1 << 20
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
