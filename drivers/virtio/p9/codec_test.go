// Hosted tests of the codec: encoder round trips, byte layouts, decoders, no allocation.
// SPDX-License-Identifier: BSD-3-Clause

package p9

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// encoderCase is one encoder call, the message it must produce (type, tag, layout, fields).
type encoderCase struct {
	name   string
	enc    func(b []byte) int
	typ    uint8
	tag    uint16
	format string
	want   []any
}

func encoderCases() []encoderCase {
	long := strings.Repeat("x", 300)
	return []encoderCase{
		{"Version", func(b []byte) int { return Version(b, NoTag, 131072, Version2000L) },
			Tversion, NoTag, "ds", []any{uint32(131072), "9P2000.L"}},
		{"Attach", func(b []byte) int { return Attach(b, 1, 0, NoFid, "root", "/srv", 0) },
			Tattach, 1, "ddssd", []any{uint32(0), NoFid, "root", "/srv", uint32(0)}},
		{"Flush", func(b []byte) int { return Flush(b, 2, 7) }, Tflush, 2, "w", []any{uint16(7)}},
		{"Walk", func(b []byte) int { return Walk(b, 3, 1, 2, []byte("/usr//lib/go/")) },
			Twalk, 3, "ddwsss", []any{uint32(1), uint32(2), uint16(3), "usr", "lib", "go"}},
		{"Walk clone", func(b []byte) int { return Walk(b, 3, 1, 2, []byte("//")) },
			Twalk, 3, "ddw", []any{uint32(1), uint32(2), uint16(0)}},
		{"Lopen", func(b []byte) int { return Lopen(b, 4, 9, OpenRDWR|OpenTRUNC) },
			Tlopen, 4, "dd", []any{uint32(9), uint32(OpenRDWR | OpenTRUNC)}},
		{"Lcreate", func(b []byte) int { return Lcreate(b, 5, 9, []byte("new.txt"), OpenWRONLY, 0o644, 100) },
			Tlcreate, 5, "dsddd", []any{uint32(9), "new.txt", uint32(OpenWRONLY), uint32(0o644), uint32(100)}},
		{"Read", func(b []byte) int { return Read(b, 6, 9, 1<<40, 4096) },
			Tread, 6, "dqd", []any{uint32(9), uint64(1 << 40), uint32(4096)}},
		{"Clunk", func(b []byte) int { return Clunk(b, 7, 9) }, Tclunk, 7, "d", []any{uint32(9)}},
		{"Getattr", func(b []byte) int { return Getattr(b, 8, 9, GetattrBasic) },
			Tgetattr, 8, "dq", []any{uint32(9), uint64(GetattrBasic)}},
		{"Setattr", func(b []byte) int {
			return Setattr(b, 9, 9, SetattrMode|SetattrMtime|SetattrMtimeSet, 0o600, 1, 2, 3, 4, 5, 6, 7)
		}, Tsetattr, 9, "dddddqqqqq", []any{uint32(9), uint32(SetattrMode | SetattrMtime | SetattrMtimeSet),
			uint32(0o600), uint32(1), uint32(2), uint64(3), uint64(4), uint64(5), uint64(6), uint64(7)}},
		{"Readdir", func(b []byte) int { return Readdir(b, 10, 9, 77, 8192) },
			Treaddir, 10, "dqd", []any{uint32(9), uint64(77), uint32(8192)}},
		{"Mkdir", func(b []byte) int { return Mkdir(b, 11, 9, []byte("d"), 0o755, 0) },
			Tmkdir, 11, "dsdd", []any{uint32(9), "d", uint32(0o755), uint32(0)}},
		{"Unlinkat", func(b []byte) int { return Unlinkat(b, 12, 9, []byte("d"), AtRemoveDir) },
			Tunlinkat, 12, "dsd", []any{uint32(9), "d", uint32(AtRemoveDir)}},
		{"Renameat", func(b []byte) int { return Renameat(b, 13, 9, []byte("a"), 10, []byte(long)) },
			Trenameat, 13, "dsds", []any{uint32(9), "a", uint32(10), long}},
		{"Fsync", func(b []byte) int { return Fsync(b, 14, 9, true) }, Tfsync, 14, "dd", []any{uint32(9), uint32(1)}},
		{"Fsync full", func(b []byte) int { return Fsync(b, 14, 9, false) }, Tfsync, 14, "dd", []any{uint32(9), uint32(0)}},
		{"Readlink", func(b []byte) int { return Readlink(b, 15, 9) }, Treadlink, 15, "d", []any{uint32(9)}},
		{"Symlink", func(b []byte) int { return Symlink(b, 16, 9, []byte("l"), []byte("../t/x"), 5) },
			Tsymlink, 16, "dssd", []any{uint32(9), "l", "../t/x", uint32(5)}},
		{"Link", func(b []byte) int { return Link(b, 17, 9, 11, []byte("hard")) },
			Tlink, 17, "dds", []any{uint32(9), uint32(11), "hard"}},
		{"Statfs", func(b []byte) int { return Statfs(b, 18, 9) }, Tstatfs, 18, "d", []any{uint32(9)}},
	}
}

