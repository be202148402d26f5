// Tests of netlink sockets' kernel half: the interface table and the receive queue.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"encoding/binary"
	gosys "syscall"
	"testing"

	"gmpos/kernel/rtnetlink"
)

// TestNetlinkLinks: lo always; eth0 with a NIC, with ipconfig's address and the broadcast
// address it implies, without an address under ip=off.
func TestNetlinkLinks(t *testing.T) {
	savedNIC, savedCfg := nic.present, ipcfg
	defer func() { nic.present, ipcfg = savedNIC, savedCfg }()
	var tab [2]rtnetlink.Link

	nic.present = false
	if l := nlLinks(&tab); len(l) != 1 || string(l[0].Name.Bytes()) != "lo" || l[0].Index != 1 || l[0].Addr != [4]byte{127, 0, 0, 1} {
		t.Errorf("no NIC: %+v", l)
	}
	nic.present, nic.mac = true, [6]byte{0x52, 0x54, 0, 0x12, 0x34, 0x56}
	for _, c := range []struct {
		static    bool
		prefix    uint8
		bcast     [4]byte
		hasBcast  bool
		wantAddrs bool
	}{
		{true, 24, [4]byte{10, 0, 2, 255}, true, true},
		{true, 16, [4]byte{10, 0, 255, 255}, true, true},
		{true, 30, [4]byte{10, 0, 2, 15}, true, true},
		{true, 31, [4]byte{}, false, true},
		{true, 32, [4]byte{}, false, true},
		{true, 0, [4]byte{255, 255, 255, 255}, true, true},
		{false, 24, [4]byte{}, false, false}, // ip=off
	} {
		ipcfg.static, ipcfg.addr, ipcfg.prefix = c.static, [4]byte{10, 0, 2, 15}, c.prefix
		l := nlLinks(&tab)
		if len(l) != 2 {
			t.Fatalf("with a NIC: %d links", len(l))
		}
		e := l[1]
		if string(e.Name.Bytes()) != "eth0" || e.Index != 2 || e.HWAddr != nic.mac || e.MTU != 1500 || e.HasAddr != c.wantAddrs {
			t.Errorf("eth0: %+v", e)
		}
		if c.wantAddrs && (e.Addr != ipcfg.addr || e.Prefix != c.prefix || e.HasBcast != c.hasBcast || e.Broadcast != c.bcast) {
			t.Errorf("/%d: address %v/%d, broadcast %v %v; want broadcast %v %v", c.prefix, e.Addr, e.Prefix, e.HasBcast, e.Broadcast, c.hasBcast, c.bcast)
		}
	}
}

// nlMessages parses the head datagram of s's queue.
func nlMessages(t *testing.T, s *nlSock) []gosys.NetlinkMessage {
	t.Helper()
	d := s.head()
	if d == nil {
		t.Fatal("the queue is empty")
	}
	msgs, err := gosys.ParseNetlinkMessage(d)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func nlRequest(typ, flags uint16, seq uint32, payload ...byte) []byte {
	b := make([]byte, 16+len(payload))
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	binary.LittleEndian.PutUint16(b[4:], typ)
	binary.LittleEndian.PutUint16(b[6:], flags)
	binary.LittleEndian.PutUint32(b[8:], seq)
	copy(b[16:], payload)
	return b
}

// TestNetlinkQueue runs requests through a socket's queue as sendto and recv do: a dump in
// two datagrams, the second made when the first is read; EBUSY for a dump during a dump; an
// overrun that loses answers and reports ENOBUFS once.
func TestNetlinkQueue(t *testing.T) {
	savedNIC, savedCfg := nic.present, ipcfg
	defer func() { nic.present, ipcfg = savedNIC, savedCfg; nlFree(&nlSocks[0]) }()
	nic.present, ipcfg.static, ipcfg.addr, ipcfg.prefix = true, true, [4]byte{10, 0, 2, 15}, 24
	s := &nlSocks[0]
	nlFree(s)
	s.used, s.bound, s.portid = true, true, 77

	nlRoute(s, append(nlRequest(rtnetlink.RtmGetaddr, rtnetlink.FRequest|rtnetlink.FDump, 5, 0, 0, 0, 0),
		nlRequest(rtnetlink.RtmGetlink, rtnetlink.FRequest|rtnetlink.FDump, 6, 0)...))
	if m := nlMessages(t, s); len(m) != 2 || m[0].Header.Type != rtnetlink.RtmNewaddr || m[0].Header.Pid != 77 || m[0].Header.Seq != 5 {
		t.Fatalf("first part: %+v", m)
	}
	s.pop() // a read: then the dump's next part (nlRecvEnd)
	if !nlDumpMore(s) {
		t.Fatal("no second part after the first was read")
	}
	if m := nlMessages(t, s); len(m) != 1 || m[0].Header.Type != rtnetlink.TypeError || m[0].Header.Seq != 6 ||
		int32(binary.LittleEndian.Uint32(m[0].Data)) != -EBUSY {
		t.Fatalf("the second dump: %+v", m)
	}
	s.pop()
	if m := nlMessages(t, s); len(m) != 1 || m[0].Header.Type != rtnetlink.TypeDone || m[0].Header.Seq != 5 {
		t.Fatalf("the end of the dump: %+v", m)
	}
	s.pop()
	if s.n != 0 || s.dumping || nlDumpMore(s) {
		t.Fatalf("after the dump: %d bytes queued, dumping %v", s.n, s.dumping)
	}

	noop := nlRequest(rtnetlink.TypeNoop, rtnetlink.FRequest|rtnetlink.FAck, 9)
	sent := 0
	for ; s.err == 0; sent++ {
		nlRoute(s, noop)
	}
	if s.err != ENOBUFS || sent != nlRcvbuf/(nlRecHdr+36)+1 {
		t.Errorf("overrun after %d acks, error %d", sent, s.err)
	}
	got := 0
	for ; s.head() != nil; got++ {
		if m := nlMessages(t, s); len(m) != 1 || m[0].Header.Type != rtnetlink.TypeError || m[0].Header.Flags != rtnetlink.FCapped {
			t.Fatalf("ack %d: %+v", got, m)
		}
		s.pop()
	}
	if got != sent-1 {
		t.Errorf("%d acks queued of %d sent, want all but the one lost", got, sent)
	}
}
