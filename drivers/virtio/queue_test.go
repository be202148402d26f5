// Hosted tests of negotiation and the split virtqueue against the fake device.
// SPDX-License-Identifier: BSD-3-Clause

package virtio_test

import (
	"testing"

	"gmpos/drivers/virtio"
	"gmpos/drivers/virtio/internal/fakedev"
)

// setup makes a fake device with one queue of maximum size max, and a Queue on it of size want.
func setup(t testing.TB, max, want uint16) (*fakedev.Transport, *fakedev.Memory, *virtio.Queue, *fakedev.Ring) {
	t.Helper()
	tr := fakedev.New(virtio.FeatureVersion1, 1, max)
	mem := fakedev.NewMemory(8)
	q := new(virtio.Queue)
	if _, err := virtio.Begin(tr); err != nil {
		t.Fatal(err)
	}
	if _, err := virtio.Accept(tr, tr.Offered, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := q.Init(tr, 0, want, virtio.NoVector, mem.Alloc); err != nil {
		t.Fatal(err)
	}
	if err := virtio.DriverOK(tr); err != nil {
		t.Fatal(err)
	}
	return tr, mem, q, tr.Ring(0)
}

func TestNegotiate(t *testing.T) {
	const featA, featB = 1 << 5, 1 << 16
	tr := fakedev.New(virtio.FeatureVersion1|featA|featB|1<<40, 1, 8)
	off, err := virtio.Begin(tr)
	if err != nil || off != tr.Offered {
		t.Fatalf("Begin = %#x, %v", off, err)
	}
	f, err := virtio.Accept(tr, off, featA, featB|1<<7)
	if err != nil || f != virtio.FeatureVersion1|featA|featB || tr.Accepted != f {
		t.Fatalf("Accept = %#x (device saw %#x), %v", f, tr.Accepted, err)
	}
	if err := virtio.DriverOK(tr); err != nil {
		t.Fatal(err)
	}
	want := []uint8{0, 1, 3, 11, 15}
	if len(tr.StatusLog) != len(want) {
		t.Fatalf("status writes %v, want %v", tr.StatusLog, want)
	}
	for i := range want {
		if tr.StatusLog[i] != want[i] {
			t.Fatalf("status writes %v, want %v", tr.StatusLog, want)
		}
	}

	cases := []struct {
		name string
		dev  func(*fakedev.Transport)
		req  uint64
		err  error
	}{
		{"no VERSION_1", func(d *fakedev.Transport) { d.Offered = featA }, 0, virtio.ErrNoVersion1},
		{"required missing", func(d *fakedev.Transport) {}, 1 << 3, virtio.ErrFeatures},
		{"FEATURES_OK refused", func(d *fakedev.Transport) { d.RefuseFeaturesOK = true }, 0, virtio.ErrFeaturesOK},
	}
	for _, c := range cases {
		d := fakedev.New(virtio.FeatureVersion1|featA, 1, 8)
		c.dev(d)
		off, err := virtio.Begin(d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := virtio.Accept(d, off, c.req, 0); err != c.err {
			t.Errorf("%s: Accept error %v, want %v", c.name, err, c.err)
		}
		virtio.Fail(d)
		if d.Status()&virtio.StatusFailed == 0 {
			t.Errorf("%s: FAILED not set", c.name)
		}
	}
	d := fakedev.New(virtio.FeatureVersion1, 1, 8)
	d.StuckReset = true
	if _, err := virtio.Begin(d); err != virtio.ErrResetStuck {
		t.Errorf("stuck reset: %v", err)
	}
	d = fakedev.New(virtio.FeatureVersion1, 1, 8)
	d.NeedsReset = true
	virtio.Begin(d)
	virtio.Accept(d, d.Offered, 0, 0)
	if err := virtio.DriverOK(d); err != virtio.ErrDeviceFailed {
		t.Errorf("DEVICE_NEEDS_RESET: %v", err)
	}
}

func TestQueueInitValidation(t *testing.T) {
	cases := []struct {
		name string
		dev  func(*fakedev.Transport, *fakedev.Memory)
		want uint16
		err  error
		size uint16
	}{
		{"ok", func(*fakedev.Transport, *fakedev.Memory) {}, 16, nil, 16},
		{"device smaller", func(d *fakedev.Transport, _ *fakedev.Memory) { d.Queues[0].Max = 4 }, 16, nil, 4},
		{"device above our max", func(d *fakedev.Transport, _ *fakedev.Memory) { d.Queues[0].Max = 32768 }, 256, nil, 256},
		{"size 0", func(d *fakedev.Transport, _ *fakedev.Memory) { d.Queues[0].Max = 0 }, 16, virtio.ErrNoQueue, 0},
		{"not power of 2", func(d *fakedev.Transport, _ *fakedev.Memory) { d.Queues[0].Max = 100 }, 16, virtio.ErrQueueSize, 0},
		{"want not power of 2", func(*fakedev.Transport, *fakedev.Memory) {}, 12, virtio.ErrBadSize, 0},
		{"want too big", func(*fakedev.Transport, *fakedev.Memory) {}, 512, virtio.ErrBadSize, 0},
		{"no such queue", func(d *fakedev.Transport, _ *fakedev.Memory) { d.NQueues = 0 }, 16, virtio.ErrNoQueue, 0},
		{"already enabled", func(d *fakedev.Transport, _ *fakedev.Memory) { d.Queues[0].Enabled = true }, 16, virtio.ErrQueueEnabled, 0},
		{"notify outside", func(d *fakedev.Transport, _ *fakedev.Memory) { d.Queues[0].NotifyOff = 99 }, 16, virtio.ErrNotify, 0},
		{"vector refused", func(d *fakedev.Transport, _ *fakedev.Memory) { d.RefuseVectors = true }, 16, virtio.ErrVector, 0},
		{"no memory", func(_ *fakedev.Transport, m *fakedev.Memory) { m.Fail = true }, 16, virtio.ErrNoMemory, 0},
	}
	for _, c := range cases {
		d := fakedev.New(virtio.FeatureVersion1, 1, 64)
		m := fakedev.NewMemory(4)
		c.dev(d, m)
		var q virtio.Queue
		err := q.Init(d, 0, c.want, 3, m.Alloc)
		if err != c.err || q.Size() != c.size {
			t.Errorf("%s: Init = %v size %d, want %v size %d", c.name, err, q.Size(), c.err, c.size)
			continue
		}
		if err == nil {
			r := d.Queues[0]
			if !r.Enabled || r.Size != c.size || r.Vector != 3 || r.Desc == 0 || r.Driver == 0 || r.Device == 0 {
				t.Errorf("%s: device registers %+v", c.name, r)
			}
		}
	}
}

func TestQueueRoundTrip(t *testing.T) {
	tr, mem, q, ring := setup(t, 8, 8)
	for i := uint32(0); i < 8; i++ {
		if !q.Add(0x1000*uint64(i+1), 100+i, i%2 == 0, 1000+i) {
			t.Fatalf("Add %d failed", i)
		}
	}
	if q.Add(0x9000, 1, true, 9) {
		t.Fatal("Add succeeded on a full queue")
	}
	if _, ok := ring.NextAvail(); ok {
		t.Fatal("device saw a buffer before Kick")
	}
	tr.Notify[0] = 0xffff
	if !q.Kick() || tr.Notify[0] != 0 {
		t.Fatalf("Kick did not notify (register %#x)", tr.Notify[0])
	}
	var heads []uint16
	for {
		h, ok := ring.NextAvail()
		if !ok {
			break
		}
		heads = append(heads, h)
	}
	if len(heads) != 8 {
		t.Fatalf("device saw %d buffers", len(heads))
	}
	for i, h := range heads {
		d := ring.Desc(h)
		write := d.Flags&2 != 0
		if d.Addr != 0x1000*uint64(i+1) || d.Len != 100+uint32(i) || write != (i%2 == 0) || d.Flags&1 != 0 {
			t.Fatalf("descriptor %d: %+v", i, d)
		}
	}
	// Complete in reverse order, writing a length ≤ the buffer.
	for i := len(heads) - 1; i >= 0; i-- {
		ring.Put(uint32(heads[i]), uint32(i))
	}
	if !q.Pending() {
		t.Fatal("Pending false with used entries")
	}
	for i := len(heads) - 1; i >= 0; i-- {
		tok, n, st := q.Pop()
		if st != virtio.PopOK || tok != 1000+uint32(i) || n != uint32(i) {
			t.Fatalf("Pop = %d, %d, %v; want %d, %d", tok, n, st, 1000+i, i)
		}
	}
	if _, _, st := q.Pop(); st != virtio.PopEmpty || q.Pending() {
		t.Fatal("queue not empty")
	}
	if q.Free() != 8 || q.InFlight() != 0 {
		t.Fatalf("free %d in flight %d", q.Free(), q.InFlight())
	}
	// Notification suppression: the device says it is polling.
	ring.SetNoNotify(true)
	q.Add(0x1000, 10, true, 1)
	if q.Kick() {
		t.Fatal("Kick notified despite VIRTQ_USED_F_NO_NOTIFY")
	}
	if q.Kick() {
		t.Fatal("Kick with nothing new notified")
	}
	s := q.Stats()
	if s.Kicks != 2 || s.Notifies != 1 || s.Added != 9 || s.Used != 8 || s.Errors() != 0 {
		t.Fatalf("stats %+v", s)
	}
	_ = mem
}

// TestKickPrepare: the split kick publishes at once and notifies only when its Notifier is
// called — later, and as often as the caller likes; with NO_NOTIFY it returns no Notifier.
func TestKickPrepare(t *testing.T) {
	tr, _, q, ring := setup(t, 8, 8)
	q.Add(0x1000, 10, true, 1)
	tr.Notify[0] = 0xffff
	n, ok := q.KickPrepare()
	if !ok {
		t.Fatal("KickPrepare wants no notification from a device that did not suppress them")
	}
	if _, seen := ring.NextAvail(); !seen {
		t.Fatal("KickPrepare did not publish the buffer")
	}
	if tr.Notify[0] != 0xffff {
		t.Fatal("KickPrepare notified by itself")
	}
	n.Notify()
	if tr.Notify[0] != 0 {
		t.Fatalf("Notify wrote %#x, want the queue index 0", tr.Notify[0])
	}
	if _, ok := q.KickPrepare(); ok {
		t.Fatal("KickPrepare with nothing new wants a notification")
	}
	ring.SetNoNotify(true)
	q.Add(0x2000, 10, true, 2)
	if n, ok := q.KickPrepare(); ok || n != (virtio.Notifier{}) {
		t.Fatal("KickPrepare wants a notification despite VIRTQ_USED_F_NO_NOTIFY")
	}
	virtio.Notifier{}.Notify() // the zero Notifier does nothing (and does not crash)
	if s := q.Stats(); s.Kicks != 2 || s.Notifies != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestQueueHostile(t *testing.T) {
	_, _, q, ring := setup(t, 8, 8)
	q.Add(0x1000, 64, true, 1)
	q.Add(0x2000, 64, true, 2)
	q.Kick()
	h1, _ := ring.NextAvail()
	h2, _ := ring.NextAvail()

	ring.Put(8, 0)           // id ≥ size
	ring.Put(0xffffffff, 0)  // id far out of range
	ring.Put(5, 0)           // never posted
	ring.Put(uint32(h1), 65) // longer than posted: token back, data refused
	ring.Put(uint32(h1), 10) // completed already
	ring.Put(uint32(h2), 64) // good
	tok, _, st := q.Pop()
	if st != virtio.PopBadLen || tok != 1 {
		t.Fatalf("Pop = %d, %v; want token 1, PopBadLen", tok, st)
	}
	tok, n, st := q.Pop()
	if st != virtio.PopOK || tok != 2 || n != 64 {
		t.Fatalf("Pop = %d %d %v", tok, n, st)
	}
	if _, _, st := q.Pop(); st != virtio.PopEmpty {
		t.Fatal("more entries")
	}
	s := q.Stats()
	if s.BadID != 2 || s.NotInFlight != 2 || s.BadLen != 1 || s.Used != 1 {
		t.Fatalf("stats %+v", s)
	}
	if q.Free() != 8 {
		t.Fatalf("free %d", q.Free())
	}

	// used.idx jumping more than the size ahead: broken, nothing consumed ever after.
	q.Add(0x1000, 64, true, 3)
	q.Kick()
	h, _ := ring.NextAvail()
	ring.WriteUsed(ring.UsedIdx, uint32(h), 1)
	ring.SetUsedIdx(ring.UsedIdx + 9)
	if q.Pending() || !q.Broken() {
		t.Fatal("idx jump not detected")
	}
	if _, _, st := q.Pop(); st != virtio.PopEmpty {
		t.Fatal("broken queue delivered")
	}
	if s := q.Stats(); s.IdxJump != 1 {
		t.Fatalf("IdxJump %d", s.IdxJump)
	}
}

// A device completing a buffer twice, the duplicate read only after the driver re-posted the
// descriptor (with the other one in flight, the same id comes back): the duplicate must not
// complete the new buffer.
func TestQueueStale(t *testing.T) {
	_, _, q, ring := setup(t, 2, 2)
	q.Add(0x1000, 64, true, 1)
	q.Add(0x3000, 64, true, 3)
	q.Kick()
	h, _ := ring.NextAvail()
	ring.NextAvail() // the device holds the other one
	ring.Put(uint32(h), 10)
	ring.Put(uint32(h), 20) // duplicate, published together with the first
	if tok, n, st := q.Pop(); tok != 1 || n != 10 || st != virtio.PopOK {
		t.Fatal("first completion")
	}
	q.Add(0x2000, 64, true, 2) // same descriptor id again
	q.Kick()
	if _, _, st := q.Pop(); st != virtio.PopEmpty {
		t.Fatal("the stale duplicate completed the re-posted buffer")
	}
	if s := q.Stats(); s.Stale != 1 || q.InFlight() != 2 {
		t.Fatalf("stats %+v in flight %d", s, q.InFlight())
	}
	h, _ = ring.NextAvail()
	ring.Put(uint32(h), 30) // the genuine completion
	if tok, n, st := q.Pop(); tok != 2 || n != 30 || st != virtio.PopOK {
		t.Fatal("genuine completion after a stale one")
	}
}

func TestQueueIdxBackwards(t *testing.T) {
	_, _, q, ring := setup(t, 8, 8)
	ring.SetUsedIdx(0xffff) // one behind: 16-bit distance 65535 > size
	if q.Pending() || !q.Broken() {
		t.Fatal("used.idx moving backwards not detected")
	}
}

func TestQueueChain(t *testing.T) {
	_, _, q, ring := setup(t, 8, 8)
	segs := [3]virtio.Segment{{Phys: 0x1000, Len: 12}, {Phys: 0x2000, Len: 100, Write: true}, {Phys: 0x3000, Len: 50, Write: true}}
	if !q.AddChain(segs[:], 7) || q.Free() != 5 {
		t.Fatalf("AddChain failed, free %d", q.Free())
	}
	bad := [2]virtio.Segment{{Phys: 0x1000, Len: 12, Write: true}, {Phys: 0x2000, Len: 100}}
	if q.AddChain(bad[:], 8) {
		t.Fatal("readable after writable accepted")
	}
	if q.AddChain(nil, 8) {
		t.Fatal("empty chain accepted")
	}
	q.Kick()
	h, _ := ring.NextAvail()
	c := ring.Chain(h)
	if len(c) != 3 || c[0].Len != 12 || c[0].Flags != 1 || c[1].Flags != 3 || c[2].Flags != 2 {
		t.Fatalf("chain %+v", c)
	}
	// A used entry naming the second descriptor of the chain is not a head.
	ring.Put(uint32(c[0].Next), 1)
	ring.Put(uint32(h), 151) // writable part is 150
	tok, _, st := q.Pop()
	if tok != 7 || st != virtio.PopBadLen || q.Free() != 8 {
		t.Fatalf("Pop = %d %v, free %d", tok, st, q.Free())
	}
	if s := q.Stats(); s.NotInFlight != 1 {
		t.Fatalf("stats %+v", s)
	}
	q.AddChain(segs[:], 9)
	q.Kick()
	h, _ = ring.NextAvail()
	ring.Put(uint32(h), 150)
	if tok, n, st := q.Pop(); tok != 9 || n != 150 || st != virtio.PopOK {
		t.Fatalf("Pop = %d %d %v", tok, n, st)
	}
}

func TestQueueInterrupts(t *testing.T) {
	_, _, q, ring := setup(t, 8, 8)
	q.Add(0x1000, 64, true, 1)
	q.Kick()
	q.DisableInterrupts()
	if ring.AvailFlags()&1 == 0 || ring.AvailIdx() != 1 {
		t.Fatalf("avail flags %#x idx %d", ring.AvailFlags(), ring.AvailIdx())
	}
	if q.EnableInterrupts() {
		t.Fatal("pending with nothing used")
	}
	if ring.AvailFlags()&1 != 0 || ring.AvailIdx() != 1 {
		t.Fatal("NO_INTERRUPT still set")
	}
	// A completion racing with re-enabling: reported as pending.
	q.DisableInterrupts()
	h, _ := ring.NextAvail()
	ring.Put(uint32(h), 10)
	if !q.EnableInterrupts() {
		t.Fatal("completion that raced the enable was lost")
	}
	if tok, n, st := q.Pop(); tok != 1 || n != 10 || st != virtio.PopOK {
		t.Fatal("Pop after enable")
	}
}

func TestQueueNoAllocs(t *testing.T) {
	_, _, q, ring := setup(t, 8, 8)
	allocs := testing.AllocsPerRun(100, func() {
		q.Add(0x1000, 64, true, 1)
		q.Kick()
		h, _ := ring.NextAvail()
		ring.Put(uint32(h), 10)
		q.Pending()
		q.Pop()
		q.DisableInterrupts()
		q.EnableInterrupts()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
}
