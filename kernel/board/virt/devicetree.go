// The device tree: what Probe keeps of it.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import (
	"gmpos/drivers/fdt"
	"gmpos/drivers/pl011"
)

// QEMU builds the virt machine's tree in hw/arm/virt.c (create_fdt and the create_* functions
// of each device); drivers/fdt/testdata/virt.dtb is one, dumped. The board reads, all from the
// root's children (virt has no /soc bus, so reg addresses are physical):
//
//	/memory@*            reg, in the root's #address-cells/#size-cells (2/2)  → RAM (memory.go)
//	/reserved-memory/*   reg                                                   → out of RAM
//	/chosen              bootargs, linux,initrd-start/-end (u32 or u64)       → Cmdline, modules
//	/cpus/cpu@*          reg (MPIDR affinity, /cpus #address-cells 1 or 2)   → Cores, CPUMPIDR
//	/psci                method "hvc" | "smc"                                  → PSCIMethod
//	/intc@*              "arm,cortex-a15-gic" (GICv2: reg distributor, CPU interface) or
//	                     "arm,gic-v3" (reg distributor, redistributor region)  → gic_arm64.go
//	/intc@*/v2m@*        "arm,gic-v2m-frame": reg, in the GIC node's cells (GICv2)  → msi.go
//	/intc@*/its@*        "arm,gic-v3-its": reg, in the GIC node's cells (GICv3)      → its.go
//	/pl011@*             "arm,pl011": reg, interrupts (the console, console.go)
//	/pl031@*             "arm,pl031": reg (the wall clock, clock.go)
//	/pcie@*              "pci-host-ecam-generic": reg (ECAM), bus-range, ranges (pci.go)
//
// Interrupts of devices are <type number flags> cells of the GIC binding (#interrupt-cells 3;
// Linux Documentation/devicetree/bindings/interrupt-controller/arm,gic.yaml): type 0 an SPI,
// number its index — the board's interrupt line — flags the trigger (4: level, high).

// The early identity map the arch's entry code builds (kernel/arch/arm64): physical 0-1 GiB,
// where virt's devices are, as Device memory, and 1-4 GiB, where its RAM starts, as Normal
// memory. What Probe reads (the tree, the container's table) and the UART before the kernel's
// page tables exist must lie in it.
const (
	earlyDeviceEnd = 1 << 30
	earlyRAMEnd    = 4 << 30
)

// virtUART is the PL011 of virt's fixed memory map (hw/arm/virt.c base_memmap[VIRT_UART]): the
// console EarlyInit uses when the device tree does not name one it can use.
const virtUART = 0x0900_0000

// gicInfo is the GIC the tree describes.
type gicInfo struct {
	version       int     // 2 or 3; 0: none found
	dist, distLen uintptr // the distributor
	cpu, cpuLen   uintptr // GICv2: the CPU interface; GICv3: the redistributors to map
	v2m           uintptr // GICv2m MSI frame (msi.go), 0 if none
	its           uintptr // GICv3 ITS (its.go), 0 if none
}

// GIC register frames (GICv3 architecture specification, IHI 0069, §12.10: each
// redistributor is RD_base and SGI_base, 64 KiB each; GICv4 adds two more, which the tree
// says with redistributor-stride).
const gicv3RedistStride = 0x20000

// gicVersion returns 2 or 3 for a node compatible with a GIC this board drives, else 0: QEMU
// virt's two (gic-version=2, the default, and 3) and the Pi 4's GIC-400, a GICv2.
func gicVersion(t *fdt.Tree, n fdt.Node) int {
	switch {
	case t.Compatible(n, "arm,gic-v3"):
		return 3
	case t.Compatible(n, "arm,cortex-a15-gic"), t.Compatible(n, "arm,gic-400"):
		return 2
	}
	return 0
}