// TestEncoders: every encoder's message decodes (with the test's own reader) to its arguments,
// and one byte less of buffer gives 0 with nothing written.
func TestEncoders(t *testing.T) {
	for _, c := range encoderCases() {
		b := make([]byte, 1024)
		n := c.enc(b)
		if n == 0 {
			t.Fatalf("%s: did not fit", c.name)
		}
		got := tmsg(t, b[:n], c.typ, c.tag, c.format)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: fields %v, want %v", c.name, got, c.want)
		}
		exact := make([]byte, n)
		if m := c.enc(exact); m != n || !bytes.Equal(exact, b[:n]) {
			t.Errorf("%s: exact buffer gave %d", c.name, m)
		}
		short := make([]byte, n-1)
		if m := c.enc(short); m != 0 || !bytes.Equal(short, make([]byte, n-1)) {
			t.Errorf("%s: buffer one byte short gave %d", c.name, m)
		}
		if m := c.enc(nil); m != 0 {
			t.Errorf("%s: nil buffer gave %d", c.name, m)
		}
	}
}

func TestWriteHeader(t *testing.T) {
	b := make([]byte, 64)
	data := []byte("hello, 9p")
	h := WriteHeader(b, 3, 9, 512, uint32(len(data)))
	if h != WriteHeaderSize || WriteHeaderSize != 23 {
		t.Fatalf("header %d", h)
	}
	n := h + copy(b[h:], data)
	got := tmsg(t, b[:n], Twrite, 3, "dqdb"+strings.Repeat("b", len(data)-1))
	if got[0] != uint32(9) || got[1] != uint64(512) || got[2] != uint32(len(data)) {
		t.Fatalf("fields %v", got[:3])
	}
	if WriteHeader(b, 3, 9, 0, uint32(len(b)-WriteHeaderSize)) == 0 {
		t.Fatal("a write filling the buffer exactly refused")
	}
	if WriteHeader(b, 3, 9, 0, uint32(len(b)-WriteHeaderSize+1)) != 0 {
		t.Fatal("a write one byte too long accepted")
	}
	if WriteHeader(b, 3, 9, 0, ^uint32(0)) != 0 {
		t.Fatal("a 4 GiB write accepted")
	}
}

