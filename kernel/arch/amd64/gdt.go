package amd64

import "unsafe"

// gdt is shared by all cores except for the TSS descriptor, which must be per core because LTR marks
// a descriptor busy. Layout (SDM Vol. 3A §3.4.5, §5.2.1 for the L bit; §5.8.8 for the order SYSRET and
// SYSCALL expect from IA32_STAR):
//
//	0x00 null
//	0x08 kernel code, 64-bit        (STAR[47:32] = 0x08 → SYSCALL CS, and SS = 0x10)
//	0x10 kernel data
//	0x18 user code, 32-bit (unused) (STAR[63:48] = 0x18 → SYSRET SS = 0x20|3, CS = 0x28|3)
//	0x20 user data
//	0x28 user code, 64-bit
//	0x30 TSS of this core (16-byte system descriptor)
type gdtTable [8]uint64

// tss is the 64-bit Task State Segment (SDM Vol. 3A §8.7, Figure 8-11). Its 64-bit fields sit at
// 4-byte offsets, so it is kept as 32-bit words.
type tss [26]uint32

// Per-core descriptor tables.
var (
	gdts [MaxCPU]gdtTable
	tsss [MaxCPU]tss
)

// istStacks are the Interrupt Stack Table stacks: IST1 for #DF (a kernel stack overflow faults on
// the guard page and the CPU could not push the #PF frame on the same stack), IST2 for NMI and #MC.
var istStacks [MaxCPU][2][8192]byte

// descPtr is the 10-byte operand of LGDT/LIDT.
type descPtr struct {
	limit uint16
	base  [4]uint16 // unaligned 64-bit base
}

func (d *descPtr) set(base uintptr, limit int) {
	d.limit = uint16(limit - 1)
	for i := range d.base {
		d.base[i] = uint16(base >> (16 * i))
	}
}

var gdtPtrs [MaxCPU]descPtr

// setTSSWord64 stores a 64-bit TSS field at a 4-byte-aligned offset.
//
// nosplit: Enter calls it (through setRSP0) while it switches stacks; see Enter.
//
//go:nosplit
func setTSSWord64(t *tss, off int, v uint64) {
	t[off/4] = uint32(v)
	t[off/4+1] = uint32(v >> 32)
}

// loadGDT installs core id's GDT and TSS and loads the segment registers.
func loadGDT(id int) {
	g := &gdts[id]
	g[0] = 0
	g[1] = 0x00af9a000000ffff // kernel code: P, DPL0, code, readable, L
	g[2] = 0x00cf92000000ffff // kernel data: P, DPL0, data, writable
	g[3] = 0x00cffa000000ffff // user code 32: P, DPL3
	g[4] = 0x00cff2000000ffff // user data: P, DPL3
	g[5] = 0x00affa000000ffff // user code 64: P, DPL3, L

	t := &tsss[id]
	setTSSWord64(t, 4, uint64(cpus[id].kstackTop))                               // RSP0
	setTSSWord64(t, 36, uint64(uintptr(unsafe.Pointer(&istStacks[id][0]))+8192)) // IST1
	setTSSWord64(t, 44, uint64(uintptr(unsafe.Pointer(&istStacks[id][1]))+8192)) // IST2
	t[25] = uint32(unsafe.Sizeof(*t)) << 16                                      // I/O map base: none

	base := uint64(uintptr(unsafe.Pointer(t)))
	limit := uint64(unsafe.Sizeof(*t) - 1)
	// §8.2.3 TSS descriptor in 64-bit mode: type 9 (available 64-bit TSS), P.
	g[6] = limit&0xffff | (base&0xffffff)<<16 | 0x89<<40 | (limit>>16&0xf)<<48 | (base>>24&0xff)<<56
	g[7] = base >> 32

	gdtPtrs[id].set(uintptr(unsafe.Pointer(g)), int(unsafe.Sizeof(*g)))
	lgdt(uintptr(unsafe.Pointer(&gdtPtrs[id])))
	reloadSegments()
	ltr(tssSel)
}

// setRSP0 changes the stack the CPU switches to on an interrupt from CPL 3.
//
// nosplit: Enter calls it while it switches stacks; see Enter.
//
//go:nosplit
func setRSP0(id int, top uintptr) { setTSSWord64(&tsss[id], 4, uint64(top)) }
