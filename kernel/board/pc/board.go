// The PC board: the kernel's Board contract (kernel/board.go) for QEMU q35/pc.
// SPDX-License-Identifier: BSD-3-Clause

package pc

import (
	"gmpos/kernel/arch/amd64"
	"gmpos/kernel/mm"
)

// Board is the PC as the kernel sees it. The kernel holds one, statically allocated; Probe fills
// it in at boot and it is read-only afterwards, except for the interrupt routing (ioapic.go),
// which is protected by the kernel's big kernel lock.
type Board struct {
	// Immutable after Probe:
	ram     [mm.MaxRegions]mm.Region // usable RAM from the loader, low MiB removed
	nram    int
	cmdline [4096]byte // the loader's command line, copied out of its memory
	ncmd    int
	mods    [2]struct{ pa, len uintptr } // the first Multiboot modules: physical ranges (len 0: none)
	madt    madt                         // processors and interrupt wiring (acpi.go)

	// Protected by the BKL:
	ioapics ioapicSet // the I/O APICs, mapped (ioapic.go)
}

// Probe reads the loader's and the firmware's hand-off: the Multiboot information (memory map,
// command line) and the ACPI MADT (processors, I/O APICs). It must run on the boot identity map,
// before the kernel's page tables are loaded. ok is false, with a reason, if there is no memory
// map to run on.
func (b *Board) Probe() (ok bool, why string) {
	magic, info := amd64.MultibootInfo()
	if !b.parseMultiboot(magic, info) {
		return false, "no multiboot memory map (was the image loaded by a multiboot loader?)"
	}
	b.madt.parse()
	return true, ""
}

// RAM returns the usable RAM regions: the loader's available memory minus the first MiB, which
// holds the firmware's data, the boot page tables and the application processors' trampoline
// (boot_amd64.h). The kernel removes its own image.
func (b *Board) RAM() []mm.Region { return b.ram[:b.nram] }

// Cmdline returns the kernel command line as the loader passed it.
func (b *Board) Cmdline() []byte { return b.cmdline[:b.ncmd] }

// Cores is the number of enabled processors in the MADT, or 0 if the firmware has no MADT (the
// kernel then counts the cores that answer the start-up IPIs).
func (b *Board) Cores() int { return b.madt.cpus }

// MapDevices has nothing to map: the PC's console and clocks are I/O ports.
func (b *Board) MapDevices(func(pa, size uintptr) bool) bool { return true }

// peek32/peek64 read physical memory through the boot identity map (Probe only).
func peek32(pa uintptr) uint32 { return *(*uint32)(ptr(pa)) }
func peek64(pa uintptr) uint64 { return *(*uint64)(ptr(pa)) }
func peek8(pa uintptr) uint8   { return *(*uint8)(ptr(pa)) }

// BootModule is module i the loader placed in memory (docs/contract.md: 0 the runner's
// argument module, 1 the initramfs), as a physical range; size 0 if there is none.
func (b *Board) BootModule(i int) (pa, size uintptr) {
	if i < 0 || i >= len(b.mods) {
		return 0, 0
	}
	return b.mods[i].pa, b.mods[i].len
}
