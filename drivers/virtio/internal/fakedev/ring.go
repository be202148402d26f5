// The device side of a split virtqueue over plain memory.
// SPDX-License-Identifier: BSD-3-Clause

package fakedev

import "sync/atomic"

// Ring plays the device's part of a split virtqueue (virtio 1.2 §2.7): it reads the available
// ring and descriptors and writes used entries, with the same atomic accesses to the ring
// headers as the driver.
type Ring struct {
	Size      uint16
	desc      uintptr
	avail     uintptr
	used      uintptr
	LastAvail uint16 // next avail entry the device will take
	UsedIdx   uint16 // next used entry the device will write (published by Publish)
	usedFlags uint16
}

// Desc is one descriptor as the driver wrote it.
type Desc struct {
	Addr  uint64
	Len   uint32
	Flags uint16
	Next  uint16
}

// NewRing views the three areas at the given addresses.
func NewRing(size uint16, desc, avail, used uintptr) *Ring {
	return &Ring{Size: size, desc: desc, avail: avail, used: used}
}

func (r *Ring) availHeader() (flags, idx uint16) {
	w := atomic.LoadUint32((*uint32)(ptr(r.avail)))
	return uint16(w), uint16(w >> 16)
}

// AvailFlags is avail.flags.
func (r *Ring) AvailFlags() uint16 { f, _ := r.availHeader(); return f }

// AvailIdx is avail.idx.
func (r *Ring) AvailIdx() uint16 { _, i := r.availHeader(); return i }

// NextAvail takes the next available head, if any.
func (r *Ring) NextAvail() (head uint16, ok bool) {
	if r.AvailIdx() == r.LastAvail {
		return 0, false
	}
	head = *(*uint16)(ptr(r.avail + 4 + uintptr(r.LastAvail%r.Size)*2))
	r.LastAvail++
	return head, true
}

// Desc reads descriptor i.
func (r *Ring) Desc(i uint16) Desc {
	a := r.desc + uintptr(i)*16
	w := *(*uint32)(ptr(a + 12))
	return Desc{Addr: *(*uint64)(ptr(a)), Len: *(*uint32)(ptr(a + 8)), Flags: uint16(w), Next: uint16(w >> 16)}
}

// Chain reads the chain starting at head (at most Size descriptors).
func (r *Ring) Chain(head uint16) []Desc {
	var c []Desc
	i := head
	for n := 0; n < int(r.Size) && i < r.Size; n++ {
		d := r.Desc(i)
		c = append(c, d)
		if d.Flags&1 == 0 {
			break
		}
		i = d.Next
	}
	return c
}

// WriteUsed writes used.ring[slot % Size] without publishing.
func (r *Ring) WriteUsed(slot uint16, id, n uint32) {
	e := r.used + 4 + uintptr(slot%r.Size)*8
	atomic.StoreUint32((*uint32)(ptr(e)), id)
	atomic.StoreUint32((*uint32)(ptr(e+4)), n)
}

// Put writes a used entry at UsedIdx and publishes it.
func (r *Ring) Put(id, n uint32) {
	r.WriteUsed(r.UsedIdx, id, n)
	r.UsedIdx++
	r.Publish()
}

// Publish stores used.idx = UsedIdx (with the current used.flags).
func (r *Ring) Publish() {
	atomic.StoreUint32((*uint32)(ptr(r.used)), uint32(r.usedFlags)|uint32(r.UsedIdx)<<16)
}

// SetUsedIdx publishes an arbitrary used.idx (hostile devices) and makes it the device's.
func (r *Ring) SetUsedIdx(idx uint16) {
	r.UsedIdx = idx
	r.Publish()
}

// SetNoNotify sets or clears VIRTQ_USED_F_NO_NOTIFY.
func (r *Ring) SetNoNotify(on bool) {
	r.usedFlags = 0
	if on {
		r.usedFlags = 1
	}
	r.Publish()
}
