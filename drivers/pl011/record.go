// Console records: several channels on one UART, both ways.
// SPDX-License-Identifier: BSD-3-Clause

package pl011

// A record is [channel u8][length u16 little-endian, 1..65535][length bytes] — the virtio
// console's record (docs/contract.md) with the kernel's control channel added. Out of the
// kernel the channels are 1 stdout, 2 stderr, 3 control; into it, 1 stdin and 2 signal bytes.
// Records carry no other framing: a byte out of place (a record split by a second writer, a
// lost byte) misaligns everything after it, which is why writers serialise whole records.
const (
	RecordHeader = 3
	MaxRecord    = 0xffff
)

// Header returns the header of a record of n bytes (1 ≤ n ≤ MaxRecord) on channel ch.
func Header(ch byte, n int) [RecordHeader]byte {
	return [RecordHeader]byte{ch, byte(n), byte(n >> 8)}
}

// WriteRecord sends p on channel ch as records of at most MaxRecord bytes; nothing for an
// empty p (a record of length 0 is malformed). The caller holds the board's write flag.
func (u UART) WriteRecord(ch byte, p []byte) {
	for len(p) > 0 {
		n := min(len(p), MaxRecord)
		h := Header(ch, n)
		u.Write(h[:])
		u.Write(p[:n])
		p = p[n:]
	}
}

// WriteRecordString is WriteRecord for a string, without converting it.
func (u UART) WriteRecordString(ch byte, s string) {
	for len(s) > 0 {
		n := min(len(s), MaxRecord)
		h := Header(ch, n)
		u.Write(h[:])
		u.WriteString(s[:n])
		s = s[n:]
	}
}

// Demux splits a stream of records into channels as it arrives, one byte at a time, holding
// no data: Want says whose byte comes next, so the reader can leave a byte in the UART (and
// the runner's socket: back-pressure) until that channel's consumer can take it. The zero
// Demux expects a record header.
type Demux struct {
	hdr  uint8  // header bytes read of the next record (0-2)
	ch   uint8  // the channel of the record being read
	lo   uint8  // the low byte of its length
	left uint32 // payload bytes still to come; 0 between records
	// Bad counts malformed headers: channel 0 (its byte is dropped and the next byte is read as
	// a channel again) and length 0 (the header is dropped).
	Bad uint64
}

// Want returns the channel of the next byte of the stream if it is a payload byte, 0 if it
// belongs to a header (which any reader may take).
func (d *Demux) Want() byte {
	if d.left > 0 {
		return d.ch
	}
	return 0
}

// Feed takes the next byte of the stream: for a payload byte, its channel and true; for a
// header byte, false.
func (d *Demux) Feed(c byte) (ch byte, payload bool) {
	if d.left > 0 {
		d.left--
		return d.ch, true
	}
	switch d.hdr {
	case 0:
		if c == 0 {
			d.Bad++
			return 0, false
		}
		d.ch, d.hdr = c, 1
	case 1:
		d.lo, d.hdr = c, 2
	default:
		d.hdr = 0
		if d.left = uint32(d.lo) | uint32(c)<<8; d.left == 0 {
			d.Bad++
		}
	}
	return 0, false
}
