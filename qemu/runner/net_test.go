// Tests of the network flags, the QEMU arguments they become, and the -net auto decision.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseHostFwd(t *testing.T) {
	for in, want := range map[string]HostFwd{"8080:80": {8080, 80}, "1:65535": {1, 65535}, "080:8080": {80, 8080}} {
		if got, err := ParseHostFwd(in); err != nil || got != want {
			t.Errorf("ParseHostFwd(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "8080", ":80", "80:", "0:80", "80:0", "65536:80", "-1:80", "+80:80", "a:b", "80:80:80", "127.0.0.1:80:80", " 80:80"} {
		if got, err := ParseHostFwd(bad); err == nil {
			t.Errorf("ParseHostFwd(%q) = %v, want an error", bad, got)
		}
	}
}

func TestParseInject(t *testing.T) {
	if got, err := ParseInject("127.0.0.1:5555"); err != nil || got != netip.MustParseAddrPort("127.0.0.1:5555") {
		t.Errorf("ParseInject = %v, %v", got, err)
	}
	for _, bad := range []string{"", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", "localhost:5555", "[::1]:5555", "::1:5555", "5555"} {
		if _, err := ParseInject(bad); err == nil {
			t.Errorf("ParseInject(%q) accepted", bad)
		}
	}
	if a := InjectSinkAddr(netip.MustParseAddrPort("0.0.0.0:9")); a.String() != "127.0.0.1" {
		t.Errorf("sink for 0.0.0.0 = %v", a)
	}
	if a := InjectSinkAddr(netip.MustParseAddrPort("127.0.0.2:9")); a.String() != "127.0.0.2" {
		t.Errorf("sink for 127.0.0.2 = %v", a)
	}
}

func TestNetworkValidate(t *testing.T) {
	fwd := []HostFwd{{8080, 8080}}
	for _, n := range []Network{{}, {Mode: NetAuto}, {Mode: NetUser}, {Mode: NetNone}, {HostFwd: fwd}, {Mode: NetUser, HostFwd: fwd, Inject: "127.0.0.1:5555"}} {
		if err := n.Validate(); err != nil {
			t.Errorf("%+v: %v", n, err)
		}
	}
	for _, n := range []Network{
		{Mode: "tap"},
		{Mode: NetNone, HostFwd: fwd},                // -hostfwd implies user
		{Mode: NetNone, Inject: "127.0.0.1:5555"},    // so does -netinject
		{HostFwd: []HostFwd{{8080, 80}, {8080, 81}}}, // one host port twice
		{HostFwd: []HostFwd{{0, 80}}},                // built without ParseHostFwd
		{Inject: "127.0.0.1"},                        // no port
	} {
		if err := n.Validate(); err == nil {
			t.Errorf("%+v accepted", n)
		}
	}
}

func TestDecide(t *testing.T) {
	chain := []string{"prog", "net/http", "net"}
	for _, c := range []struct {
		n          Network
		importsNet bool
		want       NetMode
		why        string
	}{
		{Network{}, true, NetUser, "prog → net/http → net"},
		{Network{}, false, NetNone, "does not import net"},
		{Network{Mode: NetAuto}, true, NetUser, "imports net"},
		{Network{Mode: NetUser}, false, NetUser, "-net user"},
		{Network{Mode: NetNone}, true, NetNone, "-net none"},
		{Network{HostFwd: []HostFwd{{1, 2}}}, false, NetUser, "-hostfwd"},
		{Network{Inject: "127.0.0.1:9"}, false, NetUser, "-netinject"},
	} {
		got, why := c.n.Decide(c.importsNet, chain)
		if got != c.want || !strings.Contains(why, c.why) {
			t.Errorf("%+v importsNet=%v: %s (%s), want %s (…%s…)", c.n, c.importsNet, got, why, c.want, c.why)
		}
	}
}

func TestNetArgs(t *testing.T) {
	sink := netip.MustParseAddrPort("127.0.0.1:40000")
	nic := "virtio-net-pci,netdev=%s,mac=52:54:00:12:34:56,disable-legacy=on,romfile="
	for _, c := range []struct {
		name string
		n    Network
		mode NetMode
		want []string
	}{
		{"none", Network{}, NetNone, []string{"-nic", "none"}},
		{"none even with flags", Network{HostFwd: []HostFwd{{1, 2}}}, NetNone, []string{"-nic", "none"}},
		{"user", Network{}, NetUser, []string{"-netdev", "user,id=n0", "-device", strings.Replace(nic, "%s", "n0", 1)}},
		{"hostfwd", Network{HostFwd: []HostFwd{{8080, 80}, {2222, 22}}}, NetUser, []string{
			"-netdev", "user,id=n0,hostfwd=tcp:127.0.0.1:8080-:80,hostfwd=tcp:127.0.0.1:2222-:22",
			"-device", strings.Replace(nic, "%s", "n0", 1)}},
		{"inject", Network{HostFwd: []HostFwd{{8080, 80}}, Inject: "127.0.0.1:5555"}, NetUser, []string{
			"-netdev", "user,id=n0,hostfwd=tcp:127.0.0.1:8080-:80", "-netdev", "hubport,id=hp0,hubid=0,netdev=n0",
			"-netdev", "dgram,id=inj,local.type=inet,local.host=127.0.0.1,local.port=5555,remote.type=inet,remote.host=127.0.0.1,remote.port=40000",
			"-netdev", "hubport,id=hp1,hubid=0,netdev=inj",
			"-netdev", "hubport,id=hp2,hubid=0", "-device", strings.Replace(nic, "%s", "hp2", 1)}},
	} {
		if got := NetArgs(c.n, c.mode, sink); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestImportChain(t *testing.T) {
	list := "errors\nnet errors\nnet/http net errors\nio errors\nlib io\nmain lib net/http io\n"
	if got := importChain(list, "net"); !reflect.DeepEqual(got, []string{"main", "net/http", "net"}) {
		t.Errorf("chain = %q", got)
	}
	if got := importChain("errors\nmain errors\n", "net"); got != nil {
		t.Errorf("no net: chain = %q", got)
	}
	if got := importChain("", "net"); got != nil {
		t.Errorf("empty: chain = %q", got)
	}
}

// TestImportsNet asks the go command about real programs of each kind of target, and checks
// that the build then links the network stack exactly when the program imports net.
func TestImportsNet(t *testing.T) {
	root, err := FindGmposRoot()
	if err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	writeFiles(t, plain, map[string]string{
		"smtp.go": "package main\n\nimport \"net/smtp\"\n\nfunc main() { _ = smtp.PlainAuth }\n",
		"url.go":  "package main\n\nimport \"net/url\"\n\nfunc main() { _ = url.Parse }\n", // net/url does not import net
	})
	mod := t.TempDir()
	writeFiles(t, mod, map[string]string{
		"go.mod":      "module example.com/student\n\ngo 1.26\n",
		"srv/srv.go":  "package srv\n\nimport \"net\"\n\nvar L = net.Listen\n",
		"app/main.go": "package main\n\nimport _ \"example.com/student/srv\"\n\nfunc main() {}\n",
	})
	for _, c := range []struct {
		pkg   string
		want  bool
		chain string
	}{
		{"testdata/hello", false, ""},
		{"testdata/netprog", true, "gmpos/qemu/runner/testdata/netprog net/http net"},
		{filepath.Join(plain, "smtp.go"), true, "command-line-arguments net/smtp net"},
		{filepath.Join(plain, "url.go"), false, ""},
		{filepath.Join(mod, "app"), true, "example.com/student/app example.com/student/srv net"},
	} {
		tg, err := Resolve([]string{c.pkg}, root)
		if err != nil {
			t.Fatal(err)
		}
		spec := BuildSpec{GmposRoot: root, WorkDir: t.TempDir()}
		got, chain, err := ImportsNet(tg, spec)
		if err != nil || got != c.want || strings.Join(chain, " ") != c.chain {
			t.Errorf("%s: ImportsNet = %v %q %v; want %v %q", c.pkg, got, chain, err, c.want, c.chain)
		}
		spec.Netstack = got
		if _, err := BuildCommand(tg, spec, filepath.Join(spec.WorkDir, "out.elf")); err != nil {
			t.Fatal(err)
		}
		ov, err := os.ReadFile(filepath.Join(spec.WorkDir, "kernel_import.go"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(ov), `import _ "`+NetstackImport+`"`) != c.want || !strings.Contains(string(ov), `import _ "`+KernelImport+`"`) {
			t.Errorf("%s: overlay:\n%s", c.pkg, ov)
		}
	}
}
