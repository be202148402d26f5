// Hosted tests of the virtio-net driver against the fake device.
// SPDX-License-Identifier: BSD-3-Clause

package net

import (
	"bytes"
	"encoding/binary"
	"testing"

	"gmpos/drivers/virtio"
	"gmpos/drivers/virtio/internal/fakedev"
)

var testMAC = [6]byte{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}

type rig struct {
	tr     *fakedev.Transport
	mem    *fakedev.Memory
	d      *Device
	rx, tx *fakedev.Ring
}

// newRig brings a Device up on a fake virtio-net device (adjusted by mutate before Init).
func newRig(t testing.TB, mutate func(*fakedev.Transport, *fakedev.Memory)) (*rig, error) {
	tr := fakedev.New(virtio.FeatureVersion1|FeatureMAC|FeatureStatus|1<<0|1<<15, 2, 256)
	copy(tr.Config[cfgMAC:], testMAC[:])
	binary.LittleEndian.PutUint16(tr.Config[cfgStatus:], statusLinkUp)
	mem := fakedev.NewMemory(6 + RxQueueSize/2 + TxQueueSize/2)
	if mutate != nil {
		mutate(tr, mem)
	}
	r := &rig{tr: tr, mem: mem, d: new(Device)}
	err := r.d.setup(tr, tr.ISRAddr(), mem.Alloc, 1, 0)
	r.rx, r.tx = tr.Ring(0), tr.Ring(1)
	return r, err
}

