// The virtio console device: initialisation (§5.3.5), queues, state and interrupts.
// SPDX-License-Identifier: BSD-3-Clause

package console

import "gmpos/drivers/virtio"

// PCI ids of a virtio console function (§4.1.2): the virtio vendor, and the modern device id
// (0x1040 + type 3) or the transitional one (0x1003, subsystem device id 3). Both are driven
// through the modern capabilities.
const (
	Vendor             = virtio.VendorID
	DeviceModern       = 0x1043
	DeviceTransitional = 0x1003
)

// Device type and feature bits (§5.3.3).
const (
	deviceTypeConsole = 3
	FeatureSize       = 1 << 0 // VIRTIO_CONSOLE_F_SIZE: cols and rows are valid (not used)
	FeatureMultiport  = 1 << 1 // VIRTIO_CONSOLE_F_MULTIPORT: control queues, max_nr_ports
	FeatureEmergWrite = 1 << 2 // VIRTIO_CONSOLE_F_EMERG_WRITE (not used: a byte per write)
)

// struct virtio_console_config (§5.3.4): offsets.
const (
	cfgMaxPorts = 4 // le32 max_nr_ports
)

// Port is the port the runner attaches (-device virtserialport,nr=1): the first one that is
// not reserved for virtconsole (doc.go).
const Port = 1

// Queue sizes the driver asks for (the device's maximum may be smaller; QEMU's are 128 for a
// port's queues and 32 for the control queues).
const (
	TxQueueSize   = 128
	ctrlQueueSize = 32
	ctrlRxBufs    = 8   // posted control receive buffers
	ctrlBufSize   = 128 // each: a message and a port name (PORT_NAME), well within a page
	ctrlTxSlots   = 16  // control messages the driver can have in flight
	ctrlMsgSize   = 8   // struct virtio_console_control
)

// Output sizes.
const (
	RecordHeader = 3        // channel u8, length u16 LE
	MaxRecord    = 0xffff   // the most bytes one record carries
	MaxChunk     = 64 << 10 // the most bytes one descriptor hands the device
	MinRing      = 4 << 10  // the smallest ring Init takes
	MaxRing      = 64 << 20 // and the largest
	ringSlots    = virtio.MaxQueueSize
)

// Errors of Init.
const (
	ErrNotConsole = virtio.Error("virtio-console: not a console device")
	ErrPorts      = virtio.Error("virtio-console: the port is beyond the device's max_nr_ports or queues")
	ErrNoMemory   = virtio.Error("virtio-console: allocation failed")
	ErrRing       = virtio.Error("virtio-console: ring size outside 4 KiB..64 MiB")
	ErrBadBuffer  = virtio.Error("virtio-console: allocator returned misaligned memory")
	ErrCtrlQueues = virtio.Error("virtio-console: control queues smaller than 16 entries")
)

// BufferAlloc returns n bytes of zeroed, physically contiguous memory: its virtual address for
// the CPU and its physical address for the device. Called at init only.
type BufferAlloc func(n int) (virt uintptr, phys uint64, ok bool)

// Device is a virtio console with one output port. Plain data (queues, addresses, counters;
// no Go pointers): meant to be a package-level variable. See doc.go.
type Device struct {
	ctrlRx, ctrlTx, tx virtio.Queue
	features           uint64
	maxPorts           uint32
	port               uint32 // the port driven
	ready              bool   // Init succeeded
	added              bool   // the device announced the port (PORT_ADD) and was answered
	hostOpen           bool   // the device says the host side is open (PORT_OPEN 1)

	crxVirt, ctxVirt uintptr // control buffers: ctrlRxBufs of ctrlBufSize, ctrlTxSlots of ctrlMsgSize
	crxPhys, ctxPhys uint64
	ctxFree          uint16 // bitmap of free control transmit slots

	out ring
	st  Stats
}

// Init brings the device up (§3.1.1 with §5.3.5): negotiation (MULTIPORT required), the
// control queues with their buffers, the port's transmitq, DRIVER_OK, then DEVICE_READY. t
// is an initialised PCI transport; alloc gives the queues' and control buffers' pages, buf the
// ring of ringSize bytes; port is the port to write to (Port; any with MULTIPORT); vector is
// the MSI-X table entry for the transmitq's and the control receiveq's interrupts
// (virtio.NoVector: none). The caller has programmed and enabled that entry. The port is not
// open yet: call Poll until Open (doc.go). On error the device is left FAILED and d unusable.
func (d *Device) Init(t *virtio.PCI, alloc virtio.PageAlloc, buf BufferAlloc, ringSize int, port uint32, vector uint16) error {
	*d = Device{}
	if t.DeviceType() != deviceTypeConsole {
		return ErrNotConsole
	}
	return d.setup(t, alloc, buf, ringSize, port, vector)
}

