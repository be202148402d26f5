// The Transport contract: what a device driver needs from virtio-over-PCI (or -MMIO) at init.
// SPDX-License-Identifier: BSD-3-Clause

package virtio

import "gmpos/drivers/mmio"

// PageAlloc returns one zeroed 4 KiB page: its virtual address for the CPU and its physical
// address for the device. Pages are physically contiguous only within themselves. ok is false
// when memory is exhausted. Called at init only.
type PageAlloc func() (virt uintptr, phys uint64, ok bool)

// PageSize is the size of a PageAlloc page.
const PageSize = 4096

// NoVector is the MSI-X "no vector" value of config_msix_vector and queue_msix_vector
// (VIRTIO_MSI_NO_VECTOR, §4.1.5.1.2): the event raises no MSI-X message.
const NoVector = 0xffff

// Transport is a virtio device's transport as the generic code (negotiation, Queue.Init) and
// device drivers use it at init time. It is an interface so that a device driver serves PCI and
// MMIO alike and tests can fake the device; its methods are not for the hot path — what the
// hot path needs (a queue's notify address, the device configuration window, the ISR address)
// is fetched once and kept as plain addresses. Queue registers are addressed by queue index;
// the implementation selects the queue itself (queue_select, §4.1.4.3).
type Transport interface {
	// Status reads device_status (§2.1); SetStatus writes it.
	Status() uint8
	SetStatus(s uint8)
	// DeviceFeatures reads the device's feature bits 32*word..32*word+31;
	// SetDriverFeatures writes the driver's (§2.2, §4.1.4.3).
	DeviceFeatures(word uint32) uint32
	SetDriverFeatures(word uint32, bits uint32)
	// NumQueues is how many virtqueues the device has (num_queues).
	NumQueues() uint16
	// QueueMaxSize is queue q's size as the device presents it after reset: its maximum
	// (0: the queue is unavailable).
	QueueMaxSize(q uint16) uint16
	// SetQueue writes queue q's size and the physical addresses of its descriptor table,
	// driver (available) area and device (used) area.
	SetQueue(q uint16, size uint16, desc, driver, device uint64)
	// SetQueueVector maps queue q's interrupts to MSI-X table entry v (NoVector: none) and
	// returns the value read back: NoVector when the device could not allocate it.
	SetQueueVector(q uint16, v uint16) uint16
	// EnableQueue writes queue_enable = 1; QueueEnabled reads it.
	EnableQueue(q uint16)
	QueueEnabled(q uint16) bool
	// QueueNotifyAddr is the address a 16-bit write of q to notifies queue q, checked against
	// the notification region; ok false if the device's offset is outside it.
	QueueNotifyAddr(q uint16) (addr uintptr, ok bool)
	// SetConfigVector maps configuration-change interrupts to MSI-X table entry v and returns
	// the value read back.
	SetConfigVector(v uint16) uint16
	// ConfigGeneration reads config_generation (§2.5.1): equal before and after a multi-field
	// read means the fields were consistent.
	ConfigGeneration() uint8
	// DeviceConfig is the device-specific configuration window (§2.5).
	DeviceConfig() ConfigSpace
	// ReadISR reads (and so clears, de-asserting INTx) the ISR status (§4.1.4.5): bit 0 a
	// queue interrupt, bit 1 a configuration change.
	ReadISR() uint8
}

// ISR status bits (§4.1.4.5).
const (
	ISRQueue  = 1 << 0
	ISRConfig = 1 << 1
)

// ConfigSpace is the device-specific configuration window: an address and a length. Reads
// outside the window return 0 (a device whose configuration is shorter than the driver expects
// reads as zeros, never as a fault). Plain data: a device driver keeps it by value.
type ConfigSpace struct {
	Base uintptr
	Len  uint32
}

// in reports whether [off, off+n) lies in the window and off is n-aligned (§4.1.3.1: aligned
// accesses of the field's width).
func (c ConfigSpace) in(off, n uint32) bool {
	return c.Base != 0 && off%n == 0 && off < c.Len && c.Len-off >= n
}

// Read8 reads the byte at off.
func (c ConfigSpace) Read8(off uint32) uint8 {
	if !c.in(off, 1) {
		return 0
	}
	return mmio.Read8(c.Base + uintptr(off))
}

// Read16 reads the 16-bit little-endian field at off.
func (c ConfigSpace) Read16(off uint32) uint16 {
	if !c.in(off, 2) {
		return 0
	}
	return mmio.Read16(c.Base + uintptr(off))
}

// Read32 reads the 32-bit little-endian field at off.
func (c ConfigSpace) Read32(off uint32) uint32 {
	if !c.in(off, 4) {
		return 0
	}
	return mmio.Read32(c.Base + uintptr(off))
}

// Has reports whether the window holds the n bytes at off.
func (c ConfigSpace) Has(off, n uint32) bool {
	return c.Base != 0 && off < c.Len && c.Len-off >= n
}
