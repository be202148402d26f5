// The virt board: the kernel's Board contract (kernel/board.go) for QEMU's arm64 virt machine.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import (
	"unsafe"

	"gmpos/drivers/pci"
	"gmpos/kernel/board/internal/reccon"
	"gmpos/kernel/mm"
)

// Board is QEMU's virt machine as the kernel sees it. The kernel holds one, statically
// allocated; Probe fills it in from the device tree at boot and it is read-only afterwards,
// except for the console (console.go: its write flag is atomic, its input state protected by
// the kernel's BKL). It holds no Go pointers — addresses are uintptrs — so that no store into
// it needs a write barrier (kernel/doc.go, "Contexts").
type Board struct {
	// Immutable after Probe:
	ram     [mm.MaxRegions]mm.Region // usable RAM, reservations removed (memory.go)
	nram    int
	cmdline [len(cmdlinePrefix) + maxCmdline]byte // cmdlinePrefix, then /chosen's bootargs
	ncmd    int
	initrd  struct{ pa, size uintptr }             // the loader's initrd: the module container (modules.go)
	mods    [maxModules]struct{ pa, size uintptr } // physical ranges (size 0: none)
	ncpu    int
	mpidr   [maxCores]uint64 // each core's MPIDR affinity (its /cpus reg); the boot core first
	psci    PSCI
	gic     gicInfo        // the interrupt controller (devicetree.go, gic_arm64.go)
	rtc     uintptr        // the PL031's registers (clock.go), 0 if none
	pcie    pcieInfo       // the ECAM host bridge (pci.go)
	con     reccon.Console // the PL011 and its channels (console.go)
	ecam    pci.ECAM       // the window PCIConfig mapped; PCIConfig hands out a pointer to it
	msi     msiInfo        // the GICv2m frame's or the ITS's lines (msi.go), set by InitIRQ
	its     itsState       // the ITS (its_arm64.go)
}

// Limits of what the board keeps from the device tree.
const (
	// maxCores is how many processors' MPIDRs are kept: more than QEMU's virt offers with
	// GICv2 (8) and than any arm64 MaxCPU the kernel is likely to choose.
	maxCores = 64
	// maxCmdline is the longest bootargs: the runner refuses a longer command line
	// (docs/contract.md, "Kernel command line").
	maxCmdline = 4096
)

// cmdlinePrefix stands for the image path that a Multiboot loader puts first on the PC's
// command line and that the kernel's parseCmdline skips (kernel/cmdline.go); QEMU's Linux
// loader passes -append as it is, in /chosen's bootargs. See doc.go, "Command line".
const cmdlinePrefix = "virt "

// RAM returns the usable RAM regions: the device tree's /memory nodes minus its memory
// reservations (the header's block and /reserved-memory). The kernel removes its own image and
// the boot modules.
func (b *Board) RAM() []mm.Region { return b.ram[:b.nram] }

// Cmdline returns the kernel command line: cmdlinePrefix and /chosen's bootargs.
func (b *Board) Cmdline() []byte { return b.cmdline[:b.ncmd] }

// BootModule is module i of the initrd's container (docs/contract.md, "arm64": 0 the runner's
// argument module, 1 the initramfs), as a physical range; size 0 if there is none.
func (b *Board) BootModule(i int) (pa, size uintptr) {
	if i < 0 || i >= len(b.mods) {
		return 0, 0
	}
	return b.mods[i].pa, b.mods[i].size
}

// Cores is the number of processors under /cpus (status "okay"), at most maxCores.
func (b *Board) Cores() int { return b.ncpu }

// CPUMPIDR returns core i's MPIDR affinity fields as /cpus lists them — the target of PSCI
// CPU_ON (Aff3 in bits 39:32, Aff2-Aff0 in bits 23:0, ARM ARM D19.2 MPIDR_EL1). Core 0 is the
// boot core (the header's boot_cpuid_phys). 0 past the last core.
func (b *Board) CPUMPIDR(i int) uint64 {
	if i < 0 || i >= b.ncpu {
		return 0
	}
	return b.mpidr[i]
}

// PSCI is how the firmware's Power State Coordination Interface is called (DEN 0022, §5.2:
// the conduit).
type PSCI uint8

const (
	PSCINone PSCI = iota // no /psci node: secondary cores cannot be started this way
	PSCIHVC              // hvc #0: QEMU without EL2 (its default), firmware at EL2
	PSCISMC              // smc #0: firmware at EL3 (QEMU with virtualization=on, secure=on)
)

// PSCIMethod returns the conduit /psci's method names.
func (b *Board) PSCIMethod() PSCI { return b.psci }

// ptr turns a physical address of the boot identity map (or a device register address) into a
// pointer; the memory is never a Go heap object, so the garbage collector must not see it as
// one. The double conversion keeps go vet's unsafeptr check quiet about the deliberate cast.
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// physBytes is the n bytes at physical address pa, read through the boot identity map. Probe
// only, and only for ranges it has checked lie in RAM the early map covers (probe_arm64.go).
func physBytes(pa, n uintptr) []byte { return unsafe.Slice((*byte)(ptr(pa)), n) }