// TestStringLimits: strings above 65535 bytes cannot be encoded.
func TestStringLimits(t *testing.T) {
	b := make([]byte, 1<<18)
	big := bytes.Repeat([]byte{'n'}, 1<<16)
	ok := big[:1<<16-1]
	if Mkdir(b, 1, 1, big, 0, 0) != 0 || Mkdir(b, 1, 1, ok, 0, 0) == 0 {
		t.Fatal("Mkdir string limit")
	}
	if Renameat(b, 1, 1, ok, 2, big) != 0 || Symlink(b, 1, 1, []byte("a"), big, 0) != 0 ||
		Lcreate(b, 1, 1, big, 0, 0, 0) != 0 || Unlinkat(b, 1, 1, big, 0) != 0 || Link(b, 1, 1, 2, big) != 0 {
		t.Fatal("a 65536-byte name was encoded")
	}
	if Walk(b, 1, 1, 2, append([]byte("a/"), big...)) != 0 || Walk(b, 1, 1, 2, append([]byte("a/"), ok...)) == 0 {
		t.Fatal("Walk element limit")
	}
	if Attach(b, 1, 1, NoFid, string(big), "", 0) != 0 || Version(b, NoTag, 8192, string(big)) != 0 {
		t.Fatal("a 65536-byte Tattach/Tversion string was encoded")
	}
}

// TestWalkVector: Twalk's exact bytes.
func TestWalkVector(t *testing.T) {
	want := []byte{
		0x18, 0, 0, 0, // size 24
		110,  // Twalk
		1, 0, // tag 1
		2, 0, 0, 0, // fid 2
		3, 0, 0, 0, // newfid 3
		2, 0, // nwname 2
		1, 0, 'a', // "a"
		2, 0, 'b', 'c', // "bc"
	}
	b := make([]byte, 64)
	n := Walk(b, 1, 2, 3, []byte("a//bc/"))
	if !bytes.Equal(b[:n], want) {
		t.Fatalf("Twalk\n got % x\nwant % x", b[:n], want)
	}
}

// TestLopenVector: Tlopen's exact bytes.
func TestLopenVector(t *testing.T) {
	want := []byte{
		0x0f, 0, 0, 0, // size 15
		12,   // Tlopen
		5, 0, // tag 5
		7, 0, 0, 0, // fid 7
		0x02, 0x02, 0, 0, // O_RDWR|O_TRUNC = 0o1002
	}
	b := make([]byte, 15)
	if n := Lopen(b, 5, 7, OpenRDWR|OpenTRUNC); n != 15 || !bytes.Equal(b, want) {
		t.Fatalf("Tlopen %d\n got % x\nwant % x", n, b, want)
	}
}

// rgetattrVector is an Rgetattr (tag 9) written out by hand, field by field.
var rgetattrVector = []byte{
	0xa0, 0, 0, 0, // size 160
	25,   // Rgetattr
	9, 0, // tag 9
	0xff, 0x07, 0, 0, 0, 0, 0, 0, // valid: GetattrBasic
	0x80,                   // qid.type: QTDIR
	0x04, 0x03, 0x02, 0x01, // qid.version 0x01020304
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, // qid.path 0x1122334455667788
	0xed, 0x41, 0, 0, // mode 040755
	0xe8, 0x03, 0, 0, // uid 1000
	0x64, 0, 0, 0, // gid 100
	2, 0, 0, 0, 0, 0, 0, 0, // nlink 2
	0x01, 0x03, 0, 0, 0, 0, 0, 0, // rdev 0x301
	0, 0x10, 0, 0, 0, 0, 0, 0, // size 4096
	0, 0x10, 0, 0, 0, 0, 0, 0, // blksize 4096
	8, 0, 0, 0, 0, 0, 0, 0, // blocks 8
	0, 0, 0, 0x60, 0, 0, 0, 0, // atime_sec 0x60000000
	1, 0, 0, 0, 0, 0, 0, 0, // atime_nsec 1
	0, 0, 0, 0x61, 0, 0, 0, 0, // mtime_sec 0x61000000
	2, 0, 0, 0, 0, 0, 0, 0, // mtime_nsec 2
	0, 0, 0, 0x62, 0, 0, 0, 0, // ctime_sec 0x62000000
	0xff, 0xc9, 0x9a, 0x3b, 0, 0, 0, 0, // ctime_nsec 999999999
	0, 0, 0, 0, 0, 0, 0, 0, // btime_sec
	0, 0, 0, 0, 0, 0, 0, 0, // btime_nsec
	7, 0, 0, 0, 0, 0, 0, 0, // gen 7
	0, 0, 0, 0, 0, 0, 0, 0x80, // data_version 1<<63
}

