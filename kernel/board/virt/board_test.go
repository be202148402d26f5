// Tests of the virt board's reading of the device tree: QEMU's own tree, and QEMU's tree with a
// property changed (a command line, an initrd, a GICv3, reservations).
// SPDX-License-Identifier: BSD-3-Clause

package virt

import (
	"gmpos/kernel/board/internal/modcont"
	"os"
	"strings"
	"testing"

	"gmpos/drivers/fdt"
	"gmpos/drivers/fdt/fdttest"
	"gmpos/drivers/pci"
	"gmpos/kernel/mm"
)

// qemuDTB is drivers/fdt/testdata/virt.dtb: qemu-system-aarch64 -M virt,dumpdtb=virt.dtb -m 1G
// -smp 2 (QEMU 7.2: GICv2, two cores, no -append, no -initrd).
func qemuDTB(t testing.TB) []byte {
	b, err := os.ReadFile("../../../drivers/fdt/testdata/virt.dtb")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edit is a change to QEMU's tree: at the node path (as Lookup spells it, "/" the root), the
// property name gets value, or goes if value is nil; a property the node lacks is added.
type edit struct {
	path, name string
	value      []byte
}

// rebuild copies tree blob with the edits applied (and reservations, if any).
func rebuild(t testing.TB, blob []byte, reserve [][2]uint64, edits ...edit) []byte {
	tr, why := fdt.Open(blob)
	if why != "" {
		t.Fatal(why)
	}
	b := &fdttest.Builder{Reserve: reserve}
	var copyNode func(n fdt.Node, path string)
	copyNode = func(n fdt.Node, path string) {
		b.Begin(string(tr.Name(n)))
		done := map[string]bool{}
		for p, ok := tr.FirstProp(n); ok; p, ok = tr.NextProp(p) {
			name, v := string(tr.PropName(p)), tr.PropValue(p)
			for _, e := range edits {
				if e.path == path && e.name == name {
					v, done[name] = e.value, true
				}
			}
			if v != nil {
				b.Prop(name, v)
			}
		}
		for _, e := range edits {
			if e.path == path && !done[e.name] && e.value != nil {
				b.Prop(e.name, e.value)
			}
		}
		for c, ok := tr.FirstChild(n); ok; c, ok = tr.Next(c) {
			child := strings.TrimSuffix(path, "/") + "/" + string(tr.Name(c))
			copyNode(c, child)
		}
		b.End()
	}
	copyNode(tr.Root(), "/")
	return b.Blob()
}

// probe reads blob as Probe does, without the arch's calls, the container read from mem (the
// initrd's bytes, placed where the tree says).
func probe(t testing.TB, blob []byte, initrd []byte) (*Board, string) {
	tr, why := fdt.Open(blob)
	if why != "" {
		return nil, why
	}
	b := new(Board)
	b.con.IRQ = -1
	if why := b.readTree(&tr); why != "" {
		return b, why
	}
	if b.initrd.size > 0 {
		if uintptr(len(initrd)) != b.initrd.size {
			t.Fatalf("initrd of %d bytes for a tree that says %d", len(initrd), b.initrd.size)
		}
		if why := b.setModules(b.initrd.pa, initrd[:min(len(initrd), modMaxTable)], uint64(len(initrd))); why != "" {
			return b, why
		}
	}
	return b, ""
}

func TestQEMUTree(t *testing.T) {
	blob := qemuDTB(t)
	b, why := probe(t, blob, nil)
	if why != "" {
		t.Fatal(why)
	}
	if got := b.RAM(); len(got) != 1 || got[0] != (mm.Region{Base: 0x4000_0000, Len: 1 << 30}) {
		t.Errorf("RAM %+v", got)
	}
	if string(b.Cmdline()) != cmdlinePrefix {
		t.Errorf("command line %q", b.Cmdline())
	}
	if b.Cores() != 2 || b.CPUMPIDR(0) != 0 || b.CPUMPIDR(1) != 1 || b.CPUMPIDR(2) != 0 || b.CPUMPIDR(-1) != 0 {
		t.Errorf("%d cores: %#x %#x", b.Cores(), b.CPUMPIDR(0), b.CPUMPIDR(1))
	}
	if b.PSCIMethod() != PSCIHVC {
		t.Errorf("PSCI %d", b.PSCIMethod())
	}
	// QEMU's GICv2m frame sits under the GIC node at 0x0802_0000 (hw/arm/virt.c, VIRT_GIC_V2M).
	if b.gic != (gicInfo{version: 2, dist: 0x0800_0000, distLen: 0x10000, cpu: 0x0801_0000, cpuLen: 0x10000, v2m: 0x0802_0000}) {
		t.Errorf("GIC %+v", b.gic)
	}
	if b.con.UART.Base != 0x0900_0000 || b.con.IRQ != 1 || b.ConsoleInputIRQ(1) != 1 || b.ConsoleInputIRQ(2) != 1 || b.ConsoleInputIRQ(3) != -1 {
		t.Errorf("console at %#x, line %d", b.con.UART.Base, b.con.IRQ)
	}
	if b.rtc != 0x0901_0000 {
		t.Errorf("RTC at %#x", b.rtc)
	}
	if b.pcie != (pcieInfo{valid: true, ecam: 0x40_1000_0000, start: 0, end: 255, win: pci.Window{Lo: 0x1000_0000, Hi: 0x3eff_0000}}) {
		t.Errorf("PCIe %+v", b.pcie)
	}
	if p, n := b.BootModule(0); p != 0 || n != 0 {
		t.Error("a module without an initrd")
	}
	tr, _ := fdt.Open(blob)
	if findConsole(&tr) != 0x0900_0000 {
		t.Errorf("EarlyInit's console %#x", findConsole(&tr))
	}
	var mapped [][2]uintptr
	mapDevice := func(pa, size uintptr) bool { mapped = append(mapped, [2]uintptr{pa, size}); return true }
	if !b.MapDevices(mapDevice) || len(mapped) != 2 || mapped[0] != [2]uintptr{0x0900_0000, 0x1000} || mapped[1] != [2]uintptr{0x0901_0000, 0x1000} {
		t.Errorf("MapDevices mapped %#x", mapped)
	}
	mapped = nil
	c, ok := b.PCIConfig(mapDevice)
	if e, isECAM := c.(*pci.ECAM); !ok || !isECAM || *e != (pci.ECAM{Base: 0x40_1000_0000, StartBus: 0, EndBus: ecamMaxBuses - 1}) {
		t.Errorf("PCIConfig %#v %v", c, ok)
	}
	if len(mapped) != 1 || mapped[0] != [2]uintptr{0x40_1000_0000, ecamMaxBuses << 20} {
		t.Errorf("PCIConfig mapped %#x", mapped)
	}
	if w := b.PCIWindow(); w != (pci.Window{Lo: 0x1000_0000, Hi: 0x3eff_0000}) {
		t.Errorf("PCI window %#x", w)
	}
}

func u64(v uint64) []byte { return fdttest.Cells(uint32(v>>32), uint32(v)) }

func TestChosen(t *testing.T) {
	blob := qemuDTB(t)
	const start = 0x4800_0000
	c := modcont.Pack([]byte("args"), []byte("cpio"))
	for _, cells := range []func(uint64) []byte{u64, func(v uint64) []byte { return fdttest.Cells(uint32(v)) }} {
		tree := rebuild(t, blob, nil,
			edit{"/chosen", "bootargs", []byte("klog=1 -- a%20b\x00")},
			edit{"/chosen", "linux,initrd-start", cells(start)},
			edit{"/chosen", "linux,initrd-end", cells(start + uint64(len(c)))})
		b, why := probe(t, tree, c)
		if why != "" {
			t.Fatal(why)
		}
		if string(b.Cmdline()) != cmdlinePrefix+"klog=1 -- a%20b" {
			t.Errorf("command line %q", b.Cmdline())
		}
		if p, n := b.BootModule(0); p != start+4096 || n != 4 {
			t.Errorf("module 0 at %#x+%d", p, n)
		}
		if p, n := b.BootModule(1); p != start+8192 || n != 4 {
			t.Errorf("module 1 at %#x+%d", p, n)
		}
		if p, n := b.BootModule(2); p != 0 || n != 0 {
			t.Errorf("module 2 at %#x+%d", p, n)
		}
	}
	bad := map[string][]edit{
		"outside RAM": {{"/chosen", "linux,initrd-start", u64(0x3000_0000)}, {"/chosen", "linux,initrd-end", u64(0x3000_1000)}},
		"past 4 GiB":  {{"/chosen", "linux,initrd-start", u64(0xffff_f000)}, {"/chosen", "linux,initrd-end", u64(0x1_0000_1000)}},
		"malformed":   {{"/chosen", "linux,initrd-start", u64(start + 2)}, {"/chosen", "linux,initrd-end", u64(start)}},
		"no end":      {{"/chosen", "linux,initrd-start", u64(start)}},
		"long args":   {{"/chosen", "bootargs", []byte(strings.Repeat("x", maxCmdline+1) + "\x00")}},
		"args":        {{"/chosen", "bootargs", []byte("unterminated")}},
		"no memory":   {{"/memory@40000000", "reg", fdttest.Cells()}},
		"no GIC":      {{"/intc@8000000", "compatible", []byte("arm,gic-v4\x00")}},
		"GIC reg":     {{"/intc@8000000", "reg", fdttest.Cells(0, 0x0800_0000, 0, 0x10000)}},
		"GIC cells":   {{"/intc@8000000", "#interrupt-cells", fdttest.Cells(2)}},
		"root cells":  {{"/", "#address-cells", fdttest.Cells(3)}},
	}
	for name, edits := range bad {
		if _, why := probe(t, rebuild(t, blob, nil, edits...), nil); why == "" {
			t.Errorf("%s: accepted", name)
		}
	}
	// The longest command line the runner sends fits.
	tree := rebuild(t, blob, nil, edit{"/chosen", "bootargs", []byte(strings.Repeat("x", maxCmdline) + "\x00")})
	if b, why := probe(t, tree, nil); why != "" || len(b.Cmdline()) != len(cmdlinePrefix)+maxCmdline {
		t.Errorf("longest command line: %q", why)
	}
}

func TestGICv3AndCores(t *testing.T) {
	tree := rebuild(t, qemuDTB(t), nil,
		edit{"/intc@8000000", "compatible", []byte("arm,gic-v3\x00")},
		edit{"/intc@8000000", "reg", fdttest.Cells(0, 0x0800_0000, 0, 0x10000, 0, 0x080a_0000, 0, 0xf6_0000)},
		edit{"/cpus/cpu@0", "status", []byte("disabled\x00")},
		edit{"/psci", "method", []byte("smc\x00")},
		edit{"/pl011@9000000", "interrupts", fdttest.Cells(1, 1, 4)}, // a PPI: not a board line
	)
	b, why := probe(t, tree, nil)
	if why != "" {
		t.Fatal(why)
	}
	// One core left: the redistributors of one core are mapped.
	if b.gic != (gicInfo{version: 3, dist: 0x0800_0000, distLen: 0x10000, cpu: 0x080a_0000, cpuLen: gicv3RedistStride}) {
		t.Errorf("GIC %+v", b.gic)
	}
	if b.Cores() != 1 || b.CPUMPIDR(0) != 1 || b.PSCIMethod() != PSCISMC {
		t.Errorf("%d cores, first %#x, PSCI %d", b.Cores(), b.CPUMPIDR(0), b.PSCIMethod())
	}
	if b.ConsoleInputIRQ(1) != -1 {
		t.Errorf("console line %d from a PPI", b.ConsoleInputIRQ(1))
	}
	// The boot core comes first, wherever the tree lists it.
	blob := rebuild(t, qemuDTB(t), nil)
	blob[31] = 1 // boot_cpuid_phys
	if b, _ := probe(t, blob, nil); b.CPUMPIDR(0) != 1 || b.CPUMPIDR(1) != 0 {
		t.Errorf("boot core not first: %#x %#x", b.CPUMPIDR(0), b.CPUMPIDR(1))
	}
}

func TestReservations(t *testing.T) {
	b := &fdttest.Builder{Reserve: [][2]uint64{{0x4000_0000, 0x1000}, {0x5000_0800, 0x1000}}}
	b.Begin("").Cells("#address-cells", 2).Cells("#size-cells", 2).
		Begin("memory@40000000").Str("device_type", "memory").Cells("reg", 0, 0x4000_0000, 0, 0x2000_0000, 1, 0, 0, 0x1000_0000).End().
		Begin("reserved-memory").Cells("#address-cells", 2).Cells("#size-cells", 1).
		Begin("fw@5800000").Cells("reg", 0, 0x5800_0000, 0x10_0000).End().End().
		Begin("intc@8000000").Str("compatible", "arm,gic-400").Cells("reg", 0, 0x0800_0000, 0, 0x1000, 0, 0x0801_0000, 0, 0x2000).
		Cells("#interrupt-cells", 3).End().
		End()
	board, why := probe(t, b.Blob(), nil)
	if why != "" {
		t.Fatal(why)
	}
	want := []mm.Region{
		{Base: 0x4000_1000, Len: 0x1000_0000 - 0x1000},
		{Base: 0x5000_2000, Len: 0x0800_0000 - 0x2000},
		{Base: 0x5810_0000, Len: 0x0800_0000 - 0x10_0000},
		{Base: 1 << 32, Len: 0x1000_0000},
	}
	if got := board.RAM(); len(got) != len(want) {
		t.Fatalf("RAM %#x", got)
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("RAM[%d] = %#x, want %#x", i, got[i], want[i])
			}
		}
	}
	// Without a PL011 the console stays where EarlyInit put it; no RTC, no PCI.
	if board.con.UART.Base != 0 || board.rtc != 0 || board.pcie.valid || board.Cores() != 0 || board.PSCIMethod() != PSCINone {
		t.Errorf("devices from nowhere: %+v", board)
	}
	if _, ok := board.PCIConfig(func(pa, size uintptr) bool { return true }); ok {
		t.Error("PCI without a host bridge")
	}
}

