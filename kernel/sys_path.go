// System calls that name files by path: open, stat, access, readlink, and the rest of the tree's
// name operations.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/drivers/virtio/p9"
	"gmpos/kernel/mm"
	"gmpos/kernel/vfs"
	"gmpos/sched"
)

// Each call checks its arguments as Linux does before it walks the path (fs/open.c, fs/stat.c,
// fs/namei.c getname_flags) — a bad flag EINVAL, a bad pointer EFAULT, a path of PATH_MAX bytes
// or more ENAMETOOLONG, a bad directory fd EBADF or ENOTDIR — copies the path into the kernel
// (getPath: the program may change its memory meanwhile), resolves it with vfs.Walk from "/", the
// working directory or dirfd (startDir), and then does the operation on the tree. With
// strace=1 the path is printed after the call's arguments.
//
// The working directory and the umask are the process's (CLONE_FS: every thread shares them).
// Protected by the BKL, as the tree.

const (
	atFDCWD           = -100
	atSymlinkNofollow = 0x100
	atRemovedir       = 0x200
	atEaccess         = 0x200
	atSymlinkFollow   = 0x400
	atNoAutomount     = 0x800
	atEmptyPath       = 0x1000
	atStatxSyncType   = 0x6000
	oTmpfile          = 0o20000000 | oDirectory // __O_TMPFILE | O_DIRECTORY
	oCreat            = 0o100
	oExcl             = 0o200
)

var (
	// The working directory is the process's (proc.go: cwd, cwdShare, cwdRel). Inside a share it
	// is the share (cwdShare, -1: none; cwd is then its mount point) and the directory's path
	// below the share's root, cleaned (cwdRel). Relative paths are walked from the share's root
	// with it in front (so ".." works up to the share's root).
	umask   uint32 = 0o022 // Linux's default for init
	pathBuf [2][vfs.PathMax]byte
	pathLen [2]int // the paths copied by the current call, for strace; -1: none
)

// getPath copies the NUL-terminated path at p into pathBuf[i]: EFAULT, ENAMETOOLONG. The user
// memory is checked (and faulted in) up to a page at a time; a page that fails the check as a
// whole is read byte by byte (Linux's strncpy_from_user stops at the NUL): a string constant of
// the program may end just before the kernel's own variables in the image's data pages, which
// no range over them may touch (the Go runtime's first open names one). An empty path is
// returned as such; callers decide (ENOENT, or AT_EMPTY_PATH).
func getPath(i int, p uintptr) ([]byte, int64) {
	pathLen[i] = -1
	n := 0
	for n < vfs.PathMax {
		at := p + uintptr(n)
		c := min(uintptr(vfs.PathMax-n), 4096-at&4095)
		if !accessOK(at, c) || !userRange(at, c, false) {
			c = 1 // this page byte by byte
			if !accessOK(at, 1) || !userRange(at, 1, false) {
				return nil, -EFAULT
			}
		}
		for _, b := range userBytes(at, c) {
			if b == 0 {
				pathLen[i] = n
				return pathBuf[i][:n], 0
			}
			pathBuf[i][n] = b
			n++
		}
	}
	return nil, -ENAMETOOLONG
}

// where is where a path leads: a file of the tree (the embedded lookup), or — Mount not 0 — into
// share Mount-1, at Rest from the share's fid from (its root, or the directory open on dirfd).
type where struct {
	vfs.Lookup
	from  uint32
	viaFd bool // relative to a share's directory fd: every name is the share's
}

// remote reports whether the path's file is a share's; remoteName whether the last name is (for
// calls on a name in a directory: a share's mount point itself is a name of the tree).
func (w *where) remote() bool     { return w.Mount != 0 }
func (w *where) remoteName() bool { return w.Mount != 0 && (len(w.Rest) > 0 || w.viaFd) }
func (w *where) share() int       { return w.Mount - 1 }

// taken reports that the last name cannot be made: it exists, or it is "/", "." or ".." (EEXIST
// for mkdir, mknod, link and symlink, as Linux's filename_create).
func (w *where) taken() bool { return w.Ino != 0 || len(w.Name) == 0 || vfs.IsDots(w.Name) }

// startDir is where a relative path starts: the working directory for AT_FDCWD, else the
// directory open on dirfd (EBADF, ENOTDIR) — of the tree, or of a share (f not nil). An absolute
// path ignores dirfd, as Linux does.
func startDir(dirfd int32, path []byte) (vfs.Ino, *file, int64) {
	if len(path) > 0 && path[0] == '/' || dirfd == atFDCWD {
		return cur().cwd, nil, 0
	}
	f, fi := fdFile(dirfd)
	if f == nil {
		return 0, nil, -EBADF
	}
	if f.kind == kind9p && p9Files[fi].dir {
		return 0, f, 0
	}
	if f.kind != kindFile || !vfs.Get(fileIno(f)).IsDir() {
		return 0, nil, -ENOTDIR
	}
	return fileIno(f), nil, 0
}

// restBuf holds the rest of a path that entered a share through a symbolic link (vfs.WalkAt).
var restBuf [2][vfs.PathMax]byte

