// Tests of the stdin stream's decoding.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"bytes"
	"testing"

	"gmpos/qemu/runner"
)

// decodeStdin runs stream through stdinPut from an empty buffer and returns the data, whether
// end of file was seen, and the count of dropped bytes.
func decodeStdin(stream []byte) ([]byte, bool, uint64) {
	stdinBuf = struct {
		data       [stdinBufSize]byte
		head, tail uint64
		eof        bool
		esc        bool
		off        bool
		dropped    uint64
	}{}
	for _, c := range stream {
		if stdinBuf.tail-stdinBuf.head == stdinBufSize {
			break
		}
		stdinPut(c)
	}
	return append([]byte(nil), stdinBuf.data[:stdinBuf.tail]...), stdinBuf.eof, stdinBuf.dropped
}

func TestStdinDecode(t *testing.T) {
	for _, c := range []struct {
		in, want []byte
		eof      bool
		dropped  uint64
	}{
		{[]byte("abc"), []byte("abc"), false, 0},
		{[]byte("a\xff\xffb"), []byte("a\xffb"), false, 0},
		{[]byte("a\x00b\xff\x00"), []byte("a\x00b"), true, 0},
		{[]byte("a\xff\x00late"), []byte("a"), true, 4},
		{[]byte("a\xff\x07b"), []byte("ab"), false, 1},
		{[]byte("a\xff"), []byte("a"), false, 0},
	} {
		got, eof, dropped := decodeStdin(c.in)
		if !bytes.Equal(got, c.want) || eof != c.eof || dropped != c.dropped {
			t.Errorf("%q: %q eof=%v dropped=%d; want %q %v %d", c.in, got, eof, dropped, c.want, c.eof, c.dropped)
		}
	}
}

// FuzzStdinDecode: whatever the runner sends (runner.EscapeStdin, then end of file) arrives
// whole, and no byte stream, however malformed, puts more in the buffer than it holds.
func FuzzStdinDecode(f *testing.F) {
	f.Add([]byte("hello\n"), []byte("\xff\x00"))
	f.Add([]byte{0xff, 0, 0xff, 0xff}, []byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data, raw []byte) {
		if len(data) >= stdinBufSize { // a full buffer holds the end of file back until read
			data = data[:stdinBufSize-1]
		}
		got, eof, dropped := decodeStdin(append(runner.EscapeStdin(data), 0xff, 0x00))
		if !bytes.Equal(got, data) || !eof || dropped != 0 {
			t.Fatalf("%q came out as %q (eof %v, dropped %d)", data, got, eof, dropped)
		}
		got, _, _ = decodeStdin(raw)
		if len(got) > len(raw) || uint64(len(got)) > stdinBufSize {
			t.Fatalf("%d bytes decoded from %d", len(got), len(raw))
		}
	})
}