func TestReserve(t *testing.T) {
	var b Board
	b.addRAM(0x4000_0800, 0x1000_0000)  // rounded inwards
	b.addRAM(^uint64(0)-0x1000, 0x2000) // wraps: dropped
	b.addRAM(0x100, 0x800)              // nothing left after rounding
	if got := b.RAM(); len(got) != 1 || got[0] != (mm.Region{Base: 0x4000_1000, Len: 0x1000_0000 - 0x1000}) {
		t.Fatalf("RAM %#x", got)
	}
	b.reserve(0x3000_0000, 0x1000_2000)   // the front
	b.reserve(0x4800_0000, 1)             // a page in the middle
	b.reserve(0x4ff0_0000, ^uint64(0)>>1) // everything above
	b.reserve(0, 0)                       // nothing
	want := []mm.Region{{Base: 0x4000_2000, Len: 0x0800_0000 - 0x2000}, {Base: 0x4800_1000, Len: 0x07f0_0000 - 0x1000}}
	if got := b.RAM(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("RAM %#x, want %#x", got, want)
	}
	if !b.inRAM(0x4000_2000, 0x1000) || b.inRAM(0x4000_1000, 0x1000) || b.inRAM(0x4000_2000, ^uint64(0)) {
		t.Error("inRAM")
	}
}

