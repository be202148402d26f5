// Boot: the console at entry, then the device tree and the initrd the loader handed over.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import (
	"gmpos/drivers/fdt"
	"gmpos/kernel/arch/arm64"
)

// maxDTB bounds the tree Probe will look at: Linux's limit (MAX_FDT_SIZE, 2 MiB). QEMU's is
// 1 MiB with its padding.
const maxDTB = 2 << 20

// EarlyInit brings up the console and announces the kernel: the raw start marker, then an
// "entry" record on the control channel. It runs first, before Probe, so it finds the UART in
// the tree itself (findConsole: stdout-path, else the first PL011) and falls back to virt's
// fixed address if the tree is unusable — Probe will say why. Boot.
func (b *Board) EarlyInit() {
	base := uintptr(virtUART)
	if blob, why := dtbBytes(arm64.BootDTB()); why == "" {
		if t, why := fdt.Open(blob); why == "" {
			base = findConsole(&t)
		}
	}
	b.con.UART.Base = base
	b.con.IRQ = -1
	b.con.UART.Init(0, 0) // QEMU's PL011 does not pace bytes: the divisors do not matter
	b.con.Start()
}

// Probe reads the device tree the loader passed in x0 (arm64.BootDTB) and the module
// container of the initrd it names, and tells the CPU package where the GIC is and how to start
// the other cores (PSCI's conduit and their MPIDRs). It runs on the
// early identity map; everything it keeps is copied into b, so neither the tree nor the
// container's table is needed afterwards. ok false, with the reason, for a tree that cannot
// be read or a container that is not valid.
func (b *Board) Probe() (ok bool, why string) {
	blob, why := dtbBytes(arm64.BootDTB())
	if why != "" {
		return false, why
	}
	t, why := fdt.Open(blob)
	if why != "" {
		return false, why
	}
	if why := b.readTree(&t); why != "" {
		return false, why
	}
	if b.initrd.size > 0 {
		// readChosen checked that the initrd lies in RAM below 4 GiB; only the table is read.
		table := physBytes(b.initrd.pa, min(b.initrd.size, modMaxTable))
		if why := b.setModules(b.initrd.pa, table, uint64(b.initrd.size)); why != "" {
			return false, why
		}
	}
	switch b.gic.version {
	case 2:
		arm64.UseGICv2(b.gic.dist, b.gic.cpu)
	case 3:
		arm64.UseGICv3(b.gic.dist, b.gic.cpu)
	}
	if b.psci != PSCINone {
		arm64.UsePSCI(b.psci == PSCISMC, b.mpidr[:b.ncpu]) // copied: nothing of b is kept
	}
	return true, ""
}

// dtbBytes returns the tree at physical address pa as bytes, after checking that its header
// and all of it lie in the RAM of the early map (1-4 GiB): a wild x0 gives a reason, not a
// fault. The tree is 8-byte aligned (devicetree specification §5.1).
func dtbBytes(pa uintptr) ([]byte, string) {
	if pa%8 != 0 || pa < earlyDeviceEnd || pa > earlyRAMEnd-fdt.HeaderSize {
		return nil, "no device tree in RAM below 4 GiB at x0 (was the kernel booted as a Linux Image?)"
	}
	n := uintptr(fdt.TotalSize(physBytes(pa, fdt.HeaderSize)))
	if n < fdt.HeaderSize || n > maxDTB || pa+n > earlyRAMEnd {
		return nil, "device tree: bad magic or size at x0"
	}
	return physBytes(pa, n), ""
}
