// The network configuration: the kernel option ip=, and the files the resolver reads.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// The stack gets its addresses from the kernel (netabi.OpConfig). By default they are those
// QEMU's user networking always hands out over DHCP — guest 10.0.2.15/24, gateway 10.0.2.2,
// DNS 10.0.2.3 (QEMU's slirp: net/slirp.c) — so no DHCP exchange delays the boot. The kernel
// option ip= uses the syntax of Linux's nfsroot.rst, as much of it as makes sense here:
//
//	ip=off | ip=none                                  no address: loopback only
//	ip=<client>::<gateway>:<netmask>[:<host>:<dev>:<autoconf>:<dns0>]
//
// e.g. ip=192.168.76.9::192.168.76.1:255.255.255.0::eth0:off:192.168.76.1. A malformed value
// is logged and the default kept. Immutable after boot (ipconfigInit).
var ipcfg struct {
	static             bool
	addr, gateway, dns [4]byte
	prefix             uint8
	bad                bool
}

// ipconfigInit decides the configuration from the command line. Boot.
func ipconfigInit() {
	ipcfg.static = true
	ipcfg.addr, ipcfg.gateway, ipcfg.dns, ipcfg.prefix = [4]byte{10, 0, 2, 15}, [4]byte{10, 0, 2, 2}, [4]byte{10, 0, 2, 3}, 24
	defer etcInit()
	if cmd.ip.n == 0 {
		return
	}
	if !parseIP(cmd.ip.bytes()) {
		ipcfg.bad = true
		klog("malformed ip= option ignored: using 10.0.2.15/24 via 10.0.2.2")
		ipcfg.static = true
		ipcfg.addr, ipcfg.gateway, ipcfg.dns, ipcfg.prefix = [4]byte{10, 0, 2, 15}, [4]byte{10, 0, 2, 2}, [4]byte{10, 0, 2, 3}, 24
	}
}

// parseIP parses an ip= value into ipcfg; false if it is malformed.
func parseIP(v []byte) bool {
	if string(v) == "off" || string(v) == "none" {
		ipcfg.static = false
		return true
	}
	var field [9][]byte
	n := 0
	start := 0
	for i := 0; i <= len(v); i++ {
		if i == len(v) || v[i] == ':' {
			if n == len(field) {
				return false
			}
			field[n] = v[start:i]
			n++
			start = i + 1
		}
	}
	var mask [4]byte
	ok := true
	ipcfg.addr, ok = parseIPv4(field[0])
	if !ok {
		return false
	}
	ipcfg.gateway, ipcfg.dns, ipcfg.prefix = [4]byte{}, [4]byte{}, 24
	if n > 2 && len(field[2]) > 0 {
		if ipcfg.gateway, ok = parseIPv4(field[2]); !ok {
			return false
		}
	}
	if n > 3 && len(field[3]) > 0 {
		if mask, ok = parseIPv4(field[3]); !ok {
			return false
		}
		p, ok := maskPrefix(mask)
		if !ok {
			return false
		}
		ipcfg.prefix = p
	}
	if n > 7 && len(field[7]) > 0 {
		if ipcfg.dns, ok = parseIPv4(field[7]); !ok {
			return false
		}
	}
	ipcfg.static = true
	return true
}

// parseIPv4 parses dotted-quad a.b.c.d.
func parseIPv4(b []byte) ([4]byte, bool) {
	var a [4]byte
	part, val, digits := 0, 0, 0
	for i := 0; i <= len(b); i++ {
		if i == len(b) || b[i] == '.' {
			if digits == 0 || part > 3 {
				return a, false
			}
			a[part] = byte(val)
			part, val, digits = part+1, 0, 0
			continue
		}
		c := b[i]
		if c < '0' || c > '9' || digits == 3 {
			return a, false
		}
		val = val*10 + int(c-'0')
		digits++
		if val > 255 {
			return a, false
		}
	}
	return a, part == 4
}

// maskPrefix turns a contiguous netmask into its prefix length.
func maskPrefix(m [4]byte) (uint8, bool) {
	v := uint32(m[0])<<24 | uint32(m[1])<<16 | uint32(m[2])<<8 | uint32(m[3])
	p := uint8(0)
	for v&0x80000000 != 0 {
		v <<= 1
		p++
	}
	return p, v == 0
}
