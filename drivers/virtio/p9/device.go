// The virtio-9p device: initialisation, the mount tag, request slots, Submit and Complete.
// SPDX-License-Identifier: BSD-3-Clause

package p9

import (
	"unsafe"

	"gmpos/drivers/mmio"
	"gmpos/drivers/virtio"
)

// PCI ids of a virtio-9p function (§4.1.2): the virtio vendor, and the modern device id
// (0x1040 + type 9) or the transitional one (0x1009, subsystem device id 9). Both are driven
// through the modern capabilities.
const (
	Vendor             = virtio.VendorID
	DeviceModern       = 0x1049
	DeviceTransitional = 0x1009
)

// The 9P transport's device type, feature bit and configuration. Virtio 1.2 lists device type 9
// (§5) but does not describe it: Linux's include/uapi/linux/virtio_9p.h does. The
// configuration is struct virtio_9p_config { le16 tag_len; u8 tag[tag_len]; } — the mount
// tag, without a NUL — valid when VIRTIO_9P_MOUNT_TAG was negotiated. QEMU sizes the
// configuration window to fit the tag exactly.
const (
	deviceType9P    = 9
	FeatureMountTag = 1 << 0 // VIRTIO_9P_MOUNT_TAG: the configuration holds the mount tag
	cfgTagLen       = 0      // le16
	cfgTag          = 2      // u8[tag_len]
	tagReadTries    = 16
	queueIndex      = 0 // "requests", the device's only virtqueue
)

// Limits.
const (
	// MaxTagLen is the longest mount tag accepted: a longer tag_len is refused as a broken
	// configuration (QEMU's tags are short names; Linux's own limit is the tag_len field's).
	MaxTagLen = 64
	// MaxSlots is the most requests in flight at once. Each takes two descriptors, so 32
	// slots fit a queue of 64 (QEMU's 9P queue has 128 entries).
	MaxSlots = 32
	// MaxMsize bounds the per-slot buffer size Init accepts: a sanity bound (a Tread of
	// 1 MiB per request is plenty), not the protocol's.
	MaxMsize = 1 << 20
	// BufAlign is the alignment Init requires of every buffer (virtual and physical).
	BufAlign = virtio.PageSize
)

// BufAlloc returns n bytes of zeroed, physically contiguous memory aligned to BufAlign: its
// virtual address for the CPU and its physical address for the device (the kernel passes a
// wrapper of mm.AllocContiguous). n is a multiple of the page size. ok is false when memory
// is exhausted. Called by Init only: the memory is the device's for good.
type BufAlloc func(n int) (virt uintptr, phys uint64, ok bool)

// Errors of Init.
const (
	ErrNot9P      = virtio.Error("virtio-9p: not a 9P transport device")
	ErrParams     = virtio.Error("virtio-9p: slots outside 1..32, or msize not a page multiple in 4 KiB..1 MiB")
	ErrQueues     = virtio.Error("virtio-9p: device has no request queue")
	ErrQueueSmall = virtio.Error("virtio-9p: request queue too small for one 2-descriptor request")
	ErrTagLen     = virtio.Error("virtio-9p: mount tag_len above 64 or beyond the device configuration")
	ErrUnstable   = virtio.Error("virtio-9p: device configuration kept changing while read")
	ErrNoMemory   = virtio.Error("virtio-9p: buffer allocator failed")
	ErrBadBuffer  = virtio.Error("virtio-9p: buffer allocator returned misaligned memory")
)

