// Host directories in the guest: shared over virtio-9p (-share) and copied at boot (-fs).
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gmpos/qemu/runner"
)

// hostDir makes the directory the host gives the guest: a file with mode 0640, a subdirectory
// of three files, and symbolic links: to the subdirectory, to a file through the first link and
// "..", and a loop.
func hostDir(t *testing.T) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "from-host.txt"), []byte("written on the host\n"), 0o640)
	os.Chmod(filepath.Join(dir, "from-host.txt"), 0o640)
	os.Mkdir(filepath.Join(dir, "hostdir"), 0o755)
	for _, n := range []string{"c", "a", "b"} {
		os.WriteFile(filepath.Join(dir, "hostdir", n), []byte(n), 0o644)
	}
	os.Symlink("hostdir", filepath.Join(dir, "linkdir"))
	os.Symlink("linkdir/../hostdir/a", filepath.Join(dir, "flink"))
	os.Symlink("loop2", filepath.Join(dir, "loop1"))
	os.Symlink("loop1", filepath.Join(dir, "loop2"))
	return dir
}

// sharePattern is testdata/share's big file.
func sharePattern(n int) []byte {
	b := make([]byte, n)
	x := uint32(1)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// TestGuestShare runs testdata/share on a directory shared with -share: the program reads what
// the host wrote, writes 64 MiB (fsync, close) and makes, renames and removes names, then exits 3
// with a file written and not closed. After the runner returns, the host must have it all: the
// big file with the right checksum, the renamed file, the unclosed file's bytes, and nothing the
// program removed. Natively (GMPOS_GUEST=native) the program runs on the directory itself.
func TestGuestShare(t *testing.T) {
	skipWithoutPCIDevices(t, opts{})
	dir := hostDir(t)
	arg := "/data"
	if native() {
		arg = dir
	}
	g := boot(t, pkg("share"), opts{args: []string{arg}, shares: []runner.Share{{Host: dir, Guest: "/data"}}, timeout: 4 * defaultTimeout})
	g.wantCode(t, 3)
	want := sharePattern(64 << 20)
	checks := 0
	for _, l := range strings.Split(strings.TrimSpace(g.stdout), "\n") {
		switch {
		case strings.HasPrefix(l, "sha256 "):
			if l != fmt.Sprintf("sha256 %x", sha256.Sum256(want)) {
				t.Errorf("the program's pattern differs: %s", l)
			}
		case strings.HasPrefix(l, "check rename between the share and /tmp") && native():
			checks++ // the same file system natively: no EXDEV there
		case strings.HasPrefix(l, "check "):
			checks++
			if !strings.HasSuffix(l, ": true") {
				t.Errorf("failed: %s", l)
			}
		}
	}
	if checks != 16 {
		t.Errorf("%d checks ran, want 16", checks)
	}
	got, err := os.ReadFile(filepath.Join(dir, "big"))
	if err != nil || sha256.Sum256(got) != sha256.Sum256(want) {
		t.Errorf("the host's big file: %d bytes, %v; checksum equal %v", len(got), err, sha256.Sum256(got) == sha256.Sum256(want))
	}
	for name, content := range map[string]string{
		"made/renamed": "moved",
		"unclosed":     "written, then os.Exit(3)\n",
		"small":        "0123",
	} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != content {
			t.Errorf("host %s: %q, %v; want %q", name, b, err, content)
		}
	}
	for _, gone := range []string{"doomed", "made/in/guest", "made/in/guest/f"} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("host %s: %v, want it removed", gone, err)
		}
	}
	if t.Failed() {
		g.dump(t)
	}
}

// TestGuestFSCopy runs the same reads on a -fs copy: the files are there at boot with their
// modes, and what the program writes stays in the guest.
func TestGuestFSCopy(t *testing.T) {
	if native() {
		t.Skip("-fs copies into the guest's tree")
	}
	dir := hostDir(t)
	g := boot(t, pkg("share"), opts{args: []string{"-copy", "/in"}, fs: []runner.FSMount{{Host: dir, Guest: "/in"}}})
	g.wantCode(t, 0)
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(g.stdout), "\n") {
		n++
		if !strings.HasSuffix(l, ": true") {
			t.Errorf("failed: %s", l)
		}
	}
	if n != 8 {
		t.Errorf("%d checks, want 8:\n%s", n, g.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "guest-only")); !os.IsNotExist(err) {
		t.Errorf("a write to the -fs copy reached the host: %v", err)
	}
}