var rgetattrWant = Attr{
	Valid: GetattrBasic, Qid: Qid{QTDIR, 0x01020304, 0x1122334455667788}, Mode: 0o40755, UID: 1000, GID: 100,
	Nlink: 2, Rdev: 0x301, Size: 4096, Blksize: 4096, Blocks: 8,
	Atime: Time{0x60000000, 1}, Mtime: Time{0x61000000, 2}, Ctime: Time{0x62000000, 999999999},
	Gen: 7, DataVersion: 1 << 63,
}

func TestRgetattrVector(t *testing.T) {
	if len(rgetattrVector) != HeaderSize+RgetattrSize || RgetattrSize != 153 {
		t.Fatalf("vector %d bytes, RgetattrSize %d", len(rgetattrVector), RgetattrSize)
	}
	body, errno, why := Expect(rgetattrVector, len(rgetattrVector), 9, Tgetattr)
	if why != "" || errno != 0 {
		t.Fatalf("Expect: %q %d", why, errno)
	}
	a, why := Rgetattr(body)
	if why != "" || a != rgetattrWant {
		t.Fatalf("Rgetattr %q\n got %+v\nwant %+v", why, a, rgetattrWant)
	}
	// The test encoder agrees with the hand-written bytes.
	if m := rmsg(Tgetattr+1, 9, attrFields(rgetattrWant)...); !bytes.Equal(m, rgetattrVector) {
		t.Fatalf("rmsg\n% x", m)
	}
	// One byte more or less: malformed.
	if _, why := Rgetattr(body[:len(body)-1]); why == "" {
		t.Fatal("short Rgetattr accepted")
	}
	if _, why := Rgetattr(append(append([]byte{}, body...), 0)); why == "" {
		t.Fatal("long Rgetattr accepted")
	}
}

// rreaddirVector is an Rreaddir (tag 4) with two entries, by hand.
var rreaddirVector = []byte{
	0x40, 0, 0, 0, // size 64
	41,   // Rreaddir
	4, 0, // tag 4
	0x35, 0, 0, 0, // count 53
	// entry 1: qid {QTDIR, 0, 1}, offset 1, DT_DIR, "."
	0x80, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
	1, 0, 0, 0, 0, 0, 0, 0,
	4,
	1, 0, '.',
	// entry 2: qid {QTFILE, 3, 2}, offset 0x7fffffffffffffff, DT_REG, "file"
	0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
	8,
	4, 0, 'f', 'i', 'l', 'e',
}

func TestRreaddirVector(t *testing.T) {
	body, errno, why := Expect(rreaddirVector, len(rreaddirVector), 4, Treaddir)
	if why != "" || errno != 0 {
		t.Fatalf("Expect: %q %d", why, errno)
	}
	data, why := Rreaddir(body, 8192)
	if why != "" || len(data) != 53 || !within(data, rreaddirVector) {
		t.Fatalf("Rreaddir %q, %d bytes", why, len(data))
	}
	if _, why := Rreaddir(body, 52); why == "" {
		t.Fatal("more data than asked accepted")
	}
	want := []dirent{
		{Qid{QTDIR, 0, 1}, 1, 4, "."},
		{Qid{QTFILE, 3, 2}, 1<<63 - 1, 8, "file"},
	}
	if !bytes.Equal(direntData(want...), data) {
		t.Fatal("test encoder disagrees with the vector")
	}
	rest := data
	for i, w := range want {
		q, off, typ, name, r, ok, why := NextDirent(rest)
		if !ok || why != "" || q != w.qid || off != w.off || typ != w.typ || string(name) != w.name || !within(name, data) {
			t.Fatalf("entry %d: %v %q %+v %d %d %q", i, ok, why, q, off, typ, name)
		}
		rest = r
	}
	if _, _, _, _, _, ok, why := NextDirent(rest); ok || why != "" {
		t.Fatalf("after the last entry: %v %q", ok, why)
	}
}

