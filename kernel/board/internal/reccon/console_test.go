// Tests of console input: the demultiplexing of the runner's records between the two readers,
// and the receive interrupt's mask.
// SPDX-License-Identifier: BSD-3-Clause

package reccon

import (
	"bytes"
	"testing"

	"gmpos/drivers/pl011"
)

// fakeUART is a receiver: a FIFO of bytes and the interrupt mask.
type fakeUART struct {
	fifo     []byte
	unmasked bool
	writes   int // mask writes
}

func (u *fakeUART) Rx() (byte, bool) {
	if len(u.fifo) == 0 {
		return 0, false
	}
	c := u.fifo[0]
	u.fifo = u.fifo[1:]
	return c, true
}

func (u *fakeUART) RxInterrupt(on bool) { u.unmasked = on; u.writes++ }

// rec is one runner record.
func rec(ch byte, p string) []byte {
	h := pl011.Header(ch, len(p))
	return append(h[:], p...)
}

// drainAll reads channel ch until nothing comes, as the kernel's handlers do.
func drainAll(c *Console, u *fakeUART, ch byte) string {
	var out []byte
	for {
		x, ok := readFrom(c, u, ch)
		if !ok {
			break
		}
		out = append(out, x)
	}
	updateMaskOn(c, u)
	return string(out)
}

func TestConsoleInput(t *testing.T) {
	var c Console
	u := &fakeUART{}
	updateMaskOn(&c, u)
	if u.unmasked || u.writes != 0 {
		t.Fatal("unmasked before any channel is on")
	}
	c.on[1], c.on[2] = true, true
	updateMaskOn(&c, u)
	if !u.unmasked {
		t.Fatal("masked with both channels on")
	}

	// Interleaved records: a stdin reader sets signals aside and goes on.
	u.fifo = bytes.Join([][]byte{rec(1, "ab"), rec(2, "\x02"), rec(1, "cd"), rec(2, "\x0f")}, nil)
	if got := drainAll(&c, u, 1); got != "abcd" {
		t.Errorf("stdin %q", got)
	}
	if got := drainAll(&c, u, 2); got != "\x02\x0f" {
		t.Errorf("signals %q", got)
	}

	// A signal reader stops at stdin's payload: the bytes stay in the UART.
	u.fifo = bytes.Join([][]byte{rec(2, "\x03"), rec(1, "xyz")}, nil)
	if got := drainAll(&c, u, 2); got != "\x03" {
		t.Errorf("signals %q", got)
	}
	if len(u.fifo) != 3 || !u.unmasked {
		t.Errorf("stdin left %q, unmasked %v", u.fifo, u.unmasked)
	}

	// The kernel's stdin buffer is full: channel 1 off. With stdin payload next, nobody may
	// read: the interrupt is masked (else a level-triggered storm), and comes back with it.
	c.on[1] = false
	updateMaskOn(&c, u)
	if u.unmasked {
		t.Error("unmasked while only stdin bytes wait and stdin is off")
	}
	if got := drainAll(&c, u, 2); got != "" || len(u.fifo) != 3 {
		t.Errorf("signal reader took %q", got)
	}
	c.on[1] = true
	updateMaskOn(&c, u)
	if !u.unmasked || drainAll(&c, u, 1) != "xyz" {
		t.Error("stdin did not resume")
	}

	// Signals fill the ring while only stdin is read; then the stdin reader stops at the next
	// signal byte, and with signals off the line is masked.
	c.on[2] = false
	var s []byte
	for i := 0; i < sigRing+1; i++ {
		s = append(s, rec(2, "\x01")...)
	}
	u.fifo = append(s, rec(1, "q")...)
	if got := drainAll(&c, u, 1); got != "" || c.sigTail-c.sigHead != sigRing || len(u.fifo) != 1+3+1 {
		t.Errorf("stdin %q, ring %d, fifo %q", got, c.sigTail-c.sigHead, u.fifo)
	}
	if u.unmasked {
		t.Error("unmasked with the ring full and signals off")
	}
	c.on[2] = true
	if got := drainAll(&c, u, 2); len(got) != sigRing+1 {
		t.Errorf("signals %q", got)
	}
	if got := drainAll(&c, u, 1); got != "q" {
		t.Errorf("stdin %q", got)
	}

	// Records of an unknown channel are dropped by either reader; malformed headers counted.
	u.fifo = bytes.Join([][]byte{rec(7, "zz"), {0}, {1, 0, 0}, rec(1, "k")}, nil)
	if got := drainAll(&c, u, 2); got != "" {
		t.Errorf("signals %q", got)
	}
	if got := drainAll(&c, u, 1); got != "k" || c.dropped != 2 || c.demux.Bad != 2 {
		t.Errorf("stdin %q, dropped %d, bad %d", got, c.dropped, c.demux.Bad)
	}
	// Mask writes only on changes.
	w := u.writes
	updateMaskOn(&c, u)
	updateMaskOn(&c, u)
	if u.writes != w {
		t.Error("the mask is rewritten without a change")
	}
}