// resolve copies path i, and walks it from dirfd: where it leads, or -errno. An empty path is
// ENOENT.
func resolve(i int, dirfd int32, p uintptr, follow bool) (where, int64) {
	path, e := getPath(i, p)
	if e != 0 {
		return where{}, e
	}
	if len(path) == 0 {
		return where{}, -ENOENT
	}
	if len(path) >= len(procFdPrefix) && string(path[:len(procFdPrefix)]) == procFdPrefix {
		procFdRefresh() // the caller's fds, now (procfd.go)
	}
	start, df, e := startDir(dirfd, path)
	if e != 0 {
		return where{}, e
	}
	if cur().cwdShare >= 0 && df == nil && path[0] != '/' && dirfd == atFDCWD {
		// Relative to a working directory inside a share: the share's root, then cur().cwdRel.
		n := copy(restBuf[i][:], cur().cwdRel.bytes())
		if n+1+len(path) > len(restBuf[i]) {
			return where{}, -ENAMETOOLONG
		}
		restBuf[i][n] = '/'
		n += 1 + copy(restBuf[i][n+1:], path)
		return where{Lookup: vfs.Lookup{Mount: cur().cwdShare + 1, Rest: restBuf[i][:n]}, from: p9RootFid, viaFd: true}, 0
	}
	if df != nil {
		s, fid := p9Of(df)
		return where{Lookup: vfs.Lookup{Mount: s + 1, Rest: path}, from: fid, viaFd: true}, 0
	}
	lk, ve := vfs.WalkAt(start, path, follow, restBuf[i][:])
	if ve != vfs.OK {
		return where{Lookup: lk}, -int64(ve)
	}
	return where{Lookup: lk, from: p9RootFid}, 0
}

// existing is resolve for a file that must exist; a trailing slash demands a directory. A path
// into a share is returned as such (the host says whether it exists).
func existing(i int, dirfd int32, p uintptr, follow bool) (where, int64) {
	w, e := resolve(i, dirfd, p, follow)
	if e != 0 || w.remote() {
		return w, e
	}
	if w.Ino == 0 {
		return w, -ENOENT
	}
	if w.MustDir && !vfs.Get(w.Ino).IsDir() {
		return w, -ENOTDIR
	}
	return w, 0
}

// p9FileCall starts a call of op on the file w names in a share (p9Go then sends it); follow:
// a symbolic link as the last name is followed (stat, not lstat).
func p9FileCall(t *Thread, gp sched.GID, cpu int, w *where, op p9Op, follow bool) (*p9Req, int, int64, bool) {
	r, slot, ret, ok := p9PathCall(t, gp, cpu, w.share(), op, w.from, w.Rest, false)
	if ok {
		r.follow = follow
	}
	return r, slot, ret, ok
}

// p9NameCall starts a call of op on the last name of w, in its directory of a share.
func p9NameCall(t *Thread, gp sched.GID, cpu int, w *where, op p9Op) (*p9Req, int, int64, bool) {
	return p9PathCall(t, gp, cpu, w.share(), op, w.from, w.Rest, true)
}

// fdOrPath is the file a *at call with AT_EMPTY_PATH and an empty path means: dirfd itself
// (AT_FDCWD: the working directory). ok false: the path is not empty, walk it.
func fdOrPath(dirfd int32, p uintptr, flags int32) (ino vfs.Ino, f *file, e int64, ok bool) {
	// A share's file (kind9p) comes back as f with ino 0, as pipes and sockets do.
	if flags&atEmptyPath == 0 {
		return 0, nil, 0, false
	}
	path, e := getPath(0, p)
	if e != 0 || len(path) > 0 {
		return 0, nil, e, e != 0
	}
	if dirfd == atFDCWD {
		return cur().cwd, nil, 0, true
	}
	f, _ = fdFile(dirfd)
	if f == nil {
		return 0, nil, -EBADF, true
	}
	if f.kind != kindFile && f.kind != kindDev {
		return 0, f, 0, true // not a file of the tree: the caller falls back to the fd's stat
	}
	if f.kind == kindDev {
		return vfs.Ino(f.aux), f, 0, true
	}
	return fileIno(f), f, 0, true
}