func TestNextDirentMalformed(t *testing.T) {
	good := direntData(dirent{Qid{}, 1, 8, "ok"})
	cases := map[string][]byte{
		"truncated fixed part": good[:10],
		"name past the end":    good[:len(good)-1],
		"empty name":           direntData(dirent{Qid{}, 1, 8, ""}),
		"slash":                direntData(dirent{Qid{}, 1, 8, "a/b"}),
		"NUL":                  direntData(dirent{Qid{}, 1, 8, "a\x00"}),
		"too long":             direntData(dirent{Qid{}, 1, 8, strings.Repeat("n", NameMax+1)}),
	}
	for name, data := range cases {
		if _, _, _, _, _, ok, why := NextDirent(data); ok || why == "" {
			t.Errorf("%s: ok %v why %q", name, ok, why)
		}
	}
	// A good entry then a bad one: the good one is delivered, the bad one refused.
	data := append(append([]byte{}, good...), 1, 2, 3)
	_, _, _, name, rest, ok, _ := NextDirent(data)
	if !ok || string(name) != "ok" {
		t.Fatal("good entry lost")
	}
	if _, _, _, _, _, ok, why := NextDirent(rest); ok || why == "" {
		t.Fatal("trailing garbage accepted")
	}
	if _, _, _, name, _, ok, _ := NextDirent(direntData(dirent{Qid{}, 1, 8, strings.Repeat("n", NameMax)})); !ok || len(name) != NameMax {
		t.Fatal("a NameMax name refused")
	}
}

func TestParseExpect(t *testing.T) {
	m := rmsg(Tclunk+1, 3)
	if typ, tag, body, why := Parse(m, len(m)); why != "" || typ != Tclunk+1 || tag != 3 || len(body) != 0 {
		t.Fatalf("Parse: %d %d %v %q", typ, tag, body, why)
	}
	buf := append(append([]byte{}, m...), 0xee, 0xee) // the device's buffer is larger
	if body, errno, why := Expect(buf, len(m), 3, Tclunk); why != "" || errno != 0 || Empty(body) != "" {
		t.Fatalf("Expect Rclunk: %q %d", why, errno)
	}
	for name, c := range map[string]struct {
		b []byte
		n int
	}{
		"n beyond buffer": {m, len(m) + 1},
		"n negative":      {m, -1},
		"n below header":  {m[:6], 6},
		"size field big":  {buf, len(m) + 1},
		"size field zero": {append([]byte{0, 0, 0, 0}, m[4:]...), len(m)},
	} {
		if _, _, _, why := Parse(c.b, c.n); why == "" {
			t.Errorf("Parse %s accepted", name)
		}
		if _, _, why := Expect(c.b, c.n, 3, Tclunk); why == "" {
			t.Errorf("Expect %s accepted", name)
		}
	}
	// Another tag, another type, a body where none belongs.
	if _, _, why := Expect(m, len(m), 4, Tclunk); why != whyTag {
		t.Errorf("tag mismatch: %q", why)
	}
	if _, _, why := Expect(m, len(m), 3, Tread); why != whyType {
		t.Errorf("type mismatch: %q", why)
	}
	if m := rmsg(Tclunk, 3); true {
		if _, _, why := Expect(m, len(m), 3, Tclunk); why != whyType {
			t.Errorf("a T-message as reply: %q", why)
		}
	}
	if m := rmsg(Tclunk+1, 3, uint8(0)); true {
		body, _, _ := Expect(m, len(m), 3, Tclunk)
		if Empty(body) == "" {
			t.Error("Rclunk with a body accepted")
		}
	}
	// Rlerror: an errno, checked.
	e := rmsg(TypeRlerror, 3, uint32(2))
	if body, errno, why := Expect(e, len(e), 3, Twalk); why != "" || errno != 2 || body != nil {
		t.Fatalf("Rlerror ENOENT: %q %d", why, errno)
	}
	for _, bad := range [][]byte{
		rmsg(TypeRlerror, 3, uint32(0)),
		rmsg(TypeRlerror, 3, uint32(MaxErrno+1)),
		rmsg(TypeRlerror, 3, uint16(2)),
		rmsg(TypeRlerror, 3, uint32(2), uint8(0)),
	} {
		if _, errno, why := Expect(bad, len(bad), 3, Twalk); why == "" || errno != 0 {
			t.Errorf("bad Rlerror % x: %q %d", bad, why, errno)
		}
	}
	if m := rmsg(TypeRlerror, 4, uint32(2)); true {
		if _, errno, why := Expect(m, len(m), 3, Twalk); why != whyTag || errno != 0 {
			t.Error("Rlerror of another tag taken")
		}
	}
}

