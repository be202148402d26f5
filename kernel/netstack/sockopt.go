// Socket options: setsockopt and getsockopt on tcpip endpoints.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"encoding/binary"
	"syscall"
	"time"

	"gmpos/kernel/netabi"

	"gvisor.dev/gvisor/pkg/tcpip"
)

// Option levels and names (linux/socket.h, linux/in.h, linux/tcp.h).
const (
	solSocket  = 1
	ipprotoIP  = 0
	soReuseadr = 2
	soType     = 3
	soError    = 4
	soBroadcst = 6
	soSndbuf   = 7
	soRcvbuf   = 8
	soKeepaliv = 9
	soLinger   = 13
	soReuseprt = 15
	soAcceptcn = 30
	soProtocol = 38
	soDomain   = 39

	tcpNodelay   = 1
	tcpMaxseg    = 2
	tcpKeepidle  = 4
	tcpKeepintvl = 5
	tcpKeepcnt   = 6

	ipTOS           = 1
	ipTTL           = 2
	ipMulticastIf   = 32
	ipMulticastTTL  = 33
	ipMulticastLoop = 34
	ipAddMembership = 35
	ipDropMembershp = 36
)

// The kernel's socket buffers hold at most this much; a larger SO_RCVBUF/SO_SNDBUF only
// grows tcpip's buffers, which is what Linux does with the doubled value.
const maxSockBuf = 4 << 20

// intOpt decodes an int option value: Linux wants at least an int (EINVAL).
func intOpt(v []byte) (int32, syscall.Errno) {
	if len(v) < 4 {
		return 0, syscall.EINVAL
	}
	return int32(binary.LittleEndian.Uint32(v)), 0
}

// setsockopt sets one option. The kernel has checked it as Linux does (netabi.CheckSockopt);
// the check is repeated because the stack trusts no record.
func (s *service) setsockopt(k *socket, level, name uint64, v []byte) syscall.Errno {
	if e := netabi.CheckSockopt(int32(level), int32(name), v, k.dgram); e != 0 || level > 255 || name > 255 {
		if e == 0 {
			e = uintptr(syscall.ENOPROTOOPT)
		}
		return syscall.Errno(e)
	}
	so := k.ep.SocketOptions()
	if level == solSocket && name == soLinger {
		if len(v) < 8 {
			return syscall.EINVAL
		}
		on := binary.LittleEndian.Uint32(v) != 0
		secs := int32(binary.LittleEndian.Uint32(v[4:]))
		so.SetLinger(tcpip.LingerOption{Enabled: on, Timeout: time.Duration(secs) * time.Second})
		return 0
	}
	if level == ipprotoIP && (name == ipMulticastIf || name == ipAddMembership || name == ipDropMembershp) {
		return s.multicastOpt(k, name, v)
	}
	x, errno := intOpt(v)
	if errno != 0 {
		// IP_MULTICAST_TTL/LOOP and IP_TOS take a single byte too on Linux.
		if level == ipprotoIP && len(v) == 1 {
			x = int32(v[0])
		} else {
			return errno
		}
	}
	on := x != 0
	switch level {
	case solSocket:
		switch name {
		case soReuseadr:
			so.SetReuseAddress(on)
		case soReuseprt:
			so.SetReusePort(on)
		case soBroadcst:
			so.SetBroadcast(on)
		case soKeepaliv:
			so.SetKeepAlive(on)
		case soRcvbuf:
			so.SetReceiveBufferSize(bufSize(x), true)
		case soSndbuf:
			so.SetSendBufferSize(bufSize(x), true)
		default:
			return syscall.ENOPROTOOPT
		}
		return 0
	case ipprotoTCP:
		if k.dgram {
			return syscall.ENOPROTOOPT
		}
		switch name {
		case tcpNodelay:
			so.SetDelayOption(!on)
			return 0
		case tcpKeepidle, tcpKeepintvl:
			if x < 1 || x > 32767 {
				return syscall.EINVAL
			}
			d := time.Duration(x) * time.Second
			if name == tcpKeepidle {
				o := tcpip.KeepaliveIdleOption(d)
				return errnoOf(k.ep.SetSockOpt(&o))
			}
			o := tcpip.KeepaliveIntervalOption(d)
			return errnoOf(k.ep.SetSockOpt(&o))
		case tcpKeepcnt:
			if x < 1 || x > 127 {
				return syscall.EINVAL
			}
			return errnoOf(k.ep.SetSockOptInt(tcpip.KeepaliveCountOption, int(x)))
		case tcpMaxseg:
			return errnoOf(k.ep.SetSockOptInt(tcpip.MaxSegOption, int(x)))
		}
		return syscall.ENOPROTOOPT
	case ipprotoIP:
		switch name {
		case ipTOS:
			return errnoOf(k.ep.SetSockOptInt(tcpip.IPv4TOSOption, int(uint8(x))))
		case ipTTL:
			if x == -1 {
				x = tcpip.UseDefaultIPv4TTL
			} else if x < 1 || x > 255 {
				return syscall.EINVAL
			}
			return errnoOf(k.ep.SetSockOptInt(tcpip.IPv4TTLOption, int(x)))
		case ipMulticastTTL:
			if x == -1 {
				x = 1
			} else if x < 0 || x > 255 {
				return syscall.EINVAL
			}
			return errnoOf(k.ep.SetSockOptInt(tcpip.MulticastTTLOption, int(x)))
		case ipMulticastLoop:
			so.SetMulticastLoop(on)
			return 0
		}
	}
	return syscall.ENOPROTOOPT
}

// bufSize is a buffer size request as Linux takes it: doubled (for its bookkeeping), capped.
func bufSize(x int32) int64 {
	n := int64(x) * 2
	if n < 0 {
		n = 0
	}
	if n > maxSockBuf {
		n = maxSockBuf
	}
	return n
}