// FuzzConsoleInput plays the kernel with the combined handler the shared line needs (stdin's,
// then the signals', on each interrupt), a stdin buffer of room bytes that the program empties
// between interrupts, and the runner's records cut at arbitrary points: every byte arrives on
// its channel in order, and the line never interrupts without something to read (a
// level-triggered storm) nor stays masked while bytes wait for a reader that is on.
func FuzzConsoleInput(f *testing.F) {
	f.Add([]byte("hello, world"), []byte{2, 15}, uint8(3), uint8(5))
	f.Add([]byte{}, []byte{1, 2, 3}, uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, in, sig []byte, room, chunk uint8) {
		var stream []byte
		k := int(chunk%8) + 1
		for i, j := 0, 0; i < len(in) || j < len(sig); {
			if i < len(in) {
				n := min(k, len(in)-i)
				stream = append(stream, rec(1, string(in[i:i+n]))...)
				i += n
			}
			if j < len(sig) {
				stream = append(stream, rec(2, string(sig[j:j+1]))...)
				j++
			}
		}
		var c Console
		u := &fakeUART{fifo: stream}
		c.on[1], c.on[2] = true, true
		updateMaskOn(&c, u)
		var kbuf, gotIn, gotSig []byte
		capacity := int(room%16) + 1
		for steps := 0; ; steps++ {
			if steps > 4*len(stream)+16 {
				t.Fatal("no progress")
			}
			switch {
			case u.unmasked && len(u.fifo) > 0: // the interrupt
				before := len(u.fifo)
				for len(kbuf) < capacity {
					x, ok := readFrom(&c, u, 1)
					if !ok {
						break
					}
					kbuf = append(kbuf, x)
				}
				if len(kbuf) == capacity {
					c.on[1] = false
				}
				updateMaskOn(&c, u)
				for {
					x, ok := readFrom(&c, u, 2)
					if !ok {
						break
					}
					gotSig = append(gotSig, x)
				}
				updateMaskOn(&c, u)
				if len(u.fifo) == before {
					t.Fatalf("an interrupt took nothing: fifo %q", u.fifo)
				}
			case len(kbuf) > 0: // the program reads its stdin; the kernel turns input back on
				gotIn = append(gotIn, kbuf...)
				kbuf = kbuf[:0]
				c.on[1] = true
				updateMaskOn(&c, u)
			case len(u.fifo) == 0:
				if !bytes.Equal(gotIn, in) || !bytes.Equal(gotSig, sig) {
					t.Fatalf("stdin %q, want %q; signals %q, want %q", gotIn, in, gotSig, sig)
				}
				return
			default:
				t.Fatalf("masked with %q waiting and both readers on", u.fifo)
			}
		}
	})
}
