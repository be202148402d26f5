// Tests of the guest's initial working directory.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGuestCwd(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"proj/pkg/f": "", "other/f": ""})
	must(t, os.Symlink(filepath.Join(dir, "proj"), filepath.Join(dir, "link")))
	proj, pkg := filepath.Join(dir, "proj"), filepath.Join(dir, "proj/pkg")
	for _, tc := range []struct {
		wd     string
		mounts []FSMount
		want   string
	}{
		{pkg, nil, "/"},
		{pkg, []FSMount{{filepath.Join(dir, "other"), "/o"}}, "/"},
		{pkg, []FSMount{{proj, proj}}, pkg},
		{proj, []FSMount{{proj, "/p"}}, "/p"},
		{pkg, []FSMount{{proj, "/p"}}, "/p/pkg"},
		{pkg, []FSMount{{dir, "/"}}, "/proj/pkg"},
		{pkg, []FSMount{{pkg, "/inner"}, {dir, "/outer"}}, "/inner"},         // the innermost HOSTDIR
		{pkg, []FSMount{{proj, "/first"}, {proj, "/second"}}, "/second/pkg"}, // then the later
		{pkg, []FSMount{{filepath.Join(dir, "link"), "/l"}}, "/l/pkg"},       // a link mounted, the wd resolved
		{filepath.Join(dir, "link/pkg"), []FSMount{{proj, "/p"}}, "/p/pkg"},  // the wd through a link
		{dir + "/projx", []FSMount{{proj, "/p"}}, "/"},                       // a prefix, not a parent
	} {
		if got := GuestCwd(tc.wd, tc.mounts); got != tc.want {
			t.Errorf("GuestCwd(%s, %v) = %s, want %s", tc.wd, tc.mounts, got, tc.want)
		}
	}

	// Run's rule: the current directory's copy; a test's package directory.
	t.Chdir(pkg)
	cfg := DefaultConfig()
	cfg.FS = []FSMount{{proj, "/p"}}
	if r, err := cfg.rootFSFor(&Target{Kind: KindGmpos}); err != nil || r.Cwd != "/p/pkg" {
		t.Errorf("run: cwd %q, %v", r.Cwd, err)
	}
	r, err := cfg.rootFSFor(&Target{Kind: KindTest, Dir: "/usr/local/go/src/regexp"})
	if err != nil || r.Cwd != "/usr/local/go/src/regexp" || len(r.Mounts) != 2 || r.Mounts[0] != (FSMount{"/usr/local/go/src/regexp", "/usr/local/go/src/regexp"}) {
		t.Errorf("test: cwd %q mounts %v, %v", r.Cwd, r.Mounts, err)
	}
	// A cwd the archive does not have as a directory is refused.
	writeFiles(t, dir, map[string]string{"flat/pkg": "a file"})
	_, err = rootFS{Name: "p", Mounts: []FSMount{{proj, "/p"}, {filepath.Join(dir, "flat"), "/p"}}, Cwd: "/p/pkg"}.build()
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("cwd replaced by a file: %v", err)
	}
	for _, bad := range []string{"/a\x00b", "/" + strings.Repeat("d", 4096)} {
		if checkCwd(bad) == nil {
			t.Errorf("checkCwd(%.20q) accepted", bad)
		}
	}
	line, err := Cmdline("p", []string{"cwd=/home/me/my project"}, nil)
	if opts, _, perr := ParseCmdline("img " + line); err != nil || perr != nil || opts[1] != "cwd=/home/me/my project" {
		t.Errorf("cwd through the command line: %q, %v, %v", line, err, perr)
	}
}
