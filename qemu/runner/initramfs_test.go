// Tests of the initramfs: decoded with the kernel's own reader, compared with the host's files.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gmpos/kernel/vfs"
)

// cpioEnt is a decoded entry, copied out of the archive.
type cpioEnt struct {
	mode  uint32
	mtime int64
	data  string
}

// decodeArchive reads b with the kernel's decoder and checks what the kernel's unpacking relies
// on: every entry valid, names relative and clean, no name twice, each parent a directory named
// before its children, owner root, and the trailer last with nothing after it.
func decodeArchive(t testing.TB, b []byte) (map[string]cpioEnt, []string) {
	t.Helper()
	ents := map[string]cpioEnt{}
	var order []string
	for off := 0; ; {
		e, rest, why := vfs.NextCpio(b[off:])
		if why != "" {
			t.Fatalf("entry %d (offset %d, %q): %s", len(order), off, e.Name, why)
		}
		if e.Trailer {
			if off+e.HeaderSize != len(b) {
				t.Fatalf("trailer at %d, %d bytes long, but the archive is %d bytes", off, e.HeaderSize, len(b))
			}
			return ents, order
		}
		name := string(e.Name)
		if name == "" || name == "." || path.Clean(name) != name || strings.HasPrefix(name, "/") || strings.HasPrefix(name, "../") {
			t.Fatalf("bad name %q", name)
		}
		if _, dup := ents[name]; dup {
			t.Fatalf("%s twice", name)
		}
		if dir := path.Dir(name); dir != "." {
			if p, ok := ents[dir]; !ok || p.mode&modeType != modeDir {
				t.Fatalf("%s comes before its parent directory %s", name, dir)
			}
		}
		if e.UID != 0 || e.GID != 0 {
			t.Errorf("%s: uid %d gid %d", name, e.UID, e.GID)
		}
		ents[name] = cpioEnt{e.Mode, e.Mtime, string(e.Data)}
		order = append(order, name)
		off = len(b) - len(rest)
	}
}

// buildArchive writes r's archive to a temporary file and decodes it.
func buildArchive(t testing.TB, r rootFS) (map[string]cpioEnt, []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "initramfs")
	if _, _, err := r.write(p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := decodeArchive(t, b)
	return ents, b
}

