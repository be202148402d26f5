// Fuzz targets: the decoders against arbitrary replies, Walk against arbitrary paths.
// SPDX-License-Identifier: BSD-3-Clause

package p9

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzExpect: Parse and Expect on any bytes and any reported length never panic; what they
// accept is consistent (size field = n, tag and type as asked, body inside b[7:n] and capped,
// errno only from a well-formed Rlerror).
func FuzzExpect(f *testing.F) {
	f.Add(rmsg(Tclunk+1, 3), 7, uint16(3), uint8(Tclunk))
	f.Add(rmsg(TypeRlerror, 3, uint32(2)), 11, uint16(3), uint8(Twalk))
	f.Add(rgetattrVector, len(rgetattrVector), uint16(9), uint8(Tgetattr))
	f.Add(rreaddirVector, len(rreaddirVector)-1, uint16(4), uint8(Treaddir))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0}, 7, uint16(0), uint8(255))
	f.Fuzz(func(t *testing.T, b []byte, n int, tag uint16, treq uint8) {
		typ, rtag, pbody, pwhy := Parse(b, n)
		if pwhy == "" {
			if n < HeaderSize || n > len(b) || binary.LittleEndian.Uint32(b) != uint32(n) {
				t.Fatalf("Parse accepted n %d of %d bytes", n, len(b))
			}
			if typ != b[4] || rtag != binary.LittleEndian.Uint16(b[5:]) || len(pbody) != n-HeaderSize || !within(pbody, b[HeaderSize:n]) {
				t.Fatal("Parse fields wrong")
			}
		}
		body, errno, why := Expect(b, n, tag, treq)
		switch {
		case why != "":
			if errno != 0 || body != nil {
				t.Fatalf("Expect refused (%q) but returned errno %d body %d bytes", why, errno, len(body))
			}
		case errno != 0:
			if pwhy != "" || typ != TypeRlerror || rtag != tag || errno > MaxErrno || len(pbody) != 4 {
				t.Fatalf("errno %d from type %d tag %d", errno, typ, rtag)
			}
		default:
			if pwhy != "" || typ != treq+1 || rtag != tag || typ == TypeRlerror || !within(body, b[HeaderSize:n]) {
				t.Fatalf("accepted type %d tag %d for %d %d", typ, rtag, treq, tag)
			}
		}
	})
}

// FuzzRgetattr: any body decodes or is refused; a decoded one is exactly RgetattrSize bytes
// and re-encodes to itself.
func FuzzRgetattr(f *testing.F) {
	f.Add(rgetattrVector[HeaderSize:])
	f.Add(rgetattrVector[HeaderSize : len(rgetattrVector)-1])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		a, why := Rgetattr(body)
		if why != "" {
			if len(body) == RgetattrSize || a != (Attr{}) {
				t.Fatalf("refused %d bytes (%q), attr %+v", len(body), why, a)
			}
			return
		}
		if len(body) != RgetattrSize || !bytes.Equal(rbody(attrFields(a)...), body) {
			t.Fatalf("accepted %d bytes, re-encoded differently", len(body))
		}
	})
}

// FuzzReaddir: the dirent iterator on any data ends, never slices outside the data, returns
// only valid names, and what it accepts re-encodes to the data it consumed.
func FuzzReaddir(f *testing.F) {
	good := direntData(dirent{Qid{QTDIR, 0, 1}, 1, 4, "."}, dirent{Qid{}, 2, 8, "file"})
	f.Add(good)
	f.Add(good[:len(good)-2])
	f.Add(append(append([]byte{}, good...), 0))
	f.Add(direntData(dirent{Qid{}, 1, 8, "a/b"}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:len(data):len(data)]
		rest := data
		for steps := 0; ; steps++ {
			if steps > len(data)/DirentFixed {
				t.Fatalf("%d entries from %d bytes", steps, len(data))
			}
			q, off, typ, name, r, ok, why := NextDirent(rest)
			if !ok {
				if why == "" && len(rest) != 0 {
					t.Fatalf("stopped with %d bytes left and no reason", len(rest))
				}
				if r != nil || name != nil {
					t.Fatal("slices returned with !ok")
				}
				return
			}
			if why != "" || !direntName(name) || !within(name, rest) || !within(r, rest) || len(r) > len(rest)-DirentFixed {
				t.Fatalf("entry %d: %q name %q, %d of %d bytes left", steps, why, name, len(r), len(rest))
			}
			used := rest[:len(rest)-len(r)]
			if !bytes.Equal(direntData(dirent{q, off, typ, string(name)}), used) {
				t.Fatalf("entry %d re-encodes differently", steps)
			}
			rest = r
		}
	})
}