func mustRig(t testing.TB) *rig {
	t.Helper()
	r, err := newRig(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// deliver plays the device receiving a frame: it takes the next receive buffer, writes hdr and
// frame, and completes it with length used (HdrLen+len(frame) if used < 0). No allocation.
func (r *rig) deliver(hdr *[HdrLen]byte, frame []byte, used int) bool {
	h, ok := r.rx.NextAvail()
	if !ok {
		return false
	}
	desc := r.rx.Desc(h)
	buf := fakedev.Bytes(uintptr(desc.Addr), int(desc.Len))
	copy(buf, hdr[:])
	copy(buf[HdrLen:], frame)
	if used < 0 {
		used = HdrLen + len(frame)
	}
	r.rx.Put(uint32(h), uint32(used))
	return true
}

// transmitted plays the device sending: every available transmit buffer, header checked.
func (r *rig) transmitted(t testing.TB) [][]byte {
	var out [][]byte
	for {
		h, ok := r.tx.NextAvail()
		if !ok {
			return out
		}
		d := r.tx.Desc(h)
		if d.Flags != 0 || d.Len < HdrLen {
			t.Fatalf("transmit descriptor %+v", d)
		}
		b := fakedev.Bytes(uintptr(d.Addr), int(d.Len))
		if !bytes.Equal(b[:HdrLen], make([]byte, HdrLen)) {
			t.Fatalf("transmit header % x", b[:HdrLen])
		}
		out = append(out, append([]byte(nil), b[HdrLen:]...))
		r.tx.Put(uint32(h), 0)
	}
}

func frame(n int, seed byte) []byte {
	f := make([]byte, n)
	for i := range f {
		f[i] = seed + byte(i)
	}
	return f
}

func TestInit(t *testing.T) {
	r := mustRig(t)
	d, tr := r.d, r.tr
	if !d.Ready() || d.MAC() != testMAC || d.MTU() != 1500 || !d.LinkUp() {
		t.Fatalf("ready %v mac % x mtu %d link %v", d.Ready(), d.MAC(), d.MTU(), d.LinkUp())
	}
	if tr.Accepted != virtio.FeatureVersion1|FeatureMAC|FeatureStatus {
		t.Fatalf("accepted %#x", tr.Accepted)
	}
	if tr.Stat != virtio.StatusAcknowledge|virtio.StatusDriver|virtio.StatusFeaturesOK|virtio.StatusDriverOK {
		t.Fatalf("status %#x", tr.Stat)
	}
	q0, q1 := tr.Queues[0], tr.Queues[1]
	if !q0.Enabled || !q1.Enabled || q0.Size != RxQueueSize || q1.Size != TxQueueSize || q0.Vector != 1 ||
		q1.Vector != virtio.NoVector || tr.ConfigVector != 0 {
		t.Fatalf("queues %+v %+v config vector %d", q0, q1, tr.ConfigVector)
	}
	if r.rx.AvailIdx() != RxQueueSize || r.tx.AvailFlags()&1 == 0 || r.rx.AvailFlags() != 0 {
		t.Fatalf("rx avail idx %d, tx flags %#x", r.rx.AvailIdx(), r.tx.AvailFlags())
	}
	// Every receive buffer: 2 KiB, device-writable, distinct, inside allocated pages.
	seen := map[uint64]bool{}
	for i := uint16(0); i < RxQueueSize; i++ {
		h, _ := r.rx.NextAvail()
		desc := r.rx.Desc(h)
		if desc.Len != BufSize || desc.Flags != 2 || seen[desc.Addr] || !r.mem.Contains(uintptr(desc.Addr), BufSize) {
			t.Fatalf("rx descriptor %+v", desc)
		}
		seen[desc.Addr] = true
	}
	if s := d.Stats(); s.Rx.Notifies != 1 || s.Rx.Added != RxQueueSize {
		t.Fatalf("stats %+v", s.Rx)
	}
	binary.LittleEndian.PutUint16(tr.Config[cfgStatus:], 0)
	if d.LinkUp() {
		t.Fatal("link down not seen")
	}
}

func TestInitMTU(t *testing.T) {
	for _, c := range []struct {
		dev, want uint16
		accepted  bool
	}{{1400, 1400, true}, {9000, 1500, false}, {40, 1500, false}, {1500, 1500, true}} {
		r, err := newRig(t, func(tr *fakedev.Transport, _ *fakedev.Memory) {
			tr.Offered |= FeatureMTU
			binary.LittleEndian.PutUint16(tr.Config[cfgMTU:], c.dev)
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.d.MTU() != c.want || (r.tr.Accepted&FeatureMTU != 0) != c.accepted {
			t.Errorf("device mtu %d: MTU %d accepted %v", c.dev, r.d.MTU(), r.tr.Accepted&FeatureMTU != 0)
		}
		if _, max, _ := r.d.TxBuffer(); max != MinFrame+int(c.want) {
			t.Errorf("device mtu %d: tx max %d", c.dev, max)
		}
	}
}

func TestInitErrors(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*fakedev.Transport, *fakedev.Memory)
		err    error
	}{
		{"legacy only", func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.Offered &^= virtio.FeatureVersion1 }, virtio.ErrNoVersion1},
		{"one queue", func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.NQueues = 1 }, ErrQueues},
		{"config too short", func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.ConfigLen = 4 }, ErrConfig},
		{"config unstable", func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.GenerationSteps = 1000 }, ErrUnstable},
		{"vectors refused", func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.RefuseVectors = true }, virtio.ErrVector},
		{"rx queue size 0", func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.Queues[0].Max = 0 }, virtio.ErrNoQueue},
		{"tx queue not pow2", func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.Queues[1].Max = 48 }, virtio.ErrQueueSize},
		{"out of memory", func(_ *fakedev.Transport, m *fakedev.Memory) { *m = *fakedev.NewMemory(10) }, ErrNoMemory},
		{"needs reset", func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.NeedsReset = true }, virtio.ErrDeviceFailed},
	}
	for _, c := range cases {
		r, err := newRig(t, c.mutate)
		if err != c.err {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
		if r.d.Ready() || r.tr.Stat&virtio.StatusFailed == 0 {
			t.Errorf("%s: ready %v status %#x", c.name, r.d.Ready(), r.tr.Stat)
		}
		if _, _, ok := r.d.RxNext(); ok {
			t.Errorf("%s: RxNext on a failed device", c.name)
		}
		if _, _, ok := r.d.TxBuffer(); ok {
			t.Errorf("%s: TxBuffer on a failed device", c.name)
		}
	}
	// Without VIRTIO_NET_F_MAC: the default MAC.
	r, err := newRig(t, func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.Offered &^= FeatureMAC })
	if err != nil || r.d.MAC() != DefaultMAC {
		t.Fatalf("no MAC feature: %v % x", err, r.d.MAC())
	}
}