// wantHost checks that the tree under host is in ents under guest (an archive name), as it is
// on the host: modes, times, contents, link targets. Special files must be absent.
func wantHost(t *testing.T, ents map[string]cpioEnt, host, guest string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(host, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(host, p)
		name := path.Join(guest, filepath.ToSlash(rel))
		if name == "." {
			return nil
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e, ok := ents[name]
		var want cpioEnt
		switch st.Mode().Type() {
		case fs.ModeDir:
			want = cpioEnt{mode: modeDir | uint32(st.Mode().Perm())}
		case 0:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			want = cpioEnt{mode: modeRegular | uint32(st.Sys().(*syscall.Stat_t).Mode&0o7777), data: string(data)}
		case fs.ModeSymlink:
			target, _ := os.Readlink(p)
			want = cpioEnt{mode: modeSymlink | 0o777, data: target}
		default:
			if ok {
				t.Errorf("%s: special file %s in the archive", name, p)
			}
			return nil
		}
		want.mtime = st.ModTime().Unix()
		if !ok || e != want {
			t.Errorf("%s: archive has %o %d %.40q (present %v), host %o %d %.40q", name, e.mode, e.mtime, e.data, ok, want.mode, want.mtime, want.data)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Errorf("%s: nothing compared", host)
	}
}

func TestInitramfs(t *testing.T) {
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "hello", "empty": "", "sub/deep/x": "12345", "bin/run.sh": "#!/bin/sh\n"})
	must(t, os.Chmod(filepath.Join(src, "bin/run.sh"), 0o755))
	must(t, os.Chmod(filepath.Join(src, "a.txt"), 0o4640))
	must(t, os.Chmod(filepath.Join(src, "sub"), 0o750))
	must(t, os.Symlink("a.txt", filepath.Join(src, "link")))
	must(t, os.Symlink("/etc/passwd", filepath.Join(src, "abs")))
	must(t, syscall.Mkfifo(filepath.Join(src, "fifo"), 0o644))
	other := t.TempDir()
	writeFiles(t, other, map[string]string{"b": strings.Repeat("b", 4097)})
	img := filepath.Join(t.TempDir(), "prog.img")
	imgData := bytes.Repeat([]byte("\x7fELF-ish"), 1001)
	must(t, os.WriteFile(img, imgData, 0o644))

	data, err := ParseFS(src + ":/data")
	must(t, err)
	own, err := ParseFS(other)
	must(t, err)
	var warnings []string
	ents, _ := buildArchive(t, rootFS{Name: "prog", Image: img, Mounts: []FSMount{data, own}, Cwd: "/data/sub",
		Warn: func(s string) { warnings = append(warnings, s) }})

	wantHost(t, ents, src, "data")
	wantHost(t, ents, other, guestName(other))
	if len(warnings) != 1 || !strings.Contains(warnings[0], filepath.Join(src, "fifo")) {
		t.Errorf("warnings %q, want one naming the FIFO", warnings)
	}
	for name, want := range map[string]cpioEnt{
		"etc/passwd":    {mode: modeRegular | 0o644, data: etcFiles["etc/passwd"]},
		"etc/group":     {mode: modeRegular | 0o644, data: etcFiles["etc/group"]},
		"tmp":           {mode: modeDir | 0o1777},
		"root":          {mode: modeDir | 0o700},
		"proc/self":     {mode: modeDir | 0o555},
		"dev":           {mode: modeDir | 0o755},
		"proc/self/exe": {mode: modeSymlink | 0o777, data: "/bin/prog"},
	} {
		if got := ents[name]; got != want {
			t.Errorf("%s = %o %q, want %o %q", name, got.mode, got.data, want.mode, want.data)
		}
	}
	if e := ents["bin/prog"]; e.mode != modeRegular|0o755 || e.data != string(imgData) {
		t.Errorf("bin/prog: mode %o, %d bytes; want the image, executable", e.mode, len(e.data))
	}
	if !strings.HasPrefix(ents["etc/passwd"].data, "root:x:0:0:root:/root:") || !strings.Contains(ents["etc/nsswitch.conf"].data, "hosts:          files dns\n") {
		t.Errorf("etc: %q, %q", ents["etc/passwd"].data, ents["etc/nsswitch.conf"].data)
	}
	for _, name := range []string{"etc/hosts", "etc/resolv.conf"} { // the kernel's to write
		if _, ok := ents[name]; ok {
			t.Errorf("%s is in the archive", name)
		}
	}

	// The time zones: the host's tree without posix/ and right/, or Go's zip.
	for name := range ents {
		if strings.HasPrefix(name, "usr/share/zoneinfo/posix/") || strings.HasPrefix(name, "usr/share/zoneinfo/right/") {
			t.Fatalf("%s: posix/ and right/ are left out", name)
		}
	}
	if e := ents["usr/share/zoneinfo/Europe/Paris"]; !strings.HasPrefix(e.data, "TZif") {
		t.Errorf("usr/share/zoneinfo/Europe/Paris: %o %.10q", e.mode, e.data)
	}
	if isDir(ZoneinfoDir) {
		for _, e := range mustReadDir(t, ZoneinfoDir) {
			if n := e.Name(); n != "posix" && n != "right" {
				wantHostEntry(t, ents, filepath.Join(ZoneinfoDir, n), "usr/share/zoneinfo/"+n)
			}
		}
	}
}

// wantHostEntry is wantHost for one file or tree.
func wantHostEntry(t *testing.T, ents map[string]cpioEnt, host, guest string) {
	t.Helper()
	if st, err := os.Lstat(host); err == nil && st.IsDir() {
		wantHost(t, ents, host, guest)
		return
	}
	st, err := os.Lstat(host)
	must(t, err)
	e := ents[guest]
	if st.Mode().Type() == fs.ModeSymlink {
		target, _ := os.Readlink(host)
		if e.mode != modeSymlink|0o777 || e.data != target {
			t.Errorf("%s: %o %q, want a link to %q", guest, e.mode, e.data, target)
		}
		return
	}
	data, err := os.ReadFile(host)
	must(t, err)
	if e.mode != modeRegular|uint32(st.Mode().Perm()) || e.data != string(data) || e.mtime != st.ModTime().Unix() {
		t.Errorf("%s: %o, %d bytes, mtime %d; host %o, %d bytes, %d", guest, e.mode, len(e.data), e.mtime, st.Mode().Perm(), len(data), st.ModTime().Unix())
	}
}

