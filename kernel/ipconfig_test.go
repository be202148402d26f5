// Tests of the ip= option's parser.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "testing"

func TestParseIP(t *testing.T) {
	for _, c := range []struct {
		in            string
		ok, static    bool
		addr, gw, dns [4]byte
		prefix        uint8
	}{
		{in: "off", ok: true},
		{in: "none", ok: true},
		{in: "192.168.76.9::192.168.76.1:255.255.255.0::eth0:off:192.168.76.1", ok: true, static: true,
			addr: [4]byte{192, 168, 76, 9}, gw: [4]byte{192, 168, 76, 1}, dns: [4]byte{192, 168, 76, 1}, prefix: 24},
		{in: "10.1.2.3", ok: true, static: true, addr: [4]byte{10, 1, 2, 3}, prefix: 24},
		{in: "10.1.2.3::10.1.0.1:255.255.0.0", ok: true, static: true, addr: [4]byte{10, 1, 2, 3}, gw: [4]byte{10, 1, 0, 1}, prefix: 16},
		{in: "10.1.2.3::10.1.0.1:255.0.255.0"}, // not a contiguous mask
		{in: "10.1.2.256"},                     // octet out of range
		{in: "10.1.2"},                         // three parts
		{in: "10.1.2.3.4"},                     // five
		{in: "1.2.3.4::::::::::"},              // too many fields
		{in: "0001.2.3.4"},                     // four digits
		{in: ""},                               // empty address
		{in: "dhcp"},                           // not supported: say so by refusing
	} {
		ipcfg.static, ipcfg.addr, ipcfg.gateway, ipcfg.dns, ipcfg.prefix = false, [4]byte{}, [4]byte{}, [4]byte{}, 0
		ok := parseIP([]byte(c.in))
		if ok != c.ok {
			t.Errorf("parseIP(%q) = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if ipcfg.static != c.static || ipcfg.addr != c.addr || ipcfg.gateway != c.gw || ipcfg.dns != c.dns || ipcfg.static && ipcfg.prefix != c.prefix {
			t.Errorf("parseIP(%q): static %v addr %v gw %v dns %v /%d", c.in, ipcfg.static, ipcfg.addr, ipcfg.gateway, ipcfg.dns, ipcfg.prefix)
		}
	}
}

// FuzzParseIP: any value either parses into a consistent configuration or is refused.
func FuzzParseIP(f *testing.F) {
	for _, s := range []string{"off", "10.0.2.15::10.0.2.2:255.255.255.0::eth0:off:10.0.2.3", "1.2.3.4", "::::", "1.2.3.4:::0.0.0.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if parseIP([]byte(s)) && ipcfg.static && ipcfg.prefix > 32 {
			t.Fatalf("prefix %d", ipcfg.prefix)
		}
	})
}
