// Frame records: several Ethernet frames in one buffer (OpNICRecv, OpNICSend).
// SPDX-License-Identifier: BSD-3-Clause

package netabi

// NextFrame splits the first frame record off b: the frame, the rest of b, and ok. ok is false
// for a record that is cut short or whose frame is shorter than an Ethernet header (14 bytes)
// or longer than MaxFrame; an empty b is not a record either. For the stack, which decodes
// what the kernel wrote, and for tests; the kernel walks records in user memory itself.
func NextFrame(b []byte) (frame, rest []byte, ok bool) {
	if len(b) < FrameRecHdr {
		return nil, nil, false
	}
	n := int(b[0]) | int(b[1])<<8
	if n < 14 || n > MaxFrame || len(b) < FrameRecHdr+n {
		return nil, nil, false
	}
	return b[FrameRecHdr : FrameRecHdr+n], b[FrameRecHdr+n:], true
}

// AppendFrame appends frame as one record to b (the caller keeps frames within MaxFrame).
func AppendFrame(b, frame []byte) []byte {
	b = append(b, byte(len(frame)), byte(len(frame)>>8))
	return append(b, frame...)
}