// setup is Init for any transport (tests use a fake one).
func (d *Device) setup(t virtio.Transport, alloc virtio.PageAlloc, buf BufferAlloc, ringSize int, port uint32, vector uint16) error {
	*d = Device{}
	err := d.bringUp(t, alloc, buf, ringSize, port, vector)
	if err != nil {
		virtio.Fail(t)
		*d = Device{}
	}
	return err
}

func (d *Device) bringUp(t virtio.Transport, alloc virtio.PageAlloc, buf BufferAlloc, ringSize int, port uint32, vector uint16) error {
	if ringSize < MinRing || ringSize > MaxRing {
		return ErrRing
	}
	offered, err := virtio.Begin(t)
	if err != nil {
		return err
	}
	f, err := virtio.Accept(t, offered, FeatureMultiport, 0)
	if err != nil {
		return err
	}
	d.features = f
	// max_nr_ports is valid with MULTIPORT (§5.3.4); the queues follow from it (§5.3.2).
	d.maxPorts, d.port = t.DeviceConfig().Read32(cfgMaxPorts), port
	if port >= d.maxPorts || port > maxPort || t.NumQueues() <= max(txQueue(port), ctrlTxQueue) {
		return ErrPorts
	}
	if t.SetConfigVector(virtio.NoVector) != virtio.NoVector {
		return virtio.ErrVector
	}
	if err := d.ctrlRx.Init(t, ctrlRxQueue, ctrlQueueSize, vector, alloc); err != nil {
		return err
	}
	if err := d.ctrlTx.Init(t, ctrlTxQueue, ctrlQueueSize, virtio.NoVector, alloc); err != nil {
		return err
	}
	if err := d.tx.Init(t, txQueue(port), TxQueueSize, vector, alloc); err != nil {
		return err
	}
	if d.ctrlRx.Size() < ctrlRxBufs || d.ctrlTx.Size() < ctrlTxSlots {
		return ErrCtrlQueues
	}
	var ok bool
	if d.crxVirt, d.crxPhys, ok = alloc(); !ok {
		return ErrNoMemory
	}
	if d.ctxVirt, d.ctxPhys, ok = alloc(); !ok {
		return ErrNoMemory
	}
	v, p, ok := buf(ringSize)
	if !ok {
		return ErrNoMemory
	}
	if v%virtio.PageSize != 0 || p%virtio.PageSize != 0 {
		return ErrBadBuffer
	}
	d.out = ring{virt: v, phys: p, size: uint64(ringSize)}
	d.ctxFree = 1<<ctrlTxSlots - 1
	for i := uint16(0); i < ctrlRxBufs; i++ {
		d.postCtrlRx(i)
	}
	// Transmit completions are reaped by whoever writes; the kernel turns the interrupt on
	// only while a writer waits (EnableInterrupts). Control completions are reaped by Poll.
	d.tx.DisableInterrupts()
	d.ctrlTx.DisableInterrupts()
	if err := virtio.DriverOK(t); err != nil {
		return err
	}
	d.ready = true
	d.ctrlRx.Kick() // notifications only after DRIVER_OK (§3.1.1)
	d.sendControl(0, eventDeviceReady, 1)
	return nil
}

// Queue numbers (§5.3.2): with MULTIPORT, 2 and 3 are the control queues and port n ≥ 1 has
// receiveq 2n+2 and transmitq 2n+3; port 0 has 0 and 1. maxPort keeps the queue number in
// 16 bits.
const (
	ctrlRxQueue = 2
	ctrlTxQueue = 3
	maxPort     = 0x7ffe
)

func txQueue(port uint32) uint16 {
	if port == 0 {
		return 1
	}
	return uint16(2*port + 3)
}

// Ready reports whether Init succeeded.
func (d *Device) Ready() bool { return d.ready }

// Open reports whether output may be written: the device is up, it announced the port, the
// host side is open and the transmitq works.
func (d *Device) Open() bool {
	return d.ready && d.added && d.hostOpen && !d.tx.Broken()
}

// Features are the negotiated feature bits.
func (d *Device) Features() uint64 { return d.features }

// EnableInterrupts asks for the transmitq's completion interrupt and reports whether
// completions are already waiting (the caller then reaps them instead of waiting for an
// interrupt that will not come; virtio.Queue.EnableInterrupts).
func (d *Device) EnableInterrupts() (pending bool) { return d.tx.EnableInterrupts() }

// DisableInterrupts turns the transmitq's completion interrupt off (a hint to the device).
func (d *Device) DisableInterrupts() { d.tx.DisableInterrupts() }

// Stats returns the counters, the queues' included.
func (d *Device) Stats() Stats {
	s := d.st
	s.Tx, s.CtrlRx, s.CtrlTx = d.tx.Stats(), d.ctrlRx.Stats(), d.ctrlTx.Stats()
	return s
}
