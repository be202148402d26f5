// Tests of the newc writer, against a reader written from the format's description.
// SPDX-License-Identifier: BSD-3-Clause

package linuxpeer

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

type cpioEntry struct {
	name                     string
	ino, mode, uid, gid      uint32
	nlink, mtime             uint32
	rdevmajor, rdevminor     uint32
	data                     []byte
	headerOffset, dataOffset int
}

// readCpio decodes a newc archive up to and including its trailer, checking the magic, the
// 4-byte alignment of names and data, the NUL after each name and the zero padding.
func readCpio(b []byte) ([]cpioEntry, error) {
	var out []cpioEntry
	off := 0
	for {
		if off%4 != 0 {
			return nil, fmt.Errorf("entry at %d: not 4-byte aligned", off)
		}
		if len(b)-off < 110 {
			return nil, fmt.Errorf("entry at %d: short header", off)
		}
		h := b[off : off+110]
		if string(h[:6]) != "070701" {
			return nil, fmt.Errorf("entry at %d: magic %q", off, h[:6])
		}
		var f [13]uint32
		for i := range f {
			v, err := strconv.ParseUint(string(h[6+8*i:14+8*i]), 16, 32)
			if err != nil {
				return nil, fmt.Errorf("entry at %d: field %d: %v", off, i, err)
			}
			f[i] = uint32(v)
		}
		e := cpioEntry{ino: f[0], mode: f[1], uid: f[2], gid: f[3], nlink: f[4], mtime: f[5],
			rdevmajor: f[9], rdevminor: f[10], headerOffset: off}
		size, namesize := int(f[6]), int(f[11])
		if f[12] != 0 || f[7] != 0 || f[8] != 0 {
			return nil, fmt.Errorf("entry at %d: check %d, dev %d:%d", off, f[12], f[7], f[8])
		}
		nameEnd := off + 110 + namesize
		if namesize < 1 || nameEnd > len(b) || b[nameEnd-1] != 0 {
			return nil, fmt.Errorf("entry at %d: bad name size %d", off, namesize)
		}
		e.name = string(b[off+110 : nameEnd-1])
		e.dataOffset = pad4(nameEnd)
		if e.dataOffset+size > len(b) {
			return nil, fmt.Errorf("%s: data past the end", e.name)
		}
		if !zeros(b[nameEnd:e.dataOffset]) {
			return nil, fmt.Errorf("%s: name padding is not zero", e.name)
		}
		e.data = b[e.dataOffset : e.dataOffset+size]
		next := pad4(e.dataOffset + size)
		if next > len(b) || !zeros(b[e.dataOffset+size:next]) {
			return nil, fmt.Errorf("%s: bad data padding", e.name)
		}
		off = next
		if e.name == "TRAILER!!!" {
			if off != len(b) {
				return nil, fmt.Errorf("%d bytes after the trailer", len(b)-off)
			}
			return out, nil
		}
		out = append(out, e)
	}
}

func zeros(b []byte) bool { return bytes.Count(b, []byte{0}) == len(b) }

func TestCpioHeaderBytes(t *testing.T) {
	var buf bytes.Buffer
	c := NewCpioWriter(&buf)
	if err := c.CharDev("dev/console", 0o600, 5, 1); err != nil {
		t.Fatal(err)
	}
	// 110-byte header + "dev/console\0" (12) = 122, padded to 124.
	want := "070701" + "00000001" + "00002180" + "00000000" + "00000000" + "00000001" +
		"00000000" + "00000000" + "00000000" + "00000000" + "00000005" + "00000001" +
		"0000000c" + "00000000" + "dev/console\x00\x00\x00"
	if got := buf.String(); got != want {
		t.Fatalf("header:\n got %q\nwant %q", got, want)
	}
}

func TestCpioRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	c := NewCpioWriter(&buf)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Dir("dev", 0o755))
	must(c.CharDev("dev/console", 0o600, 5, 1))
	must(c.File("init", 0o755, []byte("#!prog")))
	must(c.File("empty", 0o644, nil))
	must(c.File("three", 0o644, []byte("abc")))
	must(c.Close())
	must(c.Close()) // idempotent
	if err := c.File("late", 0o644, nil); err == nil {
		t.Error("an entry after Close was accepted")
	}
	es, err := readCpio(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name string
		mode uint32
		data string
	}{
		{"dev", 0o040755, ""}, {"dev/console", 0o020600, ""}, {"init", 0o100755, "#!prog"},
		{"empty", 0o100644, ""}, {"three", 0o100644, "abc"},
	}
	if len(es) != len(want) {
		t.Fatalf("%d entries, want %d", len(es), len(want))
	}
	seen := map[uint32]bool{}
	for i, w := range want {
		e := es[i]
		if e.name != w.name || e.mode != w.mode || string(e.data) != w.data {
			t.Errorf("entry %d: %q mode %o data %q; want %q %o %q", i, e.name, e.mode, e.data, w.name, w.mode, w.data)
		}
		if e.uid != 0 || e.gid != 0 || e.mtime != 0 {
			t.Errorf("%s: uid %d gid %d mtime %d, want 0", e.name, e.uid, e.gid, e.mtime)
		}
		if seen[e.ino] || e.ino == 0 {
			t.Errorf("%s: inode %d reused or zero", e.name, e.ino)
		}
		seen[e.ino] = true
	}
	if es[1].rdevmajor != 5 || es[1].rdevminor != 1 {
		t.Errorf("dev/console is %d:%d, want 5:1", es[1].rdevmajor, es[1].rdevminor)
	}
}

func TestCpioBadNames(t *testing.T) {
	for _, name := range []string{"", "/init", "a//b", "a/./b", "../x", "a/..", "TRAILER!!!", "a\x00b", "dir/"} {
		c := NewCpioWriter(&bytes.Buffer{})
		if err := c.File(name, 0o644, nil); err == nil {
			t.Errorf("name %q accepted", name)
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, fmt.Errorf("disk full")
	}
	f.n--
	return len(p), nil
}

func TestCpioWriteError(t *testing.T) {
	c := NewCpioWriter(&failWriter{n: 1})
	err := c.File("init", 0o755, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("File: %v, want the writer's error", err)
	}
	if err := c.Close(); err == nil {
		t.Error("Close after a write error returned nil")
	}
}

// FuzzCpioRoundTrip: whatever names and data the writer accepts, the reader gets back, aligned.
func FuzzCpioRoundTrip(f *testing.F) {
	f.Add("init", []byte("x"), "modules/01-virtio.ko", []byte{})
	f.Add("a", []byte{}, "b/c", []byte("12345"))
	f.Fuzz(func(t *testing.T, n1 string, d1 []byte, n2 string, d2 []byte) {
		var buf bytes.Buffer
		c := NewCpioWriter(&buf)
		var want []cpioEntry
		for _, e := range []cpioEntry{{name: n1, data: d1}, {name: n2, data: d2}} {
			if err := c.File(e.name, 0o644, e.data); err != nil {
				if checkName(e.name) == nil {
					t.Fatalf("File(%q): %v", e.name, err)
				}
				continue
			}
			want = append(want, e)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := readCpio(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d entries, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i].name != want[i].name || !bytes.Equal(got[i].data, want[i].data) {
				t.Fatalf("entry %d: %q, want %q", i, got[i].name, want[i].name)
			}
		}
	})
}
