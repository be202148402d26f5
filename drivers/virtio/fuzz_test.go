// FuzzUsedRing: arbitrary used-ring contents against a model of what Pop must do.
// SPDX-License-Identifier: BSD-3-Clause

package virtio_test

import (
	"testing"

	"gmpos/drivers/virtio"
	"gmpos/drivers/virtio/internal/fakedev"
)

// usedModel is the reference for Pop's contract: entries are consumed in order; an id ≥ size is
// BadID, an id that is not the head of a chain in flight NotInFlight, a len above the chain's
// limit BadLen (token returned, chain freed), anything else delivered once; used.idx more than
// size ahead of the consumed position breaks the queue; used.idx is re-read only once the
// entries seen last time are consumed; one Pop looks at ≤ size entries.
type usedModel struct {
	size               uint16
	inflight           map[uint16]flight // by head
	pending            []flight          // added, not yet taken by the device
	slots              []struct{ id, n uint32 }
	pub                uint16 // used.idx as the device published it
	last, seen         uint16
	consumed           uint64
	stale              uint64
	broken             bool
	badID, notIn, bad  uint64
	used, jump         uint64
	nextToken, descsIn int
}

type flight struct {
	token uint32
	limit uint32
	descs int
	stamp uint64 // entries known published when added
}

func (m *usedModel) pendingN() uint16 {
	if m.broken {
		return 0
	}
	if m.seen == m.last {
		if m.pub-m.last > m.size {
			m.broken = true
			m.jump++
			return 0
		}
		m.seen = m.pub
	}
	return m.seen - m.last
}

func (m *usedModel) pop() (uint32, uint32, virtio.PopStatus) {
	for b := m.size; b > 0; b-- {
		if m.pendingN() == 0 {
			return 0, 0, virtio.PopEmpty
		}
		e := m.slots[m.last%m.size]
		pos := m.consumed
		m.last++
		m.consumed++
		if e.id >= uint32(m.size) {
			m.badID++
			continue
		}
		f, ok := m.inflight[uint16(e.id)]
		if !ok {
			m.notIn++
			continue
		}
		if pos < f.stamp {
			m.stale++
			continue
		}
		delete(m.inflight, uint16(e.id))
		m.descsIn -= f.descs
		if e.n > f.limit {
			m.bad++
			return f.token, 0, virtio.PopBadLen
		}
		m.used++
		return f.token, e.n, virtio.PopOK
	}
	return 0, 0, virtio.PopEmpty
}

type fuzzBytes struct {
	b []byte
	i int
}

func (f *fuzzBytes) next() byte {
	if f.i >= len(f.b) {
		return 0
	}
	f.i++
	return f.b[f.i-1]
}

func (f *fuzzBytes) u32() uint32 {
	return uint32(f.next()) | uint32(f.next())<<8 | uint32(f.next())<<16 | uint32(f.next())<<24
}

