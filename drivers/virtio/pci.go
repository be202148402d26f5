// The modern virtio PCI transport (§4.1): the common configuration registers behind Transport.
// SPDX-License-Identifier: BSD-3-Clause

package virtio

import "gmpos/drivers/mmio"

// struct virtio_pci_common_cfg (§4.1.4.3): register offsets.
const (
	comDeviceFeatureSel = 0x00 // le32 RW
	comDeviceFeature    = 0x04 // le32 RO
	comDriverFeatureSel = 0x08 // le32 RW
	comDriverFeature    = 0x0c // le32 RW
	comConfigMSIX       = 0x10 // le16 RW
	comNumQueues        = 0x12 // le16 RO
	comDeviceStatus     = 0x14 // u8 RW
	comConfigGeneration = 0x15 // u8 RO
	comQueueSelect      = 0x16 // le16 RW
	comQueueSize        = 0x18 // le16 RW
	comQueueMSIX        = 0x1a // le16 RW
	comQueueEnable      = 0x1c // le16 RW
	comQueueNotifyOff   = 0x1e // le16 RO
	comQueueDesc        = 0x20 // le64 RW
	comQueueDriver      = 0x28 // le64 RW
	comQueueDevice      = 0x30 // le64 RW
)

// PCI is a virtio device over PCI, modern interface (§4.1), transitional devices included (they
// present the same capabilities; their legacy I/O BAR is not used). It implements Transport.
//
// Plain data (addresses and numbers): usable as a package-level variable, and keeps no
// reference to the PCIConfig or the BAR function given to Init. Init-time only, except ReadISR
// and the addresses handed out (ISRAddr, QueueNotifyAddr, DeviceConfig), which the hot path
// uses directly. Callers serialise (the kernel's BKL).
type PCI struct {
	common, notify, isr, device region
	notifyMult                  uint32
	skipped                     int    // malformed or unusable capabilities ignored
	deviceID, subsystemID       uint16 // PCI device and subsystem ids
}

// Init finds the virtio structures of the PCI function whose configuration space is cfg.
// bar(i) returns BAR i's mapped virtual address and size (ok false: absent or unmapped); the
// caller maps every memory BAR a virtio capability names (QEMU: BAR 4, 16 KiB, 64-bit) as
// uncached device memory before calling Init. Init enables memory decoding and bus mastering
// in the PCI command register (the device DMAs to the rings, PCI 3.0 §6.2.2) and leaves the
// device in reset state for Begin. It neither reads nor programs MSI-X: that is the caller's
// (drivers/pci), see Transport.SetQueueVector.
func (t *PCI) Init(cfg PCIConfig, bar func(i int) (virt uintptr, size uint64, ok bool)) error {
	*t = PCI{}
	vendor, dev := cfg.Read16(pciVendorID), cfg.Read16(pciDeviceID)
	if vendor != VendorID || dev < deviceFirst || dev > deviceLast {
		return ErrNotVirtio
	}
	t.deviceID, t.subsystemID = dev, cfg.Read16(pciSubsystemID)
	if err := t.findCaps(cfg, bar); err != nil {
		*t = PCI{}
		return err
	}
	cfg.Write16(pciCommand, cfg.Read16(pciCommand)|pciCmdMemory|pciCmdBusMaster)
	return nil
}

// DeviceType is the virtio device type (§5: 1 network, 2 block, 9 9P, ...): the PCI device id
// minus 0x1040 for a modern device, the subsystem device id for a transitional one (§4.1.2.1).
func (t *PCI) DeviceType() uint16 {
	if t.deviceID > deviceTransitional {
		return t.deviceID - deviceModernBase
	}
	return t.subsystemID
}

// PCIDeviceID is the PCI device id the function presented.
func (t *PCI) PCIDeviceID() uint16 { return t.deviceID }

// Skipped is how many capabilities Init ignored as malformed (for diagnostics).
func (t *PCI) Skipped() int { return t.skipped }

// HasDeviceConfig reports whether the device has a device-specific configuration structure.
func (t *PCI) HasDeviceConfig() bool { return t.device.addr != 0 }

func (t *PCI) com(off uintptr) uintptr { return t.common.addr + off }