// Device is a virtio-9p device. Plain data (a queue, addresses, counters; no Go pointers):
// meant to be a package-level variable. See doc.go for contexts and the kernel's sequence.
//
// A request slot is a pair of buffers of MSize bytes: the out-buffer the client encodes a
// T-message into (Out) and the in-buffer the device writes the R-message into (In). Submit posts
// both as one chain with the slot number as its token; Complete returns the slot when the
// device is done. The client picks slots (and tags: using the slot number as the tag is
// natural) and must not touch a slot's buffers between Submit and its Complete.
type Device struct {
	q        virtio.Queue
	cfg      virtio.ConfigSpace
	isr      uintptr
	features uint64
	ready    bool

	tag    [MaxTagLen]byte
	tagLen int

	msize    int
	nslots   int
	outVirt  [MaxSlots]uintptr
	outPhys  [MaxSlots]uint64
	inVirt   [MaxSlots]uintptr
	inPhys   [MaxSlots]uint64
	busy     [MaxSlots]bool // posted, not yet completed
	inflight int

	stats Stats
}

// InitPCI is Init for the modern PCI transport, the kernel's: the function's device type must be
// 9P's, and the ISR register's address is kept for AckInterrupt (INTx). It takes the concrete
// type because the kernel brings devices up before the Go runtime has started, when an
// interface type assertion (asking a Transport for these methods) cannot be made: the runtime
// would build an itab.
func (d *Device) InitPCI(t *virtio.PCI, alloc BufAlloc, slots, msize int, vector uint16) error {
	if err := checkType(t.DeviceType()); err != nil {
		return err
	}
	if err := d.Init(t, alloc, slots, msize, vector); err != nil {
		return err
	}
	d.isr = t.ISRAddr()
	return nil
}

// checkType refuses a device that is not a 9P transport.
func checkType(typ uint16) error {
	if typ != deviceType9P {
		return ErrNot9P
	}
	return nil
}

// Init brings the device up (§3.1.1): negotiation (VIRTIO_9P_MOUNT_TAG if offered), the mount
// tag, the request queue, slots request slots with buffers of msize bytes from alloc, and
// DRIVER_OK. t is an initialised transport (InitPCI also checks a PCI one's device type); msize
// is a multiple of 4096 from MinMsize to MaxMsize, and the largest msize Tversion may then ask
// for; slots is 1..MaxSlots (fewer if the device's queue is shorter than 2×slots: see Slots);
// vector is the MSI-X table entry for the queue's interrupts (virtio.NoVector: none, e.g. with
// INTx). The caller has programmed and enabled that MSI-X entry. On error the device is left
// FAILED and d unusable.
func (d *Device) Init(t virtio.Transport, alloc BufAlloc, slots, msize int, vector uint16) error {
	*d = Device{}
	err := d.bringUp(t, alloc, slots, msize, vector)
	if err != nil {
		virtio.Fail(t)
		*d = Device{}
	}
	return err
}

func (d *Device) bringUp(t virtio.Transport, alloc BufAlloc, slots, msize int, vector uint16) error {
	if slots < 1 || slots > MaxSlots || msize < MinMsize || msize > MaxMsize || msize%virtio.PageSize != 0 {
		return ErrParams
	}
	offered, err := virtio.Begin(t)
	if err != nil {
		return err
	}
	f, err := virtio.Accept(t, offered, 0, FeatureMountTag)
	if err != nil {
		return err
	}
	d.features, d.cfg = f, t.DeviceConfig()
	if f&FeatureMountTag != 0 {
		if err := d.readTag(t); err != nil {
			return err
		}
	}
	if t.NumQueues() < 1 {
		return ErrQueues
	}
	t.SetConfigVector(virtio.NoVector) // the configuration never changes: no interrupts for it
	want := uint16(1)
	for int(want) < 2*slots {
		want <<= 1
	}
	// The rings are three pages from the same allocator. The closure does not escape (Queue.Init
	// only calls it), so it lives on this stack.
	pages := func() (uintptr, uint64, bool) { return alloc(virtio.PageSize) }
	if err := d.q.Init(t, queueIndex, want, vector, pages); err != nil {
		return err
	}
	d.nslots = int(d.q.Size()) / 2
	if d.nslots == 0 {
		return ErrQueueSmall
	}
	if d.nslots > slots {
		d.nslots = slots
	}
	d.msize = msize
	for i := 0; i < d.nslots; i++ {
		var err error
		if d.outVirt[i], d.outPhys[i], err = buffer(alloc, msize); err != nil {
			return err
		}
		if d.inVirt[i], d.inPhys[i], err = buffer(alloc, msize); err != nil {
			return err
		}
	}
	if err := virtio.DriverOK(t); err != nil {
		return err
	}
	d.ready = true
	return nil
}

