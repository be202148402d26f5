// System calls that name files by path: gmpos has no file system yet, so every path is absent.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// The calls still check their arguments as Linux does before it walks the path (fs/open.c,
// fs/stat.c, fs/namei.c getname_flags), so a bad pointer is EFAULT, a bad flag EINVAL, a bad
// directory fd EBADF (or ENOTDIR), and only a well-formed lookup answers ENOENT. With klog=1 each
// such lookup is logged with its path: "no such file" should not look like a wrong path.

const (
	atFDCWD           = -100
	atSymlinkNofollow = 0x100
	atEaccess         = 0x200
	atNoAutomount     = 0x800
	atEmptyPath       = 0x1000
	atStatxSyncType   = 0x6000
	pathMax           = 4096
	nameMax           = 255
	oTmpfile          = 0o20000000 | 0o200000 // __O_TMPFILE | O_DIRECTORY
	oDirectory        = 0o200000
	oCreat            = 0o100
	oExcl             = 0o200
)

// lookupPath checks a path argument and what it is relative to, then fails the lookup: ENOENT.
// empty reports an empty path (the caller may allow it with AT_EMPTY_PATH).
func lookupPath(dirfd int32, path uintptr) (errno int64, empty bool) {
	n, comp := uintptr(0), 0
	for ; n < pathMax; n++ {
		if !userRange(path+n, 1, false) {
			return -EFAULT, false
		}
		c := *(*byte)(ptr(path + n))
		if c == 0 {
			break
		}
		if comp++; c == '/' {
			comp = 0
		} else if comp > nameMax {
			return -ENAMETOOLONG, false // a component longer than NAME_MAX (fs/namei.c)
		}
	}
	if n == pathMax {
		return -ENAMETOOLONG, false
	}
	if n == 0 {
		return -ENOENT, true
	}
	if *(*byte)(ptr(path)) != '/' && dirfd != atFDCWD {
		f, _ := fdFile(dirfd)
		if f == nil {
			return -EBADF, false
		}
		return -ENOTDIR, false // no gmpos file is a directory
	}
	if etcHit = etcLookup(path, n); etcHit >= 0 {
		return -ENOENT, false // only open knows these files (fd_etc.go)
	}
	if devHit = devLookup(path, n); devHit >= 0 {
		return -ENOENT, false // the same for the memory devices (fd_dev.go)
	}
	if cmd.klog {
		var k kbuf
		k.s("log no file system: ").bytes(userBytes(path, min(n, 200))).s(" -> ENOENT").record()
	}
	return -ENOENT, false
}

// sysOpenat opens a path (do_sys_open, build_open_flags): O_TMPFILE needs O_DIRECTORY and a
// write mode; then the lookup.
func sysOpenat(dirfd int32, path uintptr, flags int32) int64 {
	if flags&oTmpfile == 0o20000000 || (flags&oTmpfile == oTmpfile && flags&oAccmode == oRdonly) {
		return -EINVAL
	}
	e, _ := lookupPath(dirfd, path)
	if e == -ENOENT && devHit >= 0 {
		if flags&oTmpfile != 0 {
			return -EINVAL
		}
		if flags&(oCreat|oExcl) == oCreat|oExcl {
			return -EEXIST
		}
		if flags&oDirectory != 0 {
			return -ENOTDIR
		}
		return openFile(kindDev, uint32(flags)&(oAccmode|oNonblock|oAppend|oCloexec), uint64(devHit))
	}
	if e == -ENOENT && etcHit >= 0 {
		if flags&oAccmode != oRdonly || flags&(oCreat|oTmpfile) != 0 {
			return -EROFS
		}
		return openFile(kindEtc, oRdonly|uint32(flags)&(oNonblock|oCloexec), uint64(etcHit))
	}
	return e
}

// etcHit and devHit are the /etc file and the device lookupPath found last (fd_etc.go,
// fd_dev.go), -1 for none. BKL.
var etcHit, devHit = -1, -1

// sysNewfstatat: with AT_EMPTY_PATH and an empty path it is fstat(dirfd).
func sysNewfstatat(dirfd int32, path, st uintptr, flags int32) int64 {
	if flags&^(atSymlinkNofollow|atNoAutomount|atEmptyPath) != 0 {
		return -EINVAL
	}
	e, empty := lookupPath(dirfd, path)
	if empty && flags&atEmptyPath != 0 {
		return sysFstat(dirfd, st)
	}
	return e
}

// sysStatx: the flags are checked first (fs/stat.c statx: the sync type is a two-bit field whose
// value 3 is invalid), then as newfstatat.
func sysStatx(dirfd int32, path uintptr, flags int32, mask uint32, buf uintptr) int64 {
	if flags&^(atSymlinkNofollow|atNoAutomount|atEmptyPath|atStatxSyncType) != 0 || flags&atStatxSyncType == atStatxSyncType {
		return -EINVAL
	}
	if mask&0x80000000 != 0 { // STATX__RESERVED
		return -EINVAL
	}
	e, empty := lookupPath(dirfd, path)
	if empty && flags&atEmptyPath != 0 {
		if f, _ := fdFile(dirfd); f == nil {
			return -EBADF
		}
		return -ENOSYS // statx of an open fd: not implemented (fstat is)
	}
	return e
}

// sysFaccessat2 checks the mode (only R_OK|W_OK|X_OK bits) and the flags, then the lookup.
func sysFaccessat2(dirfd int32, path uintptr, mode, flags int32) int64 {
	if mode&^7 != 0 {
		return -EINVAL
	}
	if flags&^(atEaccess|atSymlinkNofollow|atEmptyPath) != 0 {
		return -EINVAL
	}
	e, _ := lookupPath(dirfd, path)
	return e
}

// sysReadlinkat: a non-positive buffer size is EINVAL before the path is looked at.
func sysReadlinkat(dirfd int32, path uintptr, size int32) int64 {
	if size <= 0 {
		return -EINVAL
	}
	e, _ := lookupPath(dirfd, path)
	return e
}