// sysOpenat opens (or with O_CREAT makes) a file (fs/open.c do_sys_openat2, fs/namei.c
// path_openat, do_open): in Linux's order, the flag checks, the walk, creation with mode less
// the umask, then what the file's type allows. A file of a share is opened on the host.
func sysOpenat(t *Thread, gp sched.GID, cpu int, dirfd int32, p uintptr, flags int32, mode uint32) int64 {
	if flags&oTmpfile == 0o20000000 || (flags&oTmpfile == oTmpfile && flags&oAccmode == oRdonly) {
		return -EINVAL
	}
	if flags&oTmpfile == oTmpfile {
		return -EOPNOTSUPP // unnamed temporary files: not yet
	}
	if flags&oPath != 0 {
		flags &= oPath | oDirectory | oNofollow | oCloexec // the rest are ignored (fs/open.c)
	}
	create := flags&oCreat != 0
	follow := flags&oNofollow == 0 && !(create && flags&oExcl != 0)
	w, e := resolve(0, dirfd, p, follow)
	if e != 0 {
		return e
	}
	if w.remote() {
		op := p9OpOpen
		if create && w.remoteName() {
			op = p9OpCreate
		}
		r, slot, ret, ok := p9PathCall(t, gp, cpu, w.share(), op, w.from, w.Rest, op == p9OpCreate)
		if !ok {
			return ret
		}
		r.flags, r.mode = uint32(flags)&^oPath, mode
		if op == p9OpOpen {
			r.follow = flags&oNofollow == 0
		}
		return p9Go(t, gp, cpu, w.share(), slot)
	}
	ino := w.Ino
	if ino == 0 {
		if !create {
			return -ENOENT
		}
		if w.MustDir {
			return -EISDIR
		}
		var ve vfs.Errno
		if ino, ve = vfs.Create(w.Dir, w.Name, vfs.SIFREG|mode&^umask&0o7777); ve != vfs.OK {
			return -int64(ve)
		}
	} else if create && flags&oExcl != 0 {
		return -EEXIST
	}
	in := vfs.Get(ino)
	switch {
	case in.IsSymlink() && flags&oPath == 0:
		return -ELOOP // O_NOFOLLOW (a followed link is never the result)
	case (flags&oDirectory != 0 || w.MustDir) && !in.IsDir():
		return -ENOTDIR
	case in.IsDir() && flags&oPath == 0 && (flags&oAccmode != oRdonly || create):
		return -EISDIR
	}
	procRefresh(ino) // /proc/meminfo says what is free now
	keep := uint32(flags) & (oAccmode | oNonblock | oAppend | oCloexec | oPath)
	if flags&oPath == 0 && in.Mode&vfs.SIFMT == vfs.SIFCHR {
		return openDevice(ino, keep)
	}
	if flags&oTrunc != 0 && flags&oPath == 0 && in.IsReg() && flags&oAccmode != oRdonly {
		if ve := vfs.Truncate(ino, 0); ve != vfs.OK {
			return -int64(ve)
		}
	}
	vfs.Open(ino)
	fd := openFile(kindFile, keep, uint64(ino))
	if fd < 0 {
		vfs.Close(ino)
	} else if f, _ := fdFile(int32(fd)); f != nil {
		f.dir = uint32(w.Dir) // where it was found, for /proc/self/fd (procfd.go)
	}
	return fd
}

// openDevice opens a character device node: a memory device, or /dev/tty (the console, as the
// program's controlling terminal would be); ENXIO for a number no driver has.
func openDevice(ino vfs.Ino, flags uint32) int64 {
	rdev := vfs.Get(ino).Rdev
	if rdev == vfs.MakeDev(5, 0) { // /dev/tty
		return openFile(kindConsole, flags&^oAppend, consoleStdout)
	}
	d := devByRdev(rdev)
	if d < 0 {
		return -ENXIO
	}
	fd := openFile(kindDev, flags, uint64(d))
	if fd >= 0 {
		f, _ := fdFile(int32(fd))
		f.aux = uint32(ino)
		vfs.Open(ino)
	}
	return fd
}

// sysNewfstatat: with AT_EMPTY_PATH and an empty path it is fstat(dirfd).
func sysNewfstatat(t *Thread, gp sched.GID, cpu int, dirfd int32, p, st uintptr, flags int32) int64 {
	if flags&^(atSymlinkNofollow|atNoAutomount|atEmptyPath) != 0 {
		return -EINVAL
	}
	if _, _, e, ok := fdOrPath(dirfd, p, flags); ok {
		if e != 0 {
			return e
		}
		if dirfd == atFDCWD {
			return putStatOf(inodeStat(cur().cwd), st)
		}
		return sysFstat(t, gp, cpu, dirfd, st)
	}
	w, e := existing(0, dirfd, p, flags&atSymlinkNofollow == 0)
	if e != 0 {
		return e
	}
	if w.remote() {
		return p9StatCall(t, gp, cpu, &w, st, false, flags&atSymlinkNofollow == 0)
	}
	return putStatOf(inodeStat(w.Ino), st)
}

// p9StatCall asks the host for a share file's attributes (Twalk, Tgetattr).
func p9StatCall(t *Thread, gp sched.GID, cpu int, w *where, st uintptr, statx, follow bool) int64 {
	r, slot, ret, ok := p9FileCall(t, gp, cpu, w, p9OpStat, follow)
	if !ok {
		return ret
	}
	r.buf, r.statx = st, statx
	return p9Go(t, gp, cpu, w.share(), slot)
}

func putStatOf(s fileStat, st uintptr) int64 {
	if !userRange(st, statSize, true) {
		return -EFAULT
	}
	putStat(st, &s)
	return 0
}

// sysStatx: the flags are checked first (fs/stat.c statx: the sync type is a two-bit field whose
// value 3 is invalid), then as newfstatat; every basic field is reported (STATX_BASIC_STATS).
func sysStatx(t *Thread, gp sched.GID, cpu int, dirfd int32, p uintptr, flags int32, mask uint32, buf uintptr) int64 {
	if flags&^(atSymlinkNofollow|atNoAutomount|atEmptyPath|atStatxSyncType) != 0 || flags&atStatxSyncType == atStatxSyncType {
		return -EINVAL
	}
	if mask&0x80000000 != 0 { // STATX__RESERVED
		return -EINVAL
	}
	var s fileStat
	if _, f, e, ok := fdOrPath(dirfd, p, flags); ok {
		if e != 0 {
			return e
		}
		switch {
		case f != nil && f.kind == kind9p:
			return p9Fstat(t, gp, cpu, f, f.index(), buf, true)
		case f != nil:
			s = kinds[f.kind].stat(f)
		default:
			s = inodeStat(cur().cwd)
		}
	} else {
		w, e := existing(0, dirfd, p, flags&atSymlinkNofollow == 0)
		if e != 0 {
			return e
		}
		if w.remote() {
			return p9StatCall(t, gp, cpu, &w, buf, true, flags&atSymlinkNofollow == 0)
		}
		s = inodeStat(w.Ino)
	}
	if !userRange(buf, statxSize, true) {
		return -EFAULT
	}
	putStatx(buf, &s)
	return 0
}