func TestRx(t *testing.T) {
	r := mustRig(t)
	d := r.d
	var hdr [HdrLen]byte
	hdr[hdrNumBuffers] = 1
	frames := [][]byte{frame(60, 1), frame(MaxFrame, 2), frame(MinFrame, 3)}
	for _, f := range frames {
		if !r.deliver(&hdr, f, -1) {
			t.Fatal("no receive buffer")
		}
	}
	if !d.RxPending() {
		t.Fatal("RxPending false")
	}
	var total int
	for i, f := range frames {
		v, n, ok := d.RxNext()
		if !ok || n != len(f) || !bytes.Equal(fakedev.Bytes(v, n), f) {
			t.Fatalf("frame %d: ok %v n %d", i, ok, n)
		}
		total += n
		d.RxDone()
		d.RxDone() // twice: nothing
	}
	if _, _, ok := d.RxNext(); ok || d.RxPending() {
		t.Fatal("a fourth frame")
	}
	// The buffers went back: the device can fill 128 more.
	for i := 0; i < RxQueueSize; i++ {
		if !r.deliver(&hdr, frames[0], -1) {
			t.Fatalf("only %d buffers after re-posting", i)
		}
	}
	// RxNext without RxDone gives the previous buffer back itself.
	for i := 0; i < RxQueueSize; i++ {
		if _, _, ok := d.RxNext(); !ok {
			t.Fatalf("frame %d missing", i)
		}
	}
	d.RxDone()
	if d.rx.InFlight() != RxQueueSize {
		t.Fatalf("in flight %d", d.rx.InFlight())
	}
	s := d.Stats()
	if s.RxFrames != 3+RxQueueSize || s.RxBytes != uint64(total+RxQueueSize*60) || s.RxDrops() != 0 || s.DevErrors() != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestRxDrops(t *testing.T) {
	r := mustRig(t)
	d := r.d
	good := frame(100, 9)
	hdr := func(flags, gso byte, nb uint16) *[HdrLen]byte {
		var h [HdrLen]byte
		h[hdrFlags], h[hdrGSOType] = flags, gso
		binary.LittleEndian.PutUint16(h[hdrNumBuffers:], nb)
		return &h
	}
	r.deliver(hdr(0, 0, 0), good, HdrLen+MinFrame-1)   // short
	r.deliver(hdr(0, 0, 0), good, HdrLen-1)            // shorter than the header
	r.deliver(hdr(0, 0, 0), good, HdrLen+MaxFrame+1)   // long
	r.deliver(hdr(0, 0, 0), good, BufSize+1)           // longer than the buffer (queue: BadLen)
	r.deliver(hdr(hdrFNeedsCsum, 0, 1), good, -1)      // checksum offload not negotiated
	r.deliver(hdr(hdrFRSCInfo, 0, 1), good, -1)        // RSC not negotiated
	r.deliver(hdr(0, 1, 1), good, -1)                  // GSO TCPv4
	r.deliver(hdr(0, 0x80, 1), good, -1)               // ECN bit
	r.deliver(hdr(0, 0, 2), good, -1)                  // num_buffers without MRG_RXBUF
	r.rx.Put(RxQueueSize, 100)                         // id out of range
	r.rx.Put(0xffffffff, 100)                          // id far out of range
	r.deliver(hdr(hdrFDataValid|0x40, 0, 1), good, -1) // ignored flag bits: good
	h, _ := r.rx.NextAvail()                           // a buffer the device will complete twice
	r.rx.Put(uint32(h), HdrLen+100)                    // (header zeroed by the driver: good)
	r.rx.Put(uint32(h), HdrLen+100)                    // not in flight any more
	v, n, ok := d.RxNext()
	if !ok || n != 100 || !bytes.Equal(fakedev.Bytes(v, n), good) {
		t.Fatalf("good frame after drops: %v %d", ok, n)
	}
	v, n, ok = d.RxNext()
	if !ok || n != 100 {
		t.Fatalf("second good frame: %v %d", ok, n)
	}
	if _, _, ok := d.RxNext(); ok {
		t.Fatal("a duplicate completion was delivered")
	}
	s := d.Stats()
	if s.RxShort != 2 || s.RxLong != 1 || s.Rx.BadLen != 1 || s.RxBadHeader != 5 || s.Rx.BadID != 2 ||
		s.Rx.Stale != 1 || s.RxFrames != 2 || s.RxDrops() != 12 {
		t.Fatalf("stats %+v", s)
	}
	if d.rx.InFlight() != RxQueueSize {
		t.Fatalf("dropped buffers not re-posted: in flight %d", d.rx.InFlight())
	}
	// used.idx jumping: the queue is broken, nothing more is delivered, no fault.
	r.rx.SetUsedIdx(r.rx.UsedIdx + RxQueueSize + 1)
	if d.RxPending() || !d.RxBroken() {
		t.Fatal("idx jump not detected")
	}
	if _, _, ok := d.RxNext(); ok {
		t.Fatal("broken queue delivered")
	}
}

func TestTx(t *testing.T) {
	r := mustRig(t)
	d := r.d
	d.TxSubmit(60) // without a buffer
	v, max, ok := d.TxBuffer()
	if !ok || max != MaxFrame {
		t.Fatalf("TxBuffer %v %d", ok, max)
	}
	if v2, _, _ := d.TxBuffer(); v2 != v {
		t.Fatal("second TxBuffer without TxSubmit gave another buffer")
	}
	f := frame(60, 5)
	put(v, f)
	d.TxSubmit(MinFrame - 1)
	d.TxSubmit(MaxFrame + 1)
	d.TxSubmit(60)
	r.tr.Notify[1] = 0xffff
	out := r.transmitted(t)
	if len(out) != 1 || !bytes.Equal(out[0], f) {
		t.Fatalf("sent %d frames", len(out))
	}
	// Fill the ring: TxQueueSize frames in flight, then full.
	for i := 0; i < TxQueueSize; i++ {
		v, _, ok := d.TxBuffer()
		if !ok {
			t.Fatalf("TxBuffer %d: full", i)
		}
		put(v, frame(20, byte(i)))
		d.TxSubmit(20)
	}
	if _, _, ok := d.TxBuffer(); ok {
		t.Fatal("TxBuffer with every buffer in flight")
	}
	out = r.transmitted(t)
	if len(out) != TxQueueSize || !bytes.Equal(out[7], frame(20, 7)) {
		t.Fatalf("sent %d frames", len(out))
	}
	if _, _, ok := d.TxBuffer(); !ok {
		t.Fatal("TxBuffer after completions")
	}
	// Hostile completions on the transmit queue: counted, never a double free.
	r.tx.Put(0, 0)
	r.tx.Put(999, 0)
	d.TxSubmit(20)
	h, _ := r.tx.NextAvail()
	r.tx.Put(uint32(h), BufSize) // longer than the frame: counted, buffer done anyway
	d.TxBuffer()
	if d.nTxFree != TxQueueSize-1 {
		t.Fatalf("free transmit buffers %d", d.nTxFree)
	}
	s := d.Stats()
	if s.TxFrames != TxQueueSize+2 || s.TxBytes != 60+TxQueueSize*20+20 || s.TxFull != 1 || s.TxBadLen != 2 ||
		s.TxNoBuffer != 1 || s.Tx.BadID != 1 || s.Tx.NotInFlight != 1 || s.Tx.BadLen != 1 || s.Tx.Notifies == 0 {
		t.Fatalf("stats %+v", s)
	}
	if r.tr.Notify[1] != 1 {
		t.Fatal("transmit queue not notified")
	}
}

func TestRxInterruptSuppression(t *testing.T) {
	r := mustRig(t)
	d := r.d
	var hdr [HdrLen]byte
	d.DisableRxInterrupts()
	if r.rx.AvailFlags()&1 == 0 {
		t.Fatal("NO_INTERRUPT not set")
	}
	if d.EnableRxInterrupts() || r.rx.AvailFlags()&1 != 0 {
		t.Fatal("enable: pending with nothing, or flag still set")
	}
	d.DisableRxInterrupts()
	r.deliver(&hdr, frame(64, 0), -1) // arrives while the poller thinks it is done
	if !d.EnableRxInterrupts() {
		t.Fatal("frame that raced the enable was not reported")
	}
	if _, n, ok := d.RxNext(); !ok || n != 64 {
		t.Fatal("frame lost")
	}
	d.RxDone()
	// Re-posted buffers are published at once but notified in batches: not per frame, and when
	// the driver finds the ring drained.
	before := d.Stats().Rx
	for i := 0; i < rxKickBatch-2; i++ {
		r.deliver(&hdr, frame(64, 0), -1)
		if _, _, ok := d.RxNext(); !ok {
			t.Fatal("frame lost")
		}
		d.RxDone()
	}
	if s := d.Stats().Rx; s.Notifies != before.Notifies {
		t.Fatalf("notified per frame: %d notifies for %d frames", s.Notifies-before.Notifies, rxKickBatch-2)
	}
	if _, _, ok := d.RxNext(); ok {
		t.Fatal("a frame from nowhere")
	}
	if s := d.Stats().Rx; s.Notifies != before.Notifies+1 {
		t.Fatalf("a drained ring did not notify the device of %d buffers: %+v", rxKickBatch-1, s)
	}
	// A full batch notifies without waiting for the drain.
	before = d.Stats().Rx
	for i := 0; i < rxKickBatch; i++ {
		r.deliver(&hdr, frame(64, 0), -1)
		d.RxNext()
		d.RxDone()
	}
	if s := d.Stats().Rx; s.Notifies != before.Notifies+1 {
		t.Fatalf("a batch of %d buffers: %d notifies, want 1", rxKickBatch, s.Notifies-before.Notifies)
	}
	// The device polls (NO_NOTIFY): a drained ring kicks but does not notify.
	r.rx.SetNoNotify(true)
	before = d.Stats().Rx
	r.deliver(&hdr, frame(64, 0), -1)
	d.RxNext()
	d.RxDone()
	d.RxNext()
	if s := d.Stats().Rx; s.Notifies != before.Notifies || s.Kicks != before.Kicks+1 {
		t.Fatalf("notified despite NO_NOTIFY: %+v", s)
	}
}

func TestAckInterrupt(t *testing.T) {
	r := mustRig(t)
	r.tr.ISR = virtio.ISRQueue | virtio.ISRConfig
	if q, c := r.d.AckInterrupt(); !q || !c {
		t.Fatal("ISR bits lost")
	}
	r.tr.ISR = 0
	if q, c := r.d.AckInterrupt(); q || c {
		t.Fatal("spurious")
	}
	if s := r.d.Stats(); s.Interrupts != 2 || s.ConfigInterrupts != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestNoAllocs(t *testing.T) {
	r := mustRig(t)
	d := r.d
	var hdr [HdrLen]byte
	f := frame(100, 0)
	allocs := testing.AllocsPerRun(200, func() {
		r.deliver(&hdr, f, -1)
		d.RxPending()
		d.DisableRxInterrupts()
		if _, _, ok := d.RxNext(); !ok {
			panic("no frame")
		}
		d.RxDone()
		d.EnableRxInterrupts()
		d.AckInterrupt()
		v, _, ok := d.TxBuffer()
		if !ok {
			panic("no tx buffer")
		}
		*(*byte)(ptr(v)) = 1
		d.TxSubmit(60)
		h, _ := r.tx.NextAvail()
		r.tx.Put(uint32(h), 0)
		_ = d.Stats()
		_ = d.LinkUp()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per round", allocs)
	}
}

// put copies b to address a. (A helper: with the copy written inline into
// fakedev.Bytes(v, n), go1.26.8's compiler crashed in TestTx — "disjointTypes: one of
// arguments is not a pointer" in isInlinableMemmove.)
//
//go:noinline
func put(a uintptr, b []byte) { copy(fakedev.Bytes(a, len(b)), b) }
