// Guest: files, the file system as ordinary Go programs use it, with Linux's answers.
// SPDX-License-Identifier: BSD-3-Clause

// Files exercises the file system through the standard library the way ordinary programs do —
// the configuration files under /etc, the time-zone database, files and directories made under
// /tmp, symbolic and hard links, permissions and times, the working directory, /proc — and
// checks that each answer, errors included, is the one Linux gives. It is also a list of what a
// program may rely on.
//
// Every check prints "check NAME: true" when the behaviour is Linux's, "check NAME: false
// (DETAIL)" when not, or "check NAME: skip" when what it needs is absent; a line "exec: ERR"
// says what starting a command gave (natively <nil>; gmpos cannot start processes). The program
// needs no privileges and runs natively too, as the reference.
package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// work is the directory under /tmp that the checks make their files in.
var work string

// errSkip marks a check whose subject is absent here.
var errSkip = errors.New("skip")

// The checks, in order; each returns nil when the behaviour is Linux's, or why not.
var checks = []struct {
	name string
	fn   func() error
}{
	// What the system provides.
	{"/etc/hosts names localhost", etcHosts},
	{"/etc/passwd has a root line", etcPasswd},
	{"os/user finds root in /etc/passwd and /etc/group", userRoot},
	{"net.LookupHost(localhost) answers from /etc/hosts", lookupLocalhost},
	{"/ is a directory", rootIsDir},
	{"/tmp is a sticky directory, mode 1777", tmpMode},
	{"WalkDir of /usr/share/zoneinfo finds Europe/Berlin", walkZoneinfo},
	{"time.LoadLocation(Europe/Berlin) knows CET and CEST", loadBerlin},
	{"dot and dot-dot in paths", dotDot},
	{"os.Executable is an ELF file that exists", executable},
	{"/proc/self/cmdline is os.Args", procCmdline},
	{"/proc/cpuinfo lists a processor", procCPUInfo},
	{"/proc/meminfo has MemTotal", procMeminfo},
	{"/proc/sys/net/core/somaxconn is a positive number", procSomaxconn},

	// Files: create, write, read, seek, truncate.
	{"MkdirTemp and CreateTemp: 0700 and 0600 under /tmp", tempNames},
	{"WriteFile then ReadFile", writeRead},
	{"O_APPEND writes at the end whatever the offset", appendMode},
	{"O_CREATE|O_EXCL on an existing file: EEXIST", exclExisting},
	{"O_TRUNC empties the file", truncOnOpen},
	{"Seek, ReadAt and WriteAt; a write past the end leaves zeros", seekReadAtWriteAt},
	{"Seek before the start: EINVAL", seekNegative},
	{"Truncate grows with zeros and shrinks", truncateGrowShrink},
	{"write to a read-only fd, read from a write-only fd: EBADF", wrongMode},
	{"dup shares the offset; os files are close-on-exec", dupAndCloexec},
	{"io.Copy from file to file", copyFileToFile},
	{"8 MiB in 1 MiB writes, read back intact; Sync", largeFile},
	{"fsync of a directory", syncDir},
	{"an unlinked file still reads through its open fd", unlinkOpen},

	// Names: rename, remove, directories.
	{"rename a file", renameFile},
	{"rename over an existing file replaces it", renameOver},
	{"rename a directory with its contents", renameDir},
	{"rename errors: EISDIR, ENOTDIR, EINVAL, ENOENT, ENOTEMPTY", renameErrors},
	{"Remove of a non-empty directory: ENOTEMPTY", removeNonEmpty},
	{"rmdir of a file: ENOTDIR; unlink of a directory: EISDIR", rmdirFile},
	{"open a directory for writing: EISDIR", openDirWrite},
	{"open under a missing directory: ENOENT", missingParent},
	{"a file as a path component: ENOTDIR", fileAsDir},
	{"O_DIRECTORY on a file, ReadDir of a file: ENOTDIR", directoryFlag},
	{"MkdirAll, Mkdir of an existing name, RemoveAll", mkdirAllRemoveAll},
	{"ReadDir: sorted names and their types", readDirTypes},
	{"300 entries: ReadDir and ReadDir(7) in batches see all", manyEntries},

	// Links.
	{"Symlink, Readlink, Lstat, and reading through it", symlinkBasics},
	{"a dangling symlink: Stat ENOENT, Lstat fine", danglingSymlink},
	{"a symlink loop: ELOOP; O_NOFOLLOW on a symlink: ELOOP", symlinkLoop},
	{"Link: one inode, nlink 2, then 1", hardLink},
	{"Link of a directory: EPERM; Symlink over a name: EEXIST", linkErrors},

	// Metadata and the working directory.
	{"Chmod and File.Chmod set Mode().Perm", chmod},
	{"Chown, Lchown and File.Chown show in Stat_t (the program is root)", chown},
	{"umask 022: 0666 makes 0644, 0777 makes 0755", umask},
	{"access(F_OK) of a file and of a missing name", access},
	{"Chtimes sets ModTime to the nanosecond; a zero time leaves it", chtimes},
	{"Chdir, Getwd, relative names, File.Chdir", chdir},
}