// readTree fills the board in from the tree: everything but the modules, whose container the
// caller reads (it lives outside the tree). why is the reason the tree cannot be booted on:
// no usable RAM, a malformed property of a node the board needs, no GIC.
func (b *Board) readTree(t *fdt.Tree) (why string) {
	root := t.Root()
	ac, ok1 := t.AddressCells(root)
	sc, ok2 := t.SizeCells(root)
	if !ok1 || !ok2 || ac > 2 || sc < 1 || sc > 2 {
		return "device tree: root #address-cells or #size-cells not 1 or 2"
	}

	// Memory, then what is reserved of it.
	for n, ok := t.FirstChild(root); ok; n, ok = t.Next(n) {
		if dt, _ := t.Prop(n, "device_type"); !fdt.NameIs(t.Name(n), "memory") && !fdt.HasString(dt, "memory") {
			continue
		}
		reg, _ := t.Prop(n, "reg")
		for i := 0; ; i++ {
			base, size, ok := fdt.Reg(reg, ac, sc, i)
			if !ok {
				break
			}
			b.addRAM(base, size)
		}
	}
	for i := 0; ; i++ {
		base, size, ok := t.Reserved(i)
		if !ok {
			break
		}
		b.reserve(base, size)
	}
	if rm, ok := t.Child(root, "reserved-memory"); ok {
		rac, ok1 := t.AddressCells(rm)
		rsc, ok2 := t.SizeCells(rm)
		for n, ok := t.FirstChild(rm); ok && ok1 && ok2; n, ok = t.Next(n) {
			reg, _ := t.Prop(n, "reg")
			for i := 0; ; i++ {
				base, size, ok := fdt.Reg(reg, rac, rsc, i)
				if !ok {
					break
				}
				b.reserve(base, size)
			}
		}
	}
	if b.nram == 0 {
		return "device tree: no usable RAM in its /memory nodes"
	}

	if why := b.readChosen(t, root); why != "" {
		return why
	}
	b.readCPUs(t, root)
	if psci, ok := t.Child(root, "psci"); ok {
		switch m, _ := t.Prop(psci, "method"); {
		case fdt.HasString(m, "hvc"):
			b.psci = PSCIHVC
		case fdt.HasString(m, "smc"):
			b.psci = PSCISMC
		}
	}

	// The interrupt controller: the root's child that is a GIC this board drives.
	var gic fdt.Node = -1
	for n, ok := t.FirstChild(root); ok; n, ok = t.Next(n) {
		if v := gicVersion(t, n); v != 0 {
			gic, b.gic.version = n, v
			break
		}
	}
	if gic < 0 {
		return "device tree: no GICv2 or GICv3 interrupt controller"
	}
	reg, _ := t.Prop(gic, "reg")
	d, dl, ok1 := fdt.Reg(reg, ac, sc, 0)
	c, cl, ok2 := fdt.Reg(reg, ac, sc, 1)
	if !ok1 || !ok2 || dl == 0 || cl == 0 || d+dl < d || c+cl < c {
		return "device tree: the GIC's reg lacks the distributor or the CPU interface/redistributors"
	}
	if b.gic.version == 3 {
		stride := uint64(gicv3RedistStride)
		if v, ok := t.Prop(gic, "redistributor-stride"); ok {
			if s, ok := fdt.Number(v); ok && s != 0 && s <= 1<<20 { // GICv4: 256 KiB
				stride = s
			}
		}
		if need := stride * uint64(max(b.ncpu, 1)); need < cl {
			cl = need
		}
	}
	b.gic.dist, b.gic.distLen, b.gic.cpu, b.gic.cpuLen = uintptr(d), uintptr(dl), uintptr(c), uintptr(cl)
	if cells, _ := t.Prop(gic, "#interrupt-cells"); !isU32(cells, 3) {
		return "device tree: the GIC's #interrupt-cells is not 3"
	}

	if b.gic.version == 2 {
		b.gic.v2m = gicChild(t, gic, "arm,gic-v2m-frame", 0x1000)
	} else {
		b.gic.its = gicChild(t, gic, "arm,gic-v3-its", itsFrameSize)
	}

	b.readConsole(t, root, gic, ac, sc)
	for n, ok := t.FirstChild(root); ok; n, ok = t.Next(n) {
		if t.Compatible(n, "arm,pl031") && b.rtc == 0 {
			reg, _ := t.Prop(n, "reg")
			if a, s, ok := fdt.Reg(reg, ac, sc, 0); ok && s != 0 {
				b.rtc = uintptr(a)
			}
		}
		if t.Compatible(n, "pci-host-ecam-generic") && !b.pcie.valid {
			b.pcie.read(t, n, ac, sc)
		}
	}
	return ""
}

