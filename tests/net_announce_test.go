// The guest's ARP announcement, read from the NIC's frames as QEMU recorded them (-pcap).
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"testing"

	"gmpos/qemu/runner"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// guestAddr is the address QEMU's user network gives the guest (kernel/ipconfig.go).
var guestAddr = tcpip.AddrFrom4([4]byte{10, 0, 2, 15})

// checkAnnounced reads the frames QEMU recorded on the guest's NIC (pcap) and checks what
// kernel/netstack/stack.go announce is for: the guest's first frame is an ARP announcement of
// its address (a request whose sender and target are both 10.0.2.15, from its MAC), sent
// before any TCP segment crossed the NIC, and QEMU's user network never had to ask for the
// guest's MAC (no ARP request for 10.0.2.15 from anyone else) — it learned it from the
// announcement.
func checkAnnounced(t *testing.T, pcap string) {
	t.Helper()
	frames, err := readPcap(pcap)
	if err != nil {
		t.Errorf("the NIC's frames: %v", err)
		return
	}
	mac, _ := net.ParseMAC(runner.GuestMAC)
	own := tcpip.LinkAddress(mac)
	announced, tcpSeen, asked := -1, -1, 0
	for i, f := range frames {
		if len(f) < header.EthernetMinimumSize {
			continue
		}
		eth := header.Ethernet(f)
		switch eth.Type() {
		case header.IPv4ProtocolNumber:
			ip := header.IPv4(f[header.EthernetMinimumSize:])
			if tcpSeen < 0 && ip.IsValid(len(ip)) && ip.TransportProtocol() == header.TCPProtocolNumber {
				tcpSeen = i
			}
		case header.ARPProtocolNumber:
			a := header.ARP(f[header.EthernetMinimumSize:])
			if !a.IsValid() || a.Op() != header.ARPRequest {
				continue
			}
			sender, target := tcpip.AddrFromSlice(a.ProtocolAddressSender()), tcpip.AddrFromSlice(a.ProtocolAddressTarget())
			switch {
			case announced < 0 && eth.SourceAddress() == own && sender == guestAddr && target == guestAddr:
				announced = i
			case target == guestAddr && sender != guestAddr:
				asked++
			}
		}
	}
	t.Logf("NIC frames: %d; the announcement is frame %d, the first TCP segment frame %d; requests for the guest's MAC: %d",
		len(frames), announced, tcpSeen, asked)
	if announced != 0 {
		t.Errorf("the guest's first frame is not its ARP announcement (found at %d of %d frames)", announced, len(frames))
	}
	if tcpSeen >= 0 && announced > tcpSeen {
		t.Errorf("TCP crossed the NIC (frame %d) before the announcement (frame %d)", tcpSeen, announced)
	}
	if asked > 0 {
		t.Errorf("QEMU's user network asked %d times for the guest's MAC: it did not learn it from the announcement", asked)
	}
}

// readPcap returns the frames of a classic pcap file (the format QEMU's filter-dump writes:
// little-endian microsecond headers, link type Ethernet).
func readPcap(path string) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 24 || binary.LittleEndian.Uint32(b) != 0xa1b2c3d4 {
		return nil, fmt.Errorf("%s: not a little-endian pcap file", path)
	}
	if lt := binary.LittleEndian.Uint32(b[20:]); lt != 1 {
		return nil, fmt.Errorf("%s: link type %d, want 1 (Ethernet)", path, lt)
	}
	var frames [][]byte
	for rest := b[24:]; len(rest) > 0; {
		if len(rest) < 16 {
			return frames, fmt.Errorf("%s: a record header cut short", path)
		}
		n := int(binary.LittleEndian.Uint32(rest[8:]))
		if n > len(rest)-16 {
			return frames, fmt.Errorf("%s: a %d-byte record with %d bytes left", path, n, len(rest)-16)
		}
		frames = append(frames, rest[16:16+n])
		rest = rest[16+n:]
	}
	return frames, nil
}