func TestReplies(t *testing.T) {
	q := Qid{QTSYMLINK, 9, 1 << 50}
	// Rversion
	if ms, v, why := Rversion(rbody(uint32(65536), str("9P2000.L"))); why != "" || ms != 65536 || string(v) != Version2000L {
		t.Errorf("Rversion %d %q %q", ms, v, why)
	}
	for _, bad := range [][]byte{rbody(uint32(1), uint16(9), raw("9P2000.L")), rbody(uint32(1)), rbody(uint32(1), str("x"), uint8(0))} {
		if _, _, why := Rversion(bad); why == "" {
			t.Errorf("bad Rversion % x accepted", bad)
		}
	}
	// Qid replies
	for name, dec := range map[string]func([]byte) (Qid, string){"Rattach": Rattach, "Rmkdir": Rmkdir, "Rsymlink": Rsymlink} {
		if got, why := dec(rbody(q)); why != "" || got != q {
			t.Errorf("%s: %+v %q", name, got, why)
		}
		if _, why := dec(rbody(q)[:12]); why == "" {
			t.Errorf("%s: short accepted", name)
		}
		if _, why := dec(rbody(q, uint8(0))); why == "" {
			t.Errorf("%s: long accepted", name)
		}
	}
	// Rlopen, Rlcreate
	for name, dec := range map[string]func([]byte) (Qid, uint32, string){"Rlopen": Rlopen, "Rlcreate": Rlcreate} {
		if got, io, why := dec(rbody(q, uint32(8168))); why != "" || got != q || io != 8168 {
			t.Errorf("%s: %+v %d %q", name, got, io, why)
		}
		if _, _, why := dec(rbody(q, uint16(1))); why == "" {
			t.Errorf("%s: short accepted", name)
		}
	}
	// Rwalk
	q2 := Qid{QTFILE, 1, 2}
	if nw, last, why := Rwalk(rbody(uint16(2), q, q2), 2); why != "" || nw != 2 || last != q2 {
		t.Errorf("Rwalk: %d %+v %q", nw, last, why)
	}
	if nw, last, why := Rwalk(rbody(uint16(1), q), 3); why != "" || nw != 1 || last != q {
		t.Errorf("partial Rwalk: %d %+v %q", nw, last, why)
	}
	if nw, last, why := Rwalk(rbody(uint16(0)), 0); why != "" || nw != 0 || last != (Qid{}) {
		t.Errorf("clone Rwalk: %d %+v %q", nw, last, why)
	}
	for name, c := range map[string]struct {
		b     []byte
		asked int
	}{
		"more than asked":      {rbody(uint16(2), q, q2), 1},
		"qids missing":         {rbody(uint16(2), q), 2},
		"trailing byte":        {rbody(uint16(1), q, uint8(0)), 2},
		"no count":             {rbody(uint8(1)), 2},
		"65535 qids":           {rbody(uint16(0xffff), q), 16},
		"17 qids, all of them": {rbody(uint16(17), q, q, q, q, q, q, q, q, q, q, q, q, q, q, q, q, q), 100},
	} {
		if _, _, why := Rwalk(c.b, c.asked); why == "" {
			t.Errorf("Rwalk %s accepted", name)
		}
	}
	// Rread, Rwrite
	if d, why := Rread(rbody(uint32(3), raw("abc")), 3); why != "" || string(d) != "abc" {
		t.Errorf("Rread %q %q", d, why)
	}
	if d, why := Rread(rbody(uint32(0)), 100); why != "" || len(d) != 0 {
		t.Errorf("Rread EOF %q %q", d, why)
	}
	for _, bad := range [][]byte{rbody(uint32(4), raw("abc")), rbody(uint32(2), raw("abc")), rbody(uint16(0)), rbody(uint32(0xffffffff), raw("abc"))} {
		if _, why := Rread(bad, 1<<20); why == "" {
			t.Errorf("bad Rread % x accepted", bad)
		}
	}
	if _, why := Rread(rbody(uint32(3), raw("abc")), 2); why != whyCount {
		t.Errorf("Rread above asked: %q", why)
	}
	if c, why := Rwrite(rbody(uint32(100)), 100); why != "" || c != 100 {
		t.Errorf("Rwrite %d %q", c, why)
	}
	if _, why := Rwrite(rbody(uint32(101)), 100); why != whyCount {
		t.Errorf("Rwrite above asked: %q", why)
	}
	if _, why := Rwrite(rbody(uint32(1), uint8(0)), 100); why == "" {
		t.Error("long Rwrite accepted")
	}
	// Rreadlink
	if tg, why := Rreadlink(rbody(str("../x"))); why != "" || string(tg) != "../x" {
		t.Errorf("Rreadlink %q %q", tg, why)
	}
	for _, bad := range [][]byte{rbody(str("")), rbody(str("a\x00b")), rbody(str("ab"), uint8(0)), rbody(uint16(3), raw("ab"))} {
		if _, why := Rreadlink(bad); why == "" {
			t.Errorf("bad Rreadlink % x accepted", bad)
		}
	}
	// Rstatfs
	sf := FSInfo{0x01021997, 4096, 1000, 500, 400, 64, 32, 0xabcdef, 255}
	body := rbody(sf.Type, sf.Bsize, sf.Blocks, sf.Bfree, sf.Bavail, sf.Files, sf.Ffree, sf.Fsid, sf.Namelen)
	if len(body) != RstatfsSize {
		t.Fatalf("Rstatfs body %d bytes", len(body))
	}
	if got, why := Rstatfs(body); why != "" || got != sf {
		t.Errorf("Rstatfs %+v %q", got, why)
	}
	if _, why := Rstatfs(body[1:]); why == "" {
		t.Error("short Rstatfs accepted")
	}
}

