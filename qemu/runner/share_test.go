// Tests of -share's parsing and of the QEMU arguments it makes.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseShare(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	comma := filepath.Join(dir, "a,b")
	os.Mkdir(comma, 0o755)
	for _, c := range []struct {
		arg, host, guest, err string
	}{
		{dir, dir, dir, ""},
		{dir + ":/data", dir, "/data", ""},
		{dir + ":/data/../x/", dir, "/x", ""},
		{dir + ":/", "", "", "the root cannot be a share"},
		{file, "", "", "is not a directory"},
		{filepath.Join(dir, "nope"), "", "", "does not exist"},
		{comma, "", "", "comma"},
	} {
		s, err := ParseShare(c.arg)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "-share") {
				t.Errorf("ParseShare(%q) = %v, want an error with %q", c.arg, err, c.err)
			}
			continue
		}
		if err != nil || s.Host != c.host || s.Guest != c.guest {
			t.Errorf("ParseShare(%q) = %+v, %v", c.arg, s, err)
		}
	}
}

func TestShareArgs(t *testing.T) {
	sh := []Share{{"/h/a", "/a"}, {"/h/b", "/mnt/b"}}
	want := []string{
		"-fsdev", "local,id=gmposfs0,path=/h/a,security_model=none", "-device", "virtio-9p-pci,fsdev=gmposfs0,mount_tag=share0",
		"-fsdev", "local,id=gmposfs1,path=/h/b,security_model=none", "-device", "virtio-9p-pci,fsdev=gmposfs1,mount_tag=share1",
	}
	if got := ShareArgs(sh); !reflect.DeepEqual(got, want) {
		t.Errorf("ShareArgs = %q", got)
	}
	if got := ShareKopts(sh); !reflect.DeepEqual(got, []string{"share=share0:/a", "share=share1:/mnt/b"}) {
		t.Errorf("ShareKopts = %q", got)
	}
	dir := t.TempDir()
	if err := CheckShares([]Share{{dir, "/x"}, {dir, "/x"}}); err == nil {
		t.Errorf("two shares at one path accepted")
	}
	if err := CheckShares(make([]Share, MaxShares+1)); err == nil {
		t.Errorf("too many shares accepted")
	}
}

func TestShareCwd(t *testing.T) {
	sh := []Share{{"/h/proj", "/w"}, {"/h/data", "/data"}}
	for wd, want := range map[string]string{
		"/h/proj":       "/w",
		"/h/proj/a/b":   "/w/a/b",
		"/h/data/x":     "/data/x",
		"/h/projection": "",
		"/elsewhere":    "",
	} {
		got, ok := shareCwd(wd, sh)
		if got != want || ok != (want != "") {
			t.Errorf("shareCwd(%q) = %q %v, want %q", wd, got, ok, want)
		}
	}
}
