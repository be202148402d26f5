// The virtio-net device: initialisation (§5.1.5), identity and link state, interrupts.
// SPDX-License-Identifier: BSD-3-Clause

package net

import (
	"gmpos/drivers/virtio"

	"gmpos/drivers/mmio"
)

// PCI ids of a virtio-net function (§4.1.2): the virtio vendor, and the modern device id
// (0x1040 + type 1) or the transitional one (0x1000, subsystem device id 1). Both are driven
// through the modern capabilities.
const (
	Vendor             = virtio.VendorID
	DeviceModern       = 0x1041
	DeviceTransitional = 0x1000
)

// Device type and feature bits (§5.1.1, §5.1.3).
const (
	deviceTypeNet = 1
	FeatureMTU    = 1 << 3  // VIRTIO_NET_F_MTU: config mtu is valid
	FeatureMAC    = 1 << 5  // VIRTIO_NET_F_MAC: config mac is valid
	FeatureStatus = 1 << 16 // VIRTIO_NET_F_STATUS: config status is valid
)

// struct virtio_net_config (§5.1.4): offsets.
const (
	cfgMAC       = 0  // u8[6]
	cfgStatus    = 6  // le16: VIRTIO_NET_S_LINK_UP = 1
	cfgMTU       = 10 // le16
	statusLinkUp = 1
	minMTU       = 68 // RFC 791: the smallest IPv4 MTU; §5.1.4.1 bounds mtu below by it
	defaultMTU   = 1500
	macReadTries = 16
	rxQueueIndex = 0 // receiveq1 (§5.1.2)
	txQueueIndex = 1 // transmitq1
	bufsPerPage  = virtio.PageSize / BufSize
)

// Queue sizes the driver asks for (the device's maximum may be smaller). Every entry has its
// own 2 KiB buffer: 64 + 128 pages.
//
// The transmit ring is QEMU's largest (tx_queue_size 256) because the stack sends in bursts of
// up to 47 frames with one notification (kernel/netstack, link.go); QEMU reaps them in its main
// loop some time after the notification, so a ring of 64 would overflow at the second burst, and
// a full ring drops frames (TCP then retransmits).
const (
	RxQueueSize = 128
	TxQueueSize = 256
)

// DefaultMAC is used when the device does not offer VIRTIO_NET_F_MAC: a locally administered
// unicast address (IEEE 802: bit 1 of the first octet set, bit 0 clear).
var DefaultMAC = [6]byte{0x02, 0x67, 0x6d, 0x70, 0x00, 0x01}

// Errors of Init.
const (
	ErrNotNet    = virtio.Error("virtio-net: not a network device")
	ErrQueues    = virtio.Error("virtio-net: device has fewer than 2 queues")
	ErrConfig    = virtio.Error("virtio-net: device configuration too short for the MAC")
	ErrUnstable  = virtio.Error("virtio-net: device configuration kept changing while read")
	ErrNoMemory  = virtio.Error("virtio-net: page allocator failed")
	ErrNotReady  = virtio.Error("virtio-net: device not initialised")
	ErrBadBuffer = virtio.Error("virtio-net: page allocator returned a misaligned page")
)

// Device is a virtio-net device. Plain data (queues, addresses, counters; no Go pointers):
// meant to be a package-level variable. See doc.go for contexts and the kernel's sequence.
type Device struct {
	rx, tx   virtio.Queue
	cfg      virtio.ConfigSpace
	isr      uintptr
	features uint64
	mac      [6]byte
	mtu      uint16
	txMax    int // largest frame TxSubmit takes
	ready    bool

	nrx    uint16 // receive buffers (= rx queue size)
	rxVirt [virtio.MaxQueueSize]uintptr
	rxPhys [virtio.MaxQueueSize]uint64
	rxHeld bool // RxNext returned rxSlot's frame and RxDone has not given it back
	// re-posted receive buffers the device has not been notified of (rx.go, rxKickBatch)
	rxUnkicked int
	rxSlot     uint16 //

	ntx     uint16
	txVirt  [virtio.MaxQueueSize]uintptr
	txPhys  [virtio.MaxQueueSize]uint64
	txFree  [virtio.MaxQueueSize]uint16 // stack of free transmit buffers
	nTxFree uint16
	txHeld  bool   // TxBuffer handed out txSlot and TxSubmit has not queued it
	txSlot  uint16 //

	stats Stats
}

// Init brings the device up (§3.1.1 with §5.1.5): negotiation, the MAC, both queues with their
// buffers, DRIVER_OK, and the receive buffers made available. t is an initialised PCI
// transport; alloc gives the rings' and buffers' pages; rxVector and cfgVector are the MSI-X
// table entries for receive-queue and configuration-change interrupts (virtio.NoVector: none,
// e.g. with INTx). The caller has programmed and enabled those MSI-X entries. On error the
// device is left FAILED and d unusable.
func (d *Device) Init(t *virtio.PCI, alloc virtio.PageAlloc, rxVector, cfgVector uint16) error {
	*d = Device{}
	if t.DeviceType() != deviceTypeNet {
		return ErrNotNet
	}
	return d.setup(t, t.ISRAddr(), alloc, rxVector, cfgVector)
}

// setup is Init for any transport (tests use a fake one); isr is the ISR register's address
// (0: none).
func (d *Device) setup(t virtio.Transport, isr uintptr, alloc virtio.PageAlloc, rxVector, cfgVector uint16) error {
	*d = Device{}
	err := d.bringUp(t, isr, alloc, rxVector, cfgVector)
	if err != nil {
		virtio.Fail(t)
		*d = Device{}
	}
	return err
}

