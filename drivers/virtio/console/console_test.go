// Hosted tests of the virtio console driver against the fake device.
// SPDX-License-Identifier: BSD-3-Clause

package console

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"gmpos/drivers/virtio"
	"gmpos/drivers/virtio/internal/fakedev"
)

// The fake device has 4 queues (fakedev.MaxQueues): port 0's two and the control queues, which
// is all a MULTIPORT driver of port 0 needs. The kernel drives port 1 (queues 4 and 5): its
// queue numbers are TestQueueNumbers'.
const testPort = 0

type rig struct {
	tr            *fakedev.Transport
	mem           *fakedev.Memory
	d             *Device
	tx, crx, ctx  *fakedev.Ring
	stream        []byte // what the device has taken from the transmitq, in order
	pendingTx     []uint16
	ctrlSeen      []Control // control messages the driver sent, as the device read them
	ringBytes     int
	notifiesOnCtx int
}

// newRig brings a Device up on a fake console (adjusted by mutate before Init), with a ring of
// ringSize bytes and a transmitq of at most maxQueue entries.
func newRig(t testing.TB, ringSize int, maxQueue uint16, mutate func(*fakedev.Transport, *fakedev.Memory)) (*rig, error) {
	tr := fakedev.New(virtio.FeatureVersion1|FeatureSize|FeatureMultiport|FeatureEmergWrite, 4, 128)
	tr.Queues[txQueue(testPort)].Max = maxQueue
	binary.LittleEndian.PutUint32(tr.Config[cfgMaxPorts:], 2)
	mem := fakedev.NewMemory(16 + (ringSize+4095)/4096)
	if mutate != nil {
		mutate(tr, mem)
	}
	r := &rig{tr: tr, mem: mem, d: new(Device), ringBytes: ringSize}
	err := r.d.setup(tr, mem.Alloc, contiguous(mem), ringSize, testPort, 0)
	r.tx, r.crx, r.ctx = tr.Ring(txQueue(testPort)), tr.Ring(ctrlRxQueue), tr.Ring(ctrlTxQueue)
	return r, err
}

// contiguous is a BufferAlloc over the fake memory: its pages are handed out in address order.
func contiguous(mem *fakedev.Memory) BufferAlloc {
	return func(n int) (uintptr, uint64, bool) {
		v0, p0, ok := mem.Alloc()
		if !ok {
			return 0, 0, false
		}
		for i := 1; i < (n+4095)/4096; i++ {
			if v, _, ok := mem.Alloc(); !ok || v != v0+uintptr(i)*4096 {
				return 0, 0, false
			}
		}
		return v0, p0, true
	}
}