// statxSize is struct statx's size (include/uapi/linux/stat.h; the same on every architecture).
const statxSize = 256

// putStatx writes struct statx.
func putStatx(p uintptr, s *fileStat) {
	zeroUser(p, statxSize)
	store32(p, 0x7ff) // stx_mask: STATX_BASIC_STATS
	store32(p+4, uint32(s.blksize))
	store32(p+16, uint32(s.nlink))
	store32(p+20, s.uid)
	store32(p+24, s.gid)
	store16(p+28, uint16(s.mode))
	store64(p+32, s.ino)
	store64(p+40, s.size)
	store64(p+48, s.blocks)
	for i, t := range [3]int64{s.atime, s.ctime, s.mtime} { // at 64, (btime 80 unset), 96, 112
		at := p + 64 + uintptr(i)*16
		if i > 0 {
			at += 16
		}
		store64(at, uint64(t/1e9))
		store32(at+8, uint32(t%1e9))
	}
	store32(p+128, uint32(s.rdev>>8&0xfff)) // stx_rdev_major, _minor (new_decode_dev)
	store32(p+132, uint32(s.rdev&0xff|s.rdev>>12&^0xff))
	store32(p+136, uint32(s.dev>>8&0xfff))
	store32(p+140, uint32(s.dev&0xff))
}

// sysFaccessat2 checks the mode (only R_OK|W_OK|X_OK bits) and the flags, then the file: every
// caller is root, so R_OK and W_OK succeed and X_OK needs an execute bit (or a directory).
func sysFaccessat2(t *Thread, gp sched.GID, cpu int, dirfd int32, p uintptr, mode, flags int32) int64 {
	if mode&^7 != 0 {
		return -EINVAL
	}
	if flags&^(atEaccess|atSymlinkNofollow|atEmptyPath) != 0 {
		return -EINVAL
	}
	w, e := existing(0, dirfd, p, flags&atSymlinkNofollow == 0)
	if e != 0 {
		return e
	}
	if w.remote() {
		r, slot, ret, ok := p9FileCall(t, gp, cpu, &w, p9OpAccess, flags&atSymlinkNofollow == 0)
		if !ok {
			return ret
		}
		r.mode = uint32(mode)
		return p9Go(t, gp, cpu, w.share(), slot)
	}
	if in := vfs.Get(w.Ino); mode&1 != 0 && !in.IsDir() && in.Mode&0o111 == 0 {
		return -EACCES
	}
	return 0
}

// sysReadlinkat: a non-positive buffer size is EINVAL before the path is looked at; a file that
// is not a link is EINVAL; the target is cut to the buffer, without a NUL.
func sysReadlinkat(t *Thread, gp sched.GID, cpu int, dirfd int32, p uintptr, buf uintptr, size int32) int64 {
	if size <= 0 {
		return -EINVAL
	}
	w, e := existing(0, dirfd, p, false)
	if e != 0 {
		return e
	}
	if w.remote() {
		r, slot, ret, ok := p9FileCall(t, gp, cpu, &w, p9OpReadlink, false)
		if !ok {
			return ret
		}
		r.buf, r.n = buf, uintptr(size)
		return p9Go(t, gp, cpu, w.share(), slot)
	}
	tg, ve := vfs.Readlink(w.Ino)
	if ve != vfs.OK {
		return -int64(ve)
	}
	n := min(uintptr(len(tg)), uintptr(size))
	if !userRange(buf, n, true) {
		return -EFAULT
	}
	copyOut(buf, tg[:n])
	return int64(n)
}

// sysMkdirat makes a directory with mode less the umask (fs/namei.c do_mkdirat).
func sysMkdirat(t *Thread, gp sched.GID, cpu int, dirfd int32, p uintptr, mode uint32) int64 {
	w, e := resolve(0, dirfd, p, false)
	if e != 0 {
		return e
	}
	if w.remoteName() {
		r, slot, ret, ok := p9NameCall(t, gp, cpu, &w, p9OpMkdir)
		if !ok {
			return ret
		}
		r.mode = mode
		return p9Go(t, gp, cpu, w.share(), slot)
	}
	if w.taken() {
		return -EEXIST
	}
	_, ve := vfs.Mkdir(w.Dir, w.Name, mode&0o1777&^umask)
	return -int64(ve)
}

// sysMknodat makes a regular file (S_IFREG or type 0) like creat; device nodes, FIFOs and
// sockets are EPERM (no driver could serve a new one).
func sysMknodat(dirfd int32, p uintptr, mode uint32) int64 {
	switch mode & vfs.SIFMT {
	case 0, vfs.SIFREG:
	case vfs.SIFCHR, vfs.SIFBLK, vfs.SIFIFO, vfs.SIFSOCK:
		return -EPERM
	default:
		return -EINVAL
	}
	lk, e := resolve(0, dirfd, p, false)
	if e != 0 {
		return e
	}
	if lk.taken() {
		return -EEXIST
	}
	_, ve := vfs.Create(lk.Dir, lk.Name, vfs.SIFREG|mode&^umask&0o7777)
	return -int64(ve)
}