func (d *Device) bringUp(t virtio.Transport, isr uintptr, alloc virtio.PageAlloc, rxVector, cfgVector uint16) error {
	offered, err := virtio.Begin(t)
	if err != nil {
		return err
	}
	cfg := t.DeviceConfig()
	optional := uint64(FeatureMAC | FeatureStatus)
	// Before FEATURES_OK the driver may read the configuration to decide (§3.1.1 step 4).
	if offered&FeatureMTU != 0 && mtuOK(cfg.Read16(cfgMTU)) && cfg.Has(cfgMTU, 2) {
		optional |= FeatureMTU
	}
	f, err := virtio.Accept(t, offered, 0, optional)
	if err != nil {
		return err
	}
	d.features, d.cfg, d.isr = f, cfg, isr
	d.mac, d.mtu = DefaultMAC, defaultMTU
	if f&FeatureMAC != 0 {
		if !cfg.Has(cfgMAC, 6) {
			return ErrConfig
		}
		if err := d.readMAC(t); err != nil {
			return err
		}
	}
	if m := cfg.Read16(cfgMTU); f&FeatureMTU != 0 && mtuOK(m) {
		d.mtu = m
	}
	d.txMax = MinFrame + int(d.mtu)
	if d.txMax > MaxFrame {
		d.txMax = MaxFrame
	}
	if t.NumQueues() < 2 {
		return ErrQueues
	}
	if t.SetConfigVector(cfgVector) != cfgVector {
		return virtio.ErrVector
	}
	if err := d.rx.Init(t, rxQueueIndex, RxQueueSize, rxVector, alloc); err != nil {
		return err
	}
	if err := d.tx.Init(t, txQueueIndex, TxQueueSize, virtio.NoVector, alloc); err != nil {
		return err
	}
	d.nrx, d.ntx = d.rx.Size(), d.tx.Size()
	if err := buffers(alloc, d.rxVirt[:d.nrx], d.rxPhys[:d.nrx]); err != nil {
		return err
	}
	if err := buffers(alloc, d.txVirt[:d.ntx], d.txPhys[:d.ntx]); err != nil {
		return err
	}
	for i := uint16(0); i < d.nrx; i++ {
		d.postRx(i)
	}
	for i := uint16(0); i < d.ntx; i++ {
		d.txFree[i] = d.ntx - 1 - i
	}
	d.nTxFree = d.ntx
	d.tx.DisableInterrupts() // transmit completions are reaped by TxBuffer
	if err := virtio.DriverOK(t); err != nil {
		return err
	}
	d.ready = true
	d.rx.Kick() // notifications only after DRIVER_OK (§3.1.1)
	return nil
}

func mtuOK(m uint16) bool { return m >= minMTU && m <= defaultMTU }

// buffers carves 2 KiB buffers, two per page, from alloc.
func buffers(alloc virtio.PageAlloc, virt []uintptr, phys []uint64) error {
	for i := 0; i < len(virt); i += bufsPerPage {
		v, p, ok := alloc()
		if !ok {
			return ErrNoMemory
		}
		if v%virtio.PageSize != 0 || p%virtio.PageSize != 0 {
			return ErrBadBuffer
		}
		for j := 0; j < bufsPerPage && i+j < len(virt); j++ {
			virt[i+j], phys[i+j] = v+uintptr(j*BufSize), p+uint64(j*BufSize)
		}
	}
	return nil
}

// readMAC reads the MAC consistently: config_generation equal before and after (§2.5.1; a
// six-byte field is read byte by byte and could otherwise tear).
func (d *Device) readMAC(t virtio.Transport) error {
	for i := 0; i < macReadTries; i++ {
		g := t.ConfigGeneration()
		var m [6]byte
		for j := range m {
			m[j] = d.cfg.Read8(cfgMAC + uint32(j))
		}
		if t.ConfigGeneration() == g {
			d.mac = m
			return nil
		}
	}
	return ErrUnstable
}

// MAC is the device's MAC address (DefaultMAC if it has none).
func (d *Device) MAC() [6]byte { return d.mac }

// MTU is the MTU in force: 1500, or the device's smaller one (VIRTIO_NET_F_MTU).
func (d *Device) MTU() uint16 { return d.mtu }

// Features are the negotiated feature bits.
func (d *Device) Features() uint64 { return d.features }

// Ready reports whether Init succeeded.
func (d *Device) Ready() bool { return d.ready }

// LinkUp reports the link state (VIRTIO_NET_S_LINK_UP, §5.1.4); up when the device does not
// report it (no VIRTIO_NET_F_STATUS). One configuration read: call it after a configuration
// interrupt rather than on every frame.
func (d *Device) LinkUp() bool {
	if d.features&FeatureStatus == 0 {
		return d.ready
	}
	return d.cfg.Read16(cfgStatus)&statusLinkUp != 0
}

// AckInterrupt is the INTx interrupt handler's first step: it reads the ISR status (§4.1.4.5),
// which clears it and de-asserts the line, and says what the device signalled: a used buffer
// (queue) or a configuration change (config). Both false: the interrupt was not this device's
// (a shared line). Not needed with MSI-X.
func (d *Device) AckInterrupt() (queue, config bool) {
	if d.isr == 0 {
		return false, false
	}
	v := mmio.Read8(d.isr)
	d.stats.Interrupts++
	if v&virtio.ISRConfig != 0 {
		d.stats.ConfigInterrupts++
	}
	return v&virtio.ISRQueue != 0, v&virtio.ISRConfig != 0
}

// Stats returns the counters, the queues' included.
func (d *Device) Stats() Stats {
	s := d.stats
	s.Rx, s.Tx = d.rx.Stats(), d.tx.Stats()
	return s
}
