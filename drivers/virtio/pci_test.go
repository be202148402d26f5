// Hosted tests of the PCI transport: capability parsing against hostile configuration spaces.
// SPDX-License-Identifier: BSD-3-Clause

package virtio

import (
	"encoding/binary"
	"testing"
	"unsafe"
)

// fakeCfg is a PCI configuration space in memory.
type fakeCfg struct{ b [256]byte }

func (c *fakeCfg) Read8(o uint16) uint8       { return c.b[o&0xff] }
func (c *fakeCfg) Read16(o uint16) uint16     { return binary.LittleEndian.Uint16(c.b[o&0xfe:]) }
func (c *fakeCfg) Read32(o uint16) uint32     { return binary.LittleEndian.Uint32(c.b[o&0xfc:]) }
func (c *fakeCfg) Write8(o uint16, v uint8)   { c.b[o&0xff] = v }
func (c *fakeCfg) Write16(o uint16, v uint16) { binary.LittleEndian.PutUint16(c.b[o&0xfe:], v) }
func (c *fakeCfg) Write32(o uint16, v uint32) { binary.LittleEndian.PutUint32(c.b[o&0xfc:], v) }

// cap writes a virtio capability at p linking to next.
func (c *fakeCfg) cap(p, next, n, typ, bar uint8, off, ln uint32) {
	c.b[p], c.b[p+1], c.b[p+2], c.b[p+3], c.b[p+4] = pciCapVendor, next, n, typ, bar
	binary.LittleEndian.PutUint32(c.b[p+8:], off)
	binary.LittleEndian.PutUint32(c.b[p+12:], ln)
}

// barMem is BAR memory: a 16 KiB, page-aligned window of a Go slab.
type barMem struct {
	slab []byte
	base uintptr
	size uint64
}

func newBar(size uint64) *barMem {
	m := &barMem{slab: make([]byte, size+4096), size: size}
	a := uintptr(unsafe.Pointer(&m.slab[0]))
	m.base = (a + 4095) &^ 4095
	return m
}

func (m *barMem) bytes(off uintptr, n int) []byte {
	return m.slab[m.base-uintptr(unsafe.Pointer(&m.slab[0]))+off:][:n]
}

// qemuLike builds the layout QEMU's virtio-net-pci presents: an MSI-X capability, then
// common, ISR, device, notify (multiplier 4) and PCI-cfg capabilities on BAR 4.
func qemuLike() (*fakeCfg, *barMem, func(int) (uintptr, uint64, bool)) {
	c := &fakeCfg{}
	c.Write16(pciVendorID, VendorID)
	c.Write16(pciDeviceID, 0x1041)
	c.Write16(pciStatus, pciStatusCaps)
	c.b[pciCapPtr] = 0x40
	c.b[0x40], c.b[0x41] = 0x11, 0x50 // MSI-X
	c.cap(0x50, 0x60, 16, cfgCommon, 4, 0x0000, 0x1000)
	c.cap(0x60, 0x70, 16, cfgISR, 4, 0x1000, 0x1000)
	c.cap(0x70, 0x80, 16, cfgDevice, 4, 0x2000, 0x1000)
	c.cap(0x80, 0x98, 20, cfgNotify, 4, 0x3000, 0x1000)
	binary.LittleEndian.PutUint32(c.b[0x80+capNotifyMult:], 4)
	c.cap(0x98, 0x00, 20, cfgPCI, 0, 0, 0)
	m := newBar(0x4000)
	bar := func(i int) (uintptr, uint64, bool) {
		if i != 4 {
			return 0, 0, false
		}
		return m.base, m.size, true
	}
	return c, m, bar
}

