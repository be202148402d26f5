// The arm64 address-space layout: the x86-64 one, through one root in TTBR0_EL1 and TTBR1_EL1.
// SPDX-License-Identifier: BSD-3-Clause

package mm

// The virtual layout is the x86-64 one (the memory map in doc.go), so that
// the kernel, the runner and the tests see the same addresses on both.
// kernel/arch/arm64 loads one root into both TTBR0_EL1 and TTBR1_EL1 with
// T0SZ = T1SZ = 16 (48-bit ranges) and top-byte-ignore off. A TTBR1 walk
// indexes L0 with VA bits 47:39 exactly like a TTBR0 walk (DDI 0487 K.a,
// D8.2 "Translation process"), so the root's slots 256..511 serve the upper
// range [0xffff_8000_0000_0000, 2^64) just as x86's PML4 upper half does,
// and slots 0..255 the user range below 2^47. The price: user space ends at
// 2^47 (Linux arm64 with 48-bit VAs allows 2^48; the Go runtime's hints stay
// far below either).

// canonical reports whether va can be mapped: bits 63:47 all equal. The
// hardware translates more — every address whose bits 63:48 are all 0 or
// all 1 — but with the shared root 0x0000_8000_0000_0000..0x0000_ffff_ffff_ffff
// would alias the kernel half (slots 256..511 through TTBR0) and
// 0xffff_0000_0000_0000..0xffff_7fff_ffff_ffff the user half; mm treats
// both like x86's non-canonical hole (never mapped, SEGV_MAPERR, above
// UserEnd for every user check). An EL0 access there still finds the
// kernel half's supervisor-only entries and faults. See vmsaCanonical.
func canonical(va uintptr) bool { return vmsaCanonical(va) }

// User address-space layout.
const (
	// UserEnd is one past the last user address: 2^47 minus one guard
	// page, the x86-64 TASK_SIZE. It must stay at or below 2^47 (see
	// above); the guard page keeps a user instruction or access that runs
	// off the end from reaching the aliasing range.
	UserEnd uintptr = 0x7fff_ffff_f000
	// MmapBase is where the top-down search for free ranges starts: 1 TiB
	// below UserEnd, leaving the top for the initial stack.
	MmapBase uintptr = 0x7f00_0000_0000
	// ExecBase and ExecEnd bound the exec region (process.go,
	// kernel/proc.go): whole L0 slots (512 GiB each), as on x86.
	ExecBase uintptr = 0x2000_0000_0000
	ExecEnd  uintptr = 0x3000_0000_0000
)

// Kernel half (TTBR1_EL1's range).
const (
	// DirectMapBase is where all physical RAM appears: virtual
	// DirectMapBase+pa maps physical pa (EL1 RW, XN, global, Normal
	// Write-Back). L0 slot 256, the start of the TTBR1 range.
	DirectMapBase uintptr = 0xffff_8000_0000_0000
	// KernelStackBase is where the kernel stacks start (L0 slot 384).
	KernelStackBase uintptr = 0xffff_c000_0000_0000
)

// lowDirectMap is 0: no physical memory is direct mapped unless it is RAM.
// On a PC the low 16 MiB hold the multiboot data and are RAM or harmless
// legacy ranges. Here the low addresses are either devices (the QEMU virt
// machine: flash at 0, the GIC at 0x0800_0000, the PL011 at 0x0900_0000,
// RAM from 0x4000_0000) or RAM (the Raspberry Pi: RAM from 0, peripherals
// at 0x3f00_0000 or 0xfe00_0000), and a Normal Write-Back mapping of device
// registers is worse than on x86: the CPU may read Normal memory
// speculatively, and the registers would have two memory types (DDI 0487
// B2, "Mismatched memory attributes"). The boot data an arm64 loader hands
// over — the device tree, the spin table — lies in RAM: it stays readable
// at PhysToVirt after the switch when its 2 MiB chunk overlaps a region of
// the list given to BuildKernelSpace (which may name RAM that Init was not
// given); otherwise the board reads it before the switch.
const lowDirectMap = 0
