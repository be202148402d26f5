// SPDX-License-Identifier: BSD-3-Clause

package netabi

import (
	"bytes"
	"testing"
)

func TestFrameRecords(t *testing.T) {
	a, b := bytes.Repeat([]byte{1}, 60), bytes.Repeat([]byte{2}, MaxFrame)
	recs := AppendFrame(AppendFrame(nil, a), b)
	f, rest, ok := NextFrame(recs)
	if !ok || !bytes.Equal(f, a) {
		t.Fatalf("first record: %v %d", ok, len(f))
	}
	f, rest, ok = NextFrame(rest)
	if !ok || !bytes.Equal(f, b) || len(rest) != 0 {
		t.Fatalf("second record: %v %d %d", ok, len(f), len(rest))
	}
	for _, bad := range [][]byte{nil, {5}, {13, 0}, AppendFrame(nil, a)[:40], {0xff, 0xff}, AppendFrame(nil, make([]byte, MaxFrame+1))} {
		if _, _, ok := NextFrame(bad); ok {
			t.Errorf("accepted % x…", bad[:min(len(bad), 4)])
		}
	}
}

// FuzzNextFrame: whatever the buffer holds, records are taken in order, each within bounds, and
// re-encoding them gives the bytes they came from.
func FuzzNextFrame(f *testing.F) {
	f.Add(AppendFrame(AppendFrame(nil, make([]byte, 14)), make([]byte, 100)))
	f.Add([]byte{0xea, 0x05})
	f.Fuzz(func(t *testing.T, b []byte) {
		var out []byte
		rest := b
		for {
			fr, r, ok := NextFrame(rest)
			if !ok {
				break
			}
			if len(fr) < 14 || len(fr) > MaxFrame || len(r) >= len(rest) {
				t.Fatalf("record of %d bytes, rest %d of %d", len(fr), len(r), len(rest))
			}
			out = AppendFrame(out, fr)
			rest = r
		}
		if !bytes.Equal(out, b[:len(b)-len(rest)]) {
			t.Fatal("records do not re-encode to their bytes")
		}
	})
}
