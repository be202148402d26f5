// The NIC link endpoint: tcpip frames over the kernel's TAP-like NIC file.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"errors"
	"os"
	"sync"
	"syscall"

	"gmpos/kernel/netabi"

	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/link/qdisc/fifo"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
)

// nicLink is a stack.LinkEndpoint that moves whole Ethernet frames through a framePort (the
// kernel's NIC); it is wrapped with link/ethernet, which adds and strips the Ethernet header, so
// nicLink itself has no header (like link/channel).
//
// The receive goroutine is the only reader. WritePackets is called by the queueing
// discipline's dispatcher (txQueue), but would work from any tcpip goroutine at once: each call
// encodes into its own buffer (wbufs). d is protected by mu.
type nicLink struct {
	port  framePort
	mtu   uint32 // IP MTU from Config; frames are up to mtu + 14 bytes
	mac   tcpip.LinkAddress
	c     *counters
	wbufs sync.Pool

	mu      sync.RWMutex
	d       stack.NetworkDispatcher
	started bool
	done    chan struct{} // closed when the receive goroutine ends
	close   sync.Once
}

var _ stack.LinkEndpoint = (*nicLink)(nil)

func newNICLink(port framePort, cfg netabi.Config, c *counters) *nicLink {
	l := &nicLink{port: port, mtu: uint32(cfg.MTU), mac: tcpip.LinkAddress(cfg.MAC[:]), c: c, done: make(chan struct{})}
	l.wbufs.New = func() any { b := make([]byte, 0, sendBatch*netabi.FrameRecMax); return &b }
	return l
}

// sendBatch is how many frames one WritePackets call hands the port at most at a time: the
// queueing discipline's batch (see txQueue), so that each of its batches is one system call.
const sendBatch = fifo.BatchSize

// txQueueLen is how many packets may wait in the queueing discipline (as runsc's); a full queue
// refuses packets (ErrNoBufferSpace: TCP retransmits them).
const txQueueLen = 1000

// txQueue puts a FIFO queueing discipline (gVisor's link/qdisc/fifo, one dispatcher) in front of
// link, for the NIC's stack.NICOptions.
//
// Why: tcpip's TCP hands the link one segment per call, from whichever goroutine is sending, so
// without a queue every frame was one OpNICSend and one device notification — measured with
// klog=1 on a 32 MiB download: 23,817 calls for 23,817 frames, ~100 µs each, mostly the
// notification (under TCG an MMIO exit that waits for QEMU's big lock, which QEMU's main loop
// holds while it feeds the previous frames to slirp). With the queue, senders only enqueue;
// the dispatcher goroutine takes whatever has accumulated meanwhile — up to fifo.BatchSize
// frames — and sends it with one call: ~18 frames per call on the same download, kernel time
// halved. It is Linux's xmit_more batching, done by a queue instead of a hint. The price is
// a goroutine hand-off per burst.
func txQueue(link stack.LinkWriter) stack.QueueingDiscipline {
	return fifo.New(link, 1, txQueueLen)
}

// frameMax is the largest frame: the MTU plus the Ethernet header (no FCS).
func (l *nicLink) frameMax() int { return int(l.mtu) + header.EthernetMinimumSize }

// receive hands every received frame to tcpip until the port is closed. An error the port
// cannot recover from (the kernel refusing the NIC: it cannot happen once the NIC file is open)
// is counted and reported, and ends reception: retrying would spin.
func (l *nicLink) receive() {
	defer close(l.done)
	err := l.port.receive(make([]byte, recvBuf), l.deliver)
	if err != nil && !errors.Is(err, os.ErrClosed) {
		l.c.rxErrors.Add(1)
		warn("NIC receive: "+err.Error()+"; no more frames will be received", 0)
	}
}