func TestPCIInit(t *testing.T) {
	c, m, bar := qemuLike()
	var p PCI
	if err := p.Init(c, bar); err != nil {
		t.Fatal(err)
	}
	if p.common.addr != m.base || p.isr.addr != m.base+0x1000 || p.device.addr != m.base+0x2000 ||
		p.notify.addr != m.base+0x3000 || p.notifyMult != 4 || p.Skipped() != 0 {
		t.Fatalf("regions %+v", p)
	}
	if p.DeviceType() != 1 || c.Read16(pciCommand)&(pciCmdMemory|pciCmdBusMaster) != pciCmdMemory|pciCmdBusMaster {
		t.Fatalf("type %d command %#x", p.DeviceType(), c.Read16(pciCommand))
	}
	// Register layout: the common configuration is plain memory here.
	com := m.bytes(0, 0x40)
	p.SetQueue(2, 128, 0x1122334455667788, 0x99aabbccddeeff00, 0x0102030405060708)
	le := binary.LittleEndian
	if le.Uint16(com[comQueueSelect:]) != 2 || le.Uint16(com[comQueueSize:]) != 128 ||
		le.Uint64(com[comQueueDesc:]) != 0x1122334455667788 || le.Uint64(com[comQueueDriver:]) != 0x99aabbccddeeff00 ||
		le.Uint64(com[comQueueDevice:]) != 0x0102030405060708 {
		t.Fatalf("common cfg % x", com)
	}
	p.SetDriverFeatures(1, 0xdeadbeef)
	p.SetStatus(0x0b)
	if le.Uint32(com[comDriverFeatureSel:]) != 1 || le.Uint32(com[comDriverFeature:]) != 0xdeadbeef || com[comDeviceStatus] != 0x0b {
		t.Fatalf("common cfg % x", com)
	}
	le.PutUint16(com[comNumQueues:], 3)
	com[comConfigGeneration] = 7
	if p.NumQueues() != 3 || p.ConfigGeneration() != 7 {
		t.Fatal("NumQueues/ConfigGeneration")
	}
	// Notify address: queue_notify_off × multiplier inside the notify structure.
	le.PutUint16(com[comQueueNotifyOff:], 5)
	if a, ok := p.QueueNotifyAddr(1); !ok || a != m.base+0x3000+20 {
		t.Fatalf("notify addr %#x %v", a, ok)
	}
	le.PutUint16(com[comQueueNotifyOff:], 0x3ff) // 0x3ff*4 + 2 > 0x1000
	if _, ok := p.QueueNotifyAddr(1); !ok {
		t.Fatal("last notify slot refused")
	}
	le.PutUint16(com[comQueueNotifyOff:], 0x400)
	if _, ok := p.QueueNotifyAddr(1); ok {
		t.Fatal("notify offset outside the structure accepted")
	}
	m.bytes(0x1000, 1)[0] = 3
	m.bytes(0x2000, 8)[6] = 0x5a
	if p.ReadISR() != 3 || p.DeviceConfig().Read8(6) != 0x5a || p.DeviceConfig().Read8(0x1000) != 0 {
		t.Fatal("ISR/device config")
	}
}

func TestPCITransitional(t *testing.T) {
	c, _, bar := qemuLike()
	c.Write16(pciDeviceID, 0x1000)
	c.Write16(pciSubsystemID, 1)
	var p PCI
	if err := p.Init(c, bar); err != nil || p.DeviceType() != 1 {
		t.Fatalf("transitional: %v type %d", err, p.DeviceType())
	}
}