// sysUnlinkat removes a name (do_unlinkat), or with AT_REMOVEDIR an empty directory
// (do_rmdir): the path's last component decides the errors for "/", "." and "..".
func sysUnlinkat(t *Thread, gp sched.GID, cpu int, dirfd int32, p uintptr, flags int32) int64 {
	if flags&^atRemovedir != 0 {
		return -EINVAL
	}
	w, e := resolve(0, dirfd, p, false)
	if e != 0 {
		return e
	}
	if w.remoteName() {
		r, slot, ret, ok := p9NameCall(t, gp, cpu, &w, p9OpUnlink)
		if !ok {
			return ret
		}
		r.flags = uint32(flags)
		return p9Go(t, gp, cpu, w.share(), slot)
	}
	if flags&atRemovedir != 0 {
		switch {
		case len(w.Name) == 0:
			return -EBUSY
		case string(w.Name) == ".":
			return -EINVAL
		case string(w.Name) == "..":
			return -ENOTEMPTY
		}
		return -int64(vfs.Rmdir(w.Dir, w.Name))
	}
	if len(w.Name) == 0 || vfs.IsDots(w.Name) {
		return -EISDIR
	}
	if w.Ino == 0 {
		return -ENOENT
	}
	if w.MustDir {
		if vfs.Get(w.Ino).IsDir() {
			return -EISDIR
		}
		return -ENOTDIR
	}
	return -int64(vfs.Unlink(w.Dir, w.Name))
}

// sysRenameat2 (do_renameat2): "/", "." and ".." as either name are EBUSY; a trailing slash on
// a file that is not a directory ENOTDIR; the rest is vfs.Rename's. Within a share the host
// renames (Trenameat, which has no flags: EINVAL with any); between a share and the tree, or
// two shares, EXDEV, as between two Linux file systems.
func sysRenameat2(t *Thread, gp sched.GID, cpu int, olddfd int32, oldp uintptr, newdfd int32, newp uintptr, flags uint32) int64 {
	if flags&^(vfs.RenameNoreplace|vfs.RenameExchange|vfs.RenameWhiteout) != 0 {
		return -EINVAL
	}
	old, e := resolve(0, olddfd, oldp, false)
	if e != 0 {
		return e
	}
	nw, e := resolve(1, newdfd, newp, false)
	if e != 0 {
		return e
	}
	if old.remoteName() || nw.remoteName() {
		if old.Mount != nw.Mount || !old.remoteName() || !nw.remoteName() {
			return -EXDEV
		}
		if flags != 0 {
			return -EINVAL
		}
		r, slot, ret, ok := p9NameCall(t, gp, cpu, &old, p9OpRename)
		if !ok {
			return ret
		}
		r.from2 = nw.from
		p9Clean(&r.path2, nw.Rest)
		if r.path2.n == 0 {
			p9s[old.share()].req[slot] = p9Req{}
			return -EBUSY
		}
		splitLast(&r.path2, &r.name2)
		return p9Go(t, gp, cpu, old.share(), slot)
	}
	if len(old.Name) == 0 || vfs.IsDots(old.Name) || len(nw.Name) == 0 || vfs.IsDots(nw.Name) {
		return -EBUSY
	}
	if old.Ino == 0 {
		return -ENOENT
	}
	if !vfs.Get(old.Ino).IsDir() && (old.MustDir || nw.MustDir) {
		return -ENOTDIR
	}
	return -int64(vfs.Rename(old.Dir, old.Name, nw.Dir, nw.Name, flags))
}

// sysLinkat gives a file another name (do_linkat); AT_SYMLINK_FOLLOW follows a link given as
// the old name, AT_EMPTY_PATH names dirfd's file. Hard links within a share are not made here
// (EOPNOTSUPP); between a share and the tree they are EXDEV.
func sysLinkat(olddfd int32, oldp uintptr, newdfd int32, newp uintptr, flags int32) int64 {
	if flags&^(atSymlinkFollow|atEmptyPath) != 0 {
		return -EINVAL
	}
	var ino vfs.Ino
	if i, _, e, ok := fdOrPath(olddfd, oldp, flags); ok {
		if e != 0 {
			return e
		}
		if ino = i; ino == 0 {
			return -ENOENT
		}
	} else {
		w, e := existing(0, olddfd, oldp, flags&atSymlinkFollow != 0)
		if e != 0 {
			return e
		}
		if w.remote() {
			return -EOPNOTSUPP
		}
		ino = w.Ino
	}
	nw, e := resolve(1, newdfd, newp, false)
	if e != 0 {
		return e
	}
	if nw.remoteName() {
		return -EXDEV
	}
	if nw.taken() {
		return -EEXIST
	}
	if nw.MustDir {
		return -ENOENT
	}
	return -int64(vfs.Link(ino, nw.Dir, nw.Name))
}