// Status implements Transport.
func (t *PCI) Status() uint8 { return mmio.Read8(t.com(comDeviceStatus)) }

// SetStatus implements Transport.
func (t *PCI) SetStatus(s uint8) { mmio.Write8(t.com(comDeviceStatus), s) }

// DeviceFeatures implements Transport.
func (t *PCI) DeviceFeatures(word uint32) uint32 {
	mmio.Write32(t.com(comDeviceFeatureSel), word)
	return mmio.Read32(t.com(comDeviceFeature))
}

// SetDriverFeatures implements Transport.
func (t *PCI) SetDriverFeatures(word uint32, bits uint32) {
	mmio.Write32(t.com(comDriverFeatureSel), word)
	mmio.Write32(t.com(comDriverFeature), bits)
}

// NumQueues implements Transport.
func (t *PCI) NumQueues() uint16 { return mmio.Read16(t.com(comNumQueues)) }

func (t *PCI) sel(q uint16) { mmio.Write16(t.com(comQueueSelect), q) }

// QueueMaxSize implements Transport.
func (t *PCI) QueueMaxSize(q uint16) uint16 {
	t.sel(q)
	return mmio.Read16(t.com(comQueueSize))
}

// SetQueue implements Transport. The 64-bit addresses are written as two 32-bit halves, low
// first (§4.1.3.1: 64-bit fields with 32-bit accesses).
func (t *PCI) SetQueue(q uint16, size uint16, desc, driver, device uint64) {
	t.sel(q)
	mmio.Write16(t.com(comQueueSize), size)
	write64(t.com(comQueueDesc), desc)
	write64(t.com(comQueueDriver), driver)
	write64(t.com(comQueueDevice), device)
}

func write64(a uintptr, v uint64) {
	mmio.Write32(a, uint32(v))
	mmio.Write32(a+4, uint32(v>>32))
}

// SetQueueVector implements Transport.
func (t *PCI) SetQueueVector(q uint16, v uint16) uint16 {
	t.sel(q)
	mmio.Write16(t.com(comQueueMSIX), v)
	return mmio.Read16(t.com(comQueueMSIX))
}

// EnableQueue implements Transport.
func (t *PCI) EnableQueue(q uint16) {
	t.sel(q)
	mmio.Write16(t.com(comQueueEnable), 1)
}

// QueueEnabled implements Transport.
func (t *PCI) QueueEnabled(q uint16) bool {
	t.sel(q)
	return mmio.Read16(t.com(comQueueEnable)) != 0
}

// QueueNotifyAddr implements Transport: cap.offset + queue_notify_off × notify_off_multiplier
// (§4.1.4.4), refused unless the 2-byte register lies inside the notification structure (the
// device promises cap.length ≥ queue_notify_off × multiplier + 2, but we check).
func (t *PCI) QueueNotifyAddr(q uint16) (uintptr, bool) {
	if t.notify.addr == 0 {
		return 0, false
	}
	t.sel(q)
	off := uint64(mmio.Read16(t.com(comQueueNotifyOff))) * uint64(t.notifyMult)
	if off+2 > uint64(t.notify.len) {
		return 0, false
	}
	return t.notify.addr + uintptr(off), true
}

// SetConfigVector implements Transport.
func (t *PCI) SetConfigVector(v uint16) uint16 {
	mmio.Write16(t.com(comConfigMSIX), v)
	return mmio.Read16(t.com(comConfigMSIX))
}

// ConfigGeneration implements Transport.
func (t *PCI) ConfigGeneration() uint8 { return mmio.Read8(t.com(comConfigGeneration)) }

// DeviceConfig implements Transport (a zero window if the device has none).
func (t *PCI) DeviceConfig() ConfigSpace { return ConfigSpace{Base: t.device.addr, Len: t.device.len} }

// ReadISR implements Transport. Also the hot path of an INTx handler: a concrete method, one
// MMIO read.
func (t *PCI) ReadISR() uint8 { return mmio.Read8(t.isr.addr) }

// ISRAddr is the ISR status register's address, for a driver that keeps it instead of *PCI.
func (t *PCI) ISRAddr() uintptr { return t.isr.addr }
