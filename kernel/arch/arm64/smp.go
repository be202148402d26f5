// The other cores: started through PSCI CPU_ON.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

import (
	"sync/atomic"
	"unsafe"

	"gmpos/kernel/mm"
)

// Secondary cores. On QEMU virt (and any machine with firmware implementing the Arm Power State
// Coordination Interface, DEN0022) the boot core asks the firmware to start each other core at a
// physical address: CPU_ON(target MPIDR, entry, context ID) (§5.6). The core arrives there as the
// boot core did — MMU off, at EL1 or EL2 — with x0 = the context ID, which is its CPU index here.
// secondaryEntry (entry_arm64.s) drops to EL1, loads the kernel's page table (the image is mapped
// at its physical address, so turning the MMU on changes nothing for the code running), and calls
// apMain on the core's boot stack. The Raspberry Pi's spin table starts cores the same way (UseSpinTable).
const (
	psciCPUOn64    = 0xc400_0003 // CPU_ON, SMC64 calling convention (DEN0022 §5.1.4)
	apBootStackLen = 16 << 10
)

var (
	// psciSMC says the firmware is reached with SMC (it runs at EL3 or EL2 above us), not HVC.
	psciSMC bool
	// cpuMPIDR lists the cores' MPIDR affinities as the board found them; ncpuDT how many.
	cpuMPIDR [MaxCPU]uint64
	ncpuDT   int
	// spinTable is the physical address of the spin table (0: start cores with PSCI): core n
	// waits at spinTable + 8n for an entry address (UseSpinTable).
	spinTable uintptr
	// kernelRoot is the page table secondary cores turn their MMU on with.
	kernelRoot uint64
	// apNext is the next CPU index to hand out (the boot core is 0).
	apNext int = 1
	// apBootStacks are the secondary cores' stacks until they move to guarded kernel stacks.
	apBootStacks [MaxCPU][apBootStackLen]byte
	// online counts cores that reached apMain, the boot core included.
	online atomic.Int32
)

// UsePSCI records the PSCI conduit and the cores, from the device tree's /psci and /cpus (the
// board calls it while probing). mpidrs[i] is core i's affinity (MPIDR_EL1's Aff fields).
func UsePSCI(smc bool, mpidrs []uint64) {
	psciSMC = smc
	ncpuDT = copy(cpuMPIDR[:], mpidrs)
}

// UseSpinTable records the spin table the firmware's cores wait on and how many cores there
// are: the Raspberry Pi's way to start them (the firmware's armstub8, and QEMU's raspi boot
// stub, hw/arm/raspi.c: core n loops on WFE until the 64-bit word at table + 8n is not zero,
// then branches there with the MMU off, at EL2; Linux Documentation/arch/arm64/booting.rst
// §5, "spin-table"). Core n is the one whose MPIDR Aff0 is n; the boot core is 0.
func UseSpinTable(table uintptr, n int) {
	spinTable = table
	ncpuDT = min(n, MaxCPU)
	for i := range ncpuDT {
		cpuMPIDR[i] = uint64(i)
	}
}

//go:linkname kernelAPMain gmpos/kernel.apMain
func kernelAPMain(cpu int)

// Defined in entry_arm64.s.
func secondaryEntry()
func secondaryEntryAddr() uintptr
func spinEntryAddr() uintptr

// PrepareCPUs counts the boot core online.
func PrepareCPUs() { online.Store(1) }

// SetKernelPageTable records the page table secondary cores load. They read it with the MMU
// and caches off, so the line is cleaned to the point of coherency (DC CVAC, D7.5.9): a
// write-back cache may still hold the new value.
func SetKernelPageTable(root uintptr) {
	kernelRoot = uint64(root)
	cleanToPoC(uintptr(unsafe.Pointer(&kernelRoot)))
}

// StartCPUs asks the firmware to start every listed core but this one, each with its CPU index.
// wait is not needed: CPU_ON returns once the request is accepted, and the kernel then waits for
// the cores to check in (Online).
func StartCPUs(wait func(ns int64)) {
	if spinTable != 0 {
		startSpinning()
		return
	}
	self := uint64(cpus[0].mpidr)
	entry := uint64(secondaryEntryAddr())
	for i := 0; i < ncpuDT && apNext < MaxCPU; i++ {
		if cpuMPIDR[i] == self {
			continue
		}
		idx := apNext
		apNext++
		cpus[idx].mpidr = uintptr(cpuMPIDR[i])
		var r uint64
		if psciSMC {
			r = smcCall(psciCPUOn64, cpuMPIDR[i], entry, uint64(idx))
		} else {
			r = hvcCall(psciCPUOn64, cpuMPIDR[i], entry, uint64(idx))
		}
		if r != 0 { // PSCI error (negative): that core stays off, and Online tells
			apNext--
		}
	}
}

// startSpinning releases cores 1..ncpuDT-1 from the spin table: each entry gets spinEntry's
// physical address, which derives the CPU index from MPIDR (the firmware passes x0 = 0). The
// waiting cores read the table with their caches off, so each entry is cleaned to the point of
// coherency before SEV wakes them (booting.rst §5). The table lies in RAM the kernel's direct
// map covers (the board keeps it out of the allocator, not out of the map).
func startSpinning() {
	entry := uint64(spinEntryAddr())
	for i := 1; i < ncpuDT; i++ {
		cpus[i].mpidr = uintptr(cpuMPIDR[i])
		va := mm.PhysToVirt(spinTable + 8*uintptr(i))
		*(*uint64)(ptr(va)) = entry
		cleanToPoC(va)
	}
	apNext = ncpuDT
	sev()
}

// Online is the number of cores that have started, the boot core included.
func Online() int { return int(online.Load()) }

// apMain is a secondary core's first Go code (called by secondaryEntry), on its boot stack with
// the MMU on and R28 = its kernel g.
func apMain(cpu int) {
	c := &cpus[cpu]
	c.id = uintptr(cpu)
	lo := uintptr(unsafe.Pointer(&apBootStacks[cpu][0]))
	c.setKernelStack(lo, lo+apBootStackLen)
	c.mpidr = uintptr(readMPIDR() & mpidrAffinity)
	InitInterrupts(nil)
	online.Add(1)
	kernelAPMain(cpu)
}