// buffer takes one buffer of n bytes from alloc and checks its alignment.
func buffer(alloc BufAlloc, n int) (uintptr, uint64, error) {
	v, p, ok := alloc(n)
	if !ok {
		return 0, 0, ErrNoMemory
	}
	if v%BufAlign != 0 || p%BufAlign != 0 {
		return 0, 0, ErrBadBuffer
	}
	return v, p, nil
}

// readTag reads the mount tag consistently: config_generation equal before and after (§2.5.1;
// the tag is read byte by byte and could otherwise tear). A tag_len above MaxTagLen or beyond
// the configuration window is refused.
func (d *Device) readTag(t virtio.Transport) error {
	for i := 0; i < tagReadTries; i++ {
		g := t.ConfigGeneration()
		n := int(d.cfg.Read16(cfgTagLen))
		var tag [MaxTagLen]byte
		for j := 0; j < n && j < MaxTagLen; j++ {
			tag[j] = d.cfg.Read8(cfgTag + uint32(j))
		}
		if t.ConfigGeneration() != g {
			continue
		}
		if n > MaxTagLen || !d.cfg.Has(cfgTagLen, cfgTag+uint32(n)) {
			return ErrTagLen
		}
		d.tag, d.tagLen = tag, n
		return nil
	}
	return ErrUnstable
}

// Ready reports whether Init succeeded.
func (d *Device) Ready() bool { return d.ready }

// Features are the negotiated feature bits.
func (d *Device) Features() uint64 { return d.features }

// Tag is the device's mount tag (empty without VIRTIO_9P_MOUNT_TAG): a slice of the Device's
// own array, valid while the Device is.
func (d *Device) Tag() []byte { return d.tag[:d.tagLen] }

// MSize is each buffer's size: the largest msize the client may ask for in Tversion.
func (d *Device) MSize() int { return d.msize }

// Slots is how many request slots there are: slots 0..Slots()-1.
func (d *Device) Slots() int { return d.nslots }

// InFlight is how many slots are posted and not yet completed.
func (d *Device) InFlight() int { return d.inflight }

// Busy reports whether slot is posted and not yet completed.
func (d *Device) Busy(slot int) bool { return slot >= 0 && slot < d.nslots && d.busy[slot] }

// ptr turns a buffer address into a pointer (memory from the caller's allocator, never the Go
// heap), without go vet's unsafeptr complaint.
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// Out is slot's out-buffer, MSize bytes, for the T-message; nil for a slot that does not exist.
// The slice points at memory outside the Go heap: use it and drop it — keeping it in a global
// or a heap object would store a pointer where the kernel allows none (write barriers).
func (d *Device) Out(slot int) []byte {
	if !d.ready || slot < 0 || slot >= d.nslots {
		return nil
	}
	return unsafe.Slice((*byte)(ptr(d.outVirt[slot])), d.msize)
}

// In is slot's in-buffer, MSize bytes, where the device writes the R-message: decode
// In(slot)[:inLen] after Complete returned slot (Parse and Expect take the buffer and inLen).
// nil for a slot that does not exist. Like Out, not to be kept.
func (d *Device) In(slot int) []byte {
	if !d.ready || slot < 0 || slot >= d.nslots {
		return nil
	}
	return unsafe.Slice((*byte)(ptr(d.inVirt[slot])), d.msize)
}

