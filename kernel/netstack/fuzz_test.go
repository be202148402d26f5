// Fuzz targets for what the stack decodes from the kernel: sockaddrs and event records.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"sync"

	"bytes"
	"encoding/binary"
	"syscall"
	"testing"

	"gmpos/kernel/netabi"
)

// FuzzSockaddr: decoding never panics, accepts only what Linux accepts, and what it accepts
// encodes back to the same family, port and address.
func FuzzSockaddr(f *testing.F) {
	f.Add(sa(localhost, 80), false)
	f.Add(sa(anyAddr, 0), true)
	f.Add([]byte{0, 0, 0, 80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, true) // AF_UNSPEC any
	f.Add([]byte{10, 0, 0, 80}, false)
	f.Add(append([]byte{16, 0, 0, 0}, sa(localhost, 53)...), false) // an OpPull address buffer
	f.Fuzz(func(t *testing.T, b []byte, anyOK bool) {
		fa, e := decodeSockaddr(b, anyOK)
		switch {
		case len(b) < sockaddrInSize:
			if e != syscall.EINVAL {
				t.Fatalf("short sockaddr: %v", e)
			}
		case e == 0:
			fam := binary.LittleEndian.Uint16(b)
			if fam != afInet && !(anyOK && fam == afUnspec) {
				t.Fatalf("accepted family %d", fam)
			}
			out := encodeSockaddr(make([]byte, 16), fa)
			if !bytes.Equal(out[2:8], b[2:8]) || binary.LittleEndian.Uint16(out) != afInet || !bytes.Equal(out[8:], make([]byte, 8)) {
				t.Fatalf("round trip %x → %x", b[:16], out)
			}
		case e != syscall.EAFNOSUPPORT:
			t.Fatalf("error %v", e)
		}
		to, has, e := decodeAddrBuf(b)
		if e == 0 && has && to.Addr.Len() != 4 {
			t.Fatalf("address buffer gave %v", to)
		}
	})
}

// nullKernel accepts everything the stack does, and hands out a little data on Pull: enough
// for the dispatcher to run every path without a program behind it.
type nullKernel struct {
	pulls   int
	accepts int
	data    []byte
}

func (*nullKernel) Events(func() []byte, func([]byte)) error          { return errStopped }
func (*nullKernel) Reply(uint32, int64, []byte) error                 { return nil }
func (*nullKernel) Push(_ uint32, d, _ []byte) (int, error)           { return len(d) / 2, nil }
func (*nullKernel) State(uint32, uint32, uint32, syscall.Errno) error { return nil }
func (*nullKernel) Release(uint32) error                              { return nil }
func (*nullKernel) SetAddr(uint32, []byte, []byte) error              { return nil }

// Accepted hands out Sids above those the seeds use, and sometimes says the queue is full.
func (k *nullKernel) Accepted(uint32, []byte, []byte) (uint32, error) {
	k.accepts++
	if k.accepts%3 == 0 {
		return 0, syscall.EAGAIN
	}
	return 100 + uint32(k.accepts), nil
}

func (k *nullKernel) Pull(_ uint32, buf, addr []byte) (int, error) {
	k.pulls++
	if k.pulls%2 == 0 || len(k.data) == 0 {
		return 0, nil
	}
	copy(addr, k.data)
	return copy(buf, k.data), nil
}

func rec(e netabi.Event) []byte {
	b := make([]byte, netabi.EventSize)
	netabi.EncodeEvent(b, e)
	return b
}

// FuzzEvents feeds event records to the dispatcher of a loopback-only stack: whatever they
// say, it must not panic (nor hang).
func FuzzEvents(f *testing.F) {
	for _, sd := range eventSeeds() {
		f.Add(sd[0], sd[1])
	}
	f.Fuzz(fuzzEvents)
}

// eventSeeds are record sequences a real program causes: a TCP connection over loopback, a
// UDP socket, garbage.
func eventSeeds() [][2][]byte {
	req := func(op uint16, sid, r uint32, args [4]uint64, data []byte) []byte {
		return rec(netabi.Event{Kind: netabi.EvRequest, Op: op, Sid: sid, Req: r, Args: args, Data: data})
	}
	ev := func(kind uint16, sid uint32) []byte { return rec(netabi.Event{Kind: kind, Sid: sid}) }
	tcpSeq := bytes.Join([][]byte{
		req(netabi.ReqSocket, 1, 0, [4]uint64{sockStream}, nil),
		req(netabi.ReqBind, 1, 2, [4]uint64{}, sa(localhost, 4242)),
		req(netabi.ReqListen, 1, 3, [4]uint64{8}, nil),
		req(netabi.ReqSocket, 2, 0, [4]uint64{sockStream}, nil),
		req(netabi.ReqConnect, 2, 0, [4]uint64{}, sa(localhost, 4242)),
		ev(netabi.EvRxSpace, 1),
		ev(netabi.EvTxReady, 2),
		req(netabi.ReqSetsockopt, 2, 0, [4]uint64{ipprotoTCP, tcpNodelay}, []byte{1, 0, 0, 0}),
		req(netabi.ReqGetsockopt, 2, 8, [4]uint64{solSocket, soLinger, 8}, nil),
		req(netabi.ReqShutdown, 2, 0, [4]uint64{shutWr}, nil),
		ev(netabi.EvRxSpace, 101),
		ev(netabi.EvClosed, 2),
		ev(netabi.EvClosed, 101),
		ev(netabi.EvClosed, 1),
	}, nil)
	udpSeq := bytes.Join([][]byte{
		req(netabi.ReqSocket, 5, 0, [4]uint64{sockDgram}, nil),
		req(netabi.ReqBind, 5, 2, [4]uint64{}, sa(localhost, 53)),
		req(netabi.ReqConnect, 5, 3, [4]uint64{}, sa(localhost, 53)),
		ev(netabi.EvTxReady, 5),
		req(netabi.ReqSetsockopt, 5, 0, [4]uint64{solSocket, soBroadcst}, []byte{1, 0, 0, 0}),
		ev(netabi.EvClosed, 5),
	}, nil)
	return [][2][]byte{
		{tcpSeq, []byte("hello")},
		{udpSeq, append([]byte{16, 0, 0, 0}, sa(localhost, 53)...)},
		{bytes.Repeat([]byte{0xff}, 3*netabi.EventSize), {}},
	}
}

// fuzzStack is the one loopback stack the fuzz inputs share (building one per input would
// dominate the run); every input's sockets are closed at its end.
var fuzzStack struct {
	once sync.Once
	st   *stack.Stack
	c    *counters
}

func fuzzEvents(t *testing.T, recs, data []byte) {
	fuzzStack.once.Do(func() {
		fuzzStack.c = new(counters)
		st, err := newStack(netabi.Config{}, nil, fuzzStack.c)
		if err != nil {
			panic(err)
		}
		fuzzStack.st = st
	})
	if len(recs) > 64*netabi.EventSize {
		recs = recs[:64*netabi.EventSize]
	}
	s := newService(&nullKernel{data: data}, fuzzStack.st, fuzzStack.c)
	for off := 0; off < len(recs); off += netabi.EventSize {
		s.dispatch(recs[off:min(off+netabi.EventSize, len(recs))]) // short records must be refused
		s.flushDirty()
	}
	s.stop()
}
