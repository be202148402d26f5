// FuzzRx: random used entries and buffer contents on the receive queue.
// SPDX-License-Identifier: BSD-3-Clause

package net

import (
	"encoding/binary"
	"testing"

	"gmpos/drivers/virtio/internal/fakedev"
)

// FuzzRx drives the receive path with a device that writes random headers, frame lengths and
// used entries. RxNext must never panic nor return a frame outside [14, 1514] bytes, outside
// its buffer, or behind a header that should have been refused; every buffer is always either
// posted or held (none lost, none posted twice); and every used entry the queue accepted is a
// frame or a counted drop.
func FuzzRx(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 60, 0, 3})
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 5, 3, 1, 200, 0, 20, 0, 3, 2, 200, 3})
	f.Add([]byte{0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 2, 0, 100, 0, 4, 3, 3, 2, 1, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := newRig(t, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := r.d
		in := data
		next := func() byte {
			if len(in) == 0 {
				return 0
			}
			b := in[0]
			in = in[1:]
			return b
		}
		var returned uint64
		for steps := 0; len(in) > 0 && steps < 512; steps++ {
			switch next() % 6 {
			case 0: // a frame: random header, random used length, patterned content
				h, ok := r.rx.NextAvail()
				if !ok {
					break
				}
				desc := r.rx.Desc(h)
				buf := fakedev.Bytes(uintptr(desc.Addr), int(desc.Len))
				for i := 0; i < HdrLen; i++ {
					buf[i] = next()
				}
				if next()%2 == 0 { // mostly plausible headers
					buf[hdrFlags] &= hdrFDataValid
					buf[hdrGSOType] = 0
					buf[hdrNumBuffers+1] = 0
					buf[hdrNumBuffers] &= 1
				}
				n := uint32(next()) | uint32(next())<<8
				for i := HdrLen; i < len(buf); i++ {
					buf[i] = byte(i)
				}
				r.rx.Put(uint32(h), n%(BufSize+64))
			case 1: // a used entry naming anything
				id := uint32(next())
				if next()%4 == 0 {
					id |= uint32(next()) << 8
				}
				r.rx.Put(id, uint32(next())<<4)
			case 2: // used.idx moved by some amount
				r.rx.SetUsedIdx(r.rx.UsedIdx + uint16(next()))
			case 3: // the poller drains
				for i := 0; i < 2*RxQueueSize; i++ {
					v, n, ok := d.RxNext()
					if !ok {
						break
					}
					returned++
					if n < MinFrame || n > MaxFrame {
						t.Fatalf("frame of %d bytes", n)
					}
					if !d.rxHeld || d.rxSlot >= d.nrx || d.rxVirt[d.rxSlot]+HdrLen != v {
						t.Fatalf("frame at %#x is not the held buffer", v)
					}
					hb := fakedev.Bytes(v-HdrLen, HdrLen)
					if !hdrOK(hb[hdrFlags], hb[hdrGSOType], binary.LittleEndian.Uint16(hb[hdrNumBuffers:])) {
						t.Fatalf("frame behind a bad header % x", hb)
					}
					if next()%3 == 0 {
						d.RxDone()
					}
				}
			case 4:
				d.DisableRxInterrupts()
				d.RxPending()
				d.EnableRxInterrupts()
			case 5:
				d.RxDone()
			}
			held := 0
			if d.rxHeld {
				held = 1
			}
			if d.rx.InFlight()+held != int(d.nrx) || d.rx.Free() != held {
				t.Fatalf("buffers: %d posted, %d held, %d free descriptors, of %d", d.rx.InFlight(), held, d.rx.Free(), d.nrx)
			}
			s := d.Stats()
			if s.RxFrames != returned || s.Rx.Used != s.RxFrames+s.RxShort+s.RxLong+s.RxBadHeader || s.RxRepostFail != 0 {
				t.Fatalf("accounting: returned %d, stats %+v", returned, s)
			}
		}
	})
}
