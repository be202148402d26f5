// Hosted tests of the virtio-9p device against the fake device playing a 9P server.
// SPDX-License-Identifier: BSD-3-Clause

package p9

import (
	"bytes"
	"encoding/binary"
	"testing"
	"unsafe"

	"gmpos/drivers/virtio"
	"gmpos/drivers/virtio/internal/fakedev"
)

const (
	testTag   = "hostshare"
	testMsize = 8192
	testSlots = 4
)

type rig struct {
	tr  *fakedev.Transport
	mem *fakedev.Memory
	d   *Device
	q   *fakedev.Ring
}

// bufAlloc is a BufAlloc over fakedev pages: consecutive pages of its slab are contiguous.
func bufAlloc(m *fakedev.Memory) BufAlloc {
	return func(n int) (uintptr, uint64, bool) {
		v, p, ok := m.Alloc()
		if !ok {
			return 0, 0, false
		}
		for i := 1; i < (n+4095)/4096; i++ {
			if w, _, ok := m.Alloc(); !ok || w != v+uintptr(i*4096) {
				return 0, 0, false
			}
		}
		return v, p, true
	}
}

// setTag writes the mount tag into the fake configuration, sized to fit it as QEMU does.
func setTag(tr *fakedev.Transport, tag string) {
	binary.LittleEndian.PutUint16(tr.Config[cfgTagLen:], uint16(len(tag)))
	copy(tr.Config[cfgTag:], tag)
	tr.ConfigLen = uint32(cfgTag + len(tag))
}

// newRig brings a Device up on a fake virtio-9p device (adjusted by mutate before Init).
func newRig(t testing.TB, slots, msize int, mutate func(*rig)) (*rig, error) {
	tr := fakedev.New(virtio.FeatureVersion1|FeatureMountTag|1<<28, 1, 128)
	setTag(tr, testTag)
	r := &rig{tr: tr, mem: fakedev.NewMemory(3 + 2*slots*msize/4096), d: new(Device)}
	if mutate != nil {
		mutate(r)
	}
	err := r.d.Init(r.tr, bufAlloc(r.mem), slots, msize, 3)
	r.q = r.tr.Ring(0)
	return r, err
}

