// Socket options: which ones the stack carries out, and Linux's checks of their values.
// SPDX-License-Identifier: BSD-3-Clause

package netabi

// setsockopt is asynchronous (ReqSetsockopt has Req 0): the program's call returns before the
// stack sees the option. So that it still fails the way Linux's does, the kernel checks level,
// name, length and value range here first — the checks of net/core/sock.c (sk_setsockopt),
// net/ipv4/tcp.c (do_tcp_setsockopt) and net/ipv4/ip_sockglue.c (do_ip_setsockopt) for the
// options below — and the stack checks again (it trusts no record). What is left to fail in the
// stack is what Linux could only find out in the protocol, which the stack counts.
//
// Pure functions over byte slices: the kernel calls them in trap context (no allocation).

// Option levels and names (asm-generic/socket.h, linux/in.h, linux/tcp.h).
const (
	SolSocket   = 1
	IPProtoIP   = 0
	IPProtoTCP  = 6
	SoReuseaddr = 2
	SoType      = 3
	SoError     = 4
	SoBroadcast = 6
	SoSndbuf    = 7
	SoRcvbuf    = 8
	SoKeepalive = 9
	SoLinger    = 13
	SoReuseport = 15
	SoAcceptcon = 30
	SoProtocol  = 38
	SoDomain    = 39

	TCPNodelay   = 1
	TCPMaxseg    = 2
	TCPKeepidle  = 4
	TCPKeepintvl = 5
	TCPKeepcnt   = 6

	IPTOS            = 1
	IPTTL            = 2
	IPMulticastIf    = 32
	IPMulticastTTL   = 33
	IPMulticastLoop  = 34
	IPAddMembership  = 35
	IPDropMembership = 36
)

// Linux's errno values for what SockoptSpan and CheckSockopt refuse (asm-generic/errno-base.h,
// errno.h).
const (
	errEINVAL      = 22
	errEPROTO      = 71
	errENOPROTOOPT = 92
)

// SolUDP is the UDP level (linux/udp.h SOL_UDP): it has options, gmpos's stack none.
const SolUDP = 17

// SockoptSpan is what setsockopt(level, name, _, optlen) on a socket (dgram: SOCK_DGRAM) reads
// of the option's value before it looks at the option itself: how many bytes (n; EFAULT if they
// cannot be read), or Linux's errno for what it refuses before reading anything. The kernel
// copies exactly these n bytes and checks them with CheckSockopt, so that a length or a pointer
// Linux would not look at makes no difference. Linux's readers: sk_setsockopt (an int, then
// struct linger), do_tcp_setsockopt (an int), udp_lib_setsockopt (an int), do_ip_setsockopt (an
// int or one byte for the int options, struct in_addr/ip_mreq/ip_mreqn for the multicast ones).
// optlen is ≥ 0 (a negative one is EINVAL before this).
func SockoptSpan(level, name, optlen int32, dgram bool) (n int32, errno uintptr) {
	switch {
	case level == SolSocket, level == IPProtoTCP && !dgram, level == SolUDP && dgram:
		if optlen < 4 {
			return 0, errEINVAL
		}
		if level == SolSocket && name == SoLinger && optlen >= 8 {
			return 8, 0
		}
		return 4, 0
	case level == IPProtoIP:
		switch name {
		case IPMulticastIf:
			if !dgram || optlen < 4 {
				return 0, errEINVAL
			}
			return min(optlen/4*4, 12), 0 // in_addr, ip_mreq or ip_mreqn
		case IPAddMembership, IPDropMembership:
			if !dgram {
				return 0, errEPROTO
			}
			if optlen < 8 {
				return 0, errEINVAL
			}
			return min(optlen/4*4, 12), 0 // ip_mreq or ip_mreqn
		}
		if ipIntOpt(name) {
			switch {
			case optlen >= 4:
				return 4, 0
			case optlen >= 1:
				return 1, 0
			}
			return 0, 0
		}
	}
	return 0, errENOPROTOOPT // tcp and udp hand other levels to ip_setsockopt, which knows SOL_IP
}