// openRig is a rig whose port went through the handshake.
func openRig(t testing.TB, ringSize int, maxQueue uint16) *rig {
	t.Helper()
	r, err := newRig(t, ringSize, maxQueue, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.readControl(t)
	r.sendControl(t, Control{ID: testPort, Event: eventPortAdd, Value: 1})
	r.d.Poll()
	r.readControl(t)
	r.sendControl(t, Control{ID: testPort, Event: eventPortOpen, Value: 1})
	r.d.Poll()
	if !r.d.Open() {
		t.Fatalf("not open after the handshake; sent %+v", r.ctrlSeen)
	}
	return r
}

// readControl plays the device taking the driver's control messages.
func (r *rig) readControl(t testing.TB) {
	for {
		h, ok := r.ctx.NextAvail()
		if !ok {
			return
		}
		d := r.ctx.Desc(h)
		if d.Flags != 0 || d.Len != ctrlMsgSize {
			t.Fatalf("control descriptor %+v", d)
		}
		m, ok := DecodeControl(fakedev.Bytes(uintptr(d.Addr), int(d.Len)))
		if !ok {
			t.Fatalf("driver sent an undecodable message")
		}
		r.ctrlSeen = append(r.ctrlSeen, m)
		r.ctx.Put(uint32(h), 0)
	}
}

// sendControl plays the device sending a control message (raw bytes: sendRaw).
func (r *rig) sendControl(t testing.TB, m Control) {
	var b [ctrlMsgSize]byte
	binary.LittleEndian.PutUint32(b[0:], m.ID)
	binary.LittleEndian.PutUint16(b[4:], m.Event)
	binary.LittleEndian.PutUint16(b[6:], m.Value)
	if !r.sendRaw(b[:], -1) {
		t.Fatal("no control receive buffer posted")
	}
}

func (r *rig) sendRaw(b []byte, used int) bool {
	h, ok := r.crx.NextAvail()
	if !ok {
		return false
	}
	d := r.crx.Desc(h)
	copy(fakedev.Bytes(uintptr(d.Addr), int(d.Len)), b)
	if used < 0 {
		used = len(b)
	}
	r.crx.Put(uint32(h), uint32(used))
	return true
}

// take plays the device taking up to n transmit descriptors: their bytes join the stream and
// they are completed at once (complete) or left for completeHeld.
func (r *rig) take(t testing.TB, n int, complete bool) int {
	got := 0
	for ; got < n; got++ {
		h, ok := r.tx.NextAvail()
		if !ok {
			break
		}
		d := r.tx.Desc(h)
		if d.Flags != 0 || d.Len == 0 || d.Len > MaxChunk || !r.d.inRing(d.Addr, d.Len) {
			t.Fatalf("transmit descriptor %+v", d)
		}
		r.stream = append(r.stream, fakedev.Bytes(uintptr(d.Addr), int(d.Len))...)
		if complete {
			r.tx.Put(uint32(h), 0)
		} else {
			r.pendingTx = append(r.pendingTx, h)
		}
	}
	return got
}

// completeHeld completes the held descriptors in the order given by order (indices into
// pendingTx; nil: in order).
func (r *rig) completeHeld(order []int) {
	if order == nil {
		for i := range r.pendingTx {
			order = append(order, i)
		}
	}
	for _, i := range order {
		r.tx.Put(uint32(r.pendingTx[i]), 0)
	}
	r.pendingTx = nil
}

// inRing reports whether [phys, phys+n) lies inside the ring.
func (d *Device) inRing(phys uint64, n uint32) bool {
	return phys >= d.out.phys && phys+uint64(n) <= d.out.phys+d.out.size
}

// decode splits a record stream into its channels' byte streams, checking the format.
func decode(t testing.TB, s []byte) (out map[uint8][]byte, records int) {
	out = map[uint8][]byte{}
	for len(s) > 0 {
		if len(s) < RecordHeader {
			t.Fatalf("%d bytes of a header at the end", len(s))
		}
		ch, n := s[0], int(binary.LittleEndian.Uint16(s[1:3]))
		if ch == 0 || n == 0 || len(s) < RecordHeader+n {
			t.Fatalf("record channel %d length %d with %d bytes left", ch, n, len(s)-RecordHeader)
		}
		out[ch] = append(out[ch], s[RecordHeader:RecordHeader+n]...)
		s = s[RecordHeader+n:]
		records++
	}
	return out, records
}

func TestQueueNumbers(t *testing.T) {
	for _, c := range []struct {
		port uint32
		tx   uint16
	}{{0, 1}, {1, 5}, {2, 7}, {30, 63}} {
		if got := txQueue(c.port); got != c.tx {
			t.Errorf("port %d: transmitq %d, want %d", c.port, got, c.tx)
		}
	}
}

func TestInit(t *testing.T) {
	r, err := newRig(t, 64<<10, 128, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := r.tr
	if tr.Accepted != virtio.FeatureVersion1|FeatureMultiport {
		t.Errorf("accepted %#x", tr.Accepted)
	}
	if tr.Stat != virtio.StatusAcknowledge|virtio.StatusDriver|virtio.StatusFeaturesOK|virtio.StatusDriverOK {
		t.Errorf("status %#x", tr.Stat)
	}
	q := tr.Queues
	if !q[ctrlRxQueue].Enabled || !q[ctrlTxQueue].Enabled || !q[1].Enabled || q[0].Enabled {
		t.Errorf("enabled: %v %v %v %v", q[0].Enabled, q[1].Enabled, q[2].Enabled, q[3].Enabled)
	}
	if q[1].Size != TxQueueSize || q[ctrlRxQueue].Size != ctrlQueueSize || q[1].Vector != 0 ||
		q[ctrlRxQueue].Vector != 0 || q[ctrlTxQueue].Vector != virtio.NoVector || tr.ConfigVector != virtio.NoVector {
		t.Errorf("queues %+v config vector %d", q, tr.ConfigVector)
	}
	if r.crx.AvailIdx() != ctrlRxBufs || r.tx.AvailFlags()&1 == 0 {
		t.Errorf("control rx avail %d, tx flags %#x", r.crx.AvailIdx(), r.tx.AvailFlags())
	}
	for i := 0; i < ctrlRxBufs; i++ {
		h, _ := r.crx.NextAvail()
		if d := r.crx.Desc(h); d.Len != ctrlBufSize || d.Flags != 2 || !r.mem.Contains(uintptr(d.Addr), ctrlBufSize) {
			t.Fatalf("control rx descriptor %+v", d)
		}
	}
	r.readControl(t)
	if len(r.ctrlSeen) != 1 || r.ctrlSeen[0] != (Control{ID: 0, Event: eventDeviceReady, Value: 1}) {
		t.Errorf("first control messages %+v, want DEVICE_READY", r.ctrlSeen)
	}
	if r.d.Open() || r.d.Write(1, []byte("x")) != 0 {
		t.Error("open before the handshake")
	}
}

func TestInitErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		ring   int
		mutate func(*fakedev.Transport, *fakedev.Memory)
		want   error
	}{
		{"no multiport", 8 << 10, func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.Offered &^= FeatureMultiport }, virtio.ErrFeatures},
		{"no version 1", 8 << 10, func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.Offered &^= virtio.FeatureVersion1 }, virtio.ErrNoVersion1},
		{"max ports 0", 8 << 10, func(tr *fakedev.Transport, _ *fakedev.Memory) {
			binary.LittleEndian.PutUint32(tr.Config[cfgMaxPorts:], 0)
		}, ErrPorts},
		{"3 queues", 8 << 10, func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.NQueues = 3 }, ErrPorts},
		{"tiny ring", 1024, nil, ErrRing},
		{"no memory", 8 << 10, func(_ *fakedev.Transport, m *fakedev.Memory) { m.Fail = true }, virtio.ErrNoMemory},
		{"vectors refused", 8 << 10, func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.RefuseVectors = true }, virtio.ErrVector},
		{"small control queue", 8 << 10, func(tr *fakedev.Transport, _ *fakedev.Memory) { tr.Queues[ctrlTxQueue].Max = 8 }, ErrCtrlQueues},
	} {
		r, err := newRig(t, c.ring, 128, c.mutate)
		if err != c.want {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
			continue
		}
		if r.d.Ready() || (c.want != ErrRing && r.tr.Stat&virtio.StatusFailed == 0) {
			t.Errorf("%s: ready %v status %#x", c.name, r.d.Ready(), r.tr.Stat)
		}
	}
}