func main() {
	// The first regular file opened makes the runtime's netpoller take an epoll fd and an
	// eventfd for good; have that happen before the count that the last check compares with.
	os.ReadFile("/etc/hosts")
	before, fdsErr := openFDs()
	var err error
	work, err = os.MkdirTemp("/tmp", "files-")
	if err != nil {
		fmt.Println("MkdirTemp:", err)
		os.Exit(1)
	}
	for _, c := range checks {
		report(c.name, c.fn())
	}
	report("RemoveAll of the work directory", removeWork())

	// os/exec opens /dev/null and searches nothing (the path is absolute); the guest's tree has
	// no /bin/true (ENOENT from execve), natively the command runs.
	fmt.Println("exec:", exec.Command("/bin/true").Run())

	// Last, so that every file above had its chance to leak.
	report("/proc/self/fd names a file by its path and a pipe as pipe:[N]", procFdLinks())
	report("no fd leaked (/proc/self/fd)", noLeak(before, fdsErr))
}

func report(name string, err error) {
	switch {
	case err == nil:
		fmt.Printf("check %s: true\n", name)
	case errors.Is(err, errSkip):
		fmt.Printf("check %s: skip\n", name)
	default:
		fmt.Printf("check %s: false (%v)\n", name, err)
	}
}

// want returns nil if ok, else an error saying what was got.
func want(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

// wantErrno checks that err is errno, as errors.Is sees through *PathError and *LinkError.
func wantErrno(what string, err error, errno syscall.Errno) error {
	return want(errors.Is(err, errno), "%s: %v, want %v", what, err, errno)
}

// in names a file in the work directory.
func in(name ...string) string { return filepath.Join(append([]string{work}, name...)...) }

// mkfile creates a file in the work directory with the given contents and returns its path. A
// failure is left for the check to find in what it reads back.
func mkfile(name, data string) string {
	p := in(name)
	os.WriteFile(p, []byte(data), 0o644)
	return p
}

// ---- What the system provides.

func etcHosts() error {
	b, err := os.ReadFile("/etc/hosts")
	return want(err == nil && bytes.Contains(b, []byte("localhost")), "%v %q", err, b)
}

func etcPasswd() error {
	b, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Split(l, ":")
		if len(f) == 7 && f[0] == "root" && f[2] == "0" && f[3] == "0" {
			return nil
		}
	}
	return fmt.Errorf("no root:x:0:0: line in %q", b)
}

// With cgo off, os/user parses /etc/passwd and /etc/group itself.
func userRoot() error {
	u, err := user.Lookup("root")
	if err != nil {
		return err
	}
	g, err := user.LookupGroup("root")
	if err != nil {
		return err
	}
	return want(u.Uid == "0" && u.Gid == "0" && u.HomeDir == "/root" && g.Gid == "0", "%+v %+v", u, g)
}

// The pure-Go resolver reads /etc/nsswitch.conf, /etc/resolv.conf and /etc/hosts; localhost
// must come from the hosts file, without a packet sent.
func lookupLocalhost() error {
	addrs, err := net.LookupHost("localhost")
	return want(err == nil && slices.Contains(addrs, "127.0.0.1"), "%v %v", addrs, err)
}

func rootIsDir() error {
	fi, err := os.Stat("/")
	return want(err == nil && fi.IsDir(), "%v", err)
}

func tmpMode() error {
	fi, err := os.Stat("/tmp")
	if err != nil {
		return err
	}
	m := fi.Mode()
	return want(m.IsDir() && m&os.ModeSticky != 0 && m.Perm() == 0o777, "mode %v", m)
}

func walkZoneinfo() error {
	const root = "/usr/share/zoneinfo"
	found, n := false, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		if p == root+"/Europe/Berlin" {
			found = d.Type().IsRegular()
		}
		return nil
	})
	// Hundreds of zones; the count only rules out a walk that stopped early.
	return want(err == nil && found && n > 300, "found %v after %d entries: %v", found, n, err)
}