// Submit posts slot's request: the first outLen bytes of its out-buffer (device-readable) and
// its whole in-buffer (device-writable) as one chain (§2.7.4.2: readable before writable),
// and notifies the device unless it asked not to be (VIRTQ_USED_F_NO_NOTIFY). false, and
// counted in Stats.Refused, if the device is not ready, slot does not exist or is in flight,
// or outLen is not a message length (HeaderSize..MSize).
func (d *Device) Submit(slot int, outLen int) bool {
	if !d.ready || slot < 0 || slot >= d.nslots || d.busy[slot] || outLen < HeaderSize || outLen > d.msize {
		d.stats.Refused++
		return false
	}
	segs := [2]virtio.Segment{
		{Phys: d.outPhys[slot], Len: uint32(outLen)},
		{Phys: d.inPhys[slot], Len: uint32(d.msize), Write: true},
	}
	if !d.q.AddChain(segs[:], uint32(slot)) {
		// Two descriptors per slot and at most Size/2 slots: cannot happen.
		d.stats.Refused++
		return false
	}
	d.busy[slot] = true
	d.inflight++
	d.stats.Requests++
	d.q.Kick()
	return true
}

// Complete takes one completed request: its slot and the length of the reply the device wrote
// into the slot's in-buffer. ok is false when none is waiting. The queue validates each used
// entry (id, length, used.idx) and skips and counts bad ones; a completion for a slot this
// Device does not have in flight is skipped and counted too (Stats.NotInFlight). A completion
// whose used length exceeded the in-buffer is returned with inLen 0 — the slot is free again,
// and Parse refuses the reply — and counted in Stats.Queue.BadLen. At most one queue's worth
// of entries is examined per call.
func (d *Device) Complete() (slot int, inLen int, ok bool) {
	if !d.ready {
		return 0, 0, false
	}
	for budget := d.q.Size(); budget > 0; budget-- {
		tok, n, st := d.q.Pop()
		if st == virtio.PopEmpty {
			return 0, 0, false
		}
		if tok >= uint32(d.nslots) || !d.busy[tok] {
			d.stats.NotInFlight++ // the queue returns only tokens we posted: cannot happen
			continue
		}
		slot = int(tok)
		d.busy[slot] = false
		d.inflight--
		d.stats.Completions++
		if st == virtio.PopBadLen {
			return slot, 0, true
		}
		return slot, int(n), true
	}
	return 0, 0, false
}

// Pending reports whether used entries are waiting (one atomic load; for a poller). A waiting
// entry may still turn out to be a bad one that Complete skips.
func (d *Device) Pending() bool { return d.ready && d.q.Pending() }

// DisableInterrupts asks the device not to interrupt for completions (a hint,
// VIRTQ_AVAIL_F_NO_INTERRUPT): for the interrupt handler before it hands over to the poller.
func (d *Device) DisableInterrupts() {
	if d.ready {
		d.q.DisableInterrupts()
	}
}

// EnableInterrupts re-enables completion interrupts and reports whether a completion arrived
// meanwhile (then the caller polls again instead of waiting for an interrupt).
func (d *Device) EnableInterrupts() (pending bool) {
	return d.ready && d.q.EnableInterrupts()
}

// Broken reports that the device corrupted the queue's used.idx: nothing more will complete
// until the device is reset (re-Init); the requests in flight are lost.
func (d *Device) Broken() bool { return d.q.Broken() }

// AckInterrupt is the INTx interrupt handler's first step: it reads the ISR status
// (§4.1.4.5), which clears it and de-asserts the line, and says what the device signalled: a
// used buffer (queue) or a configuration change (config). Both false: the interrupt was not
// this device's (a shared line), or the transport has no ISR. Not needed with MSI-X.
func (d *Device) AckInterrupt() (queue, config bool) {
	if d.isr == 0 {
		return false, false
	}
	v := mmio.Read8(d.isr)
	d.stats.Interrupts++
	return v&virtio.ISRQueue != 0, v&virtio.ISRConfig != 0
}

// Stats returns the counters, the queue's included.
func (d *Device) Stats() Stats {
	s := d.stats
	s.Queue = d.q.Stats()
	return s
}
