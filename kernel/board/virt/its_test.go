// Tests of the ITS's register decoding and command encodings (IHI 0069 §5.3, §12.19.16).
// SPDX-License-Identifier: BSD-3-Clause

package virt

import (
	"os"
	"testing"
)

func TestITSTyper(t *testing.T) {
	// QEMU 7.2's ITS (hw/intc/arm_gicv3_its.c): physical, 16-byte ITT entries (field 0xf... as
	// ITS_ITT_ENTRY_SIZE - 1), 16 event ID bits, 16 device ID bits, processor-number targets.
	v := uint64(1 | 0xb<<4 | 15<<8 | 15<<13)
	ty := decodeITSTyper(v)
	if ty != (itsTyper{physical: true, ittEntry: 12, idBits: 16, devBits: 16, pta: false}) || ty.usable() != "" {
		t.Errorf("%+v: %q", ty, ty.usable())
	}
	if !decodeITSTyper(v | 1<<19).pta {
		t.Error("PTA")
	}
	for _, bad := range []uint64{v &^ 1, v&^(0x1f<<8) | 3<<8, v&^(0x1f<<13) | 6<<13} {
		if decodeITSTyper(bad).usable() == "" {
			t.Errorf("GITS_TYPER %#x accepted", bad)
		}
	}
}

func TestITSCommands(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want itsCmd
	}{
		// MAPD: DeviceID in DW0 63:32, Size (event ID bits - 1) in DW1 4:0, V and ITT_addr 51:8.
		{"MAPD", mapd(0x0010, 0x4123_4500, 5), itsCmd{0x10_0000_0008, 4, 1<<63 | 0x4123_4500, 0}},
		// MAPC: V, RDbase in DW2 51:16, ICID 15:0.
		{"MAPC", mapc(0, 3), itsCmd{0x09, 0, 1<<63 | 3<<16, 0}},
		// MAPTI: DeviceID, EventID in DW1 31:0, pINTID 63:32, ICID in DW2.
		{"MAPTI", mapti(0x18, 2, 8194, 0), itsCmd{0x18_0000_000a, 8194<<32 | 2, 0, 0}},
		{"INV", inv(0x18, 2), itsCmd{0x18_0000_000c, 2, 0, 0}},
		{"SYNC", syncCmd(3), itsCmd{0x05, 0, 3 << 16, 0}},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
	if mapd(1, 0x4123_45ff, 5)[2]&0xff != 0 {
		t.Error("MAPD keeps the ITT address's low bits")
	}
}

func TestQEMUTreeGICv3ITS(t *testing.T) {
	// qemu-system-aarch64 -M virt,gic-version=3,dumpdtb=virt-gicv3.dtb -cpu cortex-a72 -smp 4 -m 1G
	v3, err := os.ReadFile("../../../drivers/fdt/testdata/virt-gicv3.dtb")
	if err != nil {
		t.Fatal(err)
	}
	b, why := probe(t, v3, nil)
	if why != "" {
		t.Fatal(why)
	}
	if b.gic.version != 3 || b.gic.its != 0x0808_0000 || b.gic.v2m != 0 {
		t.Errorf("GIC %+v", b.gic)
	}
	// And the GICv2 tree has a GICv2m frame and no ITS.
	if b, _ := probe(t, qemuDTB(t), nil); b.gic.its != 0 || b.gic.v2m != 0x0802_0000 {
		t.Errorf("its %#x v2m %#x", b.gic.its, b.gic.v2m)
	}
}
