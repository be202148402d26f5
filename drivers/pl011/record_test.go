// Tests of the console records: the header and the input demultiplexer.
// SPDX-License-Identifier: BSD-3-Clause

package pl011

import (
	"bytes"
	"testing"
)

// record encodes one record as the runner writes it.
func record(ch byte, p []byte) []byte {
	h := Header(ch, len(p))
	return append(h[:], p...)
}

func TestHeader(t *testing.T) {
	if h := Header(3, 0x1234); h != [3]byte{3, 0x34, 0x12} {
		t.Errorf("header %x", h)
	}
	if h := Header(1, MaxRecord); h != [3]byte{1, 0xff, 0xff} {
		t.Errorf("largest header %x", h)
	}
}

// split runs a stream through a Demux and returns each channel's bytes.
func split(d *Demux, s []byte) map[byte][]byte {
	out := map[byte][]byte{}
	for _, c := range s {
		want := d.Want()
		ch, payload := d.Feed(c)
		if payload != (want != 0) || payload && ch != want {
			panic("Want did not say what Feed did")
		}
		if payload {
			out[ch] = append(out[ch], c)
		}
	}
	return out
}

func TestDemux(t *testing.T) {
	var s []byte
	s = append(s, record(1, []byte("hello "))...)
	s = append(s, record(2, []byte{2})...)
	s = append(s, record(1, bytes.Repeat([]byte{0xff}, 300))...)
	s = append(s, 0, 0)    // two stray channel-0 bytes: dropped
	s = append(s, 1, 0, 0) // a record of length 0: dropped
	s = append(s, record(2, []byte{15, 1})...)
	var d Demux
	out := split(&d, s)
	if string(out[1]) != "hello "+string(bytes.Repeat([]byte{0xff}, 300)) || !bytes.Equal(out[2], []byte{2, 15, 1}) {
		t.Errorf("split into %q", out)
	}
	if d.Bad != 3 || d.Want() != 0 {
		t.Errorf("bad %d, want %d", d.Bad, d.Want())
	}
	// A payload byte is announced before it is read.
	d = Demux{}
	for _, c := range []byte{2, 1, 0} {
		d.Feed(c)
	}
	if d.Want() != 2 {
		t.Errorf("after a header, Want %d", d.Want())
	}
}

// FuzzDemux: records built from arbitrary payloads come out whole and in order per channel,
// whatever else precedes them; and no stream leaves the Demux in a state Want misreports.
func FuzzDemux(f *testing.F) {
	f.Add([]byte("abc"), []byte{2, 3}, []byte{})
	f.Add([]byte{}, []byte{}, []byte{1, 5, 0})
	f.Fuzz(func(t *testing.T, in, sig, junk []byte) {
		var d Demux
		split(&d, junk)
		// Whatever junk did, a stream of records is read correctly once the Demux is between
		// records; finish the junk's record first by feeding what it still wants.
		for d.Want() != 0 || d.hdr != 0 {
			d.Feed(1) // a channel, then lengths of 1: the header ends, and its payload
		}
		var s []byte
		if len(in) > 0 {
			s = append(s, record(1, in)...)
		}
		if len(sig) > 0 {
			s = append(s, record(2, sig)...)
		}
		out := split(&d, s)
		if !bytes.Equal(out[1], in) || !bytes.Equal(out[2], sig) {
			t.Fatalf("got %q, want %q and %q", out, in, sig)
		}
	})
}
