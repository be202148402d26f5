// Linux struct sockaddr_in: the address bytes the program gives and receives.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"encoding/binary"
	"syscall"

	"gvisor.dev/gvisor/pkg/tcpip"
)

// struct sockaddr_in (linux/in.h): sa_family u16 in host order (little endian on every gmpos
// machine), sin_port u16 big endian, sin_addr 4 bytes, 8 bytes of padding.
const (
	sockaddrInSize = 16
	afUnspec       = 0
	afInet         = 2
)

// decodeSockaddr decodes an AF_INET sockaddr as Linux's inet_bind/inet_stream_connect check it:
// shorter than sockaddr_in is EINVAL, another family EAFNOSUPPORT. anyOK accepts AF_UNSPEC with
// address 0.0.0.0 as AF_INET, as Linux's bind does for old programs. The unspecified address
// comes back as the empty tcpip.Address (tcpip's "any").
func decodeSockaddr(b []byte, anyOK bool) (tcpip.FullAddress, syscall.Errno) {
	if len(b) < sockaddrInSize {
		return tcpip.FullAddress{}, syscall.EINVAL
	}
	fam := binary.LittleEndian.Uint16(b)
	var ip [4]byte
	copy(ip[:], b[4:8])
	switch {
	case fam == afInet:
	case fam == afUnspec && anyOK && ip == [4]byte{}:
	default:
		return tcpip.FullAddress{}, syscall.EAFNOSUPPORT
	}
	fa := tcpip.FullAddress{Port: binary.BigEndian.Uint16(b[2:])}
	if ip != [4]byte{} {
		fa.Addr = tcpip.AddrFrom4(ip)
	}
	return fa, 0
}

// remoteAddr makes a decoded destination usable: 0.0.0.0 means this host, as on Linux
// (net.Dial("tcp", ":80") relies on it).
func remoteAddr(fa tcpip.FullAddress) tcpip.FullAddress {
	if fa.Addr.Len() == 0 {
		fa.Addr = tcpip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	return fa
}

// encodeSockaddr writes fa as a sockaddr_in into b (len ≥ 16) and returns the 16 bytes. An
// empty or non-IPv4 address is 0.0.0.0.
func encodeSockaddr(b []byte, fa tcpip.FullAddress) []byte {
	b = b[:sockaddrInSize]
	clear(b)
	binary.LittleEndian.PutUint16(b, afInet)
	binary.BigEndian.PutUint16(b[2:], fa.Port)
	if fa.Addr.Len() == 4 {
		a := fa.Addr.As4()
		copy(b[4:8], a[:])
	}
	return b
}

// decodeAddrBuf decodes OpPull's address buffer: u32 length (little endian), then that many
// bytes of sockaddr. Length 0 is the connected peer (ok, to == false).
func decodeAddrBuf(b []byte) (fa tcpip.FullAddress, to bool, e syscall.Errno) {
	if len(b) < 4 {
		return fa, false, syscall.EINVAL
	}
	n := binary.LittleEndian.Uint32(b)
	if n == 0 {
		return fa, false, 0
	}
	if uint64(n) > uint64(len(b)-4) {
		return fa, false, syscall.EINVAL
	}
	fa, e = decodeSockaddr(b[4:4+n], false)
	if e != 0 {
		return fa, false, e
	}
	return remoteAddr(fa), true, 0
}

// putAddrBuf writes sa as an address buffer (u32 length, then the sockaddr) into b.
func putAddrBuf(b, sa []byte) {
	n := copy(b[4:], sa)
	binary.LittleEndian.PutUint32(b, uint32(n))
}