func loadBerlin() error {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		return err
	}
	winter, woff := time.Date(2024, 1, 15, 12, 0, 0, 0, time.UTC).In(loc).Zone()
	summer, soff := time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC).In(loc).Zone()
	return want(winter == "CET" && woff == 3600 && summer == "CEST" && soff == 7200,
		"%s %d, %s %d", winter, woff, summer, soff)
}

func dotDot() error {
	hosts, err := os.ReadFile("/etc/hosts")
	if err != nil {
		return err
	}
	for _, p := range []string{"/tmp/../etc/hosts", "/./etc//hosts", "/etc/./../etc/hosts"} {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(b, hosts) {
			return fmt.Errorf("%s: %v", p, err)
		}
	}
	// The root's parent is the root.
	var root, up syscall.Stat_t
	err1, err2 := syscall.Stat("/", &root), syscall.Stat("/..", &up)
	return want(err1 == nil && err2 == nil && root.Ino == up.Ino && root.Dev == up.Dev,
		"/ %d, /.. %d: %v %v", root.Ino, up.Ino, err1, err2)
}

// The guest's is /bin/NAME, where /proc/self/exe points.
func executable() error {
	p, err := os.Executable()
	if err != nil {
		return err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	magic := make([]byte, 4)
	_, err = io.ReadFull(f, magic)
	return want(err == nil && fi.Mode().IsRegular() && string(magic) == "\x7fELF", "%s: %v %q %v", p, fi.Mode(), magic, err)
}

// Each argument ends in a NUL, the last one too.
func procCmdline() error {
	b, err := os.ReadFile("/proc/self/cmdline")
	w := strings.Join(os.Args, "\x00") + "\x00"
	return want(err == nil && string(b) == w, "%q, want %q: %v", b, w, err)
}

func procCPUInfo() error {
	b, err := os.ReadFile("/proc/cpuinfo")
	return want(err == nil && bytes.Contains(b, []byte("processor\t: 0")), "%v %.80q", err, b)
}

func procMeminfo() error {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "MemTotal:" && f[2] == "kB" {
			n, err := strconv.ParseUint(f[1], 10, 64)
			return want(err == nil && n > 0, "%q", l)
		}
	}
	return fmt.Errorf("no MemTotal in %.200q", b)
}

func procSomaxconn() error {
	b, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return want(err == nil && n > 0, "%q", b)
}

// ---- Files.

func tempNames() error {
	d, err := os.MkdirTemp(work, "d-")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(d, "f-*.txt")
	if err != nil {
		return err
	}
	defer f.Close()
	dfi, err1 := os.Stat(d)
	ffi, err2 := f.Stat()
	if err1 != nil || err2 != nil {
		return errors.Join(err1, err2)
	}
	return want(dfi.IsDir() && dfi.Mode().Perm() == 0o700 && ffi.Mode().IsRegular() && ffi.Mode().Perm() == 0o600 &&
		filepath.Dir(f.Name()) == d && strings.HasSuffix(f.Name(), ".txt"),
		"%s %v, %s %v", d, dfi.Mode(), f.Name(), ffi.Mode())
}

func writeRead() error {
	p := in("wr")
	data := []byte("hello, file system\n")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return err
	}
	b, err := os.ReadFile(p)
	fi, _ := os.Stat(p)
	return want(err == nil && bytes.Equal(b, data) && fi.Size() == int64(len(data)), "%q %v", b, err)
}

func appendMode() error {
	p := mkfile("append", "abc")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	f.Seek(0, io.SeekStart) // O_APPEND moves each write to the end regardless
	_, err = f.Write([]byte("def"))
	f.Close()
	b, _ := os.ReadFile(p)
	return want(err == nil && string(b) == "abcdef", "%q %v", b, err)
}

func exclExisting() error {
	p := mkfile("excl", "keep")
	_, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	b, _ := os.ReadFile(p)
	return want(errors.Is(err, os.ErrExist) && errors.Is(err, syscall.EEXIST) && string(b) == "keep", "%v %q", err, b)
}

func truncOnOpen() error {
	p := mkfile("trunc", "something")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	fi, _ := f.Stat()
	f.Close()
	b, _ := os.ReadFile(p)
	return want(fi.Size() == 0 && len(b) == 0, "size %d, %q", fi.Size(), b)
}

