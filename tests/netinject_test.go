// Malformed Ethernet frames for the injection test (TestGuestNetHTTPServer): a seeded generator.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"gmpos/kernel/netabi"
	"gmpos/qemu/runner"

	"gvisor.dev/gvisor/pkg/tcpip"
	gvchecksum "gvisor.dev/gvisor/pkg/tcpip/checksum"
	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// # What the frames may not do, and why
//
// The runner's -netinject hub floods every datagram to all its other ports (qemu/runner/net.go,
// NetArgs), so QEMU's user network — libslirp — parses each frame too, as if the guest had sent
// it. libslirp acts on a well-formed IPv4 packet: it opens host sockets and sends real UDP
// datagrams or TCP connects to the destination on the host's network (udp_input, tcp_input),
// and answers with ICMP errors. The generator keeps slirp out with one rule (enforce): every
// IPv4 header that passes slirp's checks (ip_input: version 4, IHL ≥ 5 and within the frame,
// header checksum, total length ≥ IHL and within the frame) has TTL 0 and a source address of
// the form N.0.0.0 with N a multiple of 16 (16.0.0.0 ... 208.0.0.0). ip_input drops a TTL-0
// packet before any transport code, after icmp_send_error, which does not answer a
// "source-only" source (low 28 bits zero). gVisor's local delivery does not look at the TTL
// (it matters when forwarding, RFC 1812 §5.3.1, RFC 791 "Time to Live"), so the guest still
// parses every layer: TCP to its listener, UDP to closed ports, reassembly, options.
//
// ARP (RFC 826): slirp adds the sender of every ARP reply and gratuitous request to its
// 16-entry table (arp_input), and the guest's stack learns senders too: a frame claiming
// 10.0.2.15 (the guest), 10.0.2.2 (gateway and host) or 10.0.2.3 (DNS) would send real traffic
// to a made-up MAC and break the HTTP requests the test interleaves. So an ARP sender is never
// one of those three; replies, gratuitous requests and odd opcodes come from source-only
// addresses (which slirp does not learn), and no frame asks for 10.0.2.2 or 10.0.2.3 (slirp
// would answer). slirp reads the addresses at fixed offsets whatever the length fields say, so
// the rule is applied at those offsets.
//
// What is left of the guest's replies: a SYN to its listener draws a SYN-ACK to N.0.0.0, which
// slirp (no such connection) answers with one RST back into the guest; frameStats.MayDrawReply
// counts those segments, an upper bound on the frames that come back. Everything else the guest
// sends (RSTs, ICMP port unreachable, ARP replies) slirp drops silently.