func FuzzUsedRing(f *testing.F) {
	f.Add([]byte{3, 0, 4, 1, 0, 1, 1, 1, 2, 3})
	f.Add([]byte{8, 0, 200, 1, 200, 9, 9, 9, 9, 0, 0, 3, 2, 7, 3})
	f.Add([]byte{0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 3, 3})
	f.Add([]byte{5, 0, 30, 4, 1, 255, 255, 3, 2, 40, 3, 0, 5, 1, 5, 10, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{b: data}
		size := uint16(1) << (in.next() % 9)
		tr := fakedev.New(virtio.FeatureVersion1, 1, size)
		mem := fakedev.NewMemory(3)
		var q virtio.Queue
		if err := q.Init(tr, 0, size, virtio.NoVector, mem.Alloc); err != nil {
			t.Fatal(err)
		}
		ring := tr.Ring(0)
		m := &usedModel{size: size, inflight: map[uint16]flight{}, slots: make([]struct{ id, n uint32 }, size)}
		for steps := 0; in.i < len(in.b) && steps < 4096; steps++ {
			switch in.next() % 5 {
			case 0: // the driver adds buffers (and chains), kicks; the device takes them all
				k := int(in.next())%int(size) + 1
				for j := 0; j < k; j++ {
					ln := uint32(in.next()) + 1
					tok := uint32(m.nextToken)
					var fl flight
					if c := int(in.next() % 4); c == 0 || q.Free() < c {
						w := in.next()%2 == 0
						if !q.Add(0x1000, ln, w, tok) {
							if q.Free() != 0 {
								t.Fatal("Add refused with free descriptors")
							}
							break
						}
						fl = flight{token: tok, limit: ln, descs: 1}
					} else {
						segs := make([]virtio.Segment, c)
						var wr uint32
						for s := range segs {
							segs[s] = virtio.Segment{Phys: 0x1000, Len: ln, Write: s > 0}
							if s > 0 {
								wr += ln
							}
						}
						if !q.AddChain(segs, tok) {
							t.Fatal("AddChain refused")
						}
						if wr == 0 { // device-readable only: the limit is the whole chain
							wr = ln * uint32(c)
						}
						fl = flight{token: tok, limit: wr, descs: c}
					}
					fl.stamp = m.consumed + uint64(m.seen-m.last)
					m.nextToken++
					m.pending = append(m.pending, fl)
					m.descsIn += fl.descs
				}
				q.Kick()
				for {
					h, ok := ring.NextAvail()
					if !ok {
						break
					}
					if len(m.pending) == 0 {
						t.Fatal("device saw more buffers than were added")
					}
					if _, dup := m.inflight[h]; dup {
						t.Fatalf("head %d posted twice", h)
					}
					if got := len(ring.Chain(h)); got != m.pending[0].descs {
						t.Fatalf("chain of %d descriptors, want %d", got, m.pending[0].descs)
					}
					m.inflight[h] = m.pending[0]
					m.pending = m.pending[1:]
				}
			case 1: // the device completes something: a real head or any id, any length
				var id uint32
				if sel := in.next(); sel < 160 && len(m.inflight) > 0 {
					n := int(sel) % len(m.inflight)
					for h := range m.inflight {
						if n == 0 {
							id = uint32(h)
							break
						}
						n--
					}
				} else {
					id = uint32(in.next()) | uint32(in.next())<<8
				}
				ln := in.u32() >> (in.next() % 32)
				m.slots[ring.UsedIdx%size] = struct{ id, n uint32 }{id, ln}
				ring.Put(id, ln)
				m.pub = ring.UsedIdx
			case 2: // raw: an entry anywhere, and used.idx moved by any amount
				slot := uint16(in.next())
				id, ln := in.u32(), in.u32()
				ring.WriteUsed(slot, id, ln)
				m.slots[slot%size] = struct{ id, n uint32 }{id, ln}
				d := uint16(in.next())
				if in.next()%4 == 0 {
					d |= uint16(in.next()) << 8
				}
				ring.SetUsedIdx(ring.UsedIdx + d)
				m.pub = ring.UsedIdx
			case 3: // the driver reaps
				for j := 0; j < 4*int(size)+4; j++ {
					tok, n, st := q.Pop()
					wt, wn, ws := m.pop()
					if tok != wt || n != wn || st != ws {
						t.Fatalf("Pop = %d %d %v, model %d %d %v", tok, n, st, wt, wn, ws)
					}
					if st == virtio.PopEmpty {
						break
					}
				}
			case 4: // the poller's view
				if q.Pending() != (m.pendingN() != 0) {
					t.Fatal("Pending disagrees with the model")
				}
			}
			s := q.Stats()
			if s.BadID != m.badID || s.NotInFlight != m.notIn || s.BadLen != m.bad || s.Used != m.used || s.IdxJump != m.jump || s.Stale != m.stale {
				t.Fatalf("stats %+v, model badID %d notIn %d badLen %d used %d jump %d", s, m.badID, m.notIn, m.bad, m.used, m.jump)
			}
			if q.Broken() != m.broken || q.InFlight() != len(m.inflight)+len(m.pending) || q.Free() != int(size)-m.descsIn {
				t.Fatalf("broken %v/%v in flight %d/%d free %d/%d", q.Broken(), m.broken, q.InFlight(), len(m.inflight), q.Free(), int(size)-m.descsIn)
			}
		}
	})
}