func TestHandshake(t *testing.T) {
	r, err := newRig(t, 8<<10, 128, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.readControl(t)
	// Another port, and the host side opening before the port was added: neither opens ours.
	r.sendControl(t, Control{ID: 5, Event: eventPortAdd, Value: 1})
	r.sendControl(t, Control{ID: testPort, Event: eventPortOpen, Value: 1})
	r.d.Poll()
	r.readControl(t)
	if r.d.Open() || len(r.ctrlSeen) != 1 {
		t.Fatalf("open %v after another port's PORT_ADD; sent %+v", r.d.Open(), r.ctrlSeen)
	}
	r.sendControl(t, Control{ID: testPort, Event: eventPortAdd, Value: 1})
	r.sendControl(t, Control{ID: testPort, Event: eventPortAdd, Value: 1}) // again: answered once
	r.d.Poll()
	r.readControl(t)
	want := []Control{{0, eventDeviceReady, 1}, {testPort, eventPortReady, 1}, {testPort, eventPortOpen, 1}}
	if fmt.Sprint(r.ctrlSeen) != fmt.Sprint(want) {
		t.Fatalf("sent %+v, want %+v", r.ctrlSeen, want)
	}
	if !r.d.Open() {
		t.Fatal("not open: the host side opened earlier")
	}
	// Messages the driver ignores, and bad ones: counted, buffers re-posted.
	r.sendControl(t, Control{ID: testPort, Event: eventConsolePort, Value: 1})
	r.sendControl(t, Control{ID: testPort, Event: eventResize, Value: 1})
	r.sendRaw([]byte{0, 0, 0, 0, 7, 0, 1, 0, 'n', 'a', 'm', 'e', 0}, -1) // PORT_NAME
	r.sendRaw([]byte{0, 0, 0, 0, 6}, -1)                                 // short
	r.sendRaw([]byte{0, 0, 0, 0, 99, 0, 1, 0}, -1)                       // unknown event
	r.sendRaw([]byte{0, 0, 0, 0, 6, 0, 0, 0}, ctrlBufSize+1)             // longer than the buffer
	r.d.Poll()
	if !r.d.Open() {
		t.Fatal("a bad message closed the port")
	}
	if s := r.d.Stats(); s.CtrlBad != 3 || s.CtrlRx.BadLen != 1 {
		t.Errorf("stats %+v", s)
	}
	if r.crx.AvailIdx()-r.crx.LastAvail != ctrlRxBufs {
		t.Errorf("%d control buffers posted, want %d", r.crx.AvailIdx()-r.crx.LastAvail, ctrlRxBufs)
	}
	r.sendControl(t, Control{ID: testPort, Event: eventPortOpen, Value: 0})
	r.d.Poll()
	if r.d.Open() || r.d.Write(1, []byte("x")) != 0 {
		t.Fatal("open after the host closed")
	}
	r.sendControl(t, Control{ID: testPort, Event: eventPortOpen, Value: 1})
	r.d.Poll()
	if !r.d.Open() {
		t.Fatal("not open again")
	}
	r.sendControl(t, Control{ID: testPort, Event: eventPortRemove, Value: 1})
	r.d.Poll()
	if r.d.Open() {
		t.Fatal("open after PORT_REMOVE")
	}
}

func TestWriteRecords(t *testing.T) {
	r := openRig(t, 64<<10, 128)
	d := r.d
	// Same-channel writes before a Submit coalesce; a channel change starts a record.
	for _, w := range []struct {
		ch uint8
		s  string
	}{{1, "hello "}, {1, "world\n"}, {2, "oops\n"}, {1, "again\n"}} {
		if n := d.Write(w.ch, []byte(w.s)); n != len(w.s) {
			t.Fatalf("write %q: %d", w.s, n)
		}
	}
	d.Submit()
	d.Write(1, []byte("after submit\n")) // a new record: the last one is the device's now
	d.Submit()
	if r.take(t, 100, true) != 2 {
		t.Fatal("not two descriptors")
	}
	out, recs := decode(t, r.stream)
	if string(out[1]) != "hello world\nagain\nafter submit\n" || string(out[2]) != "oops\n" || recs != 4 {
		t.Fatalf("records %d: %q", recs, out)
	}
	d.Reap()
	if !d.Idle() || d.Space() != 64<<10 {
		t.Fatalf("idle %v space %d", d.Idle(), d.Space())
	}
	if s := d.Stats(); s.Bytes != uint64(len("hello world\noops\nagain\nafter submit\n")) || s.Records != 4 || s.Chunks != 2 || s.DevErrors() != 0 {
		t.Errorf("stats %+v", s)
	}
}

// A write larger than a record splits; one larger than a descriptor or the ring's end is cut
// into several descriptors.
func TestLargeWrite(t *testing.T) {
	r := openRig(t, 256<<10, 128)
	d := r.d
	big := bytes.Repeat([]byte("0123456789abcdef"), 12<<10) // 192 KiB
	if n := d.Write(1, big); n != len(big) {
		t.Fatalf("took %d", n)
	}
	d.Submit()
	r.take(t, 100, true)
	d.Reap()
	out, recs := decode(t, r.stream)
	if !bytes.Equal(out[1], big) || recs != (len(big)+MaxRecord-1)/MaxRecord {
		t.Fatalf("%d records, %d bytes", recs, len(out[1]))
	}
	// Now wrap: the next 192 KiB starts at 192 KiB + headers into a 256 KiB ring.
	if n := d.Write(2, big); n != len(big) {
		t.Fatalf("second write took %d", n)
	}
	d.Submit()
	r.stream = nil
	r.take(t, 100, true)
	d.Reap()
	if out, _ := decode(t, r.stream); !bytes.Equal(out[2], big) || !d.Idle() {
		t.Fatal("wrapped stream differs")
	}
}

// WriteFrom takes a call whose fill fails back whole: a new record's header with it, or the
// bytes a continued record would have had, or — at the ring's end — both stretches of a wrapped
// copy, or the first records of a write longer than one; what was written before stays, and
// later writes carry on as if the failed one had never been tried.
func TestWriteFromFails(t *testing.T) {
	const size = 8 << 10
	r := openRig(t, size, 128)
	d := r.d
	var want1, want2 []byte
	write := func(ch uint8, s string, failAfter int) int {
		calls := 0
		src := []byte(s)
		n := d.WriteFrom(ch, len(src), func(dst []byte) bool {
			if calls++; calls > failAfter {
				copy(dst, bytes.Repeat([]byte{'!'}, len(dst))) // what a fault may leave behind
				return false
			}
			src = src[copy(dst, src):]
			return true
		})
		return n
	}
	if n := write(1, "kept\n", 1); n != 5 {
		t.Fatalf("took %d", n)
	}
	want1 = append(want1, "kept\n"...)
	if n := write(1, "lost\n", 0); n != 0 { // the open record's continuation, taken back
		t.Fatalf("a failed fill took %d", n)
	}
	if n := write(2, "lost too\n", 0); n != 0 { // a new record, its header taken back
		t.Fatalf("a failed fill took %d", n)
	}
	if n := write(1, "more\n", 1); n != 5 { // continues the first record
		t.Fatalf("took %d", n)
	}
	want1 = append(want1, "more\n"...)
	d.Submit()
	// Near the end of the ring: a write that wraps fails in its second stretch, after the
	// first was filled; then one that succeeds across the same wrap.
	deliver := func() {
		d.Submit()
		r.take(t, 100, true)
		d.Reap()
	}
	deliver()
	pad := strings.Repeat("p", size-2*RecordHeader-len(want1)-100)
	if n := write(2, pad, 1); n != len(pad) {
		t.Fatalf("took %d", n)
	}
	want2 = append(want2, pad...)
	deliver()
	wrap := strings.Repeat("w", 300)
	if n := write(1, wrap, 1); n != 0 {
		t.Fatalf("a wrapped write whose second stretch failed took %d", n)
	}
	if n := write(1, wrap, 2); n != len(wrap) {
		t.Fatalf("took %d", n)
	}
	want1 = append(want1, wrap...)
	deliver()
	out, recs := decode(t, r.stream)
	if !bytes.Equal(out[1], want1) || !bytes.Equal(out[2], want2) || recs != 3 || !d.Idle() {
		t.Fatalf("%d records; channel 1 %q, channel 2 %d bytes (want %d)", recs, out[1], len(out[2]), len(want2))
	}
	if st := d.Stats(); st.Records != 3 || st.Bytes != uint64(len(want1)+len(want2)) {
		t.Fatalf("stats %+v", st)
	}

	// A write of two records, in a ring with room for both, whose second record's fill fails.
	r = openRig(t, 256<<10, 128)
	d = r.d
	long := strings.Repeat("L", MaxRecord+100)
	calls := 0
	if n := d.WriteFrom(1, len(long), func(dst []byte) bool { calls++; return calls == 1 }); n != 0 || calls != 2 {
		t.Fatalf("a write whose second record failed took %d (%d fills)", n, calls)
	}
	if d.Write(2, []byte("x")) != 1 || d.Stats().Records != 1 || d.Space() != 256<<10-RecordHeader-1 {
		t.Fatalf("after the failed write: stats %+v, space %d", d.Stats(), d.Space())
	}
}

func TestRingFull(t *testing.T) {
	const size = 8 << 10
	r := openRig(t, size, 128)
	d := r.d
	p := bytes.Repeat([]byte{'x'}, 3000)
	total := 0
	for i := 0; i < 10; i++ {
		n := d.Write(uint8(1+i%2), p) // alternate: a header each
		total += n
		d.Submit()
		if n < len(p) {
			break
		}
	}
	if d.Space() > RecordHeader || total == 0 || total > size {
		t.Fatalf("space %d after %d bytes", d.Space(), total)
	}
	if d.Write(1, p) != 0 {
		t.Fatal("a full ring took more")
	}
	r.take(t, 1, false) // the device holds the first chunk: nothing freed yet
	d.Reap()
	if d.Space() > RecordHeader {
		t.Fatalf("space %d while the device holds every chunk", d.Space())
	}
	r.completeHeld(nil)
	d.Reap()
	if d.Space() < 3000 {
		t.Fatalf("space %d after the first chunk completed", d.Space())
	}
	r.take(t, 100, true)
	d.Reap()
	if !d.Idle() {
		t.Fatal("not idle")
	}
	out, _ := decode(t, r.stream)
	if len(out[1])+len(out[2]) != total {
		t.Fatalf("stream has %d+%d bytes, wrote %d", len(out[1]), len(out[2]), total)
	}
}

// Completions out of order free space in ring order.
func TestOutOfOrder(t *testing.T) {
	r := openRig(t, 16<<10, 128)
	d := r.d
	for i := 0; i < 3; i++ {
		d.Write(1, bytes.Repeat([]byte{byte('a' + i)}, 1000))
		d.Submit()
	}
	if r.take(t, 3, false) != 3 {
		t.Fatal("not three chunks")
	}
	r.completeHeld([]int{2, 1}) // the third and second; the first is still the device's
	d.Reap()
	if d.Idle() || d.Queued() != 3*(1000+RecordHeader) {
		t.Fatalf("queued %d: space freed past an incomplete chunk", d.Queued())
	}
	r.tx.Put(uint32(0), 0) // descriptor 0 was the first chunk's (a fresh queue's first id)
	d.Reap()
	if !d.Idle() {
		t.Fatalf("queued %d after all completed", d.Queued())
	}
}

// More writes than descriptors: the ring keeps what finds no descriptor, Reap posts it.
func TestDescriptorsExhausted(t *testing.T) {
	r := openRig(t, 64<<10, 8)
	d := r.d
	var want []byte
	for i := 0; i < 40; i++ {
		s := []byte(fmt.Sprintf("line %d\n", i))
		if d.Write(uint8(1+i%2), s) != len(s) {
			t.Fatalf("write %d refused", i)
		}
		d.Submit()
		want = append(want, s...)
	}
	if n := r.take(t, 100, true); n != 8 {
		t.Fatalf("device saw %d descriptors, want the queue's 8", n)
	}
	for i := 0; i < 10 && !d.Idle(); i++ {
		d.Reap()
		r.take(t, 100, true)
	}
	d.Reap()
	if !d.Idle() {
		t.Fatal("not idle")
	}
	out, _ := decode(t, r.stream)
	var got []byte
	// Reassemble in the written order: odd lines on 2, even on 1.
	o1, o2 := bytes.SplitAfter(out[1], []byte("\n")), bytes.SplitAfter(out[2], []byte("\n"))
	for i := 0; i < 20; i++ {
		got = append(append(got, o1[i]...), o2[i]...)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("stream %q", got)
	}
}

// A hostile device: completions naming nothing, twice, or jumping used.idx.
func TestHostileCompletions(t *testing.T) {
	r := openRig(t, 16<<10, 16)
	d := r.d
	d.Write(1, []byte("one"))
	d.Submit()
	r.take(t, 1, false)
	r.tx.Put(200, 0)    // id beyond the queue
	r.tx.Put(5, 0)      // not in flight
	r.completeHeld(nil) // the real one
	d.Reap()
	if !d.Idle() {
		t.Fatal("not idle")
	}
	r.tx.Put(0, 0) // again: stale
	d.Reap()
	s := d.Stats()
	if s.Tx.BadID != 1 || s.Tx.NotInFlight != 2 || s.BadToken != 0 {
		t.Errorf("stats %+v", s.Tx)
	}
	r.tx.SetUsedIdx(r.tx.UsedIdx + 100)
	d.Reap()
	if d.Open() {
		t.Error("open with a broken transmitq")
	}
}

func TestDecodeControl(t *testing.T) {
	m, ok := DecodeControl([]byte{1, 0, 0, 0, 6, 0, 1, 0, 'x'})
	if !ok || m != (Control{ID: 1, Event: eventPortOpen, Value: 1}) {
		t.Errorf("%+v %v", m, ok)
	}
	for _, b := range [][]byte{nil, {1, 0, 0, 0, 6, 0, 1}, {0, 0, 0, 0, 8, 0, 0, 0}, {0, 0, 0, 0, 0, 1, 0, 0}} {
		if _, ok := DecodeControl(b); ok {
			t.Errorf("% x accepted", b)
		}
	}
}

func TestNoAllocation(t *testing.T) {
	r := openRig(t, 64<<10, 128)
	d := r.d
	p := []byte("some output\n")
	if a := testing.AllocsPerRun(100, func() {
		d.Write(1, p)
		d.Write(2, p)
		d.Submit()
		d.Poll()
		d.Reap()
		d.EnableInterrupts()
		d.DisableInterrupts()
		_ = d.Space()
	}); a != 0 {
		t.Errorf("%v allocations per run", a)
	}
}
