// QEMU netlink tests: net.Interfaces and friends over the kernel's NETLINK_ROUTE sockets.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"strings"
	"testing"
	"time"

	"gmpos/qemu/runner"
)

// netlinkChecks are the checks testdata/netlink prints "ok NAME" for, in order.
var netlinkChecks = []string{"interfaces", "by_name_index", "netlinkrib", "socket_errors", "bind_getsockname",
	"send_errors", "unknown_type", "getlink", "ack", "malformed_length", "truncated_read", "peek", "busy_dump",
	"read_write", "epoll", "blocking_read", "overrun", "sockopt_stat"}

// TestGuestNetlink boots testdata/netlink twice — with user networking (lo and eth0, with
// runner.GuestMAC and the default 10.0.2.15/24) and without a NIC (lo alone) — and checks
// what net.Interfaces, net.InterfaceAddrs and InterfaceByName/Index report, then raw netlink
// sockets given bad input. With GMPOS_GUEST=native the same program runs once on the host,
// whose interfaces it only loosely checks (lo, 127.0.0.1/8): the raw checks are Linux's
// behaviour, which is what the guest must show.
func TestGuestNetlink(t *testing.T) {
	requireQEMU(t)
	for _, mode := range []runner.NetMode{runner.NetUser, runner.NetNone} {
		t.Run(string(mode), func(t *testing.T) {
			want := string(mode)
			if native() {
				if mode == runner.NetNone {
					t.Skip("one native run: the host's interfaces are what they are")
				}
				want = "host"
			}
			b := startGuest(t, pkg("netlink"), opts{args: []string{"-want=" + want, "-mac=" + runner.GuestMAC}}, runner.Network{Mode: mode})
			g := b.wait(t, defaultTimeout+5*time.Minute) // the build comes first
			if g.res != nil && g.res.Net != mode {
				t.Errorf("booted with network %q, want %q", g.res.Net, mode)
			}
			g.wantCode(t, 0)
			var lines []string
			for _, c := range netlinkChecks {
				lines = append(lines, "ok "+c+"\n")
			}
			wantContains(t, g, "stdout", g.stdout, append(lines, "netlink done\n")...)
			if native() {
				return
			}
			// The program checked the interfaces itself; the test states them too, so that a
			// change to the program cannot loosen them unseen.
			ifs := "iface 1 lo mtu 65536 hw  flags up|loopback|running\n"
			addrs := "addr 127.0.0.1/8\n"
			if mode == runner.NetUser {
				ifs += "iface 2 eth0 mtu 1500 hw " + runner.GuestMAC + " flags up|broadcast|multicast|running\n"
				addrs += "addr 10.0.2.15/24\n"
			}
			if !strings.HasPrefix(g.stdout, ifs+addrs+"ok interfaces\n") {
				g.dump(t)
				t.Fatalf("stdout does not start with\n%s", ifs+addrs)
			}
		})
	}
}
