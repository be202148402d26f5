// The package's errors: constant strings, so returning one neither allocates nor needs init().
// SPDX-License-Identifier: BSD-3-Clause

package virtio

// Error is a virtio error. A string type (not errors.New): constants of it are usable before
// the Go runtime is initialised and converting one to error does not allocate.
type Error string

func (e Error) Error() string { return string(e) }

// Errors of the PCI transport's Init (§4.1.4).
const (
	ErrNotVirtio  = Error("virtio: not a virtio PCI function (vendor 0x1af4, device 0x1000-0x107f)")
	ErrNoCapList  = Error("virtio: the PCI function has no capability list")
	ErrNoCommon   = Error("virtio: no usable common configuration capability")
	ErrNoNotify   = Error("virtio: no usable notification capability")
	ErrNoISR      = Error("virtio: no usable ISR capability")
	ErrNoDevCfg   = Error("virtio: no usable device configuration capability")
	ErrNotInit    = Error("virtio: transport not initialised")
	ErrResetStuck = Error("virtio: device status did not read 0 after reset")
)

// Errors of negotiation (§3.1.1) and queue setup (§4.1.5.1.3).
const (
	ErrNoVersion1   = Error("virtio: device does not offer VIRTIO_F_VERSION_1")
	ErrFeatures     = Error("virtio: device lacks a required feature")
	ErrFeaturesOK   = Error("virtio: device did not keep FEATURES_OK")
	ErrDeviceFailed = Error("virtio: device reports DEVICE_NEEDS_RESET or FAILED")
	ErrNoQueue      = Error("virtio: queue index beyond num_queues, or queue size 0")
	ErrQueueSize    = Error("virtio: device queue size is not a power of 2")
	ErrBadSize      = Error("virtio: requested queue size is 0, not a power of 2 or above MaxQueueSize")
	ErrQueueEnabled = Error("virtio: queue is already enabled")
	ErrNoMemory     = Error("virtio: page allocator failed")
	ErrBadPage      = Error("virtio: page allocator returned a misaligned page")
	ErrNotify       = Error("virtio: queue notify offset outside the notification capability")
	ErrVector       = Error("virtio: device refused the MSI-X vector")
)
