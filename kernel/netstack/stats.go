// Counters: the service's own and tcpip's, for tests, logs and pages.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"sync/atomic"
)

// counters are written by any goroutine of the package (atomic).
type counters struct {
	events, badEvents, unknownSid                        atomic.Uint64
	requests, replies, replyErrors                       atomic.Uint64
	pushes, pushBytes, pulls, pullBytes, states, kErrors atomic.Uint64
	sockets, opened, released                            atomic.Uint64
	accepted, acceptDrops, asyncErrors                   atomic.Uint64
	txDgramDrops, rxDgramDrops                           atomic.Uint64
	framesIn, bytesIn, framesOut, bytesOut               atomic.Uint64
	txDrops, txErrors, rxErrors, rxBadFrames             atomic.Uint64
}

// Counters is a snapshot of the stack's counters: the service's (the first group), the NIC
// link's (the second) and tcpip's own (the third).
type Counters struct {
	Events      uint64 // event records received
	BadEvents   uint64 // records that did not decode or had an unknown kind or op
	UnknownSid  uint64 // events for a socket the stack does not know
	Requests    uint64 // EvRequest records carried out
	Replies     uint64 // OpReply calls
	ReplyErrors uint64 // OpReply calls that failed (ESRCH: the caller went away)
	Pushes      uint64 // OpPush calls
	PushBytes   uint64 // bytes the kernel took
	Pulls       uint64 // OpPull calls
	PullBytes   uint64 // bytes pulled
	States      uint64 // OpState calls
	KernelErrs  uint64 // other gmpos_net calls that failed
	Sockets     uint64 // sockets open now (including closed ones still sending)
	Opened      uint64 // sockets ever created or accepted
	Released    uint64 // OpRelease calls
	Accepted    uint64 // connections handed to the kernel's accept queues (OpAccepted)
	AcceptDrops uint64 // connections reset because the kernel had no socket for them
	AsyncErrors uint64 // asynchronous requests (setsockopt, shutdown, socket) that failed
	TxDgramDrop uint64 // datagrams the stack could not send (bad address, no route, ...)
	RxDgramDrop uint64 // datagrams dropped because the program shut the socket for reading

	FramesIn    uint64 // frames read from the NIC file
	BytesIn     uint64
	FramesOut   uint64 // frames written
	BytesOut    uint64
	TxDrops     uint64 // frames dropped: the transmit ring was full (EAGAIN)
	TxErrors    uint64 // frames the kernel refused otherwise
	RxErrors    uint64 // failed reads of the NIC file
	RxBadFrames uint64 // frames shorter than an Ethernet header or longer than the MTU

	MalformedL4Rcvd    uint64 // tcpip: packets with a malformed transport header
	DroppedPackets     uint64 // tcpip: packets dropped at the transport layer
	IPMalformed        uint64
	ARPMalformed       uint64
	TCPChecksumErrors  uint64
	UDPChecksumErrors  uint64
	TCPInvalidSegments uint64
	TCPResetsSent      uint64
	TCPResetsReceived  uint64
	TCPRetransmits     uint64
	TCPFailedConnects  uint64
	TCPSegmentsSent    uint64
	UDPUnknownPort     uint64
	UDPRecvBufErrors   uint64
}

// Stats returns the counters of the stack init started (all zero when not on gmpos).
func Stats() Counters {
	if running == nil {
		return Counters{}
	}
	return running.stats()
}

func (s *service) stats() Counters {
	c := s.c
	t := s.st.Stats()
	return Counters{
		Events: c.events.Load(), BadEvents: c.badEvents.Load(), UnknownSid: c.unknownSid.Load(),
		Requests: c.requests.Load(), Replies: c.replies.Load(), ReplyErrors: c.replyErrors.Load(),
		Pushes: c.pushes.Load(), PushBytes: c.pushBytes.Load(), Pulls: c.pulls.Load(),
		PullBytes: c.pullBytes.Load(), States: c.states.Load(), KernelErrs: c.kErrors.Load(),
		Sockets: c.sockets.Load(), Opened: c.opened.Load(), Released: c.released.Load(),
		Accepted: c.accepted.Load(), AcceptDrops: c.acceptDrops.Load(), AsyncErrors: c.asyncErrors.Load(),
		TxDgramDrop: c.txDgramDrops.Load(), RxDgramDrop: c.rxDgramDrops.Load(),

		FramesIn: c.framesIn.Load(), BytesIn: c.bytesIn.Load(), FramesOut: c.framesOut.Load(),
		BytesOut: c.bytesOut.Load(), TxDrops: c.txDrops.Load(), TxErrors: c.txErrors.Load(),
		RxErrors: c.rxErrors.Load(), RxBadFrames: c.rxBadFrames.Load(),

		MalformedL4Rcvd:    t.NICs.MalformedL4RcvdPackets.Value(),
		DroppedPackets:     t.DroppedPackets.Value(),
		IPMalformed:        t.IP.MalformedPacketsReceived.Value(),
		ARPMalformed:       t.ARP.MalformedPacketsReceived.Value(),
		TCPChecksumErrors:  t.TCP.ChecksumErrors.Value(),
		UDPChecksumErrors:  t.UDP.ChecksumErrors.Value(),
		TCPInvalidSegments: t.TCP.InvalidSegmentsReceived.Value(),
		TCPResetsSent:      t.TCP.ResetsSent.Value(),
		TCPResetsReceived:  t.TCP.ResetsReceived.Value(),
		TCPRetransmits:     t.TCP.Retransmits.Value(),
		TCPFailedConnects:  t.TCP.FailedConnectionAttempts.Value(),
		TCPSegmentsSent:    t.TCP.SegmentsSent.Value(),
		UDPUnknownPort:     t.UDP.UnknownPortErrors.Value(),
		UDPRecvBufErrors:   t.UDP.ReceiveBufferErrors.Value(),
	}
}