// sysSymlinkat makes a symbolic link to target named by linkpath (do_symlinkat).
func sysSymlinkat(t *Thread, gp sched.GID, cpu int, target uintptr, newdfd int32, linkp uintptr) int64 {
	tg, e := getPath(1, target)
	if e != 0 {
		return e
	}
	if len(tg) == 0 {
		return -ENOENT
	}
	w, e := resolve(0, newdfd, linkp, false)
	if e != 0 {
		return e
	}
	if w.remoteName() {
		r, slot, ret, ok := p9NameCall(t, gp, cpu, &w, p9OpSymlink)
		if !ok {
			return ret
		}
		r.path2.n = copy(r.path2.b[:], tg) // the target, as given
		return p9Go(t, gp, cpu, w.share(), slot)
	}
	if w.taken() {
		return -EEXIST
	}
	_, ve := vfs.Symlink(w.Dir, w.Name, tg)
	return -int64(ve)
}

// sysGetcwd writes the working directory's absolute path and its NUL (fs/d_path.c): ERANGE if
// it does not fit in size bytes, ENOENT once the directory has been removed.
func sysGetcwd(buf, size uintptr) int64 {
	n, ve := vfs.Path(cur().cwd, pathBuf[0][:])
	if ve == vfs.ENOENT {
		return -ENOENT
	}
	if ve == vfs.OK && cur().cwdShare >= 0 && cur().cwdRel.n > 0 { // the mount point's path, then cur().cwdRel
		if n+1+cur().cwdRel.n >= len(pathBuf[0]) {
			return -ERANGE
		}
		if n > 1 {
			pathBuf[0][n] = '/'
			n++
		}
		n += copy(pathBuf[0][n:], cur().cwdRel.bytes())
	}
	if ve != vfs.OK || uintptr(n)+1 > size {
		return -ERANGE
	}
	pathBuf[0][n] = 0
	if !userRange(buf, uintptr(n)+1, true) {
		return -EFAULT
	}
	copyOut(buf, pathBuf[0][:n+1])
	return int64(n + 1)
}

// sysChdir and sysFchdir change the working directory: a directory of the tree, a share's
// mount point, or a directory inside a share (asked of the host: p9OpChdir, which sets it).
func sysChdir(t *Thread, gp sched.GID, cpu int, p uintptr) int64 {
	w, e := existing(0, atFDCWD, p, true)
	if e != 0 {
		return e
	}
	if !w.remote() || len(w.Rest) == 0 && !w.viaFd {
		return setCwd(w.Ino)
	}
	r, slot, ret, ok := p9FileCall(t, gp, cpu, &w, p9OpChdir, true)
	if !ok {
		return ret
	}
	r.path2 = r.path // what cur().cwdRel becomes (the walk consumes path)
	return p9Go(t, gp, cpu, w.share(), slot)
}

func sysFchdir(fd int32) int64 {
	f, _ := fdFile(fd)
	if f == nil {
		return -EBADF
	}
	if f.kind != kindFile {
		return -ENOTDIR
	}
	return setCwd(fileIno(f))
}

func setCwd(ino vfs.Ino) int64 {
	if !vfs.Get(ino).IsDir() {
		return -ENOTDIR
	}
	vfs.Open(ino)
	vfs.Close(cur().cwd)
	cur().cwd, cur().cwdShare, cur().cwdRel.n = ino, -1, 0
	return 0
}

// setShareCwd makes directory rel of share i the working directory (p9OpChdir's end, or boot's
// cwd=): cur().cwd becomes the share's mount point, whose reference it holds.
func setShareCwd(p *process, i int, rel *p9Path) {
	vfs.Open(p9s[i].ino)
	vfs.Close(p.cwd)
	p.cwd, p.cwdShare, p.cwdRel = p9s[i].ino, i, *rel
	if p.cwdRel.n == 0 {
		p.cwdShare = -1 // the mount point itself: a directory of the tree
	}
}

// sysUmask sets the mask and returns the old one.
func sysUmask(mask uint32) int64 {
	old := umask
	umask = mask & 0o777
	return int64(old)
}

// sysFchmodat changes permission bits (chmod, fchmodat, fchmodat2). A symbolic link's cannot
// change (EOPNOTSUPP, as Linux's fchmodat2 with AT_SYMLINK_NOFOLLOW).
func sysFchmodat(t *Thread, gp sched.GID, cpu int, dirfd int32, p uintptr, mode uint32, flags int32) int64 {
	if flags&^(atSymlinkNofollow|atEmptyPath) != 0 {
		return -EINVAL
	}
	var ino vfs.Ino
	if i, f, fe, ok := fdOrPath(dirfd, p, flags); ok {
		if fe != 0 {
			return fe
		}
		if i == 0 && f != nil {
			return sysFchmod(t, gp, cpu, dirfd, mode)
		}
		ino = i
	} else {
		w, e := existing(0, dirfd, p, flags&atSymlinkNofollow == 0)
		if e != 0 {
			return e
		}
		if w.remote() {
			return p9SetattrCall(t, gp, cpu, &w, p9.SetattrMode, mode, 0, 0, 0)
		}
		ino = w.Ino
	}
	if vfs.Get(ino).IsSymlink() {
		return -EOPNOTSUPP
	}
	vfs.Chmod(ino, mode)
	return 0
}

