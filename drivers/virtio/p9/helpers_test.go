// Test-only codec: a T-message field reader and an R-message builder, apart from the package's.
// SPDX-License-Identifier: BSD-3-Clause

package p9

import (
	"encoding/binary"
	"testing"
	"unsafe"
)

// tmsg decodes a T-message with the layout format (Linux protocol.c letters: b u8, w u16,
// d u32, q u64, s string, Q qid) and checks its header: size = len(m), type typ, tag tag,
// and that the fields use up the message exactly. Strings come back as string, qids as Qid.
func tmsg(t testing.TB, m []byte, typ uint8, tag uint16, format string) []any {
	t.Helper()
	if len(m) < 7 {
		t.Fatalf("message of %d bytes", len(m))
	}
	if got := binary.LittleEndian.Uint32(m); int(got) != len(m) {
		t.Fatalf("size field %d, message %d bytes", got, len(m))
	}
	if m[4] != typ || binary.LittleEndian.Uint16(m[5:]) != tag {
		t.Fatalf("type %d tag %d, want %d %d", m[4], binary.LittleEndian.Uint16(m[5:]), typ, tag)
	}
	p := m[7:]
	need := func(n int) []byte {
		t.Helper()
		if len(p) < n {
			t.Fatalf("message ends %d bytes early (format %q)", n-len(p), format)
		}
		s := p[:n]
		p = p[n:]
		return s
	}
	var out []any
	for _, c := range format {
		switch c {
		case 'b':
			out = append(out, need(1)[0])
		case 'w':
			out = append(out, binary.LittleEndian.Uint16(need(2)))
		case 'd':
			out = append(out, binary.LittleEndian.Uint32(need(4)))
		case 'q':
			out = append(out, binary.LittleEndian.Uint64(need(8)))
		case 's':
			n := int(binary.LittleEndian.Uint16(need(2)))
			out = append(out, string(need(n)))
		case 'Q':
			q := need(13)
			out = append(out, Qid{q[0], binary.LittleEndian.Uint32(q[1:]), binary.LittleEndian.Uint64(q[5:])})
		default:
			t.Fatalf("bad format %q", format)
		}
	}
	if len(p) != 0 {
		t.Fatalf("%d bytes after the fields of %q", len(p), format)
	}
	return out
}

// raw is bytes appended as they are (not as a string).
type raw []byte

// str is a 9P string field.
type str string

// rbody builds a message body from fields: uint8, uint16, uint32, uint64, str, Qid, raw.
func rbody(fields ...any) []byte {
	var b []byte
	for _, f := range fields {
		switch v := f.(type) {
		case uint8:
			b = append(b, v)
		case uint16:
			b = binary.LittleEndian.AppendUint16(b, v)
		case uint32:
			b = binary.LittleEndian.AppendUint32(b, v)
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, v)
		case str:
			b = binary.LittleEndian.AppendUint16(b, uint16(len(v)))
			b = append(b, v...)
		case Qid:
			b = append(b, v.Type)
			b = binary.LittleEndian.AppendUint32(b, v.Version)
			b = binary.LittleEndian.AppendUint64(b, v.Path)
		case raw:
			b = append(b, v...)
		default:
			panic("rbody: bad field type")
		}
	}
	return b
}

// rmsg builds a whole message: header (size, typ, tag) and body.
func rmsg(typ uint8, tag uint16, fields ...any) []byte {
	body := rbody(fields...)
	m := binary.LittleEndian.AppendUint32(nil, uint32(7+len(body)))
	m = append(m, typ)
	m = binary.LittleEndian.AppendUint16(m, tag)
	return append(m, body...)
}

// attrFields is an Attr as Rgetattr's fields, in order.
func attrFields(a Attr) []any {
	return []any{a.Valid, a.Qid, a.Mode, a.UID, a.GID, a.Nlink, a.Rdev, a.Size, a.Blksize, a.Blocks,
		a.Atime.Sec, a.Atime.Nsec, a.Mtime.Sec, a.Mtime.Nsec, a.Ctime.Sec, a.Ctime.Nsec,
		a.Btime.Sec, a.Btime.Nsec, a.Gen, a.DataVersion}
}

// dirent is one directory entry for direntData.
type dirent struct {
	qid  Qid
	off  uint64
	typ  uint8
	name string
}

// direntData is entries as Rreaddir's data.
func direntData(ents ...dirent) []byte {
	var b []byte
	for _, e := range ents {
		b = append(b, rbody(e.qid, e.off, e.typ, str(e.name))...)
	}
	return b
}

// within reports whether s lies inside b (a sub-slice, by address, its capacity too), or is
// empty.
func within(s, b []byte) bool {
	if len(s) == 0 {
		return true
	}
	sb := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	bb := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return sb >= bb && sb+uintptr(cap(s)) <= bb+uintptr(len(b))
}