func TestPCIHostile(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(c *fakeCfg)
		err     error
		skipped int
	}{
		{"not virtio", func(c *fakeCfg) { c.Write16(pciVendorID, 0x8086) }, ErrNotVirtio, 0},
		{"device id out of range", func(c *fakeCfg) { c.Write16(pciDeviceID, 0x1080) }, ErrNotVirtio, 0},
		{"no cap list", func(c *fakeCfg) { c.Write16(pciStatus, 0) }, ErrNoCapList, 0},
		{"cap pointer in header", func(c *fakeCfg) { c.b[pciCapPtr] = 0x10 }, ErrNoCommon, 1},
		{"cap list loops", func(c *fakeCfg) { c.b[0x41] = 0x40 }, ErrNoCommon, 0},
		{"common cap_len short", func(c *fakeCfg) { c.b[0x52] = 8 }, ErrNoCommon, 1},
		{"common cap past 256", func(c *fakeCfg) { c.b[0x52] = 0xc0 }, ErrNoCommon, 1},
		{"common reserved bar", func(c *fakeCfg) { c.b[0x54] = 6 }, ErrNoCommon, 1},
		{"common absent bar", func(c *fakeCfg) { c.b[0x54] = 2 }, ErrNoCommon, 1},
		{"common beyond bar", func(c *fakeCfg) { binary.LittleEndian.PutUint32(c.b[0x58:], 0x3800) }, ErrNoCommon, 1},
		{"common length wraps", func(c *fakeCfg) {
			binary.LittleEndian.PutUint32(c.b[0x58:], 0xfffffff0)
			binary.LittleEndian.PutUint32(c.b[0x5c:], 0x20)
		}, ErrNoCommon, 1},
		{"common too short", func(c *fakeCfg) { binary.LittleEndian.PutUint32(c.b[0x5c:], 0x20) }, ErrNoCommon, 1},
		{"common misaligned", func(c *fakeCfg) { binary.LittleEndian.PutUint32(c.b[0x58:], 2) }, ErrNoCommon, 1},
		{"notify cap_len 16", func(c *fakeCfg) { c.b[0x82] = 16 }, ErrNoNotify, 1},
		{"notify multiplier 3", func(c *fakeCfg) { binary.LittleEndian.PutUint32(c.b[0x80+capNotifyMult:], 3) }, ErrNoNotify, 1},
		{"notify multiplier 1", func(c *fakeCfg) { binary.LittleEndian.PutUint32(c.b[0x80+capNotifyMult:], 1) }, ErrNoNotify, 1},
		{"isr beyond bar", func(c *fakeCfg) { binary.LittleEndian.PutUint32(c.b[0x68:], 0x4000) }, ErrNoISR, 1},
		{"device cfg empty: optional", func(c *fakeCfg) { binary.LittleEndian.PutUint32(c.b[0x7c:], 0) }, nil, 1},
		{"first common bad, second good", func(c *fakeCfg) {
			c.b[0x99] = 0xa8
			c.cap(0xa8, 0, 16, cfgCommon, 4, 0, 0x40)
			c.b[0x54] = 7
		}, nil, 1},
	}
	for _, tc := range cases {
		c, _, bar := qemuLike()
		tc.mutate(c)
		var p PCI
		err := p.Init(c, bar)
		if err != tc.err || (err == nil && p.Skipped() != tc.skipped) {
			t.Errorf("%s: err %v skipped %d, want %v %d", tc.name, err, p.Skipped(), tc.err, tc.skipped)
		}
		if err != nil && p != (PCI{}) {
			t.Errorf("%s: failed Init left state %+v", tc.name, p)
		}
	}
}

// FuzzPCICaps: arbitrary capability lists and BAR sizes. Init must never panic, and every
// region it accepts (and every notify address) must lie inside its BAR.
func FuzzPCICaps(f *testing.F) {
	c, _, _ := qemuLike()
	f.Add(c.b[:], uint16(0x4000))
	f.Add(make([]byte, 256), uint16(0x1000))
	f.Fuzz(func(t *testing.T, cfg []byte, barPages uint16) {
		var c fakeCfg
		copy(c.b[:], cfg)
		c.Write16(pciVendorID, VendorID)
		c.Write16(pciDeviceID, 0x1041)
		size := uint64(barPages%5) * 4096
		m := newBar(0x4000)
		bar := func(i int) (uintptr, uint64, bool) {
			if i < 0 || i > 5 {
				t.Fatalf("bar(%d) asked", i)
			}
			return m.base, size, size != 0
		}
		var p PCI
		if p.Init(&c, bar) != nil {
			return
		}
		in := func(r region) bool { return r.addr >= m.base && uint64(r.addr-m.base)+uint64(r.len) <= size }
		if !in(p.common) || !in(p.notify) || !in(p.isr) || (p.device.addr != 0 && !in(p.device)) {
			t.Fatalf("region outside the BAR: %+v (BAR %#x+%#x)", p, m.base, size)
		}
		if p.common.len < commonLen || p.notify.len < 2 || p.isr.len < 1 {
			t.Fatalf("short region: %+v", p)
		}
		for q := uint16(0); q < 4; q++ {
			binary.LittleEndian.PutUint16(m.bytes(p.common.addr-m.base+comQueueNotifyOff, 2), q*1000)
			if a, ok := p.QueueNotifyAddr(q); ok && (a < p.notify.addr || a+2 > p.notify.addr+uintptr(p.notify.len)) {
				t.Fatalf("notify address %#x outside %+v", a, p.notify)
			}
		}
	})
}
