// FuzzOutput: random writes against a device that takes, completes and misbehaves at random.
// SPDX-License-Identifier: BSD-3-Clause

package console

import (
	"bytes"
	"testing"
)

// FuzzOutput drives the output path and the control queue with random operations. Always:
// no panic, the ring's positions ordered (done ≤ sent ≤ head ≤ done + size), the chunks in
// flight never more than the transmitq's size, every descriptor inside the ring. With an
// honest device (the first byte even) — one that completes only what it took, in any order,
// and sends random control messages — the stream it read decodes, per channel, to exactly the
// bytes Write accepted, in order. A hostile device (odd) also completes descriptors it never
// took, twice, or moves used.idx: the stream is then garbage, the rest must hold.
func FuzzOutput(f *testing.F) {
	f.Add([]byte{0, 1, 10, 2, 20, 3, 4, 5, 1, 200, 3, 4})
	f.Add([]byte{0, 1, 255, 1, 255, 1, 255, 3, 6, 2, 5, 3, 7, 4, 1, 200})
	f.Add([]byte{1, 1, 40, 8, 3, 9, 1, 0, 6, 3, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		hostile := data[0]%2 == 1
		in := data[1:]
		next := func() byte {
			if len(in) == 0 {
				return 0
			}
			b := in[0]
			in = in[1:]
			return b
		}
		r := openRig(t, MinRing*2, 16)
		d := r.d
		want := map[uint8][]byte{}
		payload := make([]byte, 256*64+256)
		for i := range payload {
			payload[i] = byte(i * 7)
		}
		for steps := 0; len(in) > 0 && steps < 400; steps++ {
			switch next() % 10 {
			case 0, 1: // a write of up to ~16 KiB on channel 1 or 2
				ch := 1 + next()%2
				n := int(next()) * 64
				off := int(next())
				p := payload[off : off+n]
				got := d.Write(ch, p)
				if got > n {
					t.Fatalf("took %d of %d", got, n)
				}
				want[ch] = append(want[ch], p[:got]...)
			case 2:
				d.Submit()
			case 3: // the device takes some descriptors and completes them
				r.take(t, int(next()%8), true)
			case 4: // ... or takes them and holds them
				r.take(t, int(next()%8), false)
			case 5: // completes what it held, in some order
				if len(r.pendingTx) > 0 {
					k := int(next()) % len(r.pendingTx)
					order := []int{}
					for i := range r.pendingTx {
						order = append(order, (i+k)%len(r.pendingTx))
					}
					r.completeHeld(order)
				}
			case 6:
				d.Reap()
			case 7: // a control message, random but for the port's own closing
				var b [ctrlMsgSize]byte
				for i := range b {
					b[i] = next()
				}
				if m, ok := DecodeControl(b[:]); ok && m.ID == testPort && (m.Event == eventPortRemove ||
					m.Event == eventPortOpen && m.Value == 0) {
					b[4] = eventResize
				}
				r.sendRaw(b[:], int(next()%ctrlBufSize))
				d.Poll()
			case 8:
				if hostile {
					r.tx.Put(uint32(next()), uint32(next()))
				}
			case 9:
				if hostile {
					r.tx.SetUsedIdx(r.tx.UsedIdx + uint16(next()%4))
				}
				d.EnableInterrupts()
				d.DisableInterrupts()
			}
			o := &d.out
			if !(o.done <= o.sent && o.sent <= o.head && o.head-o.done <= o.size) {
				t.Fatalf("positions done %d sent %d head %d size %d", o.done, o.sent, o.head, o.size)
			}
			if o.next-o.first > uint32(d.tx.Size()) || d.Space() < 0 {
				t.Fatalf("%d chunks in flight, space %d", o.next-o.first, d.Space())
			}
		}
		if hostile {
			return
		}
		// Drain with an honest device and compare.
		d.Submit()
		r.completeHeld(nil)
		for i := 0; i < 64 && !d.Idle(); i++ {
			d.Reap()
			r.take(t, 100, true)
		}
		d.Reap()
		if !d.Idle() {
			t.Fatalf("not idle: %d queued", d.Queued())
		}
		out, _ := decode(t, r.stream)
		for ch := uint8(1); ch <= 2; ch++ {
			if !bytes.Equal(out[ch], want[ch]) {
				t.Fatalf("channel %d: got %d bytes, want %d", ch, len(out[ch]), len(want[ch]))
			}
		}
	})
}