// multicastOpt handles IP_MULTICAST_IF (struct in_addr, ip_mreq or ip_mreqn) and
// IP_ADD/DROP_MEMBERSHIP (ip_mreq: group, interface address; ip_mreqn: + interface index).
func (s *service) multicastOpt(k *socket, name uint64, v []byte) syscall.Errno {
	addr := func(b []byte) tcpip.Address {
		var a [4]byte
		copy(a[:], b)
		if a == [4]byte{} {
			return tcpip.Address{}
		}
		return tcpip.AddrFrom4(a)
	}
	if name == ipMulticastIf {
		var o tcpip.MulticastInterfaceOption
		switch {
		case len(v) >= 12: // ip_mreqn: imr_multiaddr, imr_address, imr_ifindex
			o.InterfaceAddr = addr(v[4:8])
			o.NIC = tcpip.NICID(int32(binary.LittleEndian.Uint32(v[8:])))
		case len(v) >= 8: // ip_mreq: the interface address is the second field
			o.InterfaceAddr = addr(v[4:8])
		case len(v) >= 4:
			o.InterfaceAddr = addr(v[:4])
		default:
			return syscall.EINVAL
		}
		return errnoOf(k.ep.SetSockOpt(&o))
	}
	if len(v) < 8 {
		return syscall.EINVAL
	}
	m := tcpip.MembershipOption{MulticastAddr: addr(v[:4]), InterfaceAddr: addr(v[4:8])}
	if len(v) >= 12 {
		m.NIC = tcpip.NICID(int32(binary.LittleEndian.Uint32(v[8:])))
	}
	if name == ipAddMembership {
		o := tcpip.AddMembershipOption(m)
		return errnoOf(k.ep.SetSockOpt(&o))
	}
	o := tcpip.RemoveMembershipOption(m)
	return errnoOf(k.ep.SetSockOpt(&o))
}

// getsockopt reads one option; the value is cut to the caller's optlen as Linux does for
// int options.
func (s *service) getsockopt(k *socket, level, name, optlen uint64) ([]byte, syscall.Errno) {
	so := k.ep.SocketOptions()
	b := s.obuf[:]
	put := func(x int) ([]byte, syscall.Errno) {
		binary.LittleEndian.PutUint32(b, uint32(int32(x)))
		n := uint64(4)
		if optlen < n {
			n = optlen
		}
		return b[:n], 0
	}
	bool2int := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	switch level {
	case solSocket:
		switch name {
		case soReuseadr:
			return put(bool2int(so.GetReuseAddress()))
		case soReuseprt:
			return put(bool2int(so.GetReusePort()))
		case soBroadcst:
			return put(bool2int(so.GetBroadcast()))
		case soKeepaliv:
			return put(bool2int(so.GetKeepAlive()))
		case soRcvbuf:
			return put(int(so.GetReceiveBufferSize()))
		case soSndbuf:
			return put(int(so.GetSendBufferSize()))
		case soType:
			if k.dgram {
				return put(sockDgram)
			}
			return put(sockStream)
		case soProtocol:
			if k.dgram {
				return put(ipprotoUDP)
			}
			return put(ipprotoTCP)
		case soDomain:
			return put(afInet)
		case soAcceptcn:
			return put(bool2int(k.listening))
		case soError:
			return put(0) // the kernel keeps SO_ERROR; the stack has nothing pending
		case soLinger:
			l := so.GetLinger()
			binary.LittleEndian.PutUint32(b, uint32(bool2int(l.Enabled)))
			binary.LittleEndian.PutUint32(b[4:], uint32(int32(l.Timeout/time.Second)))
			n := uint64(8)
			if optlen < n {
				n = optlen
			}
			return b[:n], 0
		}
	case ipprotoTCP:
		if k.dgram {
			return nil, syscall.ENOPROTOOPT
		}
		switch name {
		case tcpNodelay:
			return put(bool2int(!so.GetDelayOption()))
		case tcpKeepidle:
			var o tcpip.KeepaliveIdleOption
			if err := k.ep.GetSockOpt(&o); err != nil {
				return nil, errnoOf(err)
			}
			return put(int(time.Duration(o) / time.Second))
		case tcpKeepintvl:
			var o tcpip.KeepaliveIntervalOption
			if err := k.ep.GetSockOpt(&o); err != nil {
				return nil, errnoOf(err)
			}
			return put(int(time.Duration(o) / time.Second))
		case tcpKeepcnt:
			return s.getInt(k, tcpip.KeepaliveCountOption, put)
		case tcpMaxseg:
			return s.getInt(k, tcpip.MaxSegOption, put)
		}
	case ipprotoIP:
		switch name {
		case ipTOS:
			return s.getInt(k, tcpip.IPv4TOSOption, put)
		case ipTTL:
			v, err := k.ep.GetSockOptInt(tcpip.IPv4TTLOption)
			if err != nil {
				return nil, errnoOf(err)
			}
			if v == tcpip.UseDefaultIPv4TTL {
				v = 64 // tcpip's and Linux's default
			}
			return put(v)
		case ipMulticastTTL:
			return s.getInt(k, tcpip.MulticastTTLOption, put)
		case ipMulticastLoop:
			return put(bool2int(so.GetMulticastLoop()))
		}
	}
	return nil, syscall.ENOPROTOOPT
}

func (s *service) getInt(k *socket, o tcpip.SockOptInt, put func(int) ([]byte, syscall.Errno)) ([]byte, syscall.Errno) {
	v, err := k.ep.GetSockOptInt(o)
	if err != nil {
		return nil, errnoOf(err)
	}
	return put(v)
}
