// The boot core's first Go code, the early machine state, and the loader's hand-off.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

import (
	"unsafe"

	"gmpos/kernel/mm"
)

// Early machine state, programmed by entry_arm64.s before the first line of Go (the MMU must be
// on first: with it off every data access is Device memory, where the unaligned accesses Go's
// code makes fault — ARM ARM D8.2.10 "Behavior of accesses when stage 1 translation is disabled").
const (
	// MAIR_EL1 (D17.2.97): the memory types kernel/mm's descriptors index — attribute 0 Normal
	// write-back read/write-allocate, 1 Device-nGnRE, 2 Normal non-cacheable — taken from mm, so
	// the two cannot disagree.
	mairValue = mm.MAIRValue

	// TCR_EL1 (D17.2.131): T0SZ = T1SZ = 16 (48-bit halves), 4 KiB granules (TG0 = 0b00, TG1 =
	// 0b10), walks inner/outer write-back cacheable (IRGNn = ORGNn = 0b01) and inner shareable
	// (SHn = 0b11); IPS (bits 34:32) is filled from ID_AA64MMFR0_EL1.PARange at boot. 8-bit
	// ASIDs, none used: SetPageTable flushes the TLB (mmu.go).
	tcrValue = 16 | 1<<8 | 1<<10 | 3<<12 | 0<<14 | 16<<16 | 1<<24 | 1<<26 | 3<<28 | 2<<30

	// SCTLR_EL1 (D17.2.118): M (MMU), C and I (caches), SA and SA0 (SP alignment checks), EOS
	// and EIS (exceptions are context synchronizing), DZE (EL0 may DC ZVA, as Go's memclr does),
	// UCT (EL0 may read CTR_EL0), nTWI and nTWE (EL0 WFI/WFE not trapped), SPAN = 1 (entering
	// EL1 does not set PSTATE.PAN: the kernel reads user memory directly), UCI (EL0 cache
	// maintenance), and the RES1 bits 20, 28, 29. A (alignment faults) and WXN stay 0.
	sctlrValue = 1<<0 | 1<<2 | 1<<3 | 1<<4 | 1<<11 | 1<<12 | 1<<14 | 1<<15 | 1<<16 | 1<<18 |
		1<<20 | 1<<22 | 1<<23 | 1<<26 | 1<<28 | 1<<29

	// CPACR_EL1.FPEN = 0b11 (D17.2.30): FP/SIMD instructions run at EL1 and EL0 untrapped.
	cpacrValue = 3 << 20

	// CNTKCTL_EL1.EL0VCTEN (D17.2.20): EL0 may read CNTVCT_EL0, the counter the vDSO reads.
	cntkctlValue = 1 << 1

	// The early identity map's block descriptors (D8.3.1), 1 GiB at L1 and 2 MiB at L2, without
	// their address: valid block (0b01), AttrIndx, AF (bit 10); Normal memory inner shareable
	// (SH = 0b11), Device memory never executable (PXN bit 53, UXN bit 54). Which GiB is which
	// is the board's (early_virt.go, early_rpi.go: earlyGiB0-3, earlySplit).
	earlyNormal = 1 | 0<<2 | 3<<8 | 1<<10
	earlyDevice = 1 | 1<<2 | 1<<10 | 1<<53 | 1<<54

	bootStackSize = 65536
)

// earlyPT holds the early L0, L1 and L2 tables (4 KiB-aligned inside it by entry_arm64.s: three
// tables and the slack to align them).
var earlyPT [4 * 512]uint64

// bootStack is the boot core's kernel stack until the kernel maps guarded stacks (kernel/mm).
var bootStack [bootStackSize]byte

// bootDTB is the device tree's physical address, as the loader left it in x0.
var bootDTB uintptr

// Defined in entry_arm64.s.
func entry()
func el1()

// kmain is the first Go code (called by entry): boot stack, MMU on, interrupts masked, before
// the Go runtime exists.
func kmain() {
	c := &cpus[0]
	lo := uintptr(unsafe.Pointer(&bootStack[0]))
	c.setKernelStack(lo, lo+uintptr(len(bootStack)))
	c.mpidr = uintptr(readMPIDR() & mpidrAffinity)
	kernelMain()
}

// BootDTB returns the physical address of the flattened device tree the loader passed (x0 at
// entry, Linux booting.rst §4). The board (kernel/board/virt) parses it.
func BootDTB() uintptr { return bootDTB }

// mpidrAffinity keeps Aff3 (bits 39:32) and Aff2..Aff0 (23:0) of MPIDR_EL1 (D17.2.101).
const mpidrAffinity = 0xff_00ff_ffff