// probed is TestNoAllocation's board: a global, as the kernel's is.
var probed Board

// TestNoAllocation: Probe's reading of the tree and the container allocates nothing (it runs
// before the Go runtime exists).
func TestNoAllocation(t *testing.T) {
	const start = 0x4800_0000
	c := modcont.Pack([]byte("args"), []byte("cpio"))
	tree := rebuild(t, qemuDTB(t), nil,
		edit{"/chosen", "bootargs", []byte("klog=1\x00")},
		edit{"/chosen", "linux,initrd-start", u64(start)},
		edit{"/chosen", "linux,initrd-end", u64(start + uint64(len(c)))})
	var why string
	n := testing.AllocsPerRun(20, func() {
		probed = Board{}
		var tr fdt.Tree
		if tr, why = fdt.Open(tree); why == "" {
			why = probed.readTree(&tr)
		}
		if why == "" {
			why = probed.setModules(probed.initrd.pa, c[:modMaxTable], uint64(len(c)))
		}
		findConsole(&tr)
	})
	if n != 0 || why != "" || probed.mods[1].size != 4 {
		t.Errorf("%v allocations (%s)", n, why)
	}
}

func TestV2MTyper(t *testing.T) {
	// QEMU: 64 SPIs from INTID 80 (hw/intc/arm_gicv2m.c), a distributor with 256 SPIs.
	if first, n, ok := decodeV2MTyper(80<<16|64, 256); !ok || first != 48 || n != 64 {
		t.Errorf("QEMU's frame: %d+%d %v", first, n, ok)
	}
	for _, c := range []struct {
		typer uint32
		spis  int
	}{
		{16<<16 | 64, 256},   // SGIs and PPIs are not the frame's
		{80<<16 | 0, 256},    // no SPIs
		{80<<16 | 64, 100},   // beyond the distributor's
		{1000<<16 | 64, 256}, // beyond any
	} {
		if _, _, ok := decodeV2MTyper(c.typer, c.spis); ok {
			t.Errorf("MSI_TYPER %#x with %d SPIs accepted", c.typer, c.spis)
		}
	}
	var b Board
	b.gic.v2m, b.msi = 0x0802_0000, msiInfo{first: 48, n: 64}
	if addr, data, ok := b.MSIMessage(50, 0x08); !ok || addr != 0x0802_0040 || data != 82 {
		t.Errorf("MSIMessage(50) = %#x, %d, %v", addr, data, ok)
	}
	if _, _, ok := b.MSIMessage(47, 0x08); ok {
		t.Error("a wired line is an MSI line")
	}
}
