// The initramfs: the guest's root file system, a cpio archive the runner builds for every run.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The kernel has no disk: its root is a tmpfs filled at boot from this archive, the second
// Multiboot module (docs/contract.md, "Root file system module"). A Linux program expects a few
// files to be there whatever it does — who it runs as, how names are looked up, time zones, its
// own executable — so every archive has them; -fs adds host directories on top.
//
// /etc/hosts and /etc/resolv.conf are left out on purpose: the kernel writes them at boot from
// its network configuration (ip=) unless the archive has them, so a -fs can still supply its own.
// /proc and /dev are the kernel's too; the archive only makes the directories.

// etcFiles are the account and name-service files, as a minimal Debian has them.
var etcFiles = map[string]string{
	"etc/passwd": "root:x:0:0:root:/root:/bin/sh\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
	"etc/group": "root:x:0:\n" +
		"nogroup:x:65534:\n",
	"etc/nsswitch.conf": "passwd:         files\n" +
		"group:          files\n" +
		"shadow:         files\n" +
		"gshadow:        files\n" +
		"\n" +
		"hosts:          files dns\n" +
		"networks:       files\n" +
		"\n" +
		"protocols:      db files\n" +
		"services:       db files\n" +
		"ethers:         db files\n" +
		"rpc:            db files\n",
}

// baseDirs are made even when empty, with Linux's usual modes: /tmp is world-writable and
// sticky, /root is its owner's alone, /proc is read-only.
var baseDirs = []struct {
	name string
	perm uint32
}{
	{"bin", 0o755}, {"dev", 0o755}, {"etc", 0o755}, {"proc", 0o555}, {"proc/self", 0o555},
	{"root", 0o700}, {"tmp", 0o1777}, {"usr/share/zoneinfo", 0o755},
}

// rootFS is what goes into one run's archive.
type rootFS struct {
	Name     string    // the program's name: its image is /bin/NAME
	Image    string    // the executable's host path (/bin/NAME)
	Mounts   []FSMount // -fs, in order; a test's package directory first
	Cwd      string    // the initial working directory, checked to be a directory of the archive
	Limit    int64     // the archive's largest size (0: no limit)
	LimitWhy string    // what the limit is, for the error
	Warn     func(string)
}

// rootFSFor is what a run of t gets under cfg, but for the image (known once it is built). The
// archive may take half the guest's RAM: the kernel keeps the module's pages (its files are read
// where the loader put them), and the program needs the rest.
func (cfg *Config) rootFSFor(t *Target) (rootFS, error) {
	mem, err := ParseMem(cfg.Mem)
	if err != nil {
		return rootFS{}, err
	}
	r := rootFS{Mounts: cfg.FS, Cwd: "/", Limit: mem / 2, LimitWhy: "half the guest's RAM, -m " + cfg.Mem}
	if t.Kind == KindTest {
		// go test runs a test binary in its package's directory, where tests read testdata/
		// and their own sources: the directory is there at its host path, and is the cwd.
		r.Mounts = append([]FSMount{{Host: t.Dir, Guest: t.Dir}}, cfg.FS...)
		r.Cwd = t.Dir
		// The standard library's tests also read GOROOT's time zone database by a relative
		// path (time's initTestingZone: ../../lib/time/zoneinfo.zip).
		// A std package's directory is GOROOT/src/IMPORTPATH.
		suffix := string(filepath.Separator) + filepath.Join("src", t.ImportPath)
		if first, _, _ := strings.Cut(t.ImportPath, "/"); !strings.Contains(first, ".") && strings.HasSuffix(t.Dir, suffix) {
			lib := filepath.Join(strings.TrimSuffix(t.Dir, suffix), "lib", "time")
			if fi, err := os.Stat(lib); err == nil && fi.IsDir() {
				r.Mounts = append([]FSMount{{Host: lib, Guest: lib}}, r.Mounts...)
			}
		}
	} else if wd, err := os.Getwd(); err == nil {
		r.Cwd = GuestCwd(wd, cfg.FS)
	}
	return r, nil
}

// build assembles the tree. The order sets who wins a path both have: the base files, the time
// zones, the program, then each -fs, so a user's directory replaces what the runner provides.
func (r rootFS) build() (*fsTree, error) {
	t := newFSTree(r.Limit, r.LimitWhy)
	for _, d := range baseDirs {
		if err := t.put(d.name, &fsNode{mode: modeDir | d.perm}); err != nil {
			return nil, err
		}
	}
	for name, body := range etcFiles {
		if err := t.put(name, &fsNode{mode: modeRegular | 0o644, size: int64(len(body)), data: []byte(body)}); err != nil {
			return nil, err
		}
	}
	zones, err := zoneinfo()
	if err != nil && r.Warn != nil {
		r.Warn(fmt.Sprintf("no time zone database for the guest (%v): time.LoadLocation will fail there", err))
	}
	zbase := guestName(ZoneinfoDir) + "/"
	for _, z := range zones {
		if err := t.put(zbase+z.name, z.node); err != nil {
			return nil, err
		}
	}
	// The program's executable (linked for the exec region: what execve loads for a child, as
	// os/exec and tests start copies of themselves), so that os.Executable (which reads
	// /proc/self/exe) names a file that exists and runs.
	if r.Image != "" {
		st, err := os.Stat(r.Image)
		if err != nil {
			return nil, err
		}
		exe := "bin/" + r.Name
		if err := t.put(exe, &fsNode{mode: modeRegular | 0o755, mtime: st.ModTime().Unix(), size: st.Size(), host: r.Image}); err != nil {
			return nil, err
		}
		target := "/" + exe
		if err := t.put("proc/self/exe", &fsNode{mode: modeSymlink | 0o777, size: int64(len(target)), data: []byte(target)}); err != nil {
			return nil, err
		}
	}
	for _, m := range r.Mounts {
		if err := addHostTree(t, m, r.Warn); err != nil {
			return nil, err
		}
	}
	if c := guestName(r.Cwd); c != "" {
		if n, ok := t.nodes[c]; !ok || !n.isDir() {
			return nil, fmt.Errorf("the working directory %s is not a directory in the guest's file system (a later -fs replaced it)", r.Cwd)
		}
	}
	return t, nil
}

// write builds the archive and writes it to path; it returns the number of entries
// and bytes, for -v.
func (r rootFS) write(path string) (entries int, size int64, err error) {
	t, err := r.build()
	if err != nil {
		return 0, 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	err = t.write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return len(t.nodes), t.size, err
}