func TestWalkSplit(t *testing.T) {
	path := []byte("/")
	for i := 0; i < 40; i++ {
		path = append(path, byte('a'+i%26), '/', '/')
	}
	if Elements(path) != 40 {
		t.Fatalf("Elements %d", Elements(path))
	}
	b := make([]byte, 1024)
	if Walk(b, 1, 1, 2, path) != 0 {
		t.Fatal("Walk of 40 elements encoded")
	}
	var all []string
	rest := path
	for steps := 0; len(rest) != 0; steps++ {
		var first []byte
		first, rest = WalkSplit(rest)
		k := Elements(first)
		if steps < 2 && k != MaxWalk || steps == 2 && k != 8 || steps > 2 {
			t.Fatalf("step %d: %d elements", steps, k)
		}
		n := Walk(b, 1, 1, 2, first)
		if n == 0 {
			t.Fatalf("step %d: Walk refused", steps)
		}
		f := "ddw" + strings.Repeat("s", k)
		for _, v := range tmsg(t, b[:n], Twalk, 1, f)[3:] {
			all = append(all, v.(string))
		}
		if len(rest) > 0 && rest[0] == '/' {
			t.Fatal("rest starts with a slash")
		}
	}
	if len(all) != 40 || all[0] != "a" || all[39] != string(rune('a'+39%26)) {
		t.Fatalf("elements %v", all)
	}
	if f, r := WalkSplit([]byte("x/y")); string(f) != "x/y" || len(r) != 0 {
		t.Fatalf("short path split %q %q", f, r)
	}
	if f, r := WalkSplit(nil); len(f) != 0 || len(r) != 0 {
		t.Fatal("empty path split")
	}
}