// FuzzRwalk: any body and asked count decode or are refused; accepted ones have exactly nwqid
// qids, no more than asked or MaxWalk, the last of them returned.
func FuzzRwalk(f *testing.F) {
	q := Qid{QTDIR, 1, 2}
	f.Add(rbody(uint16(2), q, Qid{}), 2)
	f.Add(rbody(uint16(1), q), 3)
	f.Add(rbody(uint16(0)), 0)
	f.Add(rbody(uint16(3), q), 3)
	f.Add([]byte{0xff}, -1)
	f.Fuzz(func(t *testing.T, body []byte, asked int) {
		nw, last, why := Rwalk(body, asked)
		if why != "" {
			if nw != 0 || last != (Qid{}) {
				t.Fatalf("refused (%q) with %d %+v", why, nw, last)
			}
			return
		}
		if nw > asked || nw > MaxWalk || len(body) != 2+QidSize*nw || int(binary.LittleEndian.Uint16(body)) != nw {
			t.Fatalf("accepted nwqid %d of %d bytes, asked %d", nw, len(body), asked)
		}
		if nw > 0 && !bytes.Equal(rbody(last), body[len(body)-QidSize:]) {
			t.Fatal("last qid wrong")
		}
	})
}

// FuzzReplies: every other decoder on any body: no panic, results inside the body, fixed
// layouts exact.
func FuzzReplies(f *testing.F) {
	f.Add(rbody(uint32(8192), str(Version2000L)), uint32(10))
	f.Add(rbody(uint32(3), raw("abc")), uint32(3))
	f.Add(rbody(str("target")), uint32(0))
	f.Add(make([]byte, RstatfsSize), uint32(0))
	f.Add(rbody(Qid{}, uint32(0)), uint32(0))
	f.Fuzz(func(t *testing.T, body []byte, asked uint32) {
		if _, v, why := Rversion(body); why == "" && (!within(v, body) || len(body) != 6+len(v)) {
			t.Fatal("Rversion")
		}
		if _, why := Rattach(body); why == "" != (len(body) == QidSize) {
			t.Fatal("Rattach")
		}
		if _, _, why := Rlopen(body); why == "" != (len(body) == QidSize+4) {
			t.Fatal("Rlopen")
		}
		if d, why := Rread(body, asked); why == "" && (!within(d, body) || len(d) > int(asked) || len(body) != 4+len(d)) {
			t.Fatal("Rread")
		}
		if c, why := Rwrite(body, asked); why == "" && (c > asked || len(body) != 4) {
			t.Fatal("Rwrite")
		}
		if tg, why := Rreadlink(body); why == "" && (!within(tg, body) || len(tg) == 0 || bytes.IndexByte(tg, 0) >= 0) {
			t.Fatal("Rreadlink")
		}
		if _, why := Rstatfs(body); why == "" != (len(body) == RstatfsSize) {
			t.Fatal("Rstatfs")
		}
		if e, why := Rlerror(body); why == "" && (e == 0 || e > MaxErrno || len(body) != 4) {
			t.Fatal("Rlerror")
		}
		if why := Empty(body); why == "" != (len(body) == 0) {
			t.Fatal("Empty")
		}
	})
}

// FuzzWalk: Walk encodes exactly the non-empty elements of any path (or refuses beyond
// MaxWalk), and WalkSplit cuts without losing or adding any.
func FuzzWalk(f *testing.F) {
	f.Add([]byte("a/b//c/"))
	f.Add([]byte("////"))
	f.Add([]byte("1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17"))
	f.Fuzz(func(t *testing.T, path []byte) {
		path = path[:len(path):len(path)]
		var elems [][]byte
		tooLong := false
		for _, e := range bytes.Split(path, []byte("/")) {
			if len(e) > 0 {
				elems = append(elems, e)
				tooLong = tooLong || len(e) > maxStr
			}
		}
		if Elements(path) != len(elems) {
			t.Fatalf("Elements %d, want %d", Elements(path), len(elems))
		}
		b := make([]byte, len(path)*3+HeaderSize+10)
		n := Walk(b, 1, 2, 3, path)
		if len(elems) > MaxWalk || tooLong {
			if n != 0 {
				t.Fatal("more than MaxWalk elements, or one too long, encoded")
			}
		} else {
			if n == 0 {
				t.Fatal("refused")
			}
			f := "ddw"
			for range elems {
				f += "s"
			}
			got := tmsg(t, b[:n], Twalk, 1, f)
			for i, e := range elems {
				if got[3+i] != string(e) {
					t.Fatalf("element %d: %q, want %q", i, got[3+i], e)
				}
			}
		}
		first, rest := WalkSplit(path)
		k := Elements(first)
		if k != min(len(elems), MaxWalk) || k+Elements(rest) != len(elems) || !within(first, path) || !within(rest, path) {
			t.Fatalf("WalkSplit: %d + %d elements of %d", k, Elements(rest), len(elems))
		}
		if len(rest) > 0 && (rest[0] == '/' || k != MaxWalk) {
			t.Fatalf("WalkSplit rest %q after %d elements", rest, k)
		}
	})
}