func mustRig(t testing.TB) *rig {
	t.Helper()
	r, err := newRig(t, testSlots, testMsize, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// serve plays the 9P server for the next available request: it checks the chain (out-buffer
// readable, then in-buffer writable), hands the request to reply and writes what reply returns
// into the in-buffer, completing the chain with its length (or used, if ≥ 0).
func (r *rig) serve(t testing.TB, used int, reply func(req []byte) []byte) bool {
	t.Helper()
	h, ok := r.q.NextAvail()
	if !ok {
		return false
	}
	c := r.q.Chain(h)
	if len(c) != 2 || c[0].Flags != 1 || c[1].Flags != 2 || c[1].Len != uint32(r.d.MSize()) {
		t.Fatalf("request chain %+v", c)
	}
	if !r.mem.Contains(uintptr(c[0].Addr), int(c[0].Len)) || !r.mem.Contains(uintptr(c[1].Addr), int(c[1].Len)) {
		t.Fatalf("buffers outside memory: %+v", c)
	}
	req := fakedev.Bytes(uintptr(c[0].Addr), int(c[0].Len))
	rep := reply(req)
	copy(fakedev.Bytes(uintptr(c[1].Addr), int(c[1].Len)), rep)
	if used < 0 {
		used = len(rep)
	}
	r.q.Put(uint32(h), uint32(used))
	return true
}

// echoClunk answers any request with an Rclunk of its tag.
func echoClunk(req []byte) []byte { return rmsg(Tclunk+1, binary.LittleEndian.Uint16(req[5:])) }

func TestInit(t *testing.T) {
	r := mustRig(t)
	d, tr := r.d, r.tr
	if !d.Ready() || string(d.Tag()) != testTag || d.Slots() != testSlots || d.MSize() != testMsize || d.InFlight() != 0 {
		t.Fatalf("ready %v tag %q slots %d msize %d", d.Ready(), d.Tag(), d.Slots(), d.MSize())
	}
	if tr.Accepted != virtio.FeatureVersion1|FeatureMountTag || d.Features() != tr.Accepted {
		t.Fatalf("accepted %#x", tr.Accepted)
	}
	if tr.Stat != virtio.StatusAcknowledge|virtio.StatusDriver|virtio.StatusFeaturesOK|virtio.StatusDriverOK {
		t.Fatalf("status %#x", tr.Stat)
	}
	if q := tr.Queues[0]; !q.Enabled || q.Size != 2*testSlots || q.Vector != 3 || tr.ConfigVector != virtio.NoVector {
		t.Fatalf("queue %+v, config vector %d", q, tr.ConfigVector)
	}
	// Buffers: MSize bytes each, distinct, inside the allocated memory; nothing for other slots.
	seen := map[uintptr]bool{}
	for s := 0; s < d.Slots(); s++ {
		for _, b := range [][]byte{d.Out(s), d.In(s)} {
			a := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
			if len(b) != testMsize || seen[a] || !r.mem.Contains(a, len(b)) || a%BufAlign != 0 {
				t.Fatalf("slot %d buffer %#x len %d", s, a, len(b))
			}
			seen[a] = true
		}
	}
	if d.Out(-1) != nil || d.In(testSlots) != nil || d.Busy(testSlots) {
		t.Fatal("a slot beyond Slots")
	}
}

func TestInitNoMountTag(t *testing.T) {
	r, err := newRig(t, testSlots, testMsize, func(r *rig) {
		r.tr.Offered &^= FeatureMountTag
		binary.LittleEndian.PutUint16(r.tr.Config[cfgTagLen:], 999) // not to be read
	})
	if err != nil || !r.d.Ready() || len(r.d.Tag()) != 0 || r.tr.Accepted&FeatureMountTag != 0 {
		t.Fatalf("%v: ready %v tag %q accepted %#x", err, r.d.Ready(), r.d.Tag(), r.tr.Accepted)
	}
	// An empty tag with the feature is fine too.
	r, err = newRig(t, testSlots, testMsize, func(r *rig) { setTag(r.tr, "") })
	if err != nil || len(r.d.Tag()) != 0 {
		t.Fatalf("empty tag: %v %q", err, r.d.Tag())
	}
	// The longest tag accepted.
	long := string(bytes.Repeat([]byte{'t'}, MaxTagLen-2)) // fakedev's configuration is 64 bytes
	r, err = newRig(t, testSlots, testMsize, func(r *rig) { setTag(r.tr, long) })
	if err != nil || string(r.d.Tag()) != long {
		t.Fatalf("long tag: %v %q", err, r.d.Tag())
	}
}

func TestInitErrors(t *testing.T) {
	cases := []struct {
		name   string
		slots  int
		msize  int
		mutate func(*rig)
		err    error
	}{
		{"tag_len above MaxTagLen", testSlots, testMsize, func(r *rig) {
			r.tr.ConfigLen = 64
			binary.LittleEndian.PutUint16(r.tr.Config[cfgTagLen:], MaxTagLen+1)
		}, ErrTagLen},
		{"tag_len beyond the configuration", testSlots, testMsize, func(r *rig) {
			binary.LittleEndian.PutUint16(r.tr.Config[cfgTagLen:], uint16(len(testTag)+1))
		}, ErrTagLen},
		{"tag_len 0xffff", testSlots, testMsize, func(r *rig) {
			binary.LittleEndian.PutUint16(r.tr.Config[cfgTagLen:], 0xffff)
		}, ErrTagLen},
		{"configuration too short for tag_len", testSlots, testMsize, func(r *rig) { r.tr.ConfigLen = 1 }, ErrTagLen},
		{"configuration unstable", testSlots, testMsize, func(r *rig) { r.tr.GenerationSteps = 1000 }, ErrUnstable},
		{"no slots", 0, testMsize, nil, ErrParams},
		{"too many slots", MaxSlots + 1, testMsize, nil, ErrParams},
		{"msize not a page multiple", testSlots, 5000, nil, ErrParams},
		{"msize too small", testSlots, 0, nil, ErrParams},
		{"msize too large", 1, 2 * MaxMsize, nil, ErrParams},
		{"no queue", testSlots, testMsize, func(r *rig) { r.tr.NQueues = 0 }, ErrQueues},
		{"queue of one", testSlots, testMsize, func(r *rig) { r.tr.Queues[0].Max = 1 }, ErrQueueSmall},
		{"queue size 0", testSlots, testMsize, func(r *rig) { r.tr.Queues[0].Max = 0 }, virtio.ErrNoQueue},
		{"out of memory", testSlots, testMsize, func(r *rig) { r.mem = fakedev.NewMemory(8) }, ErrNoMemory},
		{"legacy only", testSlots, testMsize, func(r *rig) { r.tr.Offered &^= virtio.FeatureVersion1 }, virtio.ErrNoVersion1},
		{"vector refused", testSlots, testMsize, func(r *rig) { r.tr.RefuseVectors = true }, virtio.ErrVector},
		{"needs reset", testSlots, testMsize, func(r *rig) { r.tr.NeedsReset = true }, virtio.ErrDeviceFailed},
	}
	for _, c := range cases {
		r, err := newRig(t, c.slots, c.msize, c.mutate)
		if err != c.err {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
		checkFailed(t, c.name, r)
	}
}

// checkFailed: a failed Init leaves the device FAILED and the Device inert.
func checkFailed(t *testing.T, name string, r *rig) {
	t.Helper()
	d := r.d
	if d.Ready() || r.tr.Stat&virtio.StatusFailed == 0 {
		t.Errorf("%s: ready %v status %#x", name, d.Ready(), r.tr.Stat)
	}
	if d.Submit(0, 7) || d.Out(0) != nil || d.In(0) != nil || d.Pending() || d.EnableInterrupts() || len(d.Tag()) != 0 {
		t.Errorf("%s: a failed device works", name)
	}
	if _, _, ok := d.Complete(); ok {
		t.Errorf("%s: Complete on a failed device", name)
	}
	d.DisableInterrupts()
}

// TestInitAllocErrors: the allocator's failures and misaligned memory; the device type.
func TestInitAllocErrors(t *testing.T) {
	tr := fakedev.New(virtio.FeatureVersion1|FeatureMountTag, 1, 128)
	setTag(tr, testTag)
	mem := fakedev.NewMemory(64)
	good := bufAlloc(mem)
	d := new(Device)
	calls := 0
	misaligned := func(n int) (uintptr, uint64, bool) {
		calls++
		v, p, ok := good(n)
		if calls > 3 { // the rings' pages are good, the first buffer is not
			v += 8
		}
		return v, p, ok
	}
	if err := d.Init(tr, misaligned, 2, testMsize, virtio.NoVector); err != ErrBadBuffer {
		t.Fatalf("misaligned buffer: %v", err)
	}
	checkFailed(t, "misaligned", &rig{tr: tr, d: d})
	for _, typ := range []uint16{1, 2, 0} {
		if err := checkType(typ); err != ErrNot9P {
			t.Errorf("device type %d: %v", typ, err)
		}
	}
	if err := checkType(9); err != nil {
		t.Fatalf("device type 9: %v", err)
	}
}

// TestRoundTrip: Tversion, Tgetattr and a failing Twalk through the device.
func TestRoundTrip(t *testing.T) {
	r := mustRig(t)
	d := r.d
	// Tversion in slot 2.
	n := Version(d.Out(2), NoTag, uint32(d.MSize()), Version2000L)
	r.tr.Notify[0] = 0xffff
	if !d.Submit(2, n) || d.InFlight() != 1 || !d.Busy(2) {
		t.Fatal("Submit")
	}
	if r.tr.Notify[0] != 0 || d.Stats().Queue.Notifies != 1 {
		t.Fatal("device not notified")
	}
	if _, _, ok := d.Complete(); ok {
		t.Fatal("completion before the device answered")
	}
	r.serve(t, -1, func(req []byte) []byte {
		f := tmsg(t, req, Tversion, NoTag, "ds")
		if f[0] != uint32(testMsize) || f[1] != Version2000L {
			t.Fatalf("Tversion %v", f)
		}
		return rmsg(Tversion+1, NoTag, uint32(4096), str(Version2000L))
	})
	if !d.Pending() {
		t.Fatal("Pending false")
	}
	slot, inLen, ok := d.Complete()
	if !ok || slot != 2 || inLen != 7+4+2+8 || d.Busy(2) || d.InFlight() != 0 {
		t.Fatalf("Complete %d %d %v", slot, inLen, ok)
	}
	body, errno, why := Expect(d.In(slot), inLen, NoTag, Tversion)
	if why != "" || errno != 0 {
		t.Fatalf("Expect %q %d", why, errno)
	}
	if ms, v, why := Rversion(body); why != "" || ms != 4096 || string(v) != Version2000L {
		t.Fatalf("Rversion %d %q %q", ms, v, why)
	}
	// Tgetattr in slot 0, answered with the hand-written Rgetattr (its tag 9).
	n = Getattr(d.Out(0), 9, 1, GetattrBasic)
	d.Submit(0, n)
	r.serve(t, -1, func(req []byte) []byte {
		tmsg(t, req, Tgetattr, 9, "dq")
		return rgetattrVector
	})
	slot, inLen, _ = d.Complete()
	body, _, why = Expect(d.In(slot), inLen, 9, Tgetattr)
	if a, why2 := Rgetattr(body); why != "" || why2 != "" || a != rgetattrWant {
		t.Fatalf("Rgetattr %q %q %+v", why, why2, a)
	}
	// Twalk answered with Rlerror ENOENT.
	n = Walk(d.Out(1), 1, 1, 2, []byte("no/such"))
	d.Submit(1, n)
	r.serve(t, -1, func(req []byte) []byte { return rmsg(TypeRlerror, 1, uint32(2)) })
	slot, inLen, _ = d.Complete()
	if _, errno, why := Expect(d.In(slot), inLen, 1, Twalk); why != "" || errno != 2 {
		t.Fatalf("Rlerror: %q %d", why, errno)
	}
	s := d.Stats()
	if s.Requests != 3 || s.Completions != 3 || s.Errors() != 0 || s.Refused != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// TestOutOfOrder: the server answers in any order; every slot completes once.
func TestOutOfOrder(t *testing.T) {
	r := mustRig(t)
	d := r.d
	for s := 0; s < testSlots; s++ {
		if !d.Submit(s, Clunk(d.Out(s), uint16(s), uint32(s))) {
			t.Fatalf("Submit %d", s)
		}
	}
	// Take all four requests, answer them last first.
	type pending struct {
		head uint16
		in   fakedev.Desc
		tag  uint16
	}
	var ps []pending
	for {
		h, ok := r.q.NextAvail()
		if !ok {
			break
		}
		c := r.q.Chain(h)
		req := fakedev.Bytes(uintptr(c[0].Addr), int(c[0].Len))
		ps = append(ps, pending{h, c[1], binary.LittleEndian.Uint16(req[5:])})
	}
	if len(ps) != testSlots {
		t.Fatalf("%d requests", len(ps))
	}
	for i := len(ps) - 1; i >= 0; i-- {
		rep := rmsg(Tclunk+1, ps[i].tag)
		copy(fakedev.Bytes(uintptr(ps[i].in.Addr), len(rep)), rep)
		r.q.Put(uint32(ps[i].head), uint32(len(rep)))
	}
	for i := testSlots - 1; i >= 0; i-- {
		slot, n, ok := d.Complete()
		if !ok || slot != i {
			t.Fatalf("completion %d: slot %d ok %v", i, slot, ok)
		}
		body, errno, why := Expect(d.In(slot), n, uint16(slot), Tclunk)
		if why != "" || errno != 0 || Empty(body) != "" {
			t.Fatalf("slot %d: %q", slot, why)
		}
	}
	if _, _, ok := d.Complete(); ok || d.InFlight() != 0 {
		t.Fatal("extra completion")
	}
}

// TestHostileCompletions: used entries for slots not in flight, duplicates, bad ids and bad
// lengths are counted, never delivered twice, never a crash.
func TestHostileCompletions(t *testing.T) {
	r := mustRig(t)
	d := r.d
	// Nothing in flight: a used entry naming descriptor 0, and one beyond the queue.
	r.q.Put(0, 7)
	r.q.Put(200, 7)
	if _, _, ok := d.Complete(); ok {
		t.Fatal("completion of nothing")
	}
	// A request completed twice: the second names a free descriptor.
	d.Submit(1, Clunk(d.Out(1), 1, 1))
	h, _ := r.q.NextAvail()
	rep := rmsg(Tclunk+1, 1)
	copy(d.In(1), rep)
	r.q.Put(uint32(h), uint32(len(rep)))
	r.q.Put(uint32(h), uint32(len(rep)))
	if slot, _, ok := d.Complete(); !ok || slot != 1 {
		t.Fatal("first completion lost")
	}
	if _, _, ok := d.Complete(); ok {
		t.Fatal("duplicate completion delivered")
	}
	// A used entry naming the second descriptor of a chain in flight.
	d.Submit(2, Clunk(d.Out(2), 2, 2))
	h, _ = r.q.NextAvail()
	c := r.q.Chain(h)
	r.q.Put(uint32(c[0].Next), 7)
	if _, _, ok := d.Complete(); ok || !d.Busy(2) {
		t.Fatal("completion through a chained descriptor")
	}
	// A used length beyond the in-buffer: the slot is done, the reply refused.
	r.q.Put(uint32(h), uint32(testMsize+1))
	slot, n, ok := d.Complete()
	if !ok || slot != 2 || n != 0 || d.Busy(2) {
		t.Fatalf("bad length: slot %d n %d ok %v", slot, n, ok)
	}
	if _, _, why := Expect(d.In(slot), n, 2, Tclunk); why == "" {
		t.Fatal("reply of a bad length parsed")
	}
	// A used length that disagrees with the reply's size field: Parse refuses it.
	d.Submit(3, Clunk(d.Out(3), 3, 3))
	r.serve(t, len(rep)+1, func([]byte) []byte { return rmsg(Tclunk+1, 3) })
	slot, n, _ = d.Complete()
	if _, _, why := Expect(d.In(slot), n, 3, Tclunk); why != whySize {
		t.Fatalf("size mismatch: %q", why)
	}
	s := d.Stats()
	if s.Queue.NotInFlight != 3 || s.Queue.BadID != 1 || s.Queue.BadLen != 1 || s.NotInFlight != 0 ||
		s.Errors() != 5 || s.Completions != 3 || d.InFlight() != 0 {
		t.Fatalf("stats %+v", s)
	}
	// All slots still usable.
	for s := 0; s < testSlots; s++ {
		if !d.Submit(s, Clunk(d.Out(s), uint16(s), 1)) {
			t.Fatalf("slot %d lost", s)
		}
	}
	// used.idx jumping: the queue is broken; nothing more completes.
	r.q.SetUsedIdx(r.q.UsedIdx + 100)
	if _, _, ok := d.Complete(); ok || !d.Broken() {
		t.Fatal("idx jump not detected")
	}
}

// TestExhaustion: every slot in flight; Submit refuses busy, absent and badly sized requests;
// a device with a short queue gets fewer slots.
func TestExhaustion(t *testing.T) {
	r := mustRig(t)
	d := r.d
	for s := 0; s < testSlots; s++ {
		if !d.Submit(s, Clunk(d.Out(s), uint16(s), 1)) {
			t.Fatalf("Submit %d", s)
		}
	}
	if d.InFlight() != testSlots {
		t.Fatalf("in flight %d", d.InFlight())
	}
	refused := []struct{ slot, n int }{{0, 11}, {testSlots, 11}, {-1, 11}}
	for _, c := range refused {
		if d.Submit(c.slot, c.n) {
			t.Fatalf("Submit(%d, %d) accepted", c.slot, c.n)
		}
	}
	r.serve(t, -1, echoClunk)
	if slot, _, ok := d.Complete(); !ok || slot != 0 {
		t.Fatal("completion")
	}
	for _, n := range []int{0, 6, testMsize + 1} {
		if d.Submit(0, n) {
			t.Fatalf("Submit of %d bytes accepted", n)
		}
	}
	if !d.Submit(0, testMsize) {
		t.Fatal("a request filling the out-buffer refused")
	}
	if s := d.Stats(); s.Refused != 6 || s.Requests != testSlots+1 {
		t.Fatalf("stats %+v", s)
	}
	// A queue of 4 entries: two slots of the eight asked.
	r, err := newRig(t, 8, testMsize, func(r *rig) { r.tr.Queues[0].Max = 4 })
	if err != nil || r.d.Slots() != 2 || r.tr.Queues[0].Size != 4 {
		t.Fatalf("short queue: %v, %d slots", err, r.d.Slots())
	}
	for s := 0; s < 2; s++ {
		if !r.d.Submit(s, Clunk(r.d.Out(s), 0, 0)) {
			t.Fatal("Submit on the short queue")
		}
	}
	if r.d.Submit(2, 11) || r.d.Out(2) != nil {
		t.Fatal("a third slot on a queue of 4")
	}
	// The most slots, at a realistic msize.
	r, err = newRig(t, MaxSlots, 128<<10, nil)
	if err != nil || r.d.Slots() != MaxSlots || r.tr.Queues[0].Size != 2*MaxSlots {
		t.Fatalf("MaxSlots: %v, %d slots", err, r.d.Slots())
	}
	for s := 0; s < MaxSlots; s++ {
		if !r.d.Submit(s, Clunk(r.d.Out(s), 0, 0)) {
			t.Fatalf("Submit %d of MaxSlots", s)
		}
	}
	if r.d.Stats().Queue.Added != MaxSlots || r.d.InFlight() != MaxSlots {
		t.Fatal("MaxSlots in flight")
	}
}

// TestInterrupts: suppression, the race on re-enabling, NO_NOTIFY, and the INTx path.
func TestInterrupts(t *testing.T) {
	r := mustRig(t)
	d := r.d
	d.DisableInterrupts()
	if r.q.AvailFlags()&1 == 0 {
		t.Fatal("NO_INTERRUPT not set")
	}
	if d.EnableInterrupts() || r.q.AvailFlags()&1 != 0 {
		t.Fatal("enable: pending with nothing, or flag still set")
	}
	d.Submit(0, Clunk(d.Out(0), 0, 1))
	d.DisableInterrupts()
	r.serve(t, -1, echoClunk) // completes while the poller thinks it is done
	if !d.EnableInterrupts() {
		t.Fatal("completion that raced the enable not reported")
	}
	if _, _, ok := d.Complete(); !ok {
		t.Fatal("completion lost")
	}
	// The device polls (NO_NOTIFY): Submit publishes but does not notify.
	r.q.SetNoNotify(true)
	before := d.Stats().Queue
	d.Submit(1, Clunk(d.Out(1), 1, 1))
	if s := d.Stats().Queue; s.Notifies != before.Notifies || s.Kicks != before.Kicks+1 || r.q.AvailIdx() != 2 {
		t.Fatalf("NO_NOTIFY: %+v", s)
	}
	// INTx (InitPCI keeps the ISR's address; the fake transport is not a *virtio.PCI).
	d.isr = r.tr.ISRAddr()
	r.tr.ISR = virtio.ISRQueue
	if q, c := d.AckInterrupt(); !q || c {
		t.Fatal("ISR queue bit lost")
	}
	r.tr.ISR = 0
	if q, c := d.AckInterrupt(); q || c {
		t.Fatal("spurious")
	}
	if d.Stats().Interrupts != 2 {
		t.Fatal("interrupts not counted")
	}
}

// TestDeviceNoAllocs: the request path allocates nothing.
func TestDeviceNoAllocs(t *testing.T) {
	r := mustRig(t)
	d := r.d
	rep := rmsg(Tclunk+1, 1)
	allocs := testing.AllocsPerRun(200, func() {
		out := d.Out(1)
		if !d.Submit(1, Clunk(out, 1, 7)) {
			panic("Submit")
		}
		h, _ := r.q.NextAvail()
		copy(d.In(1), rep)
		r.q.Put(uint32(h), uint32(len(rep)))
		d.Pending()
		d.DisableInterrupts()
		slot, n, ok := d.Complete()
		if !ok {
			panic("Complete")
		}
		if _, _, why := Expect(d.In(slot), n, 1, Tclunk); why != "" {
			panic(why)
		}
		d.EnableInterrupts()
		d.AckInterrupt()
		_ = d.Stats()
		_ = d.Tag()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per round", allocs)
	}
}
