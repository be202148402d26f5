// The ARP announcement the stack sends when it starts (stack.go announce).
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"os"
	"syscall"
	"testing"
	"time"

	"gmpos/kernel/netabi"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// TestAnnounce starts a stack whose NIC is one end of a socketpair and reads the other end as
// the wire: the first frame must be an ARP announcement of the stack's address — a broadcast
// request whose sender and target addresses are both 10.0.0.1, from the NIC's MAC — and
// nothing else may follow within 300 ms. The stack used to resolve its gateway at start
// instead (a request for 10.0.0.254), whose neighbour entry kept a runtime timer pending for
// up to 45 s.
func TestAnnounce(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skip("no socketpair:", err)
	}
	raw := fds[1]
	t.Cleanup(func() { syscall.Close(raw) }) // after the node's own cleanup: it closes the NIC first
	cfg := netabi.Config{
		MAC: [6]byte{0x52, 0x54, 0, 0x12, 0x34, 1}, MTU: 1500, Flags: netabi.CfgNIC | netabi.CfgStatic,
		Addr: [4]byte{10, 0, 0, 1}, PrefixLen: 24, Gateway: [4]byte{10, 0, 0, 254},
	}
	newNode(t, cfg, os.NewFile(uintptr(fds[0]), "wire-a"))

	frames := readFrames(t, raw, 300*time.Millisecond)
	if len(frames) != 1 {
		t.Fatalf("%d frames on the wire after start, want the announcement alone: % x", len(frames), frames)
	}
	f := frames[0]
	if len(f) < header.EthernetMinimumSize+header.ARPSize {
		t.Fatalf("a %d-byte frame: % x", len(f), f)
	}
	eth := header.Ethernet(f)
	if eth.Type() != header.ARPProtocolNumber || eth.DestinationAddress() != header.EthernetBroadcastAddress ||
		eth.SourceAddress() != tcpip.LinkAddress(cfg.MAC[:]) {
		t.Fatalf("not a broadcast ARP frame from the NIC: type %#x, %v → %v", eth.Type(), eth.SourceAddress(), eth.DestinationAddress())
	}
	a := header.ARP(f[header.EthernetMinimumSize:])
	own := tcpip.AddrFrom4(cfg.Addr)
	if !a.IsValid() || a.Op() != header.ARPRequest || tcpip.LinkAddress(a.HardwareAddressSender()) != tcpip.LinkAddress(cfg.MAC[:]) ||
		tcpip.AddrFromSlice(a.ProtocolAddressSender()) != own || tcpip.AddrFromSlice(a.ProtocolAddressTarget()) != own {
		t.Errorf("not an announcement of %v: op %d, sender %v %v, target %v", own, a.Op(),
			tcpip.LinkAddress(a.HardwareAddressSender()), tcpip.AddrFromSlice(a.ProtocolAddressSender()),
			tcpip.AddrFromSlice(a.ProtocolAddressTarget()))
	}
}

// readFrames reads the frames that arrive on the non-blocking socket fd until quiet has passed
// without one.
func readFrames(t *testing.T, fd int, quiet time.Duration) [][]byte {
	t.Helper()
	var frames [][]byte
	buf := make([]byte, 2048)
	last := time.Now()
	for time.Since(last) < quiet {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		switch {
		case err == syscall.EAGAIN:
			time.Sleep(5 * time.Millisecond)
		case err != nil:
			t.Fatalf("reading the wire: %v", err)
		default:
			frames = append(frames, append([]byte(nil), buf[:n]...))
			last = time.Now()
		}
	}
	return frames
}