// readChosen reads /chosen: the command line and where the initrd is. The initrd must lie in
// RAM the early map covers (Probe reads its table): anything else is refused with a reason.
func (b *Board) readChosen(t *fdt.Tree, root fdt.Node) string {
	b.ncmd = copy(b.cmdline[:], cmdlinePrefix)
	chosen, ok := t.Child(root, "chosen")
	if !ok {
		return ""
	}
	if v, ok := t.Prop(chosen, "bootargs"); ok {
		args, ok := fdt.String(v)
		if !ok {
			return "device tree: /chosen bootargs is not a string"
		}
		if len(args) > maxCmdline {
			return "kernel command line longer than 4096 bytes"
		}
		b.ncmd += copy(b.cmdline[b.ncmd:], args)
	}
	sv, ok1 := t.Prop(chosen, "linux,initrd-start")
	ev, ok2 := t.Prop(chosen, "linux,initrd-end")
	if !ok1 && !ok2 {
		return ""
	}
	start, ok1 := fdt.Number(sv)
	end, ok2 := fdt.Number(ev)
	switch {
	case !ok1 || !ok2 || end < start:
		return "device tree: /chosen linux,initrd-start/-end malformed"
	case end > earlyRAMEnd || !b.inRAM(start, end-start):
		return "initrd not in RAM below 4 GiB"
	}
	b.initrd.pa, b.initrd.size = uintptr(start), uintptr(end-start)
	return ""
}

// readCPUs counts the processors under /cpus — nodes of device_type "cpu" (not cpu-map) whose
// status is "okay" or absent (§2.3.4) — and keeps their MPIDRs, the boot core's first.
func (b *Board) readCPUs(t *fdt.Tree, root fdt.Node) {
	cpus, ok := t.Child(root, "cpus")
	if !ok {
		return
	}
	ac, ok := t.AddressCells(cpus)
	if !ok {
		return
	}
	boot := uint64(t.BootCPU())
	for n, ok := t.FirstChild(cpus); ok && b.ncpu < len(b.mpidr); n, ok = t.Next(n) {
		dt, _ := t.Prop(n, "device_type")
		st, hasStatus := t.Prop(n, "status")
		if !fdt.HasString(dt, "cpu") || hasStatus && !fdt.HasString(st, "okay") && !fdt.HasString(st, "ok") {
			continue
		}
		reg, _ := t.Prop(n, "reg")
		id, ok := fdt.Cells(reg, 0, ac)
		if !ok {
			continue
		}
		b.mpidr[b.ncpu] = id
		if id == boot && b.ncpu > 0 {
			b.mpidr[0], b.mpidr[b.ncpu] = b.mpidr[b.ncpu], b.mpidr[0]
		}
		b.ncpu++
	}
}

// readConsole finds the PL011: the one /chosen's stdout-path names, else the first. Its
// interrupt is the console's input line if it is an SPI of the GIC. A UART outside the early
// device map is not used (EarlyInit could not have reached it; neither could Probe).
func (b *Board) readConsole(t *fdt.Tree, root, gic fdt.Node, ac, sc int) {
	n := consoleNode(t, root)
	if n < 0 {
		return
	}
	reg, _ := t.Prop(n, "reg")
	base, size, ok := fdt.Reg(reg, ac, sc, 0)
	if !ok || size < 0x1000 || base == 0 || base >= earlyDeviceEnd {
		return
	}
	b.con.UART = pl011.UART{Base: uintptr(base)}
	b.con.IRQ = spi(t, root, gic, n)
}