// Addresses on QEMU's user network.
var (
	guestIP     = [4]byte{10, 0, 2, 15}
	gatewayIP   = [4]byte{10, 0, 2, 2}
	dnsIP       = [4]byte{10, 0, 2, 3}
	subnetBcast = [4]byte{10, 0, 2, 255}
	bcastMAC    = [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
)

// serverPort is the guest's HTTP port (nethttp -mode=server).
const serverPort = 8080

// Ethernet (IEEE 802.3) and IPv4 (RFC 791) sizes and EtherTypes.
const (
	ethHeader   = 14
	maxFrame    = 1514 // without FCS at MTU 1500: bigger frames QEMU may drop itself
	etherIPv4   = 0x0800
	etherARP    = 0x0806
	etherIPv6   = 0x86dd // never sent: slirp also routes IPv6
	etherVLAN   = 0x8100
	protoICMP   = 1
	protoTCP    = 6
	protoUDP    = 17
	ipv4MinHdr  = 20
	tcpMinHdr   = 20
	udpHdr      = 8
	arpBody     = 28 // Ethernet/IPv4 ARP: the sender address at frame offset 28, the target at 38
	arpSPAOff   = ethHeader + 14
	arpTPAOff   = ethHeader + 24
	frameKindsN = int(kindOversize) + 1
)

// frameKind is what a generated frame was meant to exercise.
type frameKind int

const (
	kindRunt     frameKind = iota // shorter than an Ethernet header
	kindGarbage                   // an Ethernet header and random bytes
	kindARP                       // ARP with random opcodes, types, lengths
	kindIPv4Bad                   // IPv4 with a broken header: checksum, version, IHL, length, options
	kindFragment                  // IPv4 fragments: tiny, overlapping, past 64 KiB, never complete
	kindTCP                       // TCP with random flags and options, mostly to the server's port
	kindUDP                       // UDP to random ports, with good, zero and bad checksums and lengths
	kindOversize                  // longer than maxFrame
)

var kindNames = [frameKindsN]string{"runt", "garbage", "arp", "ipv4-bad", "fragment", "tcp", "udp", "oversize"}

// frameStats counts what a frameGen produced.
type frameStats struct {
	Frames, Bytes int
	ByKind        [frameKindsN]int
	Truncated     int // cut short after being built
	Runts         int // final length < ethHeader
	Oversize      int // final length > maxFrame
	MayDrawReply  int // SYNs to the server with good checksums (replyBait): each may bring one RST back
}

// frameGen generates hostile frames from a seed; the same seed gives the same frames. Not safe
// for concurrent use.
type frameGen struct {
	r     *rand.Rand
	guest [6]byte
	Stats frameStats
}

func newFrameGen(seed int64, guestMAC [6]byte) *frameGen {
	return &frameGen{r: rand.New(rand.NewSource(seed)), guest: guestMAC}
}

// Next returns a new frame (a fresh slice).
func (g *frameGen) Next() []byte {
	r := g.r
	var k frameKind
	switch p := r.Intn(100); {
	case p < 4:
		k = kindRunt
	case p < 14:
		k = kindGarbage
	case p < 26:
		k = kindARP
	case p < 40:
		k = kindIPv4Bad
	case p < 48:
		k = kindFragment
	case p < 74:
		k = kindTCP
	case p < 95:
		k = kindUDP
	default:
		k = kindOversize
	}
	var f []byte
	switch k {
	case kindRunt:
		f = g.runt()
	case kindGarbage:
		f = g.garbage()
	case kindARP:
		f = g.arp()
	case kindIPv4Bad:
		f = g.ipv4Bad()
	case kindFragment:
		f = g.fragment()
	case kindTCP:
		f = g.tcp(r.Intn(1400))
	case kindUDP:
		f = g.udp(r.Intn(1400))
	case kindOversize:
		n := maxFrame + 1 + r.Intn(2500)
		switch r.Intn(3) {
		case 0:
			f = g.tcp(n - ethHeader - ipv4MinHdr - tcpMinHdr)
		case 1:
			f = g.udp(n - ethHeader - ipv4MinHdr - udpHdr)
		default:
			f = g.eth(uint16(r.Intn(0x10000)), n-ethHeader)
			r.Read(f[ethHeader:])
		}
	}
	if k != kindRunt && k != kindOversize && r.Intn(10) == 0 {
		f = f[:1+r.Intn(len(f)-1)]
		g.Stats.Truncated++
	}
	enforce(f)
	g.Stats.Frames++
	g.Stats.Bytes += len(f)
	g.Stats.ByKind[k]++
	if len(f) < ethHeader {
		g.Stats.Runts++
	}
	if len(f) > maxFrame {
		g.Stats.Oversize++
	}
	if replyBait(f) {
		g.Stats.MayDrawReply++
	}
	return f
}

// eth returns a frame of ethHeader+n bytes to the guest's MAC or broadcast, from a random
// locally administered unicast MAC (IEEE 802: bit 1 of the first octet set, bit 0 clear).
func (g *frameGen) eth(typ uint16, n int) []byte {
	f := make([]byte, ethHeader+n)
	if g.r.Intn(10) < 7 {
		copy(f, g.guest[:])
	} else {
		copy(f, bcastMAC[:])
	}
	g.r.Read(f[6:12])
	f[6] = f[6]&^1 | 2
	binary.BigEndian.PutUint16(f[12:], typ)
	return f
}

func (g *frameGen) runt() []byte {
	f := make([]byte, 1+g.r.Intn(ethHeader-1))
	g.r.Read(f)
	dst := g.guest
	if g.r.Intn(2) == 0 {
		dst = bcastMAC
	}
	copy(f, dst[:])
	return f
}

func (g *frameGen) garbage() []byte {
	var typ uint16
	switch p := g.r.Intn(10); {
	case p < 3:
		typ = etherIPv4
	case p < 5:
		typ = etherARP
	case p < 6:
		typ = etherVLAN
	default:
		typ = uint16(g.r.Intn(0x10000))
	}
	f := g.eth(typ, g.r.Intn(1500))
	g.r.Read(f[ethHeader:])
	return f
}

// sourceOnly returns a random N.0.0.0 address (see the rules above).
func (g *frameGen) sourceOnly() [4]byte { return [4]byte{byte(16 * (1 + g.r.Intn(13))), 0, 0, 0} }

func isSourceOnly(a []byte) bool { return a[1] == 0 && a[2] == 0 && a[3] == 0 && a[0]&0x0f == 0 }

// dstIP is mostly the guest, sometimes a broadcast or someone else (which the guest must not
// answer: it does not forward).
func (g *frameGen) dstIP() [4]byte {
	switch p := g.r.Intn(20); {
	case p < 17:
		return guestIP
	case p < 18:
		return subnetBcast
	case p < 19:
		return [4]byte{255, 255, 255, 255}
	default:
		return [4]byte{10, 0, 2, byte(16 + g.r.Intn(200))}
	}
}

// ipv4 wraps an L4 payload: a valid header (RFC 791 §3.1) with TTL 0, from a source-only
// address to dst, with up to 40 bytes of options now and then.
func (g *frameGen) ipv4(proto byte, src, dst [4]byte, l4 []byte) []byte {
	opts := 0
	if g.r.Intn(10) == 0 {
		opts = 4 * (1 + g.r.Intn(10))
	}
	hl := ipv4MinHdr + opts
	f := g.eth(etherIPv4, hl+len(l4))
	ip := f[ethHeader:]
	ip[0] = 0x40 | byte(hl/4)
	ip[1] = byte(g.r.Intn(256)) // DSCP/ECN
	binary.BigEndian.PutUint16(ip[2:], uint16(hl+len(l4)))
	binary.BigEndian.PutUint16(ip[4:], uint16(g.r.Intn(0x10000)))
	if g.r.Intn(4) == 0 {
		ip[6] = 0x40 // DF
	}
	ip[8] = 0 // TTL: see the rules above
	ip[9] = proto
	copy(ip[12:16], src[:])
	copy(ip[16:20], dst[:])
	g.options(ip[ipv4MinHdr:hl], 7, 0x44, 0x83, 0x89, 0x94) // RR, timestamp, LSRR, SSRR, router alert
	copy(ip[hl:], l4)
	ipChecksum(ip[:hl])
	return f
}

// options fills b with option-like TLVs (RFC 791 §3.1, RFC 9293 §3.1): plausible kinds with
// lengths that are right, too short, too long or zero, and padding.
func (g *frameGen) options(b []byte, kinds ...byte) {
	for i := 0; i < len(b); {
		var kind byte
		switch p := g.r.Intn(10); {
		case p < 2:
			kind = byte(g.r.Intn(2)) // EOL, NOP
		case p < 6 && len(kinds) > 0:
			kind = kinds[g.r.Intn(len(kinds))]
		default:
			kind = byte(g.r.Intn(256))
		}
		b[i] = kind
		i++
		if kind <= 1 || i >= len(b) {
			continue
		}
		l := 2 + g.r.Intn(10)
		if g.r.Intn(5) == 0 {
			l = g.r.Intn(256) // 0, 1, or past the end
		}
		b[i] = byte(l)
		i++
		for j := 2; j < l && i < len(b); j++ {
			b[i] = byte(g.r.Intn(256))
			i++
		}
	}
}

// tcp returns a TCP segment (RFC 9293 §3.1) with n bytes of payload: mostly to the server's
// port, random flags, options and data offset, a good checksum 70% of the time.
func (g *frameGen) tcp(n int) []byte {
	r := g.r
	src, dst := g.sourceOnly(), g.dstIP()
	opts := 0
	if r.Intn(3) == 0 {
		opts = 4 * (1 + r.Intn(10))
	}
	seg := make([]byte, tcpMinHdr+opts+n)
	binary.BigEndian.PutUint16(seg[0:], uint16(1024+r.Intn(64512)))
	dport := serverPort
	if r.Intn(10) < 3 {
		dport = r.Intn(0x10000)
	}
	binary.BigEndian.PutUint16(seg[2:], uint16(dport))
	binary.BigEndian.PutUint32(seg[4:], r.Uint32()) // seq
	binary.BigEndian.PutUint32(seg[8:], r.Uint32()) // ack
	off := (tcpMinHdr + opts) / 4
	if r.Intn(10) == 0 {
		off = r.Intn(16) // < 5, or past the segment
	}
	seg[12] = byte(off<<4) | byte(r.Intn(2)) // data offset, reserved bits, NS (RFC 3540)
	const fin, syn, rst, psh, ack = 1, 2, 4, 8, 16
	var flags byte
	switch p := r.Intn(10); {
	case p < 2:
		flags = syn
	case p < 3:
		flags = syn | ack
	case p < 4:
		flags = rst
	case p < 5:
		flags = fin | ack
	case p < 6:
		flags = psh | ack
	default:
		flags = byte(r.Intn(256)) // including URG, ECE, CWR and nonsense like SYN|FIN|RST
	}
	seg[13] = flags
	binary.BigEndian.PutUint16(seg[14:], uint16(r.Intn(0x10000)))   // window
	binary.BigEndian.PutUint16(seg[18:], uint16(r.Intn(0x10000)))   // urgent pointer
	g.options(seg[tcpMinHdr:tcpMinHdr+opts], 2, 3, 4, 5, 8, 30, 34) // MSS, WS, SACK, TS, MPTCP, TFO
	r.Read(seg[tcpMinHdr+opts:])
	switch p := r.Intn(10); {
	case p < 7:
		l4Checksum(seg, 16, src, dst, protoTCP)
	case p < 9:
		l4Checksum(seg, 16, src, dst, protoTCP)
		seg[16] ^= byte(1 + r.Intn(255))
	} // else zero: wrong for TCP
	return g.ipv4(protoTCP, src, dst, seg)
}

// udp returns a UDP datagram (RFC 768) with n bytes of payload to a random port: a length
// field that is right 75% of the time, and a good, zero (none) or bad checksum.
func (g *frameGen) udp(n int) []byte {
	r := g.r
	src, dst := g.sourceOnly(), g.dstIP()
	d := make([]byte, udpHdr+n)
	binary.BigEndian.PutUint16(d[0:], uint16(r.Intn(0x10000)))
	ports := []int{serverPort, 7, 53, 67, 68, 123, 0}
	dport := r.Intn(0x10000)
	if r.Intn(4) == 0 {
		dport = ports[r.Intn(len(ports))]
	}
	binary.BigEndian.PutUint16(d[2:], uint16(dport))
	l := len(d)
	if r.Intn(4) == 0 {
		l = []int{0, 1, 7, len(d) - 1, len(d) + 1, len(d) + 100, 0xffff, r.Intn(0x10000)}[r.Intn(8)]
	}
	binary.BigEndian.PutUint16(d[4:], uint16(l))
	r.Read(d[udpHdr:])
	switch p := r.Intn(10); {
	case p < 5:
		l4Checksum(d, 6, src, dst, protoUDP)
	case p < 7: // zero: no checksum
	default:
		l4Checksum(d, 6, src, dst, protoUDP)
		d[6] ^= byte(1 + r.Intn(255))
	}
	return g.ipv4(protoUDP, src, dst, d)
}

// ipv4Bad breaks one thing in an otherwise valid IPv4 header and recomputes the checksum,
// except when the checksum is what it breaks.
func (g *frameGen) ipv4Bad() []byte {
	r := g.r
	var f []byte
	if r.Intn(2) == 0 {
		f = g.tcp(r.Intn(200))
	} else {
		f = g.udp(r.Intn(200))
	}
	ip := f[ethHeader:]
	switch r.Intn(7) {
	case 0: // checksum
		binary.BigEndian.PutUint16(ip[10:], binary.BigEndian.Uint16(ip[10:])^uint16(1+r.Intn(0xffff)))
		return f
	case 1: // version
		ip[0] = byte([]int{0, 1, 5, 6, 7, 15}[r.Intn(6)])<<4 | ip[0]&0x0f
	case 2: // IHL below the minimum
		ip[0] = 0x40 | byte(r.Intn(5))
	case 3: // IHL beyond the options present: the "options" are the transport header
		ip[0] = 0x40 | byte(6+r.Intn(10))
	case 4: // total length
		hl := int(ip[0]&0x0f) * 4
		l := []int{0, 1, hl - 1, len(ip) + 1, len(ip) + 1000, 0xffff, len(ip) - 1, r.Intn(0x10000)}[r.Intn(8)]
		binary.BigEndian.PutUint16(ip[2:], uint16(l))
	case 5: // protocol
		ip[9] = byte(r.Intn(256))
	case 6: // flags: the reserved ("evil") bit, DF with MF
		ip[6] = ip[6]&0x1f | byte(0x80|r.Intn(2)<<6|0x20)
	}
	hl := int(ip[0]&0x0f) * 4
	if hl >= 12 && hl <= len(ip) {
		ipChecksum(ip[:hl])
	}
	return f
}

// fragment returns one IPv4 fragment (RFC 791 §3.2, RFC 815): ids from a small set so that
// fragments of different frames meet in the guest's reassembly; tiny first fragments (the
// transport header split), overlaps, offsets that end past 65535 (the "ping of death").
func (g *frameGen) fragment() []byte {
	r := g.r
	proto := []byte{protoUDP, protoTCP, protoICMP}[r.Intn(3)]
	n := 8 * (1 + r.Intn(170))
	if r.Intn(4) == 0 {
		n = 1 + r.Intn(16) // tiny, maybe not a multiple of 8
	}
	payload := make([]byte, n)
	r.Read(payload)
	f := g.ipv4(proto, g.sourceOnly(), guestIP, payload)
	ip := f[ethHeader:]
	binary.BigEndian.PutUint16(ip[4:], uint16(1+r.Intn(16))) // id
	off := r.Intn(8192)
	switch r.Intn(4) {
	case 0:
		off = 0
	case 1:
		off = 8191 - r.Intn(8) // past 64 KiB with the payload
	}
	mf := 0x2000
	if r.Intn(3) == 0 {
		mf = 0
	}
	binary.BigEndian.PutUint16(ip[6:], uint16(mf|off))
	if off == 0 && mf == 0 {
		ip[7] = 1 // a whole datagram is not a fragment
	}
	hl := int(ip[0]&0x0f) * 4
	ipChecksum(ip[:hl])
	return f
}

// arp returns an ARP packet (RFC 826) within the rules above: mostly Ethernet/IPv4 requests
// and replies about the guest, with odd hardware/protocol types, lengths and opcodes.
func (g *frameGen) arp() []byte {
	r := g.r
	f := g.eth(etherARP, arpBody+r.Intn(19)) // 0..18 bytes of padding to the 60-byte minimum
	a := f[ethHeader:]
	pick := func(usual, n int) int {
		if r.Intn(20) != 0 {
			return usual
		}
		return r.Intn(n)
	}
	binary.BigEndian.PutUint16(a[0:], uint16(pick(1, 0x10000)))      // hardware type: Ethernet
	binary.BigEndian.PutUint16(a[2:], uint16(pick(0x0800, 0x10000))) // protocol type: IPv4
	a[4] = byte(pick(6, 256))
	a[5] = byte(pick(4, 256))
	op := 1 + r.Intn(2)
	if r.Intn(8) == 0 {
		op = r.Intn(0x10000)
	}
	binary.BigEndian.PutUint16(a[6:], uint16(op))
	r.Read(a[8:14]) // sender MAC
	a[8] &^= 1
	if r.Intn(2) == 0 {
		r.Read(a[18:24]) // target MAC, else zero
	}
	tpa := guestIP
	if r.Intn(10) < 3 {
		tpa = [4]byte{byte(r.Intn(256)), byte(r.Intn(256)), byte(r.Intn(256)), byte(r.Intn(256))}
	}
	spa := g.sourceOnly()
	if op == 1 && r.Intn(2) == 0 {
		spa = [4]byte{10, 0, 2, byte(16 + r.Intn(200))} // a neighbour the guest may learn
	}
	if r.Intn(20) == 0 {
		tpa = spa // gratuitous
	}
	copy(a[14:18], spa[:])
	copy(a[24:28], tpa[:])
	if r.Intn(10) == 0 {
		f = f[:ethHeader+r.Intn(arpBody)]
	}
	return f
}

// enforce applies the rules above to any frame, whatever built it: it is the last step of
// Next, so that random bytes, truncation and mutations cannot break them.
func enforce(f []byte) {
	if len(f) < ethHeader {
		return
	}
	switch binary.BigEndian.Uint16(f[12:]) {
	case etherIPv6:
		binary.BigEndian.PutUint16(f[12:], 0x88b5) // IEEE 802 local experimental
	case etherIPv4:
		ip := f[ethHeader:]
		if !slirpTakesIPv4(ip) || ip[8] == 0 && isSourceOnly(ip[12:16]) {
			return
		}
		ip[8] = 0
		copy(ip[12:16], []byte{16, 0, 0, 0})
		ipChecksum(ip[:int(ip[0]&0x0f)*4])
	case etherARP:
		if len(f) >= arpSPAOff+4 {
			spa := f[arpSPAOff : arpSPAOff+4]
			op := binary.BigEndian.Uint16(f[ethHeader+6:])
			gratuitous := len(f) >= arpTPAOff+4 && string(spa) == string(f[arpTPAOff:arpTPAOff+4])
			if !isSourceOnly(spa) && (op != 1 || gratuitous || !isNeighbour(spa)) {
				copy(spa, []byte{16, 0, 0, 0})
			}
		}
		if len(f) >= arpTPAOff+4 {
			tpa := f[arpTPAOff : arpTPAOff+4]
			if string(tpa) == string(gatewayIP[:]) || string(tpa) == string(dnsIP[:]) {
				tpa[3] = 99
			}
		}
	}
}

// isNeighbour: an ARP sender the generator may use in requests (10.0.2.16-215: not the guest,
// the gateway, DNS or the broadcast address).
func isNeighbour(a []byte) bool {
	return a[0] == 10 && a[1] == 0 && a[2] == 2 && a[3] >= 16 && a[3] < 216
}

// slirpTakesIPv4 reports whether libslirp's ip_input would get past its header checks with
// this packet (the Ethernet payload): version 4, IHL ≥ 5 and within the packet, a good header
// checksum, a total length ≥ IHL and within the packet.
func slirpTakesIPv4(ip []byte) bool {
	if len(ip) < ipv4MinHdr || ip[0]>>4 != 4 {
		return false
	}
	hl := int(ip[0]&0x0f) * 4
	if hl < ipv4MinHdr || hl > len(ip) || checksum(ip[:hl], 0) != 0 {
		return false
	}
	tl := int(binary.BigEndian.Uint16(ip[2:]))
	return tl >= hl && tl <= len(ip)
}

// replyBait reports whether f is a TCP segment the guest's listener answers with a SYN-ACK,
// which draws an RST from slirp (see the rules above): a whole IPv4 datagram to the guest
// (not a fragment), a valid TCP header and checksum, port serverPort, SYN set, RST clear.
func replyBait(f []byte) bool {
	if len(f) < ethHeader || binary.BigEndian.Uint16(f[12:]) != etherIPv4 {
		return false
	}
	ip := f[ethHeader:]
	if !slirpTakesIPv4(ip) || ip[9] != protoTCP || string(ip[16:20]) != string(guestIP[:]) ||
		binary.BigEndian.Uint16(ip[6:])&0x3fff != 0 {
		return false
	}
	seg := ip[int(ip[0]&0x0f)*4 : binary.BigEndian.Uint16(ip[2:])]
	if len(seg) < tcpMinHdr || int(seg[12]>>4)*4 < tcpMinHdr || int(seg[12]>>4)*4 > len(seg) ||
		binary.BigEndian.Uint16(seg[2:]) != serverPort {
		return false
	}
	var ph uint32
	for i := 12; i < 20; i += 2 {
		ph += uint32(ip[i])<<8 | uint32(ip[i+1])
	}
	ph += protoTCP + uint32(len(seg))
	const syn, rst = 2, 4
	return checksum(seg, ph) == 0 && seg[13]&syn != 0 && seg[13]&rst == 0
}

// checksum is the Internet checksum (RFC 1071) of b on top of the partial sum sum: 0 when b
// holds a correct checksum.
func checksum(b []byte, sum uint32) uint16 {
	for len(b) >= 2 {
		sum += uint32(b[0])<<8 | uint32(b[1])
		b = b[2:]
	}
	if len(b) == 1 {
		sum += uint32(b[0]) << 8
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// ipChecksum sets the checksum of an IPv4 header.
func ipChecksum(h []byte) {
	h[10], h[11] = 0, 0
	binary.BigEndian.PutUint16(h[10:], checksum(h, 0))
}

// l4Checksum sets the TCP or UDP checksum at offset at of seg over the pseudo-header (RFC 9293
// §3.1, RFC 768). A UDP checksum that computes to zero is sent as all ones.
func l4Checksum(seg []byte, at int, src, dst [4]byte, proto byte) {
	seg[at], seg[at+1] = 0, 0
	var ph uint32
	ph += uint32(src[0])<<8 | uint32(src[1])
	ph += uint32(src[2])<<8 | uint32(src[3])
	ph += uint32(dst[0])<<8 | uint32(dst[1])
	ph += uint32(dst[2])<<8 | uint32(dst[3])
	ph += uint32(proto) + uint32(len(seg))
	c := checksum(seg, ph)
	if c == 0 && proto == protoUDP {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(seg[at:], c)
}

// TestNetInjectFrames checks the generator on the host: it is deterministic, keeps the rules
// above on every frame (checked with gVisor's own header parsers, not the generator's), its
// MayDrawReply count is exact, and its frames reach every layer the injection means to test.
func TestNetInjectFrames(t *testing.T) {
	guestMAC := [6]byte{0x52, 0x54, 0x00, 0x12, 0x34, 0x56} // runner.GuestMAC
	if mac, err := net.ParseMAC(runner.GuestMAC); err != nil || [6]byte(mac) != guestMAC {
		t.Fatalf("runner.GuestMAC is %q", runner.GuestMAC)
	}
	a, b, c := newFrameGen(1, guestMAC), newFrameGen(1, guestMAC), newFrameGen(2, guestMAC)
	same := 0
	for i := 0; i < 2000; i++ {
		fa, fb, fc := a.Next(), b.Next(), c.Next()
		if !bytes.Equal(fa, fb) {
			t.Fatalf("frame %d differs between two generators with seed 1", i)
		}
		if bytes.Equal(fa, fc) {
			same++
		}
	}
	if same > 100 {
		t.Errorf("seeds 1 and 2 gave %d identical frames of 2000", same)
	}

	const n = 200_000 // the injection sends the first 100,000 of seed injectSeed
	g := newFrameGen(injectSeed, guestMAC)
	var cov struct {
		runts, oversize, badIPSum, shortIHL, longIHL, fragments, ipOptions int
		tcpServer, synServer, tcpBadSum, udpGood, udpNoSum, udpBadLen      int
		arpForGuest, arpOdd, garbageTypes                                  int
	}
	guest := tcpip.AddrFrom4(guestIP)
	for i := 0; i < n; i++ {
		f := g.Next()
		bad := func(format string, a ...any) {
			t.Helper()
			t.Fatalf("frame %d (% x): %s", i, f[:min(len(f), 64)], fmt.Sprintf(format, a...))
		}
		if len(f) == 0 || len(f) > 4100 {
			bad("length %d", len(f))
		}
		if len(f) < ethHeader {
			cov.runts++
		}
		if len(f) > maxFrame {
			cov.oversize++
		}
		if d := f[:min(len(f), 6)]; !bytes.Equal(d, guestMAC[:len(d)]) && !bytes.Equal(d, bcastMAC[:len(d)]) {
			bad("to %x: not the guest or broadcast", d)
		}
		if len(f) < ethHeader {
			continue
		}
		if f[6]&1 != 0 || bytes.Equal(f[6:12], guestMAC[:]) {
			bad("from %x: a multicast source or the guest's own MAC", f[6:12])
		}
		switch typ := binary.BigEndian.Uint16(f[12:]); typ {
		case etherIPv6:
			bad("IPv6 (slirp routes it)")
		case etherARP:
			if len(f) >= arpTPAOff+4 {
				spa, tpa := f[arpSPAOff:arpSPAOff+4], f[arpTPAOff:arpTPAOff+4]
				op := binary.BigEndian.Uint16(f[ethHeader+6:])
				for _, p := range [][4]byte{guestIP, gatewayIP, dnsIP} {
					if bytes.Equal(spa, p[:]) {
						bad("ARP from %v", spa)
					}
				}
				if bytes.Equal(tpa, gatewayIP[:]) || bytes.Equal(tpa, dnsIP[:]) {
					bad("ARP asks for %v (slirp answers)", tpa)
				}
				// slirp's arp_input learns the sender of replies and gratuitous requests.
				if (op == 2 || bytes.Equal(spa, tpa)) && !(spa[0]%16 == 0 && spa[1] == 0 && spa[2] == 0 && spa[3] == 0) {
					bad("ARP op %d from %v: slirp would learn it", op, spa)
				}
				usual := bytes.Equal(f[ethHeader:ethHeader+6], []byte{0, 1, 8, 0, 6, 4})
				if usual && op == 1 && bytes.Equal(tpa, guestIP[:]) {
					cov.arpForGuest++
				}
				if !usual || op > 2 {
					cov.arpOdd++
				}
			}
		case etherIPv4:
			checkInjectedIPv4(t, f[ethHeader:], guest, bad, &cov.badIPSum, &cov.shortIHL, &cov.longIHL, &cov.fragments,
				&cov.ipOptions, &cov.tcpServer, &cov.synServer, &cov.tcpBadSum, &cov.udpGood, &cov.udpNoSum, &cov.udpBadLen)
		default:
			cov.garbageTypes++
		}
	}
	st := g.Stats
	sum := 0
	for _, k := range st.ByKind {
		sum += k
	}
	if st.Frames != n || sum != n || st.Runts != cov.runts || st.Oversize != cov.oversize {
		t.Errorf("stats %+v; counted %d frames, %d runts, %d oversized", st, n, cov.runts, cov.oversize)
	}
	if st.MayDrawReply != cov.synServer {
		t.Errorf("MayDrawReply %d, but gVisor's parsers find %d good SYNs to the server", st.MayDrawReply, cov.synServer)
	}
	t.Logf("%d frames, %d bytes (%.0f on average); stats %+v", n, st.Bytes, float64(st.Bytes)/n, st)
	t.Logf("coverage %+v", cov)
	pct := func(name string, got int, want float64) {
		t.Helper()
		if float64(got) < want/100*n {
			t.Errorf("%s: %d frames (%.2f%%), want ≥ %.2f%%", name, got, 100*float64(got)/n, want)
		}
	}
	pct("runts", cov.runts, 1)
	pct("oversized", cov.oversize, 1)
	pct("truncated", st.Truncated, 5)
	pct("bad IPv4 header checksum", cov.badIPSum, 1)
	pct("IHL < 5", cov.shortIHL, 0.1)
	pct("IHL beyond the options", cov.longIHL, 0.1)
	pct("fragments", cov.fragments, 3)
	pct("IPv4 options", cov.ipOptions, 1)
	pct("valid TCP to the server", cov.tcpServer, 8)
	pct("valid SYN to the server", cov.synServer, 2)
	pct("TCP with a bad checksum", cov.tcpBadSum, 3)
	pct("valid UDP", cov.udpGood, 3)
	pct("UDP without checksum", cov.udpNoSum, 1)
	pct("UDP with a bad length", cov.udpBadLen, 1)
	pct("ARP requests for the guest", cov.arpForGuest, 2)
	pct("odd ARP", cov.arpOdd, 1)
	pct("other EtherTypes", cov.garbageTypes, 1)
}

// checkInjectedIPv4 checks the slirp rule on one IPv4 packet with gVisor's parsers and counts
// what the guest's stack will make of it.
func checkInjectedIPv4(t *testing.T, b []byte, guest tcpip.Address, bad func(string, ...any),
	badIPSum, shortIHL, longIHL, fragments, ipOptions, tcpServer, synServer, tcpBadSum, udpGood, udpNoSum, udpBadLen *int) {
	if len(b) < header.IPv4MinimumSize || header.IPVersion(b) != header.IPv4Version {
		return
	}
	ip := header.IPv4(b)
	hl := int(ip.HeaderLength())
	switch {
	case hl < header.IPv4MinimumSize:
		*shortIHL++
		return
	case hl > len(b) || hl > int(ip.TotalLength()):
		*longIHL++
		return
	}
	if !ip.IsChecksumValid() {
		*badIPSum++
		return
	}
	if !ip.IsValid(len(b)) {
		return
	}
	// What slirp's ip_input takes must be dropped there: TTL 0, and no ICMP error to a
	// source-only address.
	src := ip.SourceAddress().As4()
	if ip.TTL() != 0 || src[0]%16 != 0 || src[1] != 0 || src[2] != 0 || src[3] != 0 {
		bad("a valid IPv4 header with TTL %d from %v: slirp would act on it", ip.TTL(), ip.SourceAddress())
	}
	if hl > header.IPv4MinimumSize {
		*ipOptions++
	}
	if ip.More() || ip.FragmentOffset() != 0 {
		*fragments++
		return
	}
	if ip.DestinationAddress() != guest {
		return
	}
	payload := b[hl:ip.TotalLength()]
	switch ip.TransportProtocol() {
	case header.TCPProtocolNumber:
		if len(payload) < header.TCPMinimumSize {
			return
		}
		tcp := header.TCP(payload)
		off := int(tcp.DataOffset())
		if off < header.TCPMinimumSize || off > len(payload) {
			return
		}
		data := payload[off:]
		if !tcp.IsChecksumValid(ip.SourceAddress(), guest, gvchecksum.Checksum(data, 0), uint16(len(data))) {
			*tcpBadSum++
			return
		}
		if tcp.DestinationPort() == serverPort {
			*tcpServer++
			if f := tcp.Flags(); f.Contains(header.TCPFlagSyn) && !f.Contains(header.TCPFlagRst) {
				*synServer++
			}
		}
	case header.UDPProtocolNumber:
		if len(payload) < header.UDPMinimumSize {
			return
		}
		udp := header.UDP(payload)
		if int(udp.Length()) != len(payload) {
			*udpBadLen++
			return
		}
		switch {
		case udp.Checksum() == 0:
			*udpNoSum++
		case udp.IsChecksumValid(ip.SourceAddress(), guest, gvchecksum.Checksum(payload[header.UDPMinimumSize:], 0)):
			*udpGood++
		}
	}
}

// fakeNIC stands in for a guest in TestNetInjectFake: it counts the datagrams sent to its UDP
// address as received frames (dropping one in dropEvery, if set) and serves nethttp's pages,
// counting 3 received frames for each HTTP request too (as the guest counts its TCP segments).
type fakeNIC struct {
	conn      net.PacketConn
	srv       *httptest.Server
	rx        atomic.Uint64
	dropEvery int
}

func newFakeNIC(t *testing.T, dropEvery int) *fakeNIC {
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.(*net.UDPConn).SetReadBuffer(4 << 20)
	f := &fakeNIC{conn: c, dropEvery: dropEvery}
	go func() {
		buf := make([]byte, 64<<10)
		for n := 1; ; n++ {
			if _, _, err := c.ReadFrom(buf); err != nil {
				return
			}
			if f.dropEvery == 0 || n%f.dropEvery != 0 {
				f.rx.Add(1)
			}
		}
	}()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from gmpos %s\n", r.URL.Path)
	})
	mux.HandleFunc("/sum", func(w http.ResponseWriter, r *http.Request) {
		d := sha256.New()
		n, _ := io.Copy(d, r.Body)
		fmt.Fprintf(w, "%x %d\n", d.Sum(nil), n)
	})
	mux.HandleFunc("/net", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < netabi.NumNetStats; i++ {
			v := uint64(0)
			if i == netabi.NetRxFrames {
				v = f.rx.Load()
			}
			fmt.Fprintf(w, "net_%d %d\n", i, v)
		}
	})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.rx.Add(3)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { f.srv.Close(); c.Close() })
	return f
}

// TestNetInjectFake runs the injection (injectFrames: pacing, interleaved HTTP checks,
// accounting) against a fake guest on the host, which counts every datagram as a frame. Heavy
// pass only (see Policy in net_test.go): it sends 100,000 frames.
func TestNetInjectFake(t *testing.T) {
	if heavy, why := netHeavy(); !heavy {
		t.Skipf("sends 100,000 frames: heavy pass only (%s)", why)
	}
	f := newFakeNIC(t, 0)
	injectFrames(t, f.srv.URL, f.conn.LocalAddr().String())
}
