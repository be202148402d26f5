// Assigning addresses to memory BARs the firmware left unassigned.
// SPDX-License-Identifier: BSD-3-Clause

package pci

// Window hands out bus addresses for memory BARs from [Lo, Hi), top down, each naturally
// aligned (a BAR's base is a multiple of its size: PCI 3.0 §6.2.5.1, the size being the
// lowest writable address bit). It is what a firmware's PCI resource allocation does (SeaBIOS
// pciinit.c, Linux's pci_assign_unassigned_resources), reduced to the one case a kernel here
// meets: a minimal firmware (qboot) that assigns nothing, a handful of virtio functions and a
// window below the interrupt controllers that nobody else uses. Top down, like SeaBIOS, so that
// the addresses sit where they would under SeaBIOS and far from RAM.
//
// The zero Window has no room. Plain data: the kernel keeps one in a global (boot only).
type Window struct {
	Lo, Hi uint64 // the free range; Hi moves down as addresses are handed out
}

// Alloc returns a base for a BAR of size bytes (a power of two, at least 16: §6.2.5.1), or false
// if size is not one or the window has no aligned room left. A BAR smaller than a page is given
// a whole page, so that no two functions share one and each can be mapped on its own.
func (w *Window) Alloc(size uint64) (uint64, bool) {
	if size < 16 || size&(size-1) != 0 {
		return 0, false
	}
	size = max(size, 4096)
	if w.Hi < size {
		return 0, false
	}
	base := (w.Hi - size) &^ (size - 1)
	if base < w.Lo || base+size > w.Hi {
		return 0, false
	}
	w.Hi = base
	return base, true
}

// Below lowers the window's top to under a range in use, [base, base+size), if that range lies
// inside the window: what the firmware assigned stays where it is, and new addresses go below
// it. Coarser than a free list, and enough: firmware that assigns anything assigns everything.
func (w *Window) Below(base, size uint64) {
	if size != 0 && base < w.Hi && base+size > w.Lo {
		w.Hi = max(w.Lo, base)
	}
}

// Keep lowers the window's top below every memory BAR of f that has an address (Below), reading
// the registers without sizing them: the enumeration calls it for every function, so that an
// address handed out later cannot land on a function the kernel does not drive. Boot.
func (w *Window) Keep(f Func) {
	n := maxBARs(f.HeaderType())
	for i := 0; i < n; i++ {
		lo := f.Read32(RegBAR0 + 4*uint16(i))
		if lo&barIO != 0 {
			continue
		}
		base := uint64(lo &^ 0xf)
		if lo&barMemType == barMem64 && i+1 < n {
			i++
			base |= uint64(f.Read32(RegBAR0+4*uint16(i))) << 32
		}
		if base != 0 {
			w.Below(base, 1)
		}
	}
}

// AssignBAR writes base into memory BAR i of f (and the upper half of a 64-bit one) with f's
// memory decoding off meanwhile, and returns the BAR as it reads back: Base is then base, or
// the assignment did not take (a read-only register, a 32-bit BAR given an address above 4 GiB)
// and Size is 0. Boot; the function must not be in use.
func AssignBAR(f Func, i int, base uint64) BAR {
	b, _ := ReadBAR(f, i)
	if b.Size == 0 || b.IO || (!b.Is64 && base>>32 != 0) {
		return BAR{}
	}
	off := RegBAR0 + 4*uint16(i)
	cmd := f.Command()
	if cmd&CmdMemory != 0 {
		f.SetCommand(cmd &^ CmdMemory)
	}
	lo := f.Read32(off)
	f.Write32(off, uint32(base)|lo&0xf) // the low four bits are the type, read-only
	if b.Is64 {
		f.Write32(off+4, uint32(base>>32))
	}
	if cmd&CmdMemory != 0 {
		f.SetCommand(cmd)
	}
	if nb, _ := ReadBAR(f, i); nb.Base == base {
		return nb
	}
	return BAR{}
}
