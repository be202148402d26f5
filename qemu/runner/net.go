// The network flags (-net, -hostfwd, -netinject) and the QEMU arguments they become.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// NetMode is the -net flag: whether the guest gets a NIC.
type NetMode string

const (
	// NetAuto: NetUser when the program imports package net (ImportsNet), else NetNone.
	NetAuto NetMode = "auto"
	// NetUser: a virtio-net NIC on QEMU user networking (slirp: guest 10.0.2.15, gateway and
	// host 10.0.2.2, DNS 10.0.2.3; outgoing TCP/UDP is NATed, incoming only through -hostfwd).
	NetUser NetMode = "user"
	// NetNone: no NIC at all (-nic none). Without it QEMU adds its default NIC, an e1000e on
	// user networking with an iPXE option ROM (measured: ~9 ms of boot time, TCG, QEMU 7.2).
	// A program that imports net still gets the stack: loopback works.
	NetNone NetMode = "none"
)

// GuestMAC is the NIC's MAC address: QEMU's default, stated on the command line so that a
// test injecting frames (-netinject) can rely on it.
const GuestMAC = "52:54:00:12:34:56"

// Network is what -net, -hostfwd and -netinject ask for. The zero value is -net auto.
type Network struct {
	Mode    NetMode   // "" means NetAuto
	HostFwd []HostFwd // TCP forwards from the host's loopback into the guest; imply NetUser
	// Inject (for tests): an IPv4 HOST:PORT on which QEMU receives UDP datagrams and hands
	// each to the guest's NIC as one raw Ethernet frame (see NetArgs). Implies NetUser.
	Inject string
	// Pcap: record every frame the NIC sends and receives into this file (pcap format, for
	// tcpdump or Wireshark), with QEMU's filter-dump on the NIC's netdev. Needs NetUser.
	Pcap string
}

// HostFwd forwards TCP connections to 127.0.0.1:Host on the host to port Guest of the guest.
type HostFwd struct{ Host, Guest int }

// String is the flag's syntax, HOSTPORT:GUESTPORT.
func (f HostFwd) String() string { return fmt.Sprintf("%d:%d", f.Host, f.Guest) }

// ParseHostFwd parses a -hostfwd HOSTPORT:GUESTPORT argument.
func ParseHostFwd(s string) (HostFwd, error) {
	h, g, ok := strings.Cut(s, ":")
	if !ok {
		return HostFwd{}, fmt.Errorf("-hostfwd %q: want HOSTPORT:GUESTPORT, e.g. 8080:8080", s)
	}
	hp, err1 := parsePort(h)
	gp, err2 := parsePort(g)
	if err1 != nil || err2 != nil {
		return HostFwd{}, fmt.Errorf("-hostfwd %q: ports must be numbers 1..65535", s)
	}
	return HostFwd{hp, gp}, nil
}

// ParseInject parses a -netinject HOST:PORT argument: an IPv4 address (QEMU's dgram netdev
// binds it) and a port 1..65535.
func ParseInject(s string) (netip.AddrPort, error) {
	h, p, ok := strings.Cut(s, ":")
	a, err := netip.ParseAddr(h)
	port, perr := parsePort(p)
	if !ok || err != nil || !a.Is4() || perr != nil {
		return netip.AddrPort{}, fmt.Errorf("-netinject %q: want IPv4:PORT, e.g. 127.0.0.1:5555", s)
	}
	return netip.AddrPortFrom(a, uint16(port)), nil
}

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || s[0] == '+' {
		return 0, fmt.Errorf("bad port %q", s)
	}
	return n, nil
}

// Validate checks the flags against each other.
func (n Network) Validate() error {
	switch n.Mode {
	case "", NetAuto, NetUser, NetNone:
	default:
		return fmt.Errorf("-net %q: want user, none or auto", n.Mode)
	}
	if _, err := ParseInject(n.Inject); n.Inject != "" && err != nil {
		return err
	}
	if n.Mode == NetNone && len(n.HostFwd) > 0 {
		return fmt.Errorf("-hostfwd needs user networking, but -net none was given")
	}
	if n.Mode == NetNone && n.Inject != "" {
		return fmt.Errorf("-netinject needs user networking, but -net none was given")
	}
	if n.Mode == NetNone && n.Pcap != "" {
		return fmt.Errorf("-pcap records the NIC's frames, but -net none gives the guest no NIC")
	}
	seen := map[int]bool{}
	for _, f := range n.HostFwd {
		if _, err := ParseHostFwd(f.String()); err != nil {
			return err
		}
		if seen[f.Host] {
			return fmt.Errorf("-hostfwd: host port %d forwarded twice", f.Host)
		}
		seen[f.Host] = true
	}
	return nil
}

// Decide returns the mode to boot with and why (for -v). importsNet and chain come from
// ImportsNet; they matter only for NetAuto.
func (n Network) Decide(importsNet bool, chain []string) (NetMode, string) {
	switch {
	case n.Mode == NetUser:
		return NetUser, "-net user"
	case n.Mode == NetNone:
		return NetNone, "-net none"
	case len(n.HostFwd) > 0:
		return NetUser, "auto: -hostfwd implies user networking"
	case n.Inject != "":
		return NetUser, "auto: -netinject implies user networking"
	case n.Pcap != "":
		return NetUser, "auto: -pcap implies user networking"
	case importsNet:
		return NetUser, "auto: the program imports net (" + strings.Join(chain, " → ") + ")"
	}
	return NetNone, "auto: the program does not import net"
}