// deliver hands a batch of frame records to tcpip. Records come from the kernel; one that does
// not decode, or a frame longer than the MTU allows, is counted and ends the batch.
func (l *nicLink) deliver(recs []byte) {
	l.mu.RLock()
	d := l.d
	l.mu.RUnlock()
	for rest := recs; len(rest) > 0; {
		frame, r, ok := netabi.NextFrame(rest)
		if !ok || len(frame) > l.frameMax() {
			l.c.rxBadFrames.Add(1)
			return
		}
		rest = r
		l.c.framesIn.Add(1)
		l.c.bytesIn.Add(uint64(len(frame)))
		if d == nil {
			continue
		}
		pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(frame)})
		d.DeliverNetworkPacket(0, pkt) // link/ethernet reads the type from the header
		pkt.DecRef()
	}
}

// recvBuf holds a receive batch: up to a ring's worth of frames (RxQueueSize is 128).
const recvBuf = 64 * netabi.FrameRecMax

// WritePackets sends the frames in batches of sendBatch, each with one call of the port. A
// full transmit ring drops what did not fit, as a busy wire would; waiting here would stall a
// tcpip goroutine that may hold its locks, and TCP recovers the loss. The packets count as sent
// either way.
func (l *nicLink) WritePackets(pkts stack.PacketBufferList) (int, tcpip.Error) {
	bp := l.wbufs.Get().(*[]byte)
	defer l.wbufs.Put(bp)
	all := pkts.AsSlice()
	for len(all) > 0 {
		b, frames := (*bp)[:0], 0
		var sizes [sendBatch]int
		for len(all) > 0 && frames < sendBatch {
			pkt := all[0]
			all = all[1:]
			size := pkt.Size()
			if size < header.EthernetMinimumSize || size > l.frameMax() {
				l.c.txErrors.Add(1) // larger than the MTU: tcpip should never build one
				continue
			}
			b = append(b, byte(size), byte(size>>8))
			for _, v := range pkt.AsSlices() {
				b = append(b, v...)
			}
			sizes[frames] = size
			frames++
		}
		if frames == 0 {
			continue
		}
		sent, err := l.port.send(b, frames)
		l.c.framesOut.Add(uint64(sent))
		for _, n := range sizes[:sent] {
			l.c.bytesOut.Add(uint64(n))
		}
		switch {
		case err == syscall.EAGAIN || err == nil && sent < frames:
			l.c.txDrops.Add(uint64(frames - sent))
		case err != nil:
			l.c.txErrors.Add(uint64(frames - sent))
		}
	}
	return pkts.Len(), nil
}

// MTU is the frame size (link/ethernet subtracts its header to get the IP MTU).
func (l *nicLink) MTU() uint32                                  { return uint32(l.frameMax()) }
func (l *nicLink) SetMTU(uint32)                                {}
func (l *nicLink) MaxHeaderLength() uint16                      { return 0 }
func (l *nicLink) LinkAddress() tcpip.LinkAddress               { return l.mac }
func (l *nicLink) SetLinkAddress(tcpip.LinkAddress)             {}
func (l *nicLink) Capabilities() stack.LinkEndpointCapabilities { return 0 }
func (l *nicLink) ARPHardwareType() header.ARPHardwareType      { return header.ARPHardwareNone }
func (l *nicLink) AddHeader(*stack.PacketBuffer)                {}
func (l *nicLink) ParseHeader(*stack.PacketBuffer) bool         { return true }
func (l *nicLink) SetOnCloseAction(func())                      {}

// Attach connects the stack; the first attach starts the receive goroutine.
func (l *nicLink) Attach(d stack.NetworkDispatcher) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.d = d
	if d != nil && !l.started {
		l.started = true
		go l.receive()
	}
}

func (l *nicLink) IsAttached() bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.d != nil
}

// Close closes the port, which ends the receive goroutine (the stack is being closed: only
// hosted tests do that).
func (l *nicLink) Close() {
	l.close.Do(func() { l.port.close() })
}

// Wait waits for the receive goroutine to end after Close.
func (l *nicLink) Wait() {
	l.mu.RLock()
	started := l.started
	l.mu.RUnlock()
	if started {
		<-l.done
	}
}