// consoleNode returns the PL011 of stdout-path, or the first PL011 child of the root, or -1.
func consoleNode(t *fdt.Tree, root fdt.Node) fdt.Node {
	if chosen, ok := t.Child(root, "chosen"); ok {
		if v, ok := t.Prop(chosen, "stdout-path"); ok {
			if p, ok := fdt.String(v); ok {
				if n, ok := t.LookupBytes(p); ok && t.Compatible(n, "arm,pl011") {
					return n
				}
			}
		}
	}
	for n, ok := t.FirstChild(root); ok; n, ok = t.Next(n) {
		if t.Compatible(n, "arm,pl011") {
			return n
		}
	}
	return -1
}

// findConsole returns the console's register base from the tree for EarlyInit, before Probe:
// the PL011 readConsole would pick, else virt's fixed one.
func findConsole(t *fdt.Tree) uintptr {
	root := t.Root()
	ac, ok1 := t.AddressCells(root)
	sc, ok2 := t.SizeCells(root)
	if n := consoleNode(t, root); n >= 0 && ok1 && ok2 {
		reg, _ := t.Prop(n, "reg")
		if base, size, ok := fdt.Reg(reg, ac, sc, 0); ok && size >= 0x1000 && base != 0 && base < earlyDeviceEnd {
			return uintptr(base)
		}
	}
	return virtUART
}

// spi returns node n's first interrupt as a board line (its SPI number) if its interrupt parent
// is gic, -1 if it has none or it is not an SPI.
func spi(t *fdt.Tree, root, gic, n fdt.Node) int {
	parent, ok := t.Prop(n, "interrupt-parent")
	if !ok {
		parent, ok = t.Prop(root, "interrupt-parent")
	}
	if ph, hasPh := phandle(t, gic); ok && hasPh && !isU32(parent, ph) {
		return -1
	}
	v, ok := t.Prop(n, "interrupts")
	typ, ok1 := fdt.Cell(v, 0)
	num, ok2 := fdt.Cell(v, 1)
	if !ok || !ok1 || !ok2 || typ != 0 || num >= 988 { // 988 SPIs: INTIDs 32-1019
		return -1
	}
	return int(num)
}

// phandle returns n's phandle (§2.3.3; "linux,phandle" in old trees).
func phandle(t *fdt.Tree, n fdt.Node) (uint32, bool) {
	v, ok := t.Prop(n, "phandle")
	if !ok {
		v, ok = t.Prop(n, "linux,phandle")
	}
	if !ok {
		return 0, false
	}
	return fdt.U32(v)
}

// isU32 reports whether v is the one-cell value want.
func isU32(v []byte, want uint32) bool {
	c, ok := fdt.U32(v)
	return ok && c == want
}

// gicChild returns the first child of the GIC node gic compatible with compat whose reg — in
// the GIC node's own #address-cells/#size-cells — spans at least min bytes below the early map's
// device end: the GICv2m frame ("arm,gic-v2m-frame") or the ITS ("arm,gic-v3-its"; Linux
// bindings arm,gic.yaml and arm,gic-v3.yaml). 0 if there is none or its reg does not read.
func gicChild(t *fdt.Tree, gic fdt.Node, compat string, min uint64) uintptr {
	ac, ok1 := t.AddressCells(gic)
	sc, ok2 := t.SizeCells(gic)
	if !ok1 || !ok2 || ac > 2 || sc < 1 || sc > 2 {
		return 0
	}
	for n, ok := t.FirstChild(gic); ok; n, ok = t.Next(n) {
		if !t.Compatible(n, compat) {
			continue
		}
		reg, _ := t.Prop(n, "reg")
		if a, size, ok := fdt.Reg(reg, ac, sc, 0); ok && size >= min && a != 0 && a < earlyDeviceEnd {
			return uintptr(a)
		}
	}
	return 0
}
