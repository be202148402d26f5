// A virtio Transport whose device registers are struct fields.
// SPDX-License-Identifier: BSD-3-Clause

package fakedev

import (
	"unsafe"

	"gmpos/drivers/virtio"
)

// MaxQueues is how many queues a fake device can have.
const MaxQueues = 4

// QueueRegs is one queue's registers as the driver programmed them.
type QueueRegs struct {
	Max       uint16 // queue size presented after reset (the device's maximum)
	Size      uint16
	Desc      uint64
	Driver    uint64
	Device    uint64
	Vector    uint16
	Enabled   bool
	NotifyOff uint16 // the queue's notify slot; ≥ MaxQueues is outside the notify area
}

// Transport is a fake device's transport. Set the exported fields before the driver's Init;
// inspect them after. Allocate with New (it must not move: the driver keeps addresses of its
// Notify, Config and ISR fields).
type Transport struct {
	Offered          uint64 // device feature bits
	Accepted         uint64 // driver feature bits as written
	Stat             uint8  // device_status
	RefuseFeaturesOK bool   // clear FEATURES_OK when it is set (the device rejects the subset)
	NeedsReset       bool   // report DEVICE_NEEDS_RESET once DRIVER_OK is set
	StuckReset       bool   // status never reads 0 after a reset
	NQueues          uint16
	Queues           [MaxQueues]QueueRegs
	ConfigVector     uint16
	RefuseVectors    bool // vectors read back as NoVector
	Generation       uint8
	GenerationSteps  int // ConfigGeneration changes on each of the next GenerationSteps reads
	ISR              uint8
	StatusLog        []uint8
	Notify           [MaxQueues]uint16 // notify registers (a Kick writes its queue index here)
	Config           [64]byte          // device configuration
	ConfigLen        uint32
}

// New makes a fake device offering features, with n queues of maximum size max each.
func New(features uint64, n uint16, max uint16) *Transport {
	t := &Transport{Offered: features, NQueues: n, ConfigVector: virtio.NoVector, ConfigLen: 64}
	for i := range t.Queues {
		t.Queues[i] = QueueRegs{Max: max, Vector: virtio.NoVector, NotifyOff: uint16(i)}
	}
	return t
}

func (t *Transport) Status() uint8 { return t.Stat }

func (t *Transport) SetStatus(s uint8) {
	t.StatusLog = append(t.StatusLog, s)
	if s == 0 {
		t.Stat = 0
		if t.StuckReset {
			t.Stat = virtio.StatusAcknowledge
		}
		for i := range t.Queues {
			q := &t.Queues[i]
			*q = QueueRegs{Max: q.Max, Vector: virtio.NoVector, NotifyOff: q.NotifyOff}
		}
		t.ConfigVector = virtio.NoVector
		return
	}
	if t.RefuseFeaturesOK {
		s &^= virtio.StatusFeaturesOK
	}
	if t.NeedsReset && s&virtio.StatusDriverOK != 0 {
		s |= virtio.StatusDeviceNeedsReset
	}
	t.Stat = s
}

func (t *Transport) DeviceFeatures(word uint32) uint32 {
	if word > 1 {
		return 0
	}
	return uint32(t.Offered >> (32 * word))
}

func (t *Transport) SetDriverFeatures(word uint32, bits uint32) {
	if word > 1 {
		return
	}
	t.Accepted = t.Accepted&^(0xffffffff<<(32*word)) | uint64(bits)<<(32*word)
}

func (t *Transport) NumQueues() uint16 { return t.NQueues }

func (t *Transport) q(i uint16) *QueueRegs {
	if i >= t.NQueues || int(i) >= MaxQueues {
		return &QueueRegs{Vector: virtio.NoVector}
	}
	return &t.Queues[i]
}

func (t *Transport) QueueMaxSize(q uint16) uint16 { return t.q(q).Max }

func (t *Transport) SetQueue(q uint16, size uint16, desc, driver, device uint64) {
	r := t.q(q)
	r.Size, r.Desc, r.Driver, r.Device = size, desc, driver, device
}

func (t *Transport) SetQueueVector(q uint16, v uint16) uint16 {
	if t.RefuseVectors {
		v = virtio.NoVector
	}
	t.q(q).Vector = v
	return t.q(q).Vector
}

func (t *Transport) EnableQueue(q uint16)       { t.q(q).Enabled = true }
func (t *Transport) QueueEnabled(q uint16) bool { return t.q(q).Enabled }

func (t *Transport) QueueNotifyAddr(q uint16) (uintptr, bool) {
	off := t.q(q).NotifyOff
	if off >= MaxQueues {
		return 0, false
	}
	return uintptr(unsafe.Pointer(&t.Notify[off])), true
}

func (t *Transport) SetConfigVector(v uint16) uint16 {
	if t.RefuseVectors {
		v = virtio.NoVector
	}
	t.ConfigVector = v
	return v
}

func (t *Transport) ConfigGeneration() uint8 {
	if t.GenerationSteps > 0 {
		t.GenerationSteps--
		t.Generation++
	}
	return t.Generation
}

func (t *Transport) DeviceConfig() virtio.ConfigSpace {
	return virtio.ConfigSpace{Base: uintptr(unsafe.Pointer(&t.Config[0])), Len: t.ConfigLen}
}

func (t *Transport) ReadISR() uint8 {
	v := t.ISR
	t.ISR = 0
	return v
}

// ISRAddr is the address of the ISR field (for drivers that read it directly; reading it
// that way does not clear it).
func (t *Transport) ISRAddr() uintptr { return uintptr(unsafe.Pointer(&t.ISR)) }

// Ring is the device side of queue q as the driver programmed it.
func (t *Transport) Ring(q uint16) *Ring {
	r := t.q(q)
	return NewRing(r.Size, uintptr(r.Desc), uintptr(r.Driver), uintptr(r.Device))
}

var _ virtio.Transport = (*Transport)(nil)