// TestInitramfsLaterWins: a path two sources both have is in the archive once, as the later one
// has it; a directory replaced by a file loses its contents; directories merge.
func TestInitramfsLaterWins(t *testing.T) {
	a, b, etc := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, a, map[string]string{"f": "from a", "d/c": "child", "keep": "a only"})
	writeFiles(t, b, map[string]string{"f": "from b", "d": "now a file", "new/n": "b only"})
	writeFiles(t, etc, map[string]string{"passwd": "me:x:0:0::/:/bin/sh\n"})
	ents, _ := buildArchive(t, rootFS{Name: "p", Mounts: []FSMount{{a, "/x"}, {b, "/x"}, {etc, "/etc"}}})
	for name, want := range map[string]string{"x/f": "from b", "x/d": "now a file", "x/keep": "a only", "x/new/n": "b only",
		"etc/passwd": "me:x:0:0::/:/bin/sh\n", "etc/group": etcFiles["etc/group"]} {
		if got, ok := ents[name]; !ok || got.data != want {
			t.Errorf("%s = %q (present %v), want %q", name, got.data, ok, want)
		}
	}
	if _, ok := ents["x/d/c"]; ok {
		t.Errorf("x/d/c outlived its directory")
	}
	// The tree's size follows the replacements: it is the file's.
	tr, err := rootFS{Name: "p", Mounts: []FSMount{{a, "/x"}, {b, "/x"}}}.build()
	must(t, err)
	var buf bytes.Buffer
	must(t, tr.write(&buf))
	if int64(buf.Len()) != tr.size {
		t.Errorf("archive is %d bytes, the tree counted %d", buf.Len(), tr.size)
	}
}

func TestInitramfsLimit(t *testing.T) {
	base, err := rootFS{Name: "p"}.build()
	must(t, err)
	big := t.TempDir()
	writeFiles(t, big, map[string]string{"small": "s", "z/big": strings.Repeat("x", 64<<10)})
	r := rootFS{Name: "p", Mounts: []FSMount{{big, "/big"}}, Limit: base.size + 16<<10, LimitWhy: "half the guest's RAM, -m 64M"}
	_, err = r.build()
	if err == nil || !strings.Contains(err.Error(), "-m 64M") || !strings.Contains(err.Error(), "/big/z/big") {
		t.Errorf("over the limit: %v", err)
	}
	r.Limit += 64 << 10
	if _, err := r.build(); err != nil {
		t.Errorf("within the limit: %v", err)
	}
	// Run's limit: half of -m.
	cfg := DefaultConfig()
	cfg.Mem = "512M"
	rf, err := cfg.rootFSFor(&Target{Kind: KindGmpos})
	if err != nil || rf.Limit != 256<<20 || !strings.Contains(rf.LimitWhy, "-m 512M") {
		t.Errorf("rootFS: %+v, %v", rf, err)
	}
}

func TestInitrdArg(t *testing.T) {
	got, err := initrdArg("/tmp/w/args", "/tmp/a,b/initramfs")
	if err != nil || got != "/tmp/w/args,/tmp/a,,b/initramfs" {
		t.Errorf("initrdArg = %q, %v", got, err)
	}
	if _, err := initrdArg("/tmp/a b/args"); err == nil {
		t.Errorf("a path with a space accepted")
	}
}

// TestZoneinfoZip reads Go's copy of the database, which a host without /usr/share/zoneinfo gets.
func TestZoneinfoZip(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	must(t, err)
	nodes, err := readZoneinfoZip(filepath.Join(strings.TrimSpace(string(out)), "lib", "time", "zoneinfo.zip"))
	must(t, err)
	tr := newFSTree(0, "")
	for _, n := range nodes {
		must(t, tr.put("usr/share/zoneinfo/"+n.name, n.node))
	}
	var buf bytes.Buffer
	must(t, tr.write(&buf))
	ents, _ := decodeArchive(t, buf.Bytes())
	if len(nodes) < 300 || !strings.HasPrefix(ents["usr/share/zoneinfo/America/New_York"].data, "TZif") || ents["usr/share/zoneinfo/America"].mode != modeDir|0o755 {
		t.Errorf("%d zones; America/New_York %.8q", len(nodes), ents["usr/share/zoneinfo/America/New_York"].data)
	}
}

// TestInitramfsTime logs what the archive costs a run without -fs, the program being this test
// binary (a realistic image size): reading the zone database the first time, then building and
// writing the archive as every run does.
func TestInitramfsTime(t *testing.T) {
	t0 := time.Now()
	if _, err := readZoneinfoDir(ZoneinfoDir); err != nil && isDir(ZoneinfoDir) {
		t.Fatal(err)
	}
	cold := time.Since(t0)
	zoneinfo()
	p := filepath.Join(t.TempDir(), "initramfs")
	t0 = time.Now()
	n, size, err := rootFS{Name: "runner.test", Image: os.Args[0]}.write(p)
	must(t, err)
	t.Logf("no -fs: %d entries, %s (image %s) written in %v; reading the zone database the first time: %v",
		n, mib(size), os.Args[0], time.Since(t0), cold)
}

func BenchmarkInitramfs(b *testing.B) {
	zoneinfo()
	p := filepath.Join(b.TempDir(), "initramfs")
	for b.Loop() {
		if _, _, err := (rootFS{Name: "runner.test", Image: os.Args[0]}).write(p); err != nil {
			b.Fatal(err)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustReadDir(t testing.TB, dir string) []os.DirEntry {
	t.Helper()
	ents, err := os.ReadDir(dir)
	must(t, err)
	return ents
}