// NetArgs returns QEMU's network arguments for mode (NetUser or NetNone, from Decide).
//
// NetUser, plain: the NIC is wired straight to the user netdev:
//
//	-netdev user,id=n0[,hostfwd=tcp:127.0.0.1:H-:G...] -device virtio-net-pci,netdev=n0,...
//
// With Inject, QEMU's emulated hub joins three ports — the user netdev, a UDP dgram netdev and
// the NIC — so that both the user network and the test's datagrams reach the NIC (a hub floods
// every frame to every other port). Checked on QEMU 7.2 with filter-dump on the NIC's hub port:
// datagrams sent to H:P from any source port arrive there as frames, byte for byte, and an
// injected ARP request for 10.0.2.2 is answered by the user network, to the NIC:
//
//	-netdev user,id=n0,... -netdev hubport,id=hp0,hubid=0,netdev=n0
//	-netdev dgram,id=inj,local.type=inet,local.host=H,local.port=P,remote.type=inet,remote.host=SH,remote.port=SP
//	-netdev hubport,id=hp1,hubid=0,netdev=inj
//	-netdev hubport,id=hp2,hubid=0 -device virtio-net-pci,netdev=hp2,...
//
// QEMU 7.2's dgram netdev insists on a remote address (it is where the hub's frames go: every
// frame the guest or the user network sends); sink is a UDP socket the runner owns and drains,
// so those frames never reach anyone else's port. Note that a hub only moves frames while the
// VM runs (qemu_can_send_packet is false under -S).
//
// The NIC: virtio-net-pci with disable-legacy=on, a modern-only virtio 1.x device (PCI device
// 0x1041, virtio 1.2 §4.1.2: the ID every virtio 1.x driver must match; QEMU's default on q35
// is the transitional 0x1000 with a legacy I/O BAR), and romfile= (empty): no iPXE option
// ROM for SeaBIOS to load and initialize; it could not boot anything here anyway, the kernel
// is loaded with -kernel. Measured (TCG, QEMU 7.2, this repository's demo image, QEMU start →
// the kernel's start marker on COM1, medians of 20 boots, two series): romfile= 64.7 / 68.5
// ms, the default ROM 69.4 / 72.3 ms, no NIC at all 64.4 / 68.6 ms: the empty romfile saves
// ~4-5 ms and makes the NIC free at boot.
func NetArgs(n Network, mode NetMode, sink netip.AddrPort) []string {
	if mode != NetUser {
		return []string{"-nic", "none"}
	}
	user := "user,id=n0"
	for _, f := range n.HostFwd {
		// Bound to the host's loopback only: the guest's services are not offered to the
		// network the host is on. The empty guest address is the guest's DHCP address.
		user += fmt.Sprintf(",hostfwd=tcp:127.0.0.1:%d-:%d", f.Host, f.Guest)
	}
	nic := "virtio-net-pci,netdev=%s,mac=" + GuestMAC + ",disable-legacy=on,romfile="
	var dump []string
	inj, err := ParseInject(n.Inject)
	if n.Inject == "" || err != nil {
		if n.Pcap != "" {
			dump = []string{"-object", "filter-dump,id=pcap0,netdev=n0,file=" + qemuOptValue(n.Pcap)}
		}
		return append([]string{"-netdev", user, "-device", fmt.Sprintf(nic, "n0")}, dump...)
	}
	if n.Pcap != "" { // the NIC's own hub port: injected frames are recorded too
		dump = []string{"-object", "filter-dump,id=pcap0,netdev=hp2,file=" + qemuOptValue(n.Pcap)}
	}
	return append([]string{
		"-netdev", user, "-netdev", "hubport,id=hp0,hubid=0,netdev=n0",
		"-netdev", fmt.Sprintf("dgram,id=inj,local.type=inet,local.host=%s,local.port=%d,remote.type=inet,remote.host=%s,remote.port=%d",
			inj.Addr(), inj.Port(), sink.Addr(), sink.Port()),
		"-netdev", "hubport,id=hp1,hubid=0,netdev=inj",
		"-netdev", "hubport,id=hp2,hubid=0", "-device", fmt.Sprintf(nic, "hp2"),
	}, dump...)
}

// qemuOptValue escapes a value for QEMU's KEY=VALUE,... option syntax: a comma is doubled.
func qemuOptValue(s string) string { return strings.ReplaceAll(s, ",", ",,") }

// InjectSinkAddr is where the runner binds the sink for an inject address: the same host
// (so QEMU's socket, bound there, can reach it), or loopback for the wildcard 0.0.0.0.
func InjectSinkAddr(inject netip.AddrPort) netip.Addr {
	if a := inject.Addr(); !a.IsUnspecified() {
		return a
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1})
}
