// Tests of the device-tree reader against QEMU virt's tree and against broken ones.
// SPDX-License-Identifier: BSD-3-Clause

package fdt

import (
	"encoding/binary"
	"os"
	"strings"

	"gmpos/drivers/fdt/fdttest"
	"testing"
)

// virtDTB is QEMU 7.2's virt tree: qemu-system-aarch64 -M virt,dumpdtb=virt.dtb -m 1G -smp 2
// (GICv2, two cortex-a15 cores; no -append or -initrd, so /chosen has no bootargs).
func virtDTB(t testing.TB) []byte {
	b, err := os.ReadFile("testdata/virt.dtb")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Builder and CellBytes: the tests' own trees (fdttest).
type Builder = fdttest.Builder

var CellBytes = fdttest.Cells

func TestVirt(t *testing.T) {
	tr, why := Open(virtDTB(t))
	if why != "" {
		t.Fatal(why)
	}
	root := tr.Root()
	if len(tr.Name(root)) != 0 {
		t.Errorf("root named %q", tr.Name(root))
	}
	if ac, ok := tr.AddressCells(root); !ok || ac != 2 {
		t.Errorf("#address-cells %d %v", ac, ok)
	}
	if sc, ok := tr.SizeCells(root); !ok || sc != 2 {
		t.Errorf("#size-cells %d %v", sc, ok)
	}
	mem, ok := tr.Child(root, "memory")
	if !ok || string(tr.Name(mem)) != "memory@40000000" {
		t.Fatalf("memory node %q %v", tr.Name(mem), ok)
	}
	v, _ := tr.Prop(mem, "reg")
	if a, s, ok := Reg(v, 2, 2, 0); !ok || a != 0x4000_0000 || s != 1<<30 {
		t.Errorf("memory reg %#x %#x %v", a, s, ok)
	}
	if _, _, ok := Reg(v, 2, 2, 1); ok {
		t.Error("a second memory range")
	}

	uart, ok := tr.Child(root, "pl011@9000000")
	if !ok || !tr.Compatible(uart, "arm,pl011") || !tr.Compatible(uart, "arm,primecell") || tr.Compatible(uart, "arm") {
		t.Fatalf("pl011 %v", ok)
	}
	irq, _ := tr.Prop(uart, "interrupts")
	if typ, _ := Cell(irq, 0); typ != 0 {
		t.Errorf("pl011 interrupt type %d", typ)
	}
	if n, _ := Cell(irq, 1); n != 1 {
		t.Errorf("pl011 SPI %d", n)
	}
	if n, ok := tr.Lookup("/chosen"); !ok {
		t.Error("no /chosen")
	} else if p, ok := tr.Prop(n, "stdout-path"); !ok || string(p) != "/pl011@9000000\x00" {
		t.Errorf("stdout-path %q", p)
	} else if s, _ := String(p); s == nil {
		t.Error("stdout-path is no string")
	} else if u, ok := tr.Lookup(string(s)); !ok || u != uart {
		t.Errorf("stdout-path leads to %q", tr.Name(u))
	}

	cpus, ok := tr.Lookup("/cpus")
	if ac, _ := tr.AddressCells(cpus); ac != 1 {
		t.Errorf("/cpus #address-cells %d", ac)
	}
	var regs []uint32
	for c, ok := tr.FirstChild(cpus); ok; c, ok = tr.Next(c) {
		if dt, _ := tr.Prop(c, "device_type"); string(dt) == "cpu\x00" {
			r, _ := tr.Prop(c, "reg")
			v, _ := U32(r)
			regs = append(regs, v)
		}
	}
	if !ok && len(regs) != 2 || regs[0] != 0 || regs[1] != 1 {
		t.Errorf("cpus %v", regs)
	}
	if n, ok := tr.Lookup("/cpus/cpu-map/socket0/cluster0/core1"); !ok || string(tr.Name(n)) != "core1" {
		t.Error("deep lookup")
	}
	psci, _ := tr.Child(root, "psci")
	if m, _ := tr.Prop(psci, "method"); string(m) != "hvc\x00" {
		t.Errorf("psci method %q", m)
	}
	gic, _ := tr.Child(root, "intc")
	r, _ := tr.Prop(gic, "reg")
	d, ds, _ := Reg(r, 2, 2, 0)
	c, cs, _ := Reg(r, 2, 2, 1)
	if !tr.Compatible(gic, "arm,cortex-a15-gic") || d != 0x0800_0000 || ds != 0x10000 || c != 0x0801_0000 || cs != 0x10000 {
		t.Errorf("GIC %#x+%#x %#x+%#x", d, ds, c, cs)
	}
	if pcie, ok := tr.Child(root, "pcie"); !ok {
		t.Error("no pcie node")
	} else if ac, ok := tr.AddressCells(pcie); !ok || ac != 3 {
		t.Errorf("pcie #address-cells %d %v", ac, ok)
	}
	if _, _, ok := tr.Reserved(0); ok {
		t.Error("virt reserves memory")
	}
	if tr.BootCPU() != 0 {
		t.Errorf("boot cpu %d", tr.BootCPU())
	}
	anyOffset(&tr)
	// Every property is reachable and inside the blob.
	nodes, props := walk(t, &tr)
	if nodes != 58 || props < 200 {
		t.Errorf("walked %d nodes and %d properties", nodes, props)
	}
}

// walk visits every node and property without recursion and checks what the accessors return.
func walk(t testing.TB, tr *Tree) (nodes, props int) {
	var stack [MaxDepth + 1]Node
	depth := 0
	n := tr.Root()
	if n < 0 {
		return 0, 0
	}
	for steps := 0; ; steps++ {
		if steps > len(tr.structs) {
			t.Fatalf("walk does not end")
		}
		nodes++
		_ = tr.Name(n)
		for p, ok := tr.FirstProp(n); ok; p, ok = tr.NextProp(p) {
			props++
			if tr.PropName(p) == nil || tr.PropValue(p) == nil {
				t.Fatalf("property at %d has no name or value", p)
			}
		}
		if c, ok := tr.FirstChild(n); ok {
			if depth == MaxDepth {
				t.Fatalf("deeper than MaxDepth")
			}
			stack[depth] = n
			depth++
			n = c
			continue
		}
		for {
			if s, ok := tr.Next(n); ok {
				n = s
				break
			}
			if depth == 0 {
				return nodes, props
			}
			depth--
			n = stack[depth]
		}
	}
}

// anyOffset calls the accessors at every offset of the structure block, as a caller with a
// made-up Node or Prop would: each token is checked where it is read, so none may panic.
func anyOffset(tr *Tree) {
	for off := -4; off <= len(tr.structs)+4; off++ {
		tr.Name(Node(off))
		tr.FirstChild(Node(off))
		tr.Next(Node(off))
		tr.FirstProp(Node(off))
		tr.NextProp(Prop(off))
		tr.PropName(Prop(off))
		tr.PropValue(Prop(off))
	}
}

func TestBuilt(t *testing.T) {
	b := &Builder{Reserve: [][2]uint64{{0x4800_0000, 0x1000}}}
	b.Begin("").Prop("#address-cells", CellBytes(1)).NopToken().Prop("#size-cells", CellBytes(0)).
		Begin("aliases").Prop("serial0", []byte("/soc/uart@10\x00")).End().
		Begin("soc").NopToken().
		Begin("uart@10").Prop("reg", CellBytes(0x10)).Prop("flag", nil).End().
		NopToken().Begin("uart@20").End().
		End().End()
	tr, why := Open(b.Blob())
	if why != "" {
		t.Fatal(why)
	}
	if a, s, ok := tr.Reserved(0); !ok || a != 0x4800_0000 || s != 0x1000 {
		t.Errorf("reservation %#x %#x %v", a, s, ok)
	}
	if _, _, ok := tr.Reserved(1); ok {
		t.Error("a second reservation")
	}
	u, ok := tr.Lookup("serial0:115200n8")
	if !ok || string(tr.Name(u)) != "uart@10" {
		t.Fatalf("alias: %q %v", tr.Name(u), ok)
	}
	if v, ok := tr.Prop(u, "flag"); !ok || len(v) != 0 || v == nil {
		t.Errorf("flag property %q %v", v, ok)
	}
	if _, ok := tr.Lookup("/soc/uart"); !ok {
		t.Error("lookup by node-name")
	}
	if n, ok := tr.Lookup("/soc/uart@20"); !ok || n == u {
		t.Error("lookup by unit address")
	}
	for _, p := range []string{"/soc/uart@30", "/nothing", "serial1", "", "soc"} {
		if _, ok := tr.Lookup(p); ok {
			t.Errorf("%q found", p)
		}
	}
	if n, ok := tr.Lookup("/"); !ok || n != tr.Root() {
		t.Error("/ is not the root")
	}
	if ac, ok := tr.AddressCells(tr.Root()); !ok || ac != 1 {
		t.Error("#address-cells")
	}
	soc, _ := tr.Lookup("/soc")
	if ac, ok := tr.AddressCells(soc); !ok || ac != 2 {
		t.Error("default #address-cells")
	}
	if sc, ok := tr.SizeCells(soc); !ok || sc != 1 {
		t.Error("default #size-cells")
	}
	nodes, props := walk(t, &tr)
	if nodes != 5 || props != 5 {
		t.Errorf("walked %d nodes, %d properties", nodes, props)
	}
}

func TestValues(t *testing.T) {
	if v, ok := Number(CellBytes(0x12)); !ok || v != 0x12 {
		t.Error("u32 number")
	}
	if v, ok := Number(CellBytes(1, 2)); !ok || v != 1<<32|2 {
		t.Error("u64 number")
	}
	if _, ok := Number(CellBytes(1, 2, 3)); ok {
		t.Error("three-cell number")
	}
	if _, _, ok := Reg(CellBytes(1, 2, 3), 2, 2, 0); ok {
		t.Error("partial reg")
	}
	if a, s, ok := Reg(CellBytes(1, 2, 3, 4), 1, 1, 1); !ok || a != 3 || s != 4 {
		t.Error("second reg pair")
	}
	if a, s, ok := Reg(CellBytes(7), 1, 0, 0); !ok || a != 7 || s != 0 {
		t.Error("reg without size")
	}
	if _, _, ok := Reg(CellBytes(1, 2, 3), 3, 0, 0); ok {
		t.Error("three address cells")
	}
	if _, ok := Cell(CellBytes(1), -1); ok {
		t.Error("cell -1")
	}
	if HasString([]byte("a\x00bc"), "bc") || !HasString([]byte("a\x00bc\x00"), "bc") || HasString(nil, "") {
		t.Error("HasString")
	}
	if _, ok := String([]byte("abc")); ok {
		t.Error("unterminated string")
	}
	if !NameIs([]byte("memory@0"), "memory") || NameIs([]byte("memory@0"), "memory@1") || NameIs([]byte("memoryx"), "memory") {
		t.Error("NameIs")
	}
}

// TestMalformed: each header and structure check refuses what it is for. The mutations are of
// the QEMU tree or of a small built one; every one must give a reason, none a panic.
func TestMalformed(t *testing.T) {
	good := func() []byte { b := virtDTB(t); return b[:TotalSize(b)] }
	small := func() *Builder { return (&Builder{}).Begin("").Begin("a").Prop("p", CellBytes(1)).End() }
	set := func(b []byte, off int, v uint32) []byte { binary.BigEndian.PutUint32(b[off:], v); return b }
	offStruct := func(b []byte) int { return int(binary.BigEndian.Uint32(b[hdrOffStruct:])) }
	cases := map[string][]byte{
		"short":              good()[:39],
		"magic":              set(good(), hdrMagic, 0xd00dfeee),
		"totalsize big":      set(good(), hdrTotalSize, 1<<20+1),
		"totalsize small":    set(good(), hdrTotalSize, 39),
		"version 16":         set(good(), hdrVersion, 16),
		"last comp 18":       set(good(), hdrLastCompVersion, 18),
		"struct off":         set(good(), hdrOffStruct, 0xffff_fff0),
		"struct unaligned":   set(good(), hdrOffStruct, 0x42),
		"struct size":        set(good(), hdrSizeStruct, 1<<20),
		"strings size":       set(good(), hdrSizeStrings, 0xffff_ffff),
		"rsvmap unaligned":   set(good(), hdrOffRsvmap, 0x2c),
		"rsvmap at end":      set(good(), hdrOffRsvmap, 1<<20),
		"unknown token":      func() []byte { b := good(); return set(b, offStruct(b), 7) }(),
		"no end":             func() []byte { b := small().End().Blob(); return set(b, len(b)-len("p\x00")-4, tokNop) }(),
		"unbalanced":         small().Blob(),
		"extra end node":     small().End().End().Blob(),
		"two roots":          small().End().Begin("").End().Blob(),
		"prop at top":        (&Builder{}).Prop("p", nil).Begin("").End().Blob(),
		"prop after subnode": small().Prop("late", nil).End().Blob(),
		"too deep": func() []byte {
			b := &Builder{}
			for i := 0; i <= MaxDepth; i++ {
				b.Begin("n")
			}
			for i := 0; i <= MaxDepth; i++ {
				b.End()
			}
			return b.Blob()
		}(),
		"value past block": func() []byte {
			b := small().End().Blob()
			return set(b, offStruct(b)+16+4, 0x100) // "a"'s property: its length
		}(),
		"name offset": func() []byte {
			b := small().End().Blob()
			return set(b, offStruct(b)+16+8, 0x100) // its name's offset
		}(),
		"empty": (&Builder{}).Blob(),
	}
	// The reason each must give: its own check's, not a later one's.
	reasons := map[string]string{
		"short": "shorter", "magic": "magic", "totalsize big": "totalsize", "totalsize small": "totalsize",
		"version 16": "version", "last comp 18": "version", "struct off": "structure block outside",
		"struct unaligned": "structure block outside", "struct size": "structure block outside",
		"strings size": "strings block", "rsvmap unaligned": "reservation block outside",
		"rsvmap at end": "no terminator", "unknown token": "unknown token", "no end": "malformed token",
		"unbalanced": "FDT_END inside", "extra end node": "FDT_END_NODE without", "two roots": "more than one root",
		"prop at top": "property outside", "prop after subnode": "after a subnode", "too deep": "too deeply",
		"value past block": "malformed token", "name offset": "malformed token", "empty": "before the root",
	}
	for name, b := range cases {
		if _, why := Open(b); !strings.Contains(why, reasons[name]) || why == "" {
			t.Errorf("%s: %q, want %q", name, why, reasons[name])
		}
	}
	if _, why := Open(small().End().Blob()); why != "" {
		t.Errorf("the small tree: %s", why)
	}
	var zero Tree
	if zero.Root() >= 0 || zero.Name(0) != nil {
		t.Error("the zero Tree has a root")
	}
	if _, ok := zero.Lookup("/"); ok {
		t.Error("the zero Tree has /")
	}
}

// FuzzFDT: no blob makes Open or a walk over what it accepted panic, read outside the blob, or
// loop; an accepted tree's walk visits at most one node per 8 bytes of structure; the accessors
// take any offset. The seeds are small trees of QEMU virt's shape (the fuzzer mutates a few
// hundred bytes far faster than QEMU's 8 KiB; TestVirt covers that tree).
func FuzzFDT(f *testing.F) {
	virtLike := (&Builder{Reserve: [][2]uint64{{0x4800_0000, 0x1000}}}).Begin("").
		Prop("#address-cells", CellBytes(2)).Prop("#size-cells", CellBytes(2)).
		Begin("chosen").Prop("bootargs", []byte("a b\x00")).Prop("stdout-path", []byte("/pl011@9000000\x00")).End().
		Begin("memory@40000000").Prop("reg", CellBytes(0, 0x4000_0000, 0, 0x4000_0000)).End().
		Begin("cpus").Prop("#address-cells", CellBytes(1)).Prop("#size-cells", CellBytes(0)).
		Begin("cpu@0").Prop("reg", CellBytes(0)).End().NopToken().End().
		Begin("pl011@9000000").Prop("compatible", []byte("arm,pl011\x00arm,primecell\x00")).End().
		Begin("aliases").Prop("x", []byte("/chosen\x00")).End().End()
	f.Add(virtLike.Blob())
	f.Add((&Builder{}).Begin("").Begin("a").Begin("b").End().End().End().Blob())
	f.Add([]byte{0xd0, 0x0d, 0xfe, 0xed})
	f.Fuzz(func(t *testing.T, blob []byte) {
		if len(blob) > HeaderSize {
			// Let the fuzzer's blob be its own size: a tree whose header says otherwise is
			// refused at once and teaches nothing.
			binary.BigEndian.PutUint32(blob[hdrTotalSize:], uint32(len(blob)))
		}
		tr, why := Open(blob)
		if why != "" {
			return
		}
		if len(tr.structs) <= 2048 {
			anyOffset(&tr) // quadratic: small trees only
		}
		nodes, _ := walk(t, &tr)
		if nodes > len(tr.structs)/8 {
			t.Fatalf("%d nodes in %d bytes", nodes, len(tr.structs))
		}
		for _, p := range []string{"/chosen", "x", "/a/b/c", "/", "x/y:z"} {
			if n, ok := tr.Lookup(p); ok {
				tr.Prop(n, "bootargs")
				tr.AddressCells(n)
				tr.Compatible(n, "x")
			}
		}
		for i := 0; ; i++ {
			if _, _, ok := tr.Reserved(i); !ok {
				break
			}
			if i > len(blob)/16 {
				t.Fatal("more reservations than the blob holds")
			}
		}
	})
}

// TestNoAllocation: reading a tree allocates nothing (the kernel reads it before the Go runtime
// exists).
func TestNoAllocation(t *testing.T) {
	blob := virtDTB(t)
	var stdout []byte
	n := testing.AllocsPerRun(20, func() {
		tr, why := Open(blob)
		if why != "" {
			panic(why)
		}
		c, _ := tr.Lookup("/chosen")
		v, _ := tr.Prop(c, "stdout-path")
		s, _ := String(v)
		u, _ := tr.LookupBytes(s)
		stdout, _ = tr.Prop(u, "reg")
		tr.Compatible(u, "arm,pl011")
		mem, _ := tr.Child(tr.Root(), "memory")
		tr.AddressCells(mem)
	})
	if n != 0 || len(stdout) != 16 {
		t.Errorf("%v allocations", n)
	}
}
