// Device status and feature negotiation: the initialisation sequence of §3.1.1.
// SPDX-License-Identifier: BSD-3-Clause

package virtio

// Device status bits (§2.1).
const (
	StatusAcknowledge      = 1   // the guest noticed the device
	StatusDriver           = 2   // the guest knows how to drive it
	StatusDriverOK         = 4   // the driver is ready
	StatusFeaturesOK       = 8   // the driver accepted features; the device agrees if it stays set
	StatusDeviceNeedsReset = 64  // the device hit an error it cannot recover from
	StatusFailed           = 128 // the driver gave up
)

// Reserved feature bits (§6) the transport knows. Device types define bits 0-23 and 50-127.
const (
	FeatureVersion1       = 1 << 32 // VIRTIO_F_VERSION_1: a modern (1.x) device
	FeatureAccessPlatform = 1 << 33 // VIRTIO_F_ACCESS_PLATFORM: DMA goes through the platform's IOMMU
)

// resetSpins bounds the wait for a reset to finish (device_status reading 0, §4.1.4.3.2).
// QEMU resets synchronously: the first read returns 0.
const resetSpins = 1 << 20

// Reset writes 0 to device_status and waits until it reads 0 (§4.1.4.3.2: the driver MUST wait
// before reinitialising). After it the device has forgotten features, queues and vectors.
func Reset(t Transport) error {
	t.SetStatus(0)
	for i := 0; i < resetSpins; i++ {
		if t.Status() == 0 {
			return nil
		}
	}
	return ErrResetStuck
}

// Begin starts §3.1.1: reset the device (step 1), set ACKNOWLEDGE (2) and DRIVER (3), and read
// the device's feature bits (4, first half). The caller may now read (never write) the device
// configuration to decide which features to take, then calls Accept.
func Begin(t Transport) (offered uint64, err error) {
	if err := Reset(t); err != nil {
		return 0, err
	}
	t.SetStatus(StatusAcknowledge)
	t.SetStatus(StatusAcknowledge | StatusDriver)
	return uint64(t.DeviceFeatures(0)) | uint64(t.DeviceFeatures(1))<<32, nil
}

// Accept finishes feature negotiation (§3.1.1 steps 4-6): the features written are
// offered & (required|optional) with VIRTIO_F_VERSION_1 always required (§6.1: a modern driver
// MUST accept it, and a device without it is legacy-only, which this package does not drive).
// It sets FEATURES_OK and re-reads the status: a device that cleared it does not support the
// subset (step 6). On error the caller should Fail the device. Returns the features in force.
func Accept(t Transport, offered, required, optional uint64) (uint64, error) {
	required |= FeatureVersion1
	if offered&FeatureVersion1 == 0 {
		return 0, ErrNoVersion1
	}
	if offered&required != required {
		return 0, ErrFeatures
	}
	f := offered & (required | optional)
	t.SetDriverFeatures(0, uint32(f))
	t.SetDriverFeatures(1, uint32(f>>32))
	const s = StatusAcknowledge | StatusDriver
	t.SetStatus(s | StatusFeaturesOK)
	if st := t.Status(); st&StatusFeaturesOK == 0 {
		return 0, ErrFeaturesOK
	}
	return f, nil
}

// DriverOK sets DRIVER_OK (§3.1.1 step 8) after the queues are set up: from now on the device
// may use the queues and the driver may notify it. It re-reads the status and reports a device
// that has meanwhile signalled DEVICE_NEEDS_RESET or FAILED.
func DriverOK(t Transport) error {
	const s = StatusAcknowledge | StatusDriver | StatusFeaturesOK
	t.SetStatus(s | StatusDriverOK)
	if t.Status()&(StatusDeviceNeedsReset|StatusFailed) != 0 {
		return ErrDeviceFailed
	}
	return nil
}

// Fail sets FAILED (§3.1.1: "if any of these steps go irrecoverably wrong, the driver SHOULD set
// the FAILED status bit"), keeping the bits already set.
func Fail(t Transport) {
	t.SetStatus(t.Status() | StatusFailed)
}
