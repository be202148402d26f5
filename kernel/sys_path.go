// System calls that name files by path: open, stat, access, readlink, and the rest of the tree's
// name operations.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/mm"
	"gmpos/kernel/vfs"
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
	oTmpfile          = 0o20000000 | 0o200000 // __O_TMPFILE | O_DIRECTORY
	oDirectory        = 0o200000
	oCreat            = 0o100
	oExcl             = 0o200
)

var (
	cwd     vfs.Ino = vfs.Root // the working directory; holds a reference (vfs.Open)
	umask   uint32  = 0o022    // Linux's default for init
	pathBuf [2][vfs.PathMax]byte
	pathLen [2]int // the paths copied by the current call, for strace; -1: none
)

// getPath copies the NUL-terminated path at p into pathBuf[i], a page's worth of user memory
// checked at a time: EFAULT, ENAMETOOLONG. An empty path is returned as such; callers decide
// (ENOENT, or AT_EMPTY_PATH).
func getPath(i int, p uintptr) ([]byte, int64) {
	pathLen[i] = -1
	n := 0
	for n < vfs.PathMax {
		c := min(uintptr(vfs.PathMax-n), 4096-(p+uintptr(n))&4095)
		if !accessOK(p+uintptr(n), c) || !userRange(p+uintptr(n), c, false) {
			return nil, -EFAULT
		}
		for _, b := range userBytes(p+uintptr(n), c) {
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

// startDir is where a relative path starts: the working directory for AT_FDCWD, else the
// directory open on dirfd (EBADF, ENOTDIR). An absolute path ignores dirfd, as Linux does.
func startDir(dirfd int32, path []byte) (vfs.Ino, int64) {
	if len(path) > 0 && path[0] == '/' || dirfd == atFDCWD {
		return cwd, 0
	}
	f, _ := fdFile(dirfd)
	if f == nil {
		return 0, -EBADF
	}
	if f.kind != kindFile || !vfs.Get(fileIno(f)).IsDir() {
		return 0, -ENOTDIR
	}
	return fileIno(f), 0
}

// resolve copies path i, and walks it from dirfd: the lookup, or -errno. An empty path is
// ENOENT.
func resolve(i int, dirfd int32, p uintptr, follow bool) (vfs.Lookup, int64) {
	path, e := getPath(i, p)
	if e != 0 {
		return vfs.Lookup{}, e
	}
	if len(path) == 0 {
		return vfs.Lookup{}, -ENOENT
	}
	start, e := startDir(dirfd, path)
	if e != 0 {
		return vfs.Lookup{}, e
	}
	lk, ve := vfs.Walk(start, path, follow)
	if ve != vfs.OK {
		return lk, -int64(ve)
	}
	return lk, 0
}

// existing is resolve for a file that must exist; a trailing slash demands a directory.
func existing(i int, dirfd int32, p uintptr, follow bool) (vfs.Ino, int64) {
	lk, e := resolve(i, dirfd, p, follow)
	if e != 0 {
		return 0, e
	}
	if lk.Ino == 0 {
		return 0, -ENOENT
	}
	if lk.MustDir && !vfs.Get(lk.Ino).IsDir() {
		return 0, -ENOTDIR
	}
	return lk.Ino, 0
}

// fdOrPath is the file a *at call with AT_EMPTY_PATH and an empty path means: dirfd itself
// (AT_FDCWD: the working directory). ok false: the path is not empty, walk it.
func fdOrPath(dirfd int32, p uintptr, flags int32) (ino vfs.Ino, f *file, e int64, ok bool) {
	if flags&atEmptyPath == 0 {
		return 0, nil, 0, false
	}
	path, e := getPath(0, p)
	if e != 0 || len(path) > 0 {
		return 0, nil, e, e != 0
	}
	if dirfd == atFDCWD {
		return cwd, nil, 0, true
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
// the umask, then what the file's type allows.
func sysOpenat(dirfd int32, p uintptr, flags int32, mode uint32) int64 {
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
	lk, e := resolve(0, dirfd, p, follow)
	if e != 0 {
		return e
	}
	ino := lk.Ino
	if ino == 0 {
		if !create {
			return -ENOENT
		}
		if lk.MustDir {
			return -EISDIR
		}
		var ve vfs.Errno
		if ino, ve = vfs.Create(lk.Dir, lk.Name, vfs.SIFREG|mode&^umask&0o7777); ve != vfs.OK {
			return -int64(ve)
		}
	} else if create && flags&oExcl != 0 {
		return -EEXIST
	}
	in := vfs.Get(ino)
	switch {
	case in.IsSymlink() && flags&oPath == 0:
		return -ELOOP // O_NOFOLLOW (a followed link is never the result)
	case (flags&oDirectory != 0 || lk.MustDir) && !in.IsDir():
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
func sysNewfstatat(dirfd int32, p, st uintptr, flags int32) int64 {
	if flags&^(atSymlinkNofollow|atNoAutomount|atEmptyPath) != 0 {
		return -EINVAL
	}
	if _, _, e, ok := fdOrPath(dirfd, p, flags); ok {
		if e != 0 {
			return e
		}
		if dirfd == atFDCWD {
			return putStatOf(inodeStat(cwd), st)
		}
		return sysFstat(dirfd, st)
	}
	ino, e := existing(0, dirfd, p, flags&atSymlinkNofollow == 0)
	if e != 0 {
		return e
	}
	return putStatOf(inodeStat(ino), st)
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
func sysStatx(dirfd int32, p uintptr, flags int32, mask uint32, buf uintptr) int64 {
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
		if f != nil {
			s = kinds[f.kind].stat(f)
		} else {
			s = inodeStat(cwd)
		}
	} else {
		ino, e := existing(0, dirfd, p, flags&atSymlinkNofollow == 0)
		if e != 0 {
			return e
		}
		s = inodeStat(ino)
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
func sysFaccessat2(dirfd int32, p uintptr, mode, flags int32) int64 {
	if mode&^7 != 0 {
		return -EINVAL
	}
	if flags&^(atEaccess|atSymlinkNofollow|atEmptyPath) != 0 {
		return -EINVAL
	}
	ino, e := existing(0, dirfd, p, flags&atSymlinkNofollow == 0)
	if e != 0 {
		return e
	}
	if in := vfs.Get(ino); mode&1 != 0 && !in.IsDir() && in.Mode&0o111 == 0 {
		return -EACCES
	}
	return 0
}

// sysReadlinkat: a non-positive buffer size is EINVAL before the path is looked at; a file that
// is not a link is EINVAL; the target is cut to the buffer, without a NUL.
func sysReadlinkat(dirfd int32, p uintptr, buf uintptr, size int32) int64 {
	if size <= 0 {
		return -EINVAL
	}
	ino, e := existing(0, dirfd, p, false)
	if e != 0 {
		return e
	}
	t, ve := vfs.Readlink(ino)
	if ve != vfs.OK {
		return -int64(ve)
	}
	n := min(uintptr(len(t)), uintptr(size))
	if !userRange(buf, n, true) {
		return -EFAULT
	}
	copyOut(buf, t[:n])
	return int64(n)
}

// sysMkdirat makes a directory with mode less the umask (fs/namei.c do_mkdirat).
func sysMkdirat(dirfd int32, p uintptr, mode uint32) int64 {
	lk, e := resolve(0, dirfd, p, false)
	if e != 0 {
		return e
	}
	if lk.Ino != 0 || len(lk.Name) == 0 || vfs.IsDots(lk.Name) {
		return -EEXIST
	}
	_, ve := vfs.Mkdir(lk.Dir, lk.Name, mode&0o1777&^umask)
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
	if lk.Ino != 0 || len(lk.Name) == 0 || vfs.IsDots(lk.Name) {
		return -EEXIST
	}
	_, ve := vfs.Create(lk.Dir, lk.Name, vfs.SIFREG|mode&^umask&0o7777)
	return -int64(ve)
}

// sysUnlinkat removes a name (do_unlinkat), or with AT_REMOVEDIR an empty directory
// (do_rmdir): the path's last component decides the errors for "/", "." and "..".
func sysUnlinkat(dirfd int32, p uintptr, flags int32) int64 {
	if flags&^atRemovedir != 0 {
		return -EINVAL
	}
	lk, e := resolve(0, dirfd, p, false)
	if e != 0 {
		return e
	}
	if flags&atRemovedir != 0 {
		switch {
		case len(lk.Name) == 0:
			return -EBUSY
		case string(lk.Name) == ".":
			return -EINVAL
		case string(lk.Name) == "..":
			return -ENOTEMPTY
		}
		return -int64(vfs.Rmdir(lk.Dir, lk.Name))
	}
	if len(lk.Name) == 0 || vfs.IsDots(lk.Name) {
		return -EISDIR
	}
	if lk.Ino == 0 {
		return -ENOENT
	}
	if lk.MustDir {
		if vfs.Get(lk.Ino).IsDir() {
			return -EISDIR
		}
		return -ENOTDIR
	}
	return -int64(vfs.Unlink(lk.Dir, lk.Name))
}

// sysRenameat2 (do_renameat2): "/", "." and ".." as either name are EBUSY; a trailing slash on
// a file that is not a directory ENOTDIR; the rest is vfs.Rename's.
func sysRenameat2(olddfd int32, oldp uintptr, newdfd int32, newp uintptr, flags uint32) int64 {
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
// the old name, AT_EMPTY_PATH names dirfd's file.
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
	} else if ino, e = existing(0, olddfd, oldp, flags&atSymlinkFollow != 0); e != 0 {
		return e
	}
	nw, e := resolve(1, newdfd, newp, false)
	if e != 0 {
		return e
	}
	if nw.Ino != 0 || len(nw.Name) == 0 || vfs.IsDots(nw.Name) {
		return -EEXIST
	}
	if nw.MustDir {
		return -ENOENT
	}
	return -int64(vfs.Link(ino, nw.Dir, nw.Name))
}

// sysSymlinkat makes a symbolic link to target named by linkpath (do_symlinkat).
func sysSymlinkat(target uintptr, newdfd int32, linkp uintptr) int64 {
	t, e := getPath(1, target)
	if e != 0 {
		return e
	}
	if len(t) == 0 {
		return -ENOENT
	}
	lk, e := resolve(0, newdfd, linkp, false)
	if e != 0 {
		return e
	}
	if lk.Ino != 0 || len(lk.Name) == 0 || vfs.IsDots(lk.Name) {
		return -EEXIST
	}
	_, ve := vfs.Symlink(lk.Dir, lk.Name, t)
	return -int64(ve)
}

// sysGetcwd writes the working directory's absolute path and its NUL (fs/d_path.c): ERANGE if
// it does not fit in size bytes, ENOENT once the directory has been removed.
func sysGetcwd(buf, size uintptr) int64 {
	n, ve := vfs.Path(cwd, pathBuf[0][:])
	if ve == vfs.ENOENT {
		return -ENOENT
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

// sysChdir and sysFchdir change the working directory.
func sysChdir(p uintptr) int64 {
	ino, e := existing(0, atFDCWD, p, true)
	if e != 0 {
		return e
	}
	return setCwd(ino)
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
	vfs.Close(cwd)
	cwd = ino
	return 0
}

// sysUmask sets the mask and returns the old one.
func sysUmask(mask uint32) int64 {
	old := umask
	umask = mask & 0o777
	return int64(old)
}

// sysFchmodat changes permission bits (chmod, fchmodat, fchmodat2). A symbolic link's cannot
// change (EOPNOTSUPP, as Linux's fchmodat2 with AT_SYMLINK_NOFOLLOW).
func sysFchmodat(dirfd int32, p uintptr, mode uint32, flags int32) int64 {
	if flags&^(atSymlinkNofollow|atEmptyPath) != 0 {
		return -EINVAL
	}
	var ino vfs.Ino
	var e int64
	if i, f, fe, ok := fdOrPath(dirfd, p, flags); ok {
		if fe != 0 {
			return fe
		}
		if i == 0 && f != nil {
			return 0 // a pipe, socket or the console: Linux changes its anonymous inode
		}
		ino = i
	} else if ino, e = existing(0, dirfd, p, flags&atSymlinkNofollow == 0); e != 0 {
		return e
	}
	if vfs.Get(ino).IsSymlink() {
		return -EOPNOTSUPP
	}
	vfs.Chmod(ino, mode)
	return 0
}

// sysFchmod is fchmod: the file open on fd.
func sysFchmod(fd int32, mode uint32) int64 {
	f, _ := fdFile(fd)
	if f == nil || f.flags&oPath != 0 {
		return -EBADF
	}
	switch f.kind {
	case kindFile:
		vfs.Chmod(fileIno(f), mode)
	case kindDev:
		vfs.Chmod(vfs.Ino(f.aux), mode)
	}
	return 0
}

// sysFchownat: the tree keeps no owners, everything is root's, and root may give a file to
// root: uid and gid 0 or -1 (no change) succeed, any other owner is EPERM rather than a change
// that stat would not show.
func sysFchownat(dirfd int32, p uintptr, uid, gid uint32, flags int32) int64 {
	if flags&^(atSymlinkNofollow|atEmptyPath) != 0 {
		return -EINVAL
	}
	if _, _, e, ok := fdOrPath(dirfd, p, flags); ok {
		if e != 0 {
			return e
		}
	} else if _, e := existing(0, dirfd, p, flags&atSymlinkNofollow == 0); e != 0 {
		return e
	}
	return chownOK(uid, gid)
}

func chownOK(uid, gid uint32) int64 {
	if (uid == 0 || uid == ^uint32(0)) && (gid == 0 || gid == ^uint32(0)) {
		return 0
	}
	return -EPERM
}

// UTIME_NOW and UTIME_OMIT (include/uapi/linux/stat.h).
const (
	utimeNow  = 1<<30 - 1
	utimeOmit = 1<<30 - 2
)

// sysUtimensat sets access and modification times (fs/utimes.c): a NULL path means dirfd's own
// file, NULL times means now, a tv_nsec other than UTIME_NOW/UTIME_OMIT outside [0, 1e9) is
// EINVAL.
func sysUtimensat(dirfd int32, p, times uintptr, flags int32) int64 {
	if flags&^(atSymlinkNofollow|atEmptyPath) != 0 {
		return -EINVAL
	}
	t := [2]int64{-2, -2} // -2: now; -1: omit
	if times != 0 {
		if !userRange(times, 32, false) {
			return -EFAULT
		}
		for i := range t {
			sec, nsec := int64(load64(times+uintptr(16*i))), int64(load64(times+uintptr(16*i)+8))
			switch {
			case nsec == utimeNow:
			case nsec == utimeOmit:
				t[i] = -1
			case nsec < 0 || nsec >= 1e9:
				return -EINVAL
			default:
				t[i] = sec*1e9 + nsec
			}
		}
	}
	var ino vfs.Ino
	if p == 0 {
		f, _ := fdFile(dirfd)
		if dirfd == atFDCWD {
			ino = cwd
		} else if f == nil {
			return -EBADF
		} else if f.kind == kindFile {
			ino = fileIno(f)
		} else if f.kind == kindDev {
			ino = vfs.Ino(f.aux)
		} else {
			return 0
		}
	} else {
		var e int64
		if i, f, fe, ok := fdOrPath(dirfd, p, flags); ok {
			if fe != 0 {
				return fe
			}
			if i == 0 && f != nil {
				return 0
			}
			ino = i
		} else if ino, e = existing(0, dirfd, p, flags&atSymlinkNofollow == 0); e != 0 {
			return e
		}
	}
	now := walltime()
	for i := range t {
		if t[i] == -2 {
			t[i] = now
		}
	}
	vfs.SetTimes(ino, t[0], t[1])
	return 0
}

// sysTruncate and sysFtruncate set a regular file's size (do_sys_truncate, do_sys_ftruncate):
// a negative length is EINVAL; ftruncate needs a file open for writing (EINVAL otherwise, as
// Linux says), truncate a path to a regular file (EISDIR for a directory).
func sysTruncate(p uintptr, length int64) int64 {
	if length < 0 {
		return -EINVAL
	}
	ino, e := existing(0, atFDCWD, p, true)
	if e != 0 {
		return e
	}
	return -int64(vfs.Truncate(ino, length))
}

func sysFtruncate(fd int32, length int64) int64 {
	if length < 0 {
		return -EINVAL
	}
	f, _ := fdFile(fd)
	if f == nil || f.flags&oPath != 0 {
		return -EBADF
	}
	if f.kind != kindFile || f.flags&oAccmode == oRdonly || !vfs.Get(fileIno(f)).IsReg() {
		return -EINVAL
	}
	return -int64(vfs.Truncate(fileIno(f), length))
}

// sysFsync (fsync, fdatasync, syncfs): the tree is memory, so a file's data is as durable as it
// will ever be; pipes, sockets and the console have no fsync (EINVAL, as Linux).
func sysFsync(fd int32) int64 {
	f, _ := fdFile(fd)
	if f == nil {
		return -EBADF
	}
	if f.kind == kindFile || f.kind == kindDev {
		return 0
	}
	return -EINVAL
}

// sysFstatfs and sysStatfs describe the tree as a tmpfs (struct statfs, x86-64 and arm64 alike:
// f_type, f_bsize, f_blocks, f_bfree, f_bavail, f_files, f_ffree, f_fsid, f_namelen, f_frsize,
// f_flags, spare): its blocks are the machine's frames, shared with the program's memory.
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
