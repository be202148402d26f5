// Tests of apt's output parsing, the initramfs layout and the QEMU command line.
// SPDX-License-Identifier: BSD-3-Clause

package linuxpeer

import (
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gmpos/qemu/runner"
)

// apt-cache show --no-all-versions linux-image-cloud-amd64 on Debian 12, November 2026.
const aptShow = `Package: linux-image-cloud-amd64
Source: linux-signed-amd64 (6.1.192+2)
Version: 6.1.192-2
Installed-Size: 13
Maintainer: Debian Kernel Team <debian-kernel@lists.debian.org>
Architecture: amd64
Provides: linux-latest-modules-6.1.0-56-cloud-amd64, virtualbox-guest-modules, wireguard-modules (= 1.0.0)
Depends: linux-image-6.1.0-56-cloud-amd64 (= 6.1.192-2)
Description: Linux for x86-64 cloud (meta-package)
Section: kernel

`

func TestParseAptShow(t *testing.T) {
	for _, c := range []struct{ in, pkg, ver string }{
		{aptShow, "linux-image-6.1.0-56-cloud-amd64", "6.1.192-2"},
		{"Depends: linux-base,\n linux-image-6.12.9-cloud-amd64:amd64 (= 1:6.12.9-1~bpo12+1) | linux-image-x\n",
			"linux-image-6.12.9-cloud-amd64", "1:6.12.9-1~bpo12+1"},
		{"Depends: linux-image-6.1.0-9-cloud-amd64\n", "linux-image-6.1.0-9-cloud-amd64", ""},
		{"Depends: linux-image-6.1.0-9-cloud-amd64 (>= 6.1)\n", "linux-image-6.1.0-9-cloud-amd64", ""},
		{"Depends: linux-image-a (= bad version!)\n", "linux-image-a", ""},
		// Only the first stanza (the candidate) counts.
		{"Depends: linux-image-new (= 2)\n\nDepends: linux-image-old (= 1)\n", "linux-image-new", "2"},
	} {
		pkg, ver, err := ParseAptShow([]byte(c.in))
		if err != nil || pkg != c.pkg || ver != c.ver {
			t.Errorf("%q:\n got %q %q %v\nwant %q %q", c.in, pkg, ver, err, c.pkg, c.ver)
		}
	}
	for _, bad := range []string{"", "Package: x\n", "Depends: linux-base\n", "Depends: linux-image-cloud-amd64\n"} {
		if pkg, _, err := ParseAptShow([]byte(bad)); err == nil {
			t.Errorf("%q: got %q, want an error", bad, pkg)
		}
	}
}

func FuzzParseAptShow(f *testing.F) {
	f.Add([]byte(aptShow))
	f.Add([]byte("Depends: a | linux-image-b:amd64 (= 1:2-3),\n linux-image-c\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pkg, ver, err := ParseAptShow(b)
		if err != nil {
			return
		}
		// The results become a file name and an apt-get argument: no separators, no blanks.
		if !strings.HasPrefix(pkg, "linux-image-") || strings.ContainsAny(pkg+ver, " \t\n/=()") {
			t.Fatalf("package %q version %q", pkg, ver)
		}
		if ver != "" && !validVersion(ver) {
			t.Fatalf("version %q", ver)
		}
	})
}

func TestWriteInitramfs(t *testing.T) {
	dir := t.TempDir()
	mods := []Module{{Name: "virtio", Path: "kernel/virtio.ko"}, {Name: "virtio_net", Path: "kernel/net/virtio_net.ko"}}
	for _, m := range mods {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(m.Path)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, m.Path), []byte("ko:"+m.Name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf strings.Builder
	if err := WriteInitramfs(&buf, []byte("\x7fELF prog"), dir, mods); err != nil {
		t.Fatal(err)
	}
	es, err := readCpio([]byte(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.name)
	}
	want := []string{"dev", "proc", "sys", "modules", "dev/console", "modules/01-virtio.ko", "modules/02-virtio_net.ko", "init"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("entries %q\nwant %q", got, want)
	}
	if string(es[6].data) != "ko:virtio_net" || string(es[7].data) != "\x7fELF prog" || es[7].mode != 0o100755 {
		t.Errorf("contents: %q, %q mode %o", es[6].data, es[7].data, es[7].mode)
	}
	if err := WriteInitramfs(&buf, nil, dir, []Module{{Name: "gone", Path: "nope.ko"}}); err == nil {
		t.Error("a missing module file was not reported")
	}
}

func TestKernelCmdline(t *testing.T) {
	got, err := KernelCmdline(DefaultAppend+" ", []string{"-linux-init", "-http=:8080"})
	if want := DefaultAppend + " -- -linux-init -http=:8080"; err != nil || got != want {
		t.Errorf("got %q %v, want %q", got, err, want)
	}
	if got, _ := KernelCmdline("console=ttyS0", nil); got != "console=ttyS0" {
		t.Errorf("no arguments: %q", got)
	}
	for _, bad := range []string{"", "two words", `"quoted"`} {
		if _, err := KernelCmdline("x", []string{bad}); err == nil {
			t.Errorf("argument %q accepted", bad)
		}
	}
}

// The peer's machine must stay the one gmpos boots on: the same machine options as the
// runner's own command line, and the same NIC.
func TestQEMUArgsMatchRunner(t *testing.T) {
	nw := runner.Network{HostFwd: []runner.HostFwd{{Host: 18080, Guest: 8080}, {Host: 18081, Guest: 8081}}}
	for _, m := range []runner.Machine{
		{Machine: "q35", Accel: "tcg", Mem: "512M", SMP: 2},
		{Machine: "q35", Accel: "kvm", Mem: "1G", SMP: 1},
	} {
		peer := QEMUArgs(m, "vmlinuz", "initrd", "console=ttyS0", nw)
		gmpos := append(runner.QEMUArgs(m, "img", "cmd", [3]string{"a", "b", "c"}),
			runner.NetArgs(nw, runner.NetUser, netip.AddrPort{})...)
		same := []string{"-M", "-bios", "-vga", "-accel", "-cpu", "-m", "-smp", "-display", "-monitor", "-netdev", "-device"}
		p, g := optValues(peer, same...), optValues(gmpos, same...)
		// gmpos has one more -device, its exit port (isa-debug-exit); the NIC must be the same.
		g = slices.DeleteFunc(g, func(kv []string) bool { return strings.HasPrefix(kv[1], "isa-debug-exit") })
		if !reflect.DeepEqual(p, g) {
			t.Errorf("%+v:\npeer  %q\ngmpos %q", m, p, g)
		}
		if !slices.Contains(peer, "-no-reboot") {
			t.Error("no -no-reboot: a panicking peer would reboot forever")
		}
		if want := []string{"-kernel", "vmlinuz", "-initrd", "initrd", "-append", "console=ttyS0"}; !containsRun(peer, want) {
			t.Errorf("%q lacks %q", peer, want)
		}
	}
}

// optValues returns the [option, value] pairs of args whose option is one of opts, in order.
func optValues(args []string, opts ...string) [][]string {
	var out [][]string
	for i := 0; i+1 < len(args); i++ {
		if slices.Contains(opts, args[i]) {
			out = append(out, []string{args[i], args[i+1]})
			i++
		}
	}
	return out
}

func containsRun(s, run []string) bool {
	for i := 0; i+len(run) <= len(s); i++ {
		if slices.Equal(s[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
