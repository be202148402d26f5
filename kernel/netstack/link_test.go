// Hosted tests of the NIC link endpoint's transmit side: batches, and the queue in front.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"bytes"
	"sync"
	"syscall"
	"testing"

	"gmpos/kernel/netabi"

	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip/link/ethernet"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
)

// recPort is a framePort that records every send call. gate, if set, is waited on by each send
// after it has reported itself on entered.
type recPort struct {
	mu      sync.Mutex
	calls   []int    // frames per send call
	frames  [][]byte // every frame, in order
	accept  int      // frames each call takes (0: all)
	entered chan struct{}
	gate    chan struct{}
}

func (p *recPort) receive([]byte, func([]byte)) error { return nil }
func (p *recPort) close() error                       { return nil }

func (p *recPort) send(recs []byte, frames int) (int, error) {
	if p.entered != nil {
		p.entered <- struct{}{}
		<-p.gate
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, frames)
	take := frames
	if p.accept > 0 {
		take = min(take, p.accept)
	}
	rest := recs
	for i := 0; i < frames; i++ {
		f, r, ok := netabi.NextFrame(rest)
		if !ok {
			return 0, syscall.EINVAL
		}
		if i < take {
			p.frames = append(p.frames, append([]byte(nil), f...))
		}
		rest = r
	}
	if len(rest) != 0 {
		return 0, syscall.EINVAL
	}
	if take == 0 {
		return 0, syscall.EAGAIN
	}
	return take, nil
}

func testFrames(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		f := make([]byte, 14+(i*97)%1501)
		for j := range f {
			f[j] = byte(i + j)
		}
		out[i] = f
	}
	return out
}

func testPacket(f []byte) *stack.PacketBuffer {
	return stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(f)})
}

func testLink(p framePort) (*nicLink, *counters) {
	c := new(counters)
	return newNICLink(p, netabi.Config{MTU: 1500, Flags: netabi.CfgNIC}, c), c
}

func sameFrames(t *testing.T, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d frames sent, want %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("frame %d: %d bytes, want %d (or different bytes)", i, len(got[i]), len(want[i]))
		}
	}
}

// WritePackets hands the port sendBatch frames per call, in order, as frame records.
func TestWritePacketsBatches(t *testing.T) {
	p := new(recPort)
	l, c := testLink(p)
	want := testFrames(2*sendBatch + 6)
	var pkts stack.PacketBufferList
	for _, f := range want {
		pkts.PushBack(testPacket(f))
	}
	if n, err := l.WritePackets(pkts); n != len(want) || err != nil {
		t.Fatalf("WritePackets = %d, %v", n, err)
	}
	pkts.Reset() // drops the list's references
	if len(p.calls) != 3 || p.calls[0] != sendBatch || p.calls[1] != sendBatch || p.calls[2] != 6 {
		t.Fatalf("send calls of %v frames, want [%d %d 6]", p.calls, sendBatch, sendBatch)
	}
	sameFrames(t, p.frames, want)
	if c.framesOut.Load() != uint64(len(want)) || c.txDrops.Load() != 0 {
		t.Fatalf("framesOut %d txDrops %d", c.framesOut.Load(), c.txDrops.Load())
	}

	// A full transmit ring: what did not fit is dropped and counted.
	p = &recPort{accept: 10}
	l, c = testLink(p)
	for _, f := range want[:20] {
		pkts.PushBack(testPacket(f))
	}
	l.WritePackets(pkts)
	pkts.Reset()
	if c.framesOut.Load() != 10 || c.txDrops.Load() != 10 {
		t.Fatalf("framesOut %d txDrops %d, want 10 and 10", c.framesOut.Load(), c.txDrops.Load())
	}
}

// The transmit queue (txQueue) in front of the link: packets written while a send is under way
// go out together afterwards, in batches of at most sendBatch frames — one system call each —
// and in order. The dispatcher is held inside the first send, so the batching is certain.
func TestTxQueueBatches(t *testing.T) {
	p := &recPort{entered: make(chan struct{}), gate: make(chan struct{})}
	l, _ := testLink(p)
	q := txQueue(ethernet.New(l))
	defer q.Close()
	want := testFrames(1 + sendBatch + 13)
	write := func(f []byte) {
		pkt := testPacket(f)
		if err := q.WritePacket(pkt); err != nil {
			t.Fatalf("queue: %v", err)
		}
		pkt.DecRef()
	}
	write(want[0])
	<-p.entered // the dispatcher is sending the first frame alone
	for _, f := range want[1:] {
		write(f)
	}
	go func() {
		for range p.entered {
		}
	}()
	close(p.gate)
	for i := 0; ; i++ {
		p.mu.Lock()
		n := len(p.frames)
		p.mu.Unlock()
		if n == len(want) {
			break
		}
		if i > 30000 { // 30 s: a bound on a hang, not a timing assertion
			t.Fatalf("%d of %d frames sent", n, len(want))
		}
		syscall.Nanosleep(&syscall.Timespec{Nsec: 1e6}, nil)
	}
	close(p.entered)
	if len(p.calls) != 3 || p.calls[0] != 1 || p.calls[1] != sendBatch || p.calls[2] != 13 {
		t.Fatalf("send calls of %v frames, want [1 %d 13]", p.calls, sendBatch)
	}
	sameFrames(t, p.frames, want)
}
