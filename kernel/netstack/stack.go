// The tcpip stack: protocols, NICs, addresses and routes from the kernel's Config.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"errors"

	"gmpos/kernel/netabi"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/link/ethernet"
	"gvisor.dev/gvisor/pkg/tcpip/link/loopback"
	"gvisor.dev/gvisor/pkg/tcpip/network/arp"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/transport/icmp"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
	"gvisor.dev/gvisor/pkg/tcpip/transport/udp"
)

// NIC ids in the stack.
const (
	nicLoopback tcpip.NICID = 1
	nicEther    tcpip.NICID = 2
)

// start builds the stack for cfg (with the Ethernet NIC over nic when it is not nil) and
// starts the service over k. Everything is ready when it returns.
func start(k Kernel, cfg netabi.Config, nic framePort) (*service, error) {
	c := new(counters)
	st, err := newStack(cfg, nic, c)
	if err != nil {
		return nil, err
	}
	s := newService(k, st, c)
	s.start()
	return s, nil
}

// newStack builds the tcpip stack: ipv4 with arp, tcp, udp, icmp; NIC 1 loopback
// (127.0.0.1/8); NIC 2 Ethernet over nic behind a transmit queue (txQueue), with cfg's address
// and routes when CfgStatic.
func newStack(cfg netabi.Config, nic framePort, c *counters) (*stack.Stack, error) {
	st := stack.New(stack.Options{
		NetworkProtocols:   []stack.NetworkProtocolFactory{ipv4.NewProtocol, arp.NewProtocol},
		TransportProtocols: []stack.TransportProtocolFactory{tcp.NewProtocol, udp.NewProtocol, icmp.NewProtocol4},
		// Packets to the stack's own addresses loop inside it (as on Linux), not via the NIC.
		HandleLocal: true,
	})
	sack := tcpip.TCPSACKEnabled(true)
	st.SetTransportProtocolOption(tcp.ProtocolNumber, &sack)
	// Nagle's algorithm is on for a new TCP socket, as on Linux (TCP_NODELAY reads 0 until set;
	// Go's net sets it on every connection it makes).
	delay := tcpip.TCPDelayEnabled(true)
	st.SetTransportProtocolOption(tcp.ProtocolNumber, &delay)

	if e := st.CreateNIC(nicLoopback, loopback.New()); e != nil {
		return nil, errors.New("loopback NIC: " + e.String())
	}
	lo := tcpip.ProtocolAddress{
		Protocol:          ipv4.ProtocolNumber,
		AddressWithPrefix: tcpip.AddrFrom4([4]byte{127, 0, 0, 1}).WithPrefix(),
	}
	lo.AddressWithPrefix.PrefixLen = 8
	if e := st.AddProtocolAddress(nicLoopback, lo, stack.AddressProperties{}); e != nil {
		return nil, errors.New("loopback address: " + e.String())
	}
	loNet := lo.AddressWithPrefix.Subnet()
	routes := []tcpip.Route{{Destination: loNet, NIC: nicLoopback}}

	if nic != nil {
		link := ethernet.New(newNICLink(nic, cfg, c))
		if e := st.CreateNICWithOptions(nicEther, link, stack.NICOptions{QDisc: txQueue(link)}); e != nil {
			return nil, errors.New("ethernet NIC: " + e.String())
		}
		if cfg.Flags&netabi.CfgStatic != 0 && cfg.Addr != [4]byte{} {
			pa := tcpip.ProtocolAddress{
				Protocol:          ipv4.ProtocolNumber,
				AddressWithPrefix: tcpip.AddressWithPrefix{Address: tcpip.AddrFrom4(cfg.Addr), PrefixLen: int(cfg.PrefixLen)},
			}
			if e := st.AddProtocolAddress(nicEther, pa, stack.AddressProperties{}); e != nil {
				return nil, errors.New("address: " + e.String())
			}
			// Most specific first: tcpip takes the first matching route.
			if cfg.PrefixLen > 0 {
				routes = append(routes, tcpip.Route{Destination: pa.AddressWithPrefix.Subnet(), NIC: nicEther})
			}
			if cfg.Gateway != [4]byte{} {
				routes = append(routes, tcpip.Route{Destination: header4Any(), Gateway: tcpip.AddrFrom4(cfg.Gateway), NIC: nicEther})
			}
		}
	}
	st.SetRouteTable(routes)
	if nic != nil && cfg.Flags&netabi.CfgStatic != 0 && cfg.Addr != [4]byte{} {
		announce(st, tcpip.AddrFrom4(cfg.Addr))
	}
	return st, nil
}

// header4Any is 0.0.0.0/0.
func header4Any() tcpip.Subnet {
	sn, _ := tcpip.NewSubnet(tcpip.AddrFrom4([4]byte{}), tcpip.MaskFromBytes([]byte{0, 0, 0, 0}))
	return sn
}

// announce broadcasts an ARP announcement of the NIC's address (RFC 5227 §2.3: a request whose
// sender and target addresses are both ours), as the DHCP exchange a Linux guest makes at boot
// would have told QEMU's user network its MAC. slirp records the sender of such a request
// (libslirp's arp_input, "Gratuitous ARP"); without it, it learns the guest's MAC only when it
// first sends to the guest: it ARPs then and holds the packets meanwhile, dropping them after a
// second — measured: of 16 connections forwarded at once (-hostfwd) to a fresh guest, 11 lost
// their SYN and 5 were reset. A host on a real link that already knows the address updates its
// entry (RFC 826's merge).
//
// Until 27 Nov 2026 the stack resolved the gateway instead, whose request taught slirp the
// same. But the resolved entry keeps a reachability timer for 15–45 s (RFC 4861's
// REACHABLE_TIME, which tcpip's NUD randomises), and while a program has any timer pending
// the Go runtime reads the clock on every schedule: +9.7% instructions per goroutine spawn and
// join in the first seconds of every program that imports net (qemu/tbprof; README,
// Benchmarks). An announcement leaves no entry and no timer; the first connection through the
// gateway resolves it then, one ARP round trip. A failure is only reported: the stack works
// without it, as it did before slirp learned.
func announce(st *stack.Stack, addr tcpip.Address) {
	ep, e := st.GetNetworkEndpoint(nicEther, arp.ProtocolNumber)
	if e != nil {
		warn("ARP announcement: "+e.String(), 0)
		return
	}
	r, ok := ep.(stack.LinkAddressResolver)
	if !ok {
		warn("ARP announcement: the ARP endpoint cannot send requests", 0)
		return
	}
	if e := r.LinkAddressRequest(addr, addr, ""); e != nil {
		warn("ARP announcement: "+e.String(), 0)
	}
}
