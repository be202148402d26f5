// The Raspberry Pi board: the kernel's Board contract (kernel/board.go) for the Pi 3 and Pi 4.
// SPDX-License-Identifier: BSD-3-Clause

package rpi

import (
	"unsafe"

	"gmpos/kernel/mm"
)

// Board is a Raspberry Pi 3 Model B or 4 Model B as the kernel sees it. The kernel holds one,
// statically allocated; EarlyInit and Probe fill it in and it is read-only afterwards, except for
// the console (console.go). It holds no Go pointers, so no store into it needs a write barrier.
type Board struct {
	// Immutable after Probe:
	socID   int     // which SoC (soc.go): an index into socs, -1 before EarlyInit
	loc     locator // the image's locator (locator.go)
	ram     [mm.MaxRegions]mm.Region
	nram    int
	cmdline [len(cmdlinePrefix) + maxCmdline]byte // cmdlinePrefix, then module 2
	ncmd    int
	mods    [maxModules]struct{ pa, size uintptr } // physical ranges (size 0: none)
	con     console                                // console.go
}

const (
	// loadAddr is where the loader put the Image's first byte (the header page): kernel_address
	// in config.txt, text_offset for QEMU (docs/contract.md, "Raspberry Pi": -T 0x202000).
	loadAddr = 0x20_0000
	// maxCmdline is the longest command line the board keeps (the runner's limit, as on virt).
	maxCmdline = 4096
	// maxModules: the argument module, the initramfs, the command line.
	maxModules = 4
	// cores: the BCM2837 and BCM2711 both have four Cortex cores, started through the spin
	// table at spinTable (Linux arch/arm/boot/dts/broadcom/bcm2837.dtsi, cpu-release-addr
	// 0xd8, 0xe0, 0xe8, 0xf0).
	cores     = 4
	spinTable = 0xd8
	// lowReserved is kept out of the allocator: the firmware's stub and its spin table live in
	// the first page (QEMU's boot stub too, hw/arm/raspi.c), and the firmware's armstub on the
	// Pi 4 reaches further; everything below the old kernel address 0x8_0000 is left alone.
	lowReserved = 0x8_0000
)

// cmdlinePrefix stands for the image path the PC's Multiboot loader puts first on the command
// line, which the kernel's parseCmdline skips (kernel/cmdline.go; the virt board does the same).
const cmdlinePrefix = "rpi "

// Module indexes in the container (docs/contract.md, "Raspberry Pi").
const (
	modArgs    = 0
	modRoot    = 1
	modCmdline = 2
)

// RAM returns the usable RAM: the firmware's ARM memory (mailbox.go) minus lowReserved.
func (b *Board) RAM() []mm.Region { return b.ram[:b.nram] }

// Cmdline returns the kernel command line: cmdlinePrefix and the container's module 2.
func (b *Board) Cmdline() []byte { return b.cmdline[:b.ncmd] }

// BootModule is module i of the appended container (0 the argument module, 1 the initramfs).
func (b *Board) BootModule(i int) (pa, size uintptr) {
	if i < 0 || i >= modCmdline {
		return 0, 0
	}
	return b.mods[i].pa, b.mods[i].size
}

// Cores is the SoC's four cores.
func (b *Board) Cores() int { return cores }

// soc returns the SoC EarlyInit found (bcm2837 if none: its addresses are harmless to read
// on either board only as far as the console goes, and Probe refuses an unknown core).
func (b *Board) soc() *socInfo {
	if b.socID < 0 || b.socID >= len(socs) {
		return &socs[0]
	}
	return &socs[b.socID]
}

// ptr turns a physical address of the early identity map (or a device register) into a
// pointer the garbage collector must not follow; see board/virt's.
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// physBytes is the n bytes at physical address pa, through the early identity map. Boot only.
func physBytes(pa, n uintptr) []byte { return unsafe.Slice((*byte)(ptr(pa)), n) }