// p9SetattrCall changes a share file's attributes by path (Twalk, Tsetattr).
func p9SetattrCall(t *Thread, gp sched.GID, cpu int, w *where, valid, mode uint32, size, atime, mtime int64) int64 {
	r, slot, ret, ok := p9FileCall(t, gp, cpu, w, p9OpSetattr, true)
	if !ok {
		return ret
	}
	r.valid, r.mode, r.size, r.atime, r.mtime = valid, mode, size, atime, mtime
	return p9Go(t, gp, cpu, w.share(), slot)
}

// sysFchmod is fchmod: the file open on fd. A pipe's, socket's or the console's is accepted and
// not kept (Linux changes their anonymous inode).
func sysFchmod(t *Thread, gp sched.GID, cpu int, fd int32, mode uint32) int64 {
	f, fi := fdFile(fd)
	if f == nil || f.flags&oPath != 0 {
		return -EBADF
	}
	switch f.kind {
	case kindFile:
		vfs.Chmod(fileIno(f), mode)
	case kindDev:
		vfs.Chmod(vfs.Ino(f.aux), mode)
	case kind9p:
		return p9Fsetattr(t, gp, cpu, f, fi, p9.SetattrMode, mode, 0, 0, 0)
	}
	return 0
}

// sysFchownat changes a file's owner and group (chown, lchown, fchownat, fchown: fs/open.c
// chown_common): the caller is root, so any ids; -1 leaves one as it is. A share's file is
// changed on the host (Tsetattr), which may refuse (the host runs QEMU as its user).
func sysFchownat(t *Thread, gp sched.GID, cpu int, dirfd int32, p uintptr, uid, gid uint32, flags int32) int64 {
	if flags&^(atSymlinkNofollow|atEmptyPath) != 0 {
		return -EINVAL
	}
	if _, f, e, ok := fdOrPath(dirfd, p, flags); ok {
		if e != 0 {
			return e
		}
		if f != nil {
			return sysFchown(t, gp, cpu, dirfd, uid, gid)
		}
		vfs.Chown(cur().cwd, uid, gid)
		return 0
	}
	w, e := existing(0, dirfd, p, flags&atSymlinkNofollow == 0)
	if e != 0 {
		return e
	}
	if w.remote() {
		r, slot, ret, ok := p9FileCall(t, gp, cpu, &w, p9OpSetattr, flags&atSymlinkNofollow == 0)
		if !ok {
			return ret
		}
		r.valid, r.uid, r.gid = p9ChownValid(uid, gid), uid, gid
		return p9Go(t, gp, cpu, w.share(), slot)
	}
	vfs.Chown(w.Ino, uid, gid)
	return 0
}

// sysFchown is fchown: the file open on fd (a pipe's, socket's or the console's: accepted, as
// Linux changes their anonymous inode).
func sysFchown(t *Thread, gp sched.GID, cpu int, fd int32, uid, gid uint32) int64 {
	f, fi := fdFile(fd)
	if f == nil || f.flags&oPath != 0 {
		return -EBADF
	}
	switch f.kind {
	case kindFile:
		vfs.Chown(fileIno(f), uid, gid)
	case kindDev:
		vfs.Chown(vfs.Ino(f.aux), uid, gid)
	case kind9p:
		r, slot, ret, ok := p9FdCall(t, gp, cpu, f, fi, p9OpFsetattr)
		if !ok {
			return ret
		}
		r.valid, r.uid, r.gid = p9ChownValid(uid, gid), uid, gid
		s, _ := p9Of(f)
		return p9StartFd(t, gp, cpu, f, slot, p9Setattr(p9s[s].dev.Out(slot), uint16(slot), r), p9.Tsetattr)
	}
	return 0
}

// p9ChownValid is Tsetattr's valid bits for a chown of uid, gid (-1: unchanged).
func p9ChownValid(uid, gid uint32) uint32 {
	v := uint32(0)
	if uid != ^uint32(0) {
		v |= p9.SetattrUID
	}
	if gid != ^uint32(0) {
		v |= p9.SetattrGID
	}
	return v
}

// UTIME_NOW and UTIME_OMIT (include/uapi/linux/stat.h).
const (
	utimeNow  = 1<<30 - 1
	utimeOmit = 1<<30 - 2
)