// ipIntOpt reports the SOL_IP options whose value do_ip_setsockopt reads as an int or a byte
// before anything else (IP_TOS, IP_TTL, IP_HDRINCL, ... IP_LOCAL_PORT_RANGE).
func ipIntOpt(name int32) bool {
	switch name {
	case 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 15, 18, 19, 20, 21, 22, 23, 24, 25, 26, 33, 34, 49, 50, 51:
		return true
	}
	return false
}

// CheckSockopt checks setsockopt(level, name, v) on a socket (dgram: SOCK_DGRAM) and returns 0
// or Linux's errno: ENOPROTOOPT for an option the stack does not carry out, EINVAL for a value
// Linux refuses. v is what SockoptSpan says Linux reads.
func CheckSockopt(level, name int32, v []byte, dgram bool) uintptr {
	switch level {
	case SolSocket:
		switch name {
		case SoLinger:
			if len(v) < 8 { // struct linger
				return errEINVAL
			}
			return 0
		case SoReuseaddr, SoReuseport, SoBroadcast, SoKeepalive, SoSndbuf, SoRcvbuf:
			if len(v) < 4 {
				return errEINVAL
			}
			return 0
		}
	case IPProtoTCP:
		if dgram {
			return errENOPROTOOPT // udp_setsockopt hands other levels to ip_setsockopt
		}
		if !tcpOpt(name) {
			return errENOPROTOOPT
		}
		if len(v) < 4 {
			return errEINVAL
		}
		x := OptInt(v)
		switch name {
		case TCPKeepidle, TCPKeepintvl:
			if x < 1 || x > 32767 { // MAX_TCP_KEEPIDLE, MAX_TCP_KEEPINTVL
				return errEINVAL
			}
		case TCPKeepcnt:
			if x < 1 || x > 127 { // MAX_TCP_KEEPCNT
				return errEINVAL
			}
		case TCPMaxseg:
			if x != 0 && (x < 88 || x > 32767) { // TCP_MIN_MSS, MAX_TCP_WINDOW
				return errEINVAL
			}
		}
		return 0
	case IPProtoIP:
		switch name {
		case IPTOS:
			return 0
		case IPTTL:
			if len(v) < 1 {
				return errEINVAL
			}
			if x := OptInt(v); x != -1 && (x < 1 || x > 255) {
				return errEINVAL
			}
			return 0
		case IPMulticastTTL:
			if len(v) < 1 || !dgram {
				return errEINVAL
			}
			if x := OptInt(v); x != -1 && (x < 0 || x > 255) {
				return errEINVAL
			}
			return 0
		case IPMulticastLoop:
			if len(v) < 1 {
				return errEINVAL
			}
			return 0
		case IPMulticastIf:
			if len(v) < 4 || !dgram { // struct in_addr; SOCK_STREAM is EINVAL
				return errEINVAL
			}
			return 0
		case IPAddMembership, IPDropMembership:
			if !dgram {
				return errEPROTO // not on a connection-oriented socket
			}
			if len(v) < 8 { // struct ip_mreq
				return errEINVAL
			}
			return 0
		}
	}
	return errENOPROTOOPT
}

func tcpOpt(name int32) bool {
	switch name {
	case TCPNodelay, TCPMaxseg, TCPKeepidle, TCPKeepintvl, TCPKeepcnt:
		return true
	}
	return false
}

// OptInt is an option's int value as Linux reads it: a little-endian int when there are 4
// bytes, else the one byte IP-level options accept (do_ip_setsockopt), else 0.
func OptInt(v []byte) int32 {
	switch {
	case len(v) >= 4:
		return int32(uint32(v[0]) | uint32(v[1])<<8 | uint32(v[2])<<16 | uint32(v[3])<<24)
	case len(v) >= 1:
		return int32(v[0])
	}
	return 0
}
