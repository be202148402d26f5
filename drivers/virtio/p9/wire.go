// Little-endian fields on the wire: the encoders' puts and the decoders' bounds-checked reader.
// SPDX-License-Identifier: BSD-3-Clause

package p9

import "encoding/binary"

var le = binary.LittleEndian

// maxStr is the longest string a len[2] prefix can carry.
const maxStr = 0xffff

// The puts write one field at offset o of b and return the offset after it. Encoders compute
// the message's size and check it against len(b) first, so the puts never run past the end
// (Go's bounds checks stay as the backstop: a miscount panics in tests, it does not scribble).

func put8(b []byte, o int, v uint8) int {
	b[o] = v
	return o + 1
}

func put16(b []byte, o int, v uint16) int {
	le.PutUint16(b[o:], v)
	return o + 2
}

func put32(b []byte, o int, v uint32) int {
	le.PutUint32(b[o:], v)
	return o + 4
}

func put64(b []byte, o int, v uint64) int {
	le.PutUint64(b[o:], v)
	return o + 8
}

// putStr writes len[2] and the bytes of s (the caller checked len(s) ≤ maxStr).
func putStr(b []byte, o int, s []byte) int {
	o = put16(b, o, uint16(len(s)))
	return o + copy(b[o:], s)
}

// putString is putStr for a Go string (Tversion's version, Tattach's names).
func putString(b []byte, o int, s string) int {
	o = put16(b, o, uint16(len(s)))
	return o + copy(b[o:], s)
}

// header writes size[4] type[1] tag[2] and returns HeaderSize.
func header(b []byte, size int, typ uint8, tag uint16) int {
	o := put32(b, 0, uint32(size))
	o = put8(b, o, typ)
	return put16(b, o, tag)
}

// fits reports whether a message of size bytes fits b (and the size field).
func fits(b []byte, size int) bool {
	return size <= len(b) && uint64(size) <= 1<<32-1
}

// reader takes fields off the front of a reply body. A read past the end sets bad and yields
// zeros and empty slices from then on, so a decoder reads every field unconditionally and
// checks once at the end (ok). Slices it returns are sub-slices of the body, capped at their
// length (a caller's append cannot overwrite what follows). It moves an offset and never
// stores a slice after construction: a store of a slice through r would take the GC's write
// barrier, which the kernel's trap context may not (kernel/nowb_test.go).
type reader struct {
	b   []byte
	off int
	bad bool
}

func (r *reader) take(n int) []byte {
	if r.bad || n > len(r.b)-r.off {
		r.bad = true
		return nil
	}
	s := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return s
}

func (r *reader) u8() uint8 {
	if s := r.take(1); s != nil {
		return s[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if s := r.take(2); s != nil {
		return le.Uint16(s)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if s := r.take(4); s != nil {
		return le.Uint32(s)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if s := r.take(8); s != nil {
		return le.Uint64(s)
	}
	return 0
}

// str reads len[2] and that many bytes, the length read once.
func (r *reader) str() []byte {
	n := int(r.u16())
	return r.take(n)
}

func (r *reader) qid() Qid {
	return Qid{Type: r.u8(), Version: r.u32(), Path: r.u64()}
}

// done reports whether every read was in range and the body is used up exactly.
func (r *reader) done() bool { return !r.bad && r.off == len(r.b) }