func seekReadAtWriteAt() error {
	f, err := os.Create(in("seek"))
	if err != nil {
		return err
	}
	defer f.Close()
	f.WriteString("0123456789")
	end, _ := f.Seek(0, io.SeekEnd)
	at, _ := f.Seek(-4, io.SeekEnd)
	tail := make([]byte, 8)
	n, _ := f.Read(tail)
	if end != 10 || at != 6 || string(tail[:n]) != "6789" {
		return fmt.Errorf("end %d, at %d, read %q", end, at, tail[:n])
	}
	// pread and pwrite do not move the offset.
	mid := make([]byte, 3)
	_, err1 := f.ReadAt(mid, 3)
	_, err2 := f.WriteAt([]byte("ab"), 1)
	cur, _ := f.Seek(0, io.SeekCurrent)
	if err1 != nil || err2 != nil || string(mid) != "345" || cur != 10 {
		return fmt.Errorf("ReadAt %q %v, WriteAt %v, offset %d", mid, err1, err2, cur)
	}
	// A write past the end: the gap reads as zeros and the size is the new end.
	if _, err := f.WriteAt([]byte("END"), 5000); err != nil {
		return err
	}
	fi, _ := f.Stat()
	all := make([]byte, 6000)
	n, err = f.ReadAt(all, 0)
	gapZero := n == 5003 && bytes.Count(all[10:5000], []byte{0}) == 4990
	return want(fi.Size() == 5003 && err == io.EOF && gapZero && string(all[:10]) == "0ab3456789" && string(all[5000:5003]) == "END",
		"size %d, ReadAt %d %v, zeros %v", fi.Size(), n, err, gapZero)
}

func seekNegative() error {
	f, err := os.Create(in("seekneg"))
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Seek(-1, io.SeekStart)
	return wantErrno("Seek(-1)", err, syscall.EINVAL)
}

func truncateGrowShrink() error {
	p := mkfile("truncate", "abcdef")
	if err := os.Truncate(p, 10); err != nil {
		return err
	}
	b, _ := os.ReadFile(p)
	if string(b) != "abcdef\x00\x00\x00\x00" {
		return fmt.Errorf("grown: %q", b)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(3)
	f.Close()
	b, _ = os.ReadFile(p)
	return want(err == nil && string(b) == "abc", "shrunk: %q %v", b, err)
}

func wrongMode() error {
	p := mkfile("modes", "data")
	r, err := os.Open(p)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = r.Write([]byte("x"))
	if err := wantErrno("write to O_RDONLY", err, syscall.EBADF); err != nil {
		return err
	}
	w, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer w.Close()
	_, err = w.Read(make([]byte, 4))
	return wantErrno("read from O_WRONLY", err, syscall.EBADF)
}

// dup makes a second fd for the same open file, without O_CLOEXEC; the os package opens
// everything with it, so that a started command inherits nothing by accident.
func dupAndCloexec() error {
	f, err := os.Open(mkfile("dup", "0123456789"))
	if err != nil {
		return err
	}
	defer f.Close()
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	syscall.Seek(fd, 4, io.SeekStart)
	b := make([]byte, 2)
	n, _ := f.Read(b)
	flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFD, 0)
	dflags, _, _ := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	return want(string(b[:n]) == "45" && e == 0 && flags == syscall.FD_CLOEXEC && dflags == 0,
		"read %q after a seek on the dup; FD_CLOEXEC %d, on the dup %d", b[:n], flags, dflags)
}

// On Linux (*File).ReadFrom tries copy_file_range first and falls back to read and write when
// the kernel says it cannot.
func copyFileToFile() error {
	data := bytes.Repeat([]byte("copy me "), 20000)
	src, err := os.Open(mkfile("copysrc", string(data)))
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(in("copydst"))
	if err != nil {
		return err
	}
	n, err := io.Copy(dst, src)
	dst.Close()
	b, _ := os.ReadFile(in("copydst"))
	return want(err == nil && n == int64(len(data)) && bytes.Equal(b, data), "copied %d: %v", n, err)
}

