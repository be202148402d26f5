package mm

import (
	"testing"
	"unsafe"
)

// Hosted "machine": physical addresses 0..arenaSize are backed by a Go byte
// slice, reached through SetPhysOffset. The arena is kept in a global so the
// GC never frees it while the package reaches it through uintptrs.
const arenaSize = 48 << 20

var arena []byte

// testRAM has a hole at 16..32 MiB (above lowDirectMap) so the direct map
// must skip it.
var testRAM = []Region{
	{Base: 2 << 20, Len: 14 << 20},
	{Base: 32 << 20, Len: 16 << 20},
}

// testImage looks like a Go binary linked at 1 MiB: text, rodata, data+bss.
var testImage = []Segment{
	{Vaddr: 0x100000, Memsz: 0x3500, Flags: PF_R | PF_X},
	{Vaddr: 0x104000, Memsz: 0x2000, Flags: PF_R},
	{Vaddr: 0x106000, Memsz: 0x1800, Flags: PF_R | PF_W},
}

var flushes, flushAlls int

func setPhysArena() {
	if arena == nil {
		arena = make([]byte, arenaSize+PageSize)
	}
	base := uintptr(unsafe.Pointer(&arena[0]))
	aligned, _ := alignUp(base, PageSize)
	SetPhysOffset(aligned)
}

// boot resets everything and builds a kernel space over ram.
func boot(t testing.TB, ram []Region) PageTable {
	t.Helper()
	setPhysArena()
	FlushTLB = func(root, va uintptr) { flushes++ }
	FlushAll = func(root uintptr) { flushAlls++ }
	if n := Init(ram); n != len(ram) {
		t.Fatalf("Init used %d regions, want %d", n, len(ram))
	}
	pt, err := BuildKernelSpace(ram, testImage)
	if err != OK {
		t.Fatalf("BuildKernelSpace: %v", err)
	}
	return pt
}

// access simulates a CPU access from CPL3: if the page table does not grant
// it, it "traps" into HandleFault and retries once, like the hardware
// re-executing the instruction. On success a write stores val at va and a
// read returns the byte at va.
func access(as *AddressSpace, va uintptr, write bool, val byte) (byte, bool, int) {
	for try := 0; try < 2; try++ {
		pa, fl, ok := as.PT.Lookup(va)
		if ok && satisfies(fl, write, false) {
			p := (*byte)(ptrAt(PhysToVirt(pa)))
			if write {
				*p = val
			}
			return *p, true, 0
		}
		if try == 1 {
			break
		}
		if ok, code := as.HandleFault(va, write, false, true); !ok {
			return 0, false, code
		}
	}
	return 0, false, -100 // fault "resolved" but the page still does not grant access
}

func mustMmap(t testing.TB, addr, length uintptr, prot, flags uint32) uintptr {
	t.Helper()
	a, err := Space.Mmap(addr, length, prot, flags, -1, 0)
	if err != OK {
		t.Fatalf("Mmap(%#x, %#x, %d, %#x) = %v", addr, length, prot, flags, err)
	}
	return a
}

const anon = MAP_PRIVATE | MAP_ANONYMOUS

func vmaList(as *AddressSpace) []VMA {
	var l []VMA
	for i := 0; ; i++ {
		v, ok := as.VMA(i)
		if !ok {
			return l
		}
		l = append(l, v)
	}
}