func TestValidName(t *testing.T) {
	for _, n := range []string{"a", "...", ".a", "a.", strings.Repeat("z", NameMax), "é"} {
		if !ValidName([]byte(n)) {
			t.Errorf("%q refused", n)
		}
	}
	for _, n := range []string{"", ".", "..", "a/b", "/", "a\x00", strings.Repeat("z", NameMax+1)} {
		if ValidName([]byte(n)) {
			t.Errorf("%q accepted", n)
		}
	}
}

// TestCodecNoAllocs: encoders and decoders allocate nothing.
func TestCodecNoAllocs(t *testing.T) {
	b := make([]byte, 4096)
	name, target, path := []byte("name"), []byte("../target"), []byte("a/b/c/d")
	walk := rbody(uint16(2), Qid{}, Qid{1, 2, 3})
	rd := rmsg(Treaddir+1, 4, uint32(len(direntData(dirent{Qid{}, 1, 4, "."}, dirent{Qid{}, 2, 8, "file"}))),
		raw(direntData(dirent{Qid{}, 1, 4, "."}, dirent{Qid{}, 2, 8, "file"})))
	rv := rbody(uint32(8192), str(Version2000L))
	ro := rbody(Qid{}, uint32(0))
	rr := rbody(uint32(3), raw("abc"))
	rl := rbody(str("x"))
	sfs := make([]byte, RstatfsSize)
	allocs := testing.AllocsPerRun(100, func() {
		Version(b, NoTag, 8192, Version2000L)
		Attach(b, 1, 0, NoFid, "root", "", 0)
		Walk(b, 1, 0, 1, path)
		WalkSplit(path)
		Elements(path)
		Lopen(b, 1, 1, 0)
		Lcreate(b, 1, 1, name, 0, 0o644, 0)
		Read(b, 1, 1, 0, 100)
		WriteHeader(b, 1, 1, 0, 100)
		Clunk(b, 1, 1)
		Getattr(b, 1, 1, GetattrBasic)
		Setattr(b, 1, 1, SetattrSize, 0, 0, 0, 0, 0, 0, 0, 0)
		Readdir(b, 1, 1, 0, 100)
		Mkdir(b, 1, 1, name, 0o755, 0)
		Unlinkat(b, 1, 1, name, 0)
		Renameat(b, 1, 1, name, 2, name)
		Fsync(b, 1, 1, false)
		Readlink(b, 1, 1)
		Symlink(b, 1, 1, name, target, 0)
		Link(b, 1, 1, 2, name)
		Statfs(b, 1, 1)
		Flush(b, 1, 2)
		ValidName(name)

		Parse(rgetattrVector, len(rgetattrVector))
		body, _, _ := Expect(rgetattrVector, len(rgetattrVector), 9, Tgetattr)
		Rgetattr(body)
		body, _, _ = Expect(rd, len(rd), 4, Treaddir)
		data, _ := Rreaddir(body, 1000)
		for rest := data; ; {
			_, _, _, _, r, ok, _ := NextDirent(rest)
			if !ok {
				break
			}
			rest = r
		}
		Rwalk(walk, 2)
		Rversion(rv)
		Rlopen(ro)
		Rlcreate(ro)
		Rattach(ro[:13])
		Rread(rr, 3)
		Rwrite(rr[:4], 3)
		Rreadlink(rl)
		Rstatfs(sfs)
		Rlerror(rr[:4])
		Empty(nil)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per round", allocs)
	}
}