// Larger than any one write, so the file grows across many pages and several writes.
func largeFile() error {
	const chunk, chunks = 1 << 20, 8
	f, err := os.Create(in("large"))
	if err != nil {
		return err
	}
	h := sha256.New()
	buf := make([]byte, chunk)
	for i := range chunks {
		for j := range buf {
			buf[j] = byte(i*31 + j*7 + j>>11)
		}
		h.Write(buf)
		if n, err := f.Write(buf); err != nil || n != chunk {
			f.Close()
			return fmt.Errorf("write %d: %d %v", i, n, err)
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("Sync: %v", err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	f, err = os.Open(in("large"))
	if err != nil {
		return err
	}
	defer f.Close()
	h2 := sha256.New()
	n, err := io.Copy(h2, f)
	return want(err == nil && n == chunk*chunks && bytes.Equal(h.Sum(nil), h2.Sum(nil)), "read %d: %v, sums equal %v",
		n, err, bytes.Equal(h.Sum(nil), h2.Sum(nil)))
}

func syncDir() error {
	d, err := os.Open(work)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func unlinkOpen() error {
	p := mkfile("unlinked", "still here")
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := os.Remove(p); err != nil {
		return err
	}
	_, serr := os.Stat(p)
	b, err := io.ReadAll(f)
	var nlink uint64 = 99
	if fi, err := f.Stat(); err == nil {
		nlink = uint64(fi.Sys().(*syscall.Stat_t).Nlink)
	}
	return want(errors.Is(serr, fs.ErrNotExist) && err == nil && string(b) == "still here" && nlink == 0,
		"stat %v, read %q %v, nlink %d", serr, b, err, nlink)
}

// ---- Names.

func renameFile() error {
	a, b := mkfile("ren-a", "A"), in("ren-b")
	if err := os.Rename(a, b); err != nil {
		return err
	}
	_, err := os.Stat(a)
	data, _ := os.ReadFile(b)
	return want(errors.Is(err, syscall.ENOENT) && string(data) == "A", "old %v, new %q", err, data)
}

// rename(2) replaces the target in one step; an fd open on the old target keeps its data.
func renameOver() error {
	a, b := mkfile("over-a", "new"), mkfile("over-b", "old")
	f, err := os.Open(b)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := os.Rename(a, b); err != nil {
		return err
	}
	data, _ := os.ReadFile(b)
	old, _ := io.ReadAll(f)
	_, err = os.Stat(a)
	return want(string(data) == "new" && string(old) == "old" && errors.Is(err, fs.ErrNotExist), "%q, open fd %q, %v", data, old, err)
}

func renameDir() error {
	if err := os.MkdirAll(in("rd1", "sub"), 0o755); err != nil {
		return err
	}
	mkfile("rd1/sub/f", "inside")
	if err := os.Rename(in("rd1"), in("rd2")); err != nil {
		return err
	}
	data, err := os.ReadFile(in("rd2", "sub", "f"))
	_, gone := os.Stat(in("rd1"))
	return want(err == nil && string(data) == "inside" && errors.Is(gone, fs.ErrNotExist), "%q %v, old %v", data, err, gone)
}

// os.Rename refuses any existing directory as the target itself (EEXIST, without asking the
// kernel), so the kernel's answers come from rename(2) directly.
func renameErrors() error {
	os.MkdirAll(in("re-full", "x"), 0o755)
	os.Mkdir(in("re-dir"), 0o755)
	os.Mkdir(in("re-empty"), 0o755)
	file := mkfile("re-file", "f")
	for _, c := range []struct {
		from, to string
		errno    syscall.Errno
	}{
		{file, in("re-empty"), syscall.EISDIR},                // a file over a directory
		{in("re-dir"), file, syscall.ENOTDIR},                 // a directory over a file
		{in("re-dir"), in("re-dir", "inner"), syscall.EINVAL}, // a directory into itself
		{in("re-missing"), in("re-new"), syscall.ENOENT},
		{in("re-dir"), in("re-full"), syscall.ENOTEMPTY}, // over a non-empty directory
	} {
		if err := wantErrno(filepath.Base(c.from)+" -> "+filepath.Base(c.to), syscall.Rename(c.from, c.to), c.errno); err != nil {
			return err
		}
	}
	// A directory over an empty one replaces it.
	if err := syscall.Rename(in("re-dir"), in("re-empty")); err != nil {
		return fmt.Errorf("re-dir -> re-empty: %v", err)
	}
	_, err := os.Stat(in("re-dir"))
	return wantErrno("re-dir after", err, syscall.ENOENT)
}

func removeNonEmpty() error {
	os.MkdirAll(in("full", "child"), 0o755)
	err := os.Remove(in("full"))
	_, serr := os.Stat(in("full", "child"))
	return want(errors.Is(err, syscall.ENOTEMPTY) && serr == nil, "%v, child %v", err, serr)
}

// os.Remove hides which of unlink and rmdir failed, so the system calls are made directly.
func rmdirFile() error {
	if err := wantErrno("rmdir(file)", syscall.Rmdir(mkfile("notadir", "")), syscall.ENOTDIR); err != nil {
		return err
	}
	os.Mkdir(in("adir"), 0o755)
	return wantErrno("unlink(dir)", syscall.Unlink(in("adir")), syscall.EISDIR)
}

func openDirWrite() error {
	_, err := os.OpenFile(work, os.O_WRONLY, 0)
	if err := wantErrno("O_WRONLY", err, syscall.EISDIR); err != nil {
		return err
	}
	_, err = os.OpenFile(work, os.O_RDWR|os.O_CREATE, 0o644)
	return wantErrno("O_RDWR|O_CREAT", err, syscall.EISDIR)
}

func missingParent() error {
	_, err := os.Open("/tmp/nonexistent/x")
	if err := wantErrno("open", err, syscall.ENOENT); err != nil {
		return err
	}
	_, err = os.Create("/tmp/nonexistent/x")
	return want(errors.Is(err, syscall.ENOENT) && errors.Is(err, fs.ErrNotExist), "create: %v", err)
}

func fileAsDir() error {
	_, err := os.Open("/etc/hosts/x")
	if err := wantErrno("open", err, syscall.ENOTDIR); err != nil {
		return err
	}
	_, err = os.Stat("/etc/hosts/")
	return wantErrno("stat with a trailing slash", err, syscall.ENOTDIR)
}

func directoryFlag() error {
	_, err := syscall.Open("/etc/hosts", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err := wantErrno("O_DIRECTORY", err, syscall.ENOTDIR); err != nil {
		return err
	}
	_, err = os.ReadDir("/etc/hosts")
	return wantErrno("ReadDir", err, syscall.ENOTDIR)
}

func mkdirAllRemoveAll() error {
	deep := in("a", "b", "c", "d")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		return err
	}
	mkfile("a/b/file", "x")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		return fmt.Errorf("MkdirAll again: %v", err)
	}
	if err := wantErrno("Mkdir again", os.Mkdir(deep, 0o755), syscall.EEXIST); err != nil {
		return err
	}
	if err := os.RemoveAll(in("a")); err != nil {
		return err
	}
	_, err := os.Stat(in("a"))
	return wantErrno("after RemoveAll", err, syscall.ENOENT)
}

func readDirTypes() error {
	d := in("types")
	os.Mkdir(d, 0o755)
	os.Mkdir(filepath.Join(d, "b-dir"), 0o755)
	os.WriteFile(filepath.Join(d, "c-file"), []byte("12345"), 0o644)
	os.Symlink("c-file", filepath.Join(d, "a-link"))
	ents, err := os.ReadDir(d)
	if err != nil {
		return err
	}
	var got []string
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			return err
		}
		got = append(got, fmt.Sprintf("%s %v %d", e.Name(), e.Type(), info.Size()))
	}
	// Sizes: a symlink's is its target's length, a regular file's its contents'.
	w := []string{"a-link L--------- 6", "b-dir d--------- ", "c-file ---------- 5"}
	ok := len(got) == 3 && got[0] == w[0] && strings.HasPrefix(got[1], w[1]) && got[2] == w[2]
	return want(ok, "%q", got)
}

func manyEntries() error {
	d := in("many")
	os.Mkdir(d, 0o755)
	// Long names, so that the listing needs several getdents64 calls (os reads 8 KiB at a time).
	var names []string
	for i := range 300 {
		n := fmt.Sprintf("entry-%03d-with-a-longish-name", i)
		names = append(names, n)
		if err := os.WriteFile(filepath.Join(d, n), nil, 0o644); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(d)
	if err != nil {
		return err
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		return fmt.Errorf("ReadDir: %d entries", len(got))
	}
	// Small batches resume where the last getdents64 stopped, and "." and ".." never appear.
	f, err := os.Open(d)
	if err != nil {
		return err
	}
	defer f.Close()
	got = got[:0]
	for {
		batch, err := f.ReadDir(7)
		for _, e := range batch {
			got = append(got, e.Name())
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	slices.Sort(got)
	return want(slices.Equal(got, names), "ReadDir(7): %d entries", len(got))
}

// ---- Links.

func symlinkBasics() error {
	target := mkfile("sym-target", "through the link")
	os.Mkdir(in("symdir"), 0o755)
	link := in("symdir", "link")
	// A relative target is resolved from the link's directory, not the working directory.
	if err := os.Symlink("../sym-target", link); err != nil {
		return err
	}
	dest, err := os.Readlink(link)
	if err != nil || dest != "../sym-target" {
		return fmt.Errorf("Readlink: %q %v", dest, err)
	}
	lfi, err1 := os.Lstat(link)
	fi, err2 := os.Stat(link)
	tfi, _ := os.Stat(target)
	data, err3 := os.ReadFile(link)
	return want(err1 == nil && err2 == nil && err3 == nil && lfi.Mode()&fs.ModeSymlink != 0 && fi.Mode().IsRegular() &&
		os.SameFile(fi, tfi) && string(data) == "through the link",
		"lstat %v %v, stat %v, read %q %v", lfi.Mode(), err1, err2, data, err3)
}

func danglingSymlink() error {
	link := in("dangling")
	if err := os.Symlink(in("no-such-target"), link); err != nil {
		return err
	}
	_, serr := os.Stat(link)
	lfi, lerr := os.Lstat(link)
	return want(errors.Is(serr, syscall.ENOENT) && lerr == nil && lfi.Mode()&fs.ModeSymlink != 0, "stat %v, lstat %v", serr, lerr)
}

func symlinkLoop() error {
	os.Symlink("loop-b", in("loop-a"))
	os.Symlink("loop-a", in("loop-b"))
	_, err := os.Stat(in("loop-a"))
	if err := wantErrno("stat", err, syscall.ELOOP); err != nil {
		return err
	}
	_, err = os.ReadFile(in("loop-a", "x"))
	if err := wantErrno("a loop as a directory", err, syscall.ELOOP); err != nil {
		return err
	}
	os.Symlink("sym-target", in("nofollow"))
	_, err = syscall.Open(in("nofollow"), syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	return wantErrno("O_NOFOLLOW", err, syscall.ELOOP)
}

func nlink(p string) uint64 {
	var st syscall.Stat_t
	if syscall.Stat(p, &st) != nil {
		return 99
	}
	return uint64(st.Nlink)
}

func hardLink() error {
	a, b := mkfile("hl-a", "shared"), in("hl-b")
	if err := os.Link(a, b); err != nil {
		return err
	}
	fa, _ := os.Stat(a)
	fb, _ := os.Stat(b)
	if !os.SameFile(fa, fb) || nlink(a) != 2 || nlink(b) != 2 {
		return fmt.Errorf("same %v, nlink %d %d", os.SameFile(fa, fb), nlink(a), nlink(b))
	}
	f, err := os.OpenFile(b, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	f.WriteString("+")
	f.Close()
	os.Remove(a)
	data, _ := os.ReadFile(b)
	return want(string(data) == "shared+" && nlink(b) == 1, "%q, nlink %d", data, nlink(b))
}

func linkErrors() error {
	os.Mkdir(in("ld"), 0o755)
	if err := wantErrno("link(dir)", os.Link(in("ld"), in("ld2")), syscall.EPERM); err != nil {
		return err
	}
	if err := wantErrno("link to an existing name", os.Link(mkfile("le", ""), in("ld")), syscall.EEXIST); err != nil {
		return err
	}
	return wantErrno("symlink over a name", os.Symlink("x", in("le")), syscall.EEXIST)
}

// ---- Metadata and the working directory.

func chmod() error {
	p := mkfile("chmod", "")
	if err := os.Chmod(p, 0o640); err != nil {
		return err
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o640 {
		return fmt.Errorf("Chmod 0640: %v", fi.Mode())
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Chmod(0o604); err != nil {
		return err
	}
	fi, _ = f.Stat()
	return want(fi.Mode() == 0o604, "File.Chmod: %v", fi.Mode())
}

func chown() error {
	p := mkfile("chown", "")
	if err := os.Chown(p, 1234, 5678); err != nil {
		return err
	}
	owner := func(p string, lstat bool) (uint32, uint32) {
		var st syscall.Stat_t
		if lstat {
			syscall.Lstat(p, &st)
		} else {
			syscall.Stat(p, &st)
		}
		return st.Uid, st.Gid
	}
	if u, g := owner(p, false); u != 1234 || g != 5678 {
		return fmt.Errorf("after Chown 1234:5678: %d:%d", u, g)
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Chown(-1, 99); err != nil {
		return err
	}
	if u, g := owner(p, false); u != 1234 || g != 99 {
		return fmt.Errorf("after File.Chown -1:99: %d:%d", u, g)
	}
	l := in("chown-link")
	if err := os.Symlink(p, l); err != nil {
		return err
	}
	if err := os.Lchown(l, 7, 7); err != nil {
		return err
	}
	if u, _ := owner(l, true); u != 7 {
		return fmt.Errorf("Lchown: the link's owner is %d", u)
	}
	return want(func() bool { u, _ := owner(p, false); return u == 1234 }(), "Lchown changed the target")
}

func umask() error {
	old := syscall.Umask(0o22)
	defer syscall.Umask(old)
	if err := os.WriteFile(in("umask-f"), nil, 0o666); err != nil {
		return err
	}
	if err := os.Mkdir(in("umask-d"), 0o777); err != nil {
		return err
	}
	ffi, _ := os.Stat(in("umask-f"))
	dfi, _ := os.Stat(in("umask-d"))
	back := syscall.Umask(old) // umask answers with the mask it replaces
	return want(ffi.Mode().Perm() == 0o644 && dfi.Mode().Perm() == 0o755 && back == 0o22,
		"file %v, dir %v, umask read back %o", ffi.Mode(), dfi.Mode(), back)
}

// F_OK only: whether root may read or write is not the question here.
func access() error {
	if err := syscall.Access("/etc/hosts", 0); err != nil {
		return fmt.Errorf("/etc/hosts: %v", err)
	}
	return wantErrno("missing", syscall.Access(in("no-such"), 0), syscall.ENOENT)
}

func chtimes() error {
	p := mkfile("times", "")
	mtime := time.Date(2001, 2, 3, 4, 5, 6, 123456789, time.UTC)
	atime := time.Date(2002, 3, 4, 5, 6, 7, 890, time.UTC)
	if err := os.Chtimes(p, atime, mtime); err != nil {
		return err
	}
	fi, _ := os.Stat(p)
	at := fi.Sys().(*syscall.Stat_t).Atim
	if !fi.ModTime().Equal(mtime) || !time.Unix(at.Sec, at.Nsec).Equal(atime) {
		return fmt.Errorf("mtime %v, atime %v", fi.ModTime(), time.Unix(at.Sec, at.Nsec))
	}
	// A zero time.Time is UTIME_OMIT: that time stays as it was.
	if err := os.Chtimes(p, time.Now(), time.Time{}); err != nil {
		return err
	}
	fi, _ = os.Stat(p)
	return want(fi.ModTime().Equal(mtime), "after an omitted mtime: %v", fi.ModTime())
}

func chdir() error {
	orig, err := os.Getwd()
	if err != nil {
		return err
	}
	defer os.Chdir(orig)
	os.Mkdir(in("cwd"), 0o755)
	mkfile("cwd/rel", "relative")
	if err := os.Chdir(in("cwd")); err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil || wd != in("cwd") {
		return fmt.Errorf("Getwd %q %v", wd, err)
	}
	data, err := os.ReadFile("rel")
	up, err2 := os.ReadFile("../cwd/./rel")
	if err != nil || err2 != nil || string(data) != "relative" || string(up) != "relative" {
		return fmt.Errorf("relative reads: %q %v, %q %v", data, err, up, err2)
	}
	if err := wantErrno("Chdir to a file", os.Chdir("rel"), syscall.ENOTDIR); err != nil {
		return err
	}
	// fchdir: back up by an open directory.
	d, err := os.Open(work)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Chdir(); err != nil {
		return err
	}
	wd, err = os.Getwd()
	return want(err == nil && wd == work, "after File.Chdir: %q %v", wd, err)
}

// ---- At the end.

func removeWork() error {
	if err := os.RemoveAll(work); err != nil {
		return err
	}
	_, err := os.Lstat(work)
	return wantErrno("Lstat after", err, syscall.ENOENT)
}

// openFDs counts the open file descriptors; reading the directory opens one more, the same
// one each time.
func openFDs() (int, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	return len(ents), err
}

// procFdLinks opens a file and a pipe and reads their /proc/self/fd links, as Linux gives them.
func procFdLinks() error {
	f, err := os.CreateTemp("", "fdlink")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	defer w.Close()
	name, err1 := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	pipe, err2 := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", r.Fd()))
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	real, _ := filepath.EvalSymlinks(f.Name())
	return want((name == f.Name() || name == real) && strings.HasPrefix(pipe, "pipe:["), "file %q → %q, pipe → %q", f.Name(), name, pipe)
}

func noLeak(before int, beforeErr error) error {
	after, err := openFDs()
	if err != nil || beforeErr != nil {
		return errors.Join(beforeErr, err)
	}
	return want(after == before, "%d open, %d at the start", after, before)
}