// sysUtimensat sets access and modification times (fs/utimes.c): a NULL path means dirfd's own
// file, NULL times means now, a tv_nsec other than UTIME_NOW/UTIME_OMIT outside [0, 1e9) is
// EINVAL.
func sysUtimensat(t *Thread, gp sched.GID, cpu int, dirfd int32, p, times uintptr, flags int32) int64 {
	if flags&^(atSymlinkNofollow|atEmptyPath) != 0 {
		return -EINVAL
	}
	tm := [2]int64{-2, -2} // -2: now; -1: omit
	if times != 0 {
		if !userRange(times, 32, false) {
			return -EFAULT
		}
		for i := range tm {
			sec, nsec := int64(load64(times+uintptr(16*i))), int64(load64(times+uintptr(16*i)+8))
			switch {
			case nsec == utimeNow:
			case nsec == utimeOmit:
				tm[i] = -1
			case nsec < 0 || nsec >= 1e9:
				return -EINVAL
			default:
				tm[i] = sec*1e9 + nsec
			}
		}
	}
	now := walltime()
	// What a share's Tsetattr is told: a time given (ATIME_SET), now (ATIME alone), or nothing.
	valid := uint32(0)
	for i, bits := range [2][2]uint32{{p9.SetattrAtime, p9.SetattrAtimeSet}, {p9.SetattrMtime, p9.SetattrMtimeSet}} {
		switch {
		case tm[i] == -2:
			valid |= bits[0]
			tm[i] = now
		case tm[i] >= 0:
			valid |= bits[0] | bits[1]
		}
	}
	var ino vfs.Ino
	var f *file
	if p == 0 {
		f, _ = fdFile(dirfd)
		if dirfd == atFDCWD {
			ino = cur().cwd
		} else if f == nil {
			return -EBADF
		}
	} else {
		if i, df, fe, ok := fdOrPath(dirfd, p, flags); ok {
			if fe != 0 {
				return fe
			}
			ino, f = i, df
		} else {
			w, e := existing(0, dirfd, p, flags&atSymlinkNofollow == 0)
			if e != 0 {
				return e
			}
			if w.remote() {
				return p9SetattrCall(t, gp, cpu, &w, valid, 0, 0, tm[0], tm[1])
			}
			ino = w.Ino
		}
	}
	if f != nil && ino == 0 {
		switch f.kind {
		case kindFile:
			ino = fileIno(f)
		case kindDev:
			ino = vfs.Ino(f.aux)
		case kind9p:
			return p9Fsetattr(t, gp, cpu, f, f.index(), valid, 0, 0, tm[0], tm[1])
		default:
			return 0 // a pipe, socket or the console: their anonymous inode
		}
	}
	vfs.SetTimes(ino, tm[0], tm[1])
	return 0
}

// sysTruncate and sysFtruncate set a regular file's size (do_sys_truncate, do_sys_ftruncate):
// a negative length is EINVAL; ftruncate needs a file open for writing (EINVAL otherwise, as
// Linux says), truncate a path to a regular file (EISDIR for a directory).
func sysTruncate(t *Thread, gp sched.GID, cpu int, p uintptr, length int64) int64 {
	if length < 0 {
		return -EINVAL
	}
	w, e := existing(0, atFDCWD, p, true)
	if e != 0 {
		return e
	}
	if w.remote() {
		return p9SetattrCall(t, gp, cpu, &w, p9.SetattrSize, 0, length, 0, 0)
	}
	return -int64(vfs.Truncate(w.Ino, length))
}

func sysFtruncate(t *Thread, gp sched.GID, cpu int, fd int32, length int64) int64 {
	if length < 0 {
		return -EINVAL
	}
	f, fi := fdFile(fd)
	if f == nil || f.flags&oPath != 0 {
		return -EBADF
	}
	if f.kind == kind9p && f.flags&oAccmode != oRdonly && !p9Files[fi].dir {
		return p9Fsetattr(t, gp, cpu, f, fi, p9.SetattrSize, 0, length, 0, 0)
	}
	if f.kind != kindFile || f.flags&oAccmode == oRdonly || !vfs.Get(fileIno(f)).IsReg() {
		return -EINVAL
	}
	return -int64(vfs.Truncate(fileIno(f), length))
}

// sysFsync (fsync, fdatasync, syncfs): the tree is memory, so a file's data is as durable as it
// will ever be; a share's file is synced on the host (Tfsync); pipes, sockets and the console
// have no fsync (EINVAL, as Linux).
func sysFsync(t *Thread, gp sched.GID, cpu int, fd int32) int64 {
	f, fi := fdFile(fd)
	if f == nil {
		return -EBADF
	}
	switch f.kind {
	case kindFile, kindDev:
		return 0
	case kind9p:
		return p9Fsync(t, gp, cpu, f, fi)
	}
	return -EINVAL
}

// sysFstatfs and sysStatfs describe the tree as a tmpfs (struct statfs, x86-64 and arm64 alike:
// f_type, f_bsize, f_blocks, f_bfree, f_bavail, f_files, f_ffree, f_fsid, f_namelen, f_frsize,
// f_flags, spare): its blocks are the machine's frames, shared with the program's memory. (A
// share's statfs is the tree's too: Tstatfs is not asked.)
func sysStatfs(p, buf uintptr) int64 {
	if _, e := existing(0, atFDCWD, p, true); e != 0 {
		return e
	}
	return putStatfs(buf)
}

func sysFstatfs(fd int32, buf uintptr) int64 {
	if f, _ := fdFile(fd); f == nil {
		return -EBADF
	}
	return putStatfs(buf)
}

func putStatfs(buf uintptr) int64 {
	if !userRange(buf, 120, true) {
		return -EFAULT
	}
	total, free := mm.FrameCounts()
	used, inodes := vfs.Usage()
	zeroUser(buf, 120)
	store64(buf, 0x01021994) // TMPFS_MAGIC
	store64(buf+8, 4096)
	store64(buf+16, uint64(total))
	store64(buf+24, uint64(free))
	store64(buf+32, uint64(free))
	store64(buf+40, uint64(inodes))
	store64(buf+48, uint64(inodes-used))
	store64(buf+64, vfs.NameMax)
	store64(buf+72, 4096)
	return 0
}

// sysFsyncLike is flock and fadvise64: one process holds every lock (they never conflict) and
// advice may be ignored, so both succeed on any open file.
func sysFsyncLike(fd int32) int64 {
	if f, _ := fdFile(fd); f == nil {
		return -EBADF
	}
	return 0
}
