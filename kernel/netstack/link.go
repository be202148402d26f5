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
	"gvisor.dev/gvisor/pkg/tcpip/stack"
)

// nicLink is a stack.LinkEndpoint that moves whole Ethernet frames through the NIC file; it is
// wrapped with link/ethernet, which adds and strips the Ethernet header, so nicLink itself has
// no header (like link/channel). One read of the file returns one frame, one write sends one.
//
// The receive goroutine is the only reader. WritePackets may be called by any tcpip goroutine
// at once; each call writes from its own buffer (wbufs). d is protected by mu.
type nicLink struct {
	f     *os.File
	rc    syscall.RawConn
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

func newNICLink(f *os.File, cfg netabi.Config, c *counters) *nicLink {
	l := &nicLink{f: f, mtu: uint32(cfg.MTU), mac: tcpip.LinkAddress(cfg.MAC[:]), c: c, done: make(chan struct{})}
	l.rc, _ = f.SyscallConn() // never fails for a file from os.NewFile
	n := l.frameMax()
	l.wbufs.New = func() any { b := make([]byte, n); return &b }
	return l
}

// frameMax is the largest frame: the MTU plus the Ethernet header (no FCS).
func (l *nicLink) frameMax() int { return int(l.mtu) + header.EthernetMinimumSize }

// receive reads frames until the file is closed. A read that finds no frame parks the
// goroutine in the netpoller (os.File does that on EAGAIN), so it reads until the ring is
// empty before it waits: the kernel re-arms the NIC interrupt only then.
func (l *nicLink) receive() {
	defer close(l.done)
	buf := make([]byte, l.frameMax()+1) // one spare byte tells a truncated frame
	for {
		n, err := l.f.Read(buf)
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return
			}
			l.c.rxErrors.Add(1)
			continue
		}
		if n < header.EthernetMinimumSize || n > l.frameMax() {
			l.c.rxBadFrames.Add(1) // a runt, or longer than the MTU allows
			continue
		}
		l.c.framesIn.Add(1)
		l.c.bytesIn.Add(uint64(n))
		l.mu.RLock()
		d := l.d
		l.mu.RUnlock()
		if d == nil {
			continue
		}
		pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(buf[:n])})
		d.DeliverNetworkPacket(0, pkt) // link/ethernet reads the type from the header
		pkt.DecRef()
	}
}

// WritePackets sends each frame with one non-blocking write. A full transmit ring (EAGAIN)
// drops the frame, as a busy wire would; waiting here would stall a tcpip goroutine that may
// hold its locks, and TCP recovers the loss. The packets count as sent either way.
func (l *nicLink) WritePackets(pkts stack.PacketBufferList) (int, tcpip.Error) {
	bp := l.wbufs.Get().(*[]byte)
	defer l.wbufs.Put(bp)
	for _, pkt := range pkts.AsSlice() {
		b := *bp
		n := 0
		for _, v := range pkt.AsSlices() {
			if n+len(v) > len(b) {
				n = -1
				break
			}
			n += copy(b[n:], v)
		}
		if n < 0 {
			l.c.txErrors.Add(1) // larger than the MTU: tcpip should never build one
			continue
		}
		var err error
		l.rc.Write(func(fd uintptr) bool {
			for {
				_, err = syscall.Write(int(fd), b[:n])
				if err != syscall.EINTR {
					return true // never wait: see above
				}
			}
		})
		switch err {
		case nil:
			l.c.framesOut.Add(1)
			l.c.bytesOut.Add(uint64(n))
		case syscall.EAGAIN:
			l.c.txDrops.Add(1)
		default:
			l.c.txErrors.Add(1)
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

// Close closes the NIC file, which ends the receive goroutine (the stack is being closed: only
// hosted tests do that).
func (l *nicLink) Close() {
	l.close.Do(func() { l.f.Close() })
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
