// Finding the virtio structures of a PCI function: the vendor-specific capabilities of §4.1.4.
// SPDX-License-Identifier: BSD-3-Clause

package virtio

// PCIConfig is a PCI function's configuration space, as the PCI transport needs it.
// drivers/pci's Func satisfies it; tests fake it. Used at init only.
type PCIConfig interface {
	Read8(off uint16) uint8
	Read16(off uint16) uint16
	Read32(off uint16) uint32
	Write8(off uint16, v uint8)
	Write16(off uint16, v uint16)
	Write32(off uint16, v uint32)
}

// PCI configuration-space header fields (PCI Local Bus 3.0 §6.1, §6.2).
const (
	pciVendorID     = 0x00
	pciDeviceID     = 0x02
	pciCommand      = 0x04
	pciStatus       = 0x06
	pciSubsystemID  = 0x2e
	pciCapPtr       = 0x34
	pciStatusCaps   = 1 << 4 // Status: the capability list exists (§6.2.3)
	pciCmdMemory    = 1 << 1 // Command: respond to memory-space accesses (§6.2.2)
	pciCmdBusMaster = 1 << 2 // Command: may master the bus (DMA to the rings)
	pciCapVendor    = 0x09   // capability id: vendor specific (PCI 3.0 Appendix H)
	pciCapFirst     = 0x40   // capabilities live after the 64-byte header...
	pciCapEnd       = 0x100  // ...and within the 256-byte space
	pciMaxCaps      = (pciCapEnd - pciCapFirst) / 4
)

// Virtio PCI ids (§4.1.2): vendor 0x1af4; device 0x1040+type (modern) or 0x1000-0x103f
// (transitional, the type in the subsystem device id).
const (
	VendorID           = 0x1af4
	deviceModernBase   = 0x1040
	deviceFirst        = 0x1000
	deviceLast         = 0x107f
	deviceTransitional = 0x103f
)

// struct virtio_pci_cap (§4.1.4): byte offsets inside the capability.
const (
	capLen        = 2  // cap_len: the capability's length
	capCfgType    = 3  // cfg_type
	capBar        = 4  // bar: 0-5; other values reserved: the capability MUST be ignored
	capOffset     = 8  // le32 offset in the BAR
	capLength     = 12 // le32 length of the structure
	capNotifyMult = 16 // virtio_pci_notify_cap.notify_off_multiplier (le32)
	capMinLen     = 16
	capNotifyLen  = 20
)

// cfg_type values (§4.1.4).
const (
	cfgCommon = 1
	cfgNotify = 2
	cfgISR    = 3
	cfgDevice = 4
	cfgPCI    = 5
)

// commonLen is the part of struct virtio_pci_common_cfg this driver uses (through queue_device,
// §4.1.4.3); a shorter common structure is refused.
const commonLen = 0x38

// region is one virtio structure found through a capability: mapped address and length.
type region struct {
	addr uintptr
	len  uint32
}

// findCaps walks the capability list (PCI 3.0 §6.7) and fills t's regions from the first
// usable capability of each cfg_type, as the driver SHOULD (§4.1.4: "the driver SHOULD use the
// first instance of each virtio structure type they can support"). A capability that is
// malformed, names a reserved BAR, an absent BAR, or a region outside its BAR is ignored
// (counted in t.skipped), so a later good one of the same type can still be used.
//
// The walk is bounded by pciMaxCaps (a list that loops ends there) and by the 256-byte space.
func (t *PCI) findCaps(cfg PCIConfig, bar func(i int) (uintptr, uint64, bool)) error {
	if cfg.Read16(pciStatus)&pciStatusCaps == 0 {
		return ErrNoCapList
	}
	p := uint16(cfg.Read8(pciCapPtr)) &^ 3 // the two low bits are reserved (§6.7)
	for i := 0; p != 0 && i < pciMaxCaps; i++ {
		if p < pciCapFirst || p > pciCapEnd-4 {
			t.skipped++
			break
		}
		if cfg.Read8(p) == pciCapVendor {
			t.vendorCap(cfg, p, bar)
		}
		p = uint16(cfg.Read8(p+1)) &^ 3
	}
	switch {
	case t.common.addr == 0:
		return ErrNoCommon
	case t.notify.addr == 0:
		return ErrNoNotify
	case t.isr.addr == 0:
		return ErrNoISR
	}
	return nil
}

// vendorCap takes the virtio capability at p if it is well formed and its type not yet found.
func (t *PCI) vendorCap(cfg PCIConfig, p uint16, bar func(i int) (uintptr, uint64, bool)) {
	n := uint16(cfg.Read8(p + capLen))
	typ := cfg.Read8(p + capCfgType)
	if n < capMinLen || p+n > pciCapEnd {
		t.skipped++
		return
	}
	var dst *region
	align, min := uint32(1), uint32(1)
	switch typ {
	case cfgCommon:
		dst, align, min = &t.common, 4, commonLen
	case cfgNotify:
		if n < capNotifyLen {
			t.skipped++
			return
		}
		dst, align, min = &t.notify, 2, 2
	case cfgISR:
		dst = &t.isr
	case cfgDevice:
		dst, align, min = &t.device, 4, 0
	default:
		return // PCI configuration access (5), shared memory (8), vendor data (9): not used
	}
	if dst.addr != 0 {
		return // the first instance wins
	}
	b := cfg.Read8(p + capBar)
	off := cfg.Read32(p + capOffset)
	ln := cfg.Read32(p + capLength)
	if b > 5 || off%align != 0 || ln < min {
		t.skipped++
		return
	}
	virt, size, ok := bar(int(b))
	if !ok || virt == 0 || uint64(off)+uint64(ln) > size {
		t.skipped++
		return
	}
	if typ == cfgNotify {
		// §4.1.4.4: notify_off_multiplier is 0 (all queues share one address) or a power of
		// 2; we also want it even so that every queue's 16-bit notify register is aligned.
		m := cfg.Read32(p + capNotifyMult)
		if m != 0 && (m&(m-1) != 0 || m < 2) {
			t.skipped++
			return
		}
		t.notifyMult = m
	}
	if typ == cfgDevice && ln == 0 {
		t.skipped++
		return
	}
	dst.addr = virt + uintptr(off)
	dst.len = ln
}
