// The operations on names and inodes that the system calls are made of.
// SPDX-License-Identifier: BSD-3-Clause

package vfs

// Each operation takes what Walk found (a directory and a name in it) and checks, in Linux's
// order (fs/namei.c), what the kernel's caller has not: the kernel has already resolved the
// path, refused "." and ".." where they are not allowed, and copied names out of user memory.

// IsDots reports whether a last component is "." or "..", which no operation may create,
// remove or rename.
func IsDots(name []byte) bool { return string(name) == "." || string(name) == ".." }

// Create makes a file of the given mode (a regular file for open's O_CREAT; a device, FIFO or
// socket for mknod) named name in dir, with one link.
func Create(dir Ino, name []byte, mode uint32) (Ino, Errno) {
	ino := newInode(mode)
	if ino == 0 {
		return 0, ENOSPC
	}
	if e := link(dir, name, ino); e != OK {
		put(ino)
		return 0, e
	}
	return ino, OK
}

// link adds the name and counts it in the inode; dir's times change.
func link(dir Ino, name []byte, ino Ino) Errno {
	d := &inodes[dir]
	if d.Nlink == 0 {
		return ENOENT // a removed directory takes no new names (Linux: IS_DEADDIR)
	}
	if e := dirAdd(d, name, ino, DirType(inodes[ino].Mode)); e != OK {
		return e
	}
	inodes[ino].Nlink++
	inodes[ino].Ctime = now
	d.Mtime, d.Ctime = now, now
	return OK
}

// Mkdir makes a directory with its "." and ".." records; the parent gains a link (its "..").
func Mkdir(dir Ino, name []byte, perm uint32) (Ino, Errno) {
	ino := newInode(SIFDIR | perm&ModeBits)
	if ino == 0 {
		return 0, ENOSPC
	}
	in := &inodes[ino]
	if e := dirAdd(in, dot[:], ino, DirType(SIFDIR)); e != OK {
		put(ino)
		return 0, e
	}
	dirAdd(in, dotdot[:], dir, DirType(SIFDIR)) // fits in the page "." took
	if e := link(dir, name, ino); e != OK {
		put(ino)
		return 0, e
	}
	in.Nlink = 2 // its name and its "."
	inodes[dir].Nlink++
	return ino, OK
}

// Symlink makes a symbolic link to target. The target is not looked at: a dangling link is
// allowed; an empty one is ENOENT (fs/namei.c do_symlinkat via getname).
func Symlink(dir Ino, name, target []byte) (Ino, Errno) {
	if len(target) == 0 {
		return 0, ENOENT
	}
	if len(target) >= PathMax {
		return 0, ENAMETOOLONG
	}
	ino := newInode(SIFLNK | 0o777)
	if ino == 0 {
		return 0, ENOSPC
	}
	if _, e := writeData(&inodes[ino], 0, target); e != OK {
		put(ino)
		return 0, e
	}
	if e := link(dir, name, ino); e != OK {
		put(ino)
		return 0, e
	}
	return ino, OK
}

// Link gives inode ino another name. A directory cannot have two (EPERM, as Linux).
func Link(ino, dir Ino, name []byte) Errno {
	in := &inodes[ino]
	if in.IsDir() {
		return EPERM
	}
	if in.Nlink == 0 && in.Opens > 0 {
		return ENOENT // an unlinked open file cannot come back (without O_TMPFILE's AT_EMPTY_PATH)
	}
	return link(dir, name, ino)
}

// Unlink removes a name of a file that is not a directory; the inode goes with its last name
// and its last open file.
func Unlink(dir Ino, name []byte) Errno {
	d := &inodes[dir]
	ino, off := dirLookup(d, name)
	if ino == 0 {
		return ENOENT
	}
	if inodes[ino].IsDir() {
		return EISDIR
	}
	dirRemove(d, off)
	d.Mtime, d.Ctime = now, now
	drop(ino)
	return OK
}

// drop takes one link from a file that lost a name.
func drop(ino Ino) {
	in := &inodes[ino]
	in.Nlink--
	in.Ctime = now
	put(ino)
}

// Rmdir removes an empty directory.
func Rmdir(dir Ino, name []byte) Errno {
	switch string(name) {
	case ".":
		return EINVAL
	case "..":
		return ENOTEMPTY
	}
	d := &inodes[dir]
	ino, off := dirLookup(d, name)
	if ino == 0 {
		return ENOENT
	}
	if !inodes[ino].IsDir() {
		return ENOTDIR
	}
	if inodes[ino].mount != 0 {
		return EBUSY // a share is mounted on it
	}
	if !dirEmpty(&inodes[ino]) {
		return ENOTEMPTY
	}
	dirRemove(d, off)
	d.Nlink-- // its ".." is gone
	d.Mtime, d.Ctime = now, now
	inodes[ino].Nlink = 0
	put(ino)
	return OK
}

// Rename flags (include/uapi/linux/fs.h).
const (
	RenameNoreplace = 1
	RenameExchange  = 2
	RenameWhiteout  = 4
)

// Rename moves the name oname in odir to nname in ndir (fs/namei.c do_renameat2, vfs_rename).
// An existing target is replaced unless RENAME_NOREPLACE; RENAME_EXCHANGE swaps the two.
// "." and ".." are refused by the kernel before (EBUSY).
func Rename(odir Ino, oname []byte, ndir Ino, nname []byte, flags uint32) Errno {
	if flags&^(RenameNoreplace|RenameExchange|RenameWhiteout) != 0 ||
		flags&(RenameNoreplace|RenameExchange) == RenameNoreplace|RenameExchange {
		return EINVAL
	}
	if flags&RenameWhiteout != 0 {
		return EINVAL // whiteouts are overlayfs's, and need CAP_MKNOD: not here
	}
	od, nd := &inodes[odir], &inodes[ndir]
	oino, _ := dirLookup(od, oname)
	if oino == 0 {
		return ENOENT
	}
	if nd.Nlink == 0 {
		return ENOENT // a removed directory takes no new names
	}
	nino, _ := dirLookup(nd, nname)
	switch {
	case flags&RenameNoreplace != 0 && nino != 0:
		return EEXIST
	case flags&RenameExchange != 0 && nino == 0:
		return ENOENT
	}
	if oino == nino {
		return OK // two names of one file: nothing to do (POSIX)
	}
	if inodes[oino].mount != 0 || nino != 0 && inodes[nino].mount != 0 {
		return EBUSY // a share is mounted on one of them
	}
	oisdir := inodes[oino].IsDir()
	nisdir := nino != 0 && inodes[nino].IsDir()
	if flags&RenameExchange == 0 && nino != 0 {
		switch {
		case oisdir && !nisdir:
			return ENOTDIR
		case !oisdir && nisdir:
			return EISDIR
		case nisdir && !dirEmpty(&inodes[nino]):
			return ENOTEMPTY
		}
	}
	// A directory may not move below itself (EINVAL): nor, for an exchange, the other one.
	if oisdir && within(ndir, oino) || flags&RenameExchange != 0 && nisdir && within(odir, nino) {
		return EINVAL
	}
	if flags&RenameExchange != 0 {
		_, ooff := dirLookup(od, oname)
		_, noff := dirLookup(nd, nname)
		dirSet(od, ooff, nino, DirType(inodes[nino].Mode))
		dirSet(nd, noff, oino, DirType(inodes[oino].Mode))
		if odir != ndir {
			reparent(oino, odir, ndir)
			reparent(nino, ndir, odir)
		}
		inodes[oino].Ctime, inodes[nino].Ctime = now, now
		od.Mtime, od.Ctime, nd.Mtime, nd.Ctime = now, now, now, now
		return OK
	}
	if nino != 0 {
		_, noff := dirLookup(nd, nname)
		dirSet(nd, noff, oino, DirType(inodes[oino].Mode))
		if nisdir {
			nd.Nlink-- // the replaced directory's ".." is gone
			inodes[nino].Nlink = 0
			put(nino)
		} else {
			drop(nino)
		}
	} else if e := dirAdd(nd, nname, oino, DirType(inodes[oino].Mode)); e != OK {
		return e
	}
	_, ooff := dirLookup(od, oname)
	dirRemove(od, ooff)
	if odir != ndir {
		reparent(oino, odir, ndir)
	}
	inodes[oino].Ctime = now
	od.Mtime, od.Ctime, nd.Mtime, nd.Ctime = now, now, now, now
	return OK
}

// reparent moves a directory's ".." from one parent to another (nothing for other files).
func reparent(ino, from, to Ino) {
	in := &inodes[ino]
	if !in.IsDir() {
		return
	}
	_, off := dirLookup(in, dotdot[:])
	dirSet(in, off, to, DirType(SIFDIR))
	inodes[from].Nlink--
	inodes[to].Nlink++
}

// within reports whether directory d is dir or below it.
func within(d, dir Ino) bool {
	for {
		if d == dir {
			return true
		}
		if d == Root {
			return false
		}
		d = parentOf(&inodes[d])
	}
}

// Read copies file data at off into dst: the count, 0 at or past the end.
func Read(ino Ino, off int64, dst []byte) int { return readData(&inodes[ino], off, dst) }

// Write copies src into the file at off: the count, short with ENOSPC or EFBIG.
func Write(ino Ino, off int64, src []byte) (int, Errno) { return writeData(&inodes[ino], off, src) }

// Truncate sets a regular file's size (truncate, ftruncate, O_TRUNC).
func Truncate(ino Ino, size int64) Errno {
	in := &inodes[ino]
	switch {
	case in.IsDir():
		return EISDIR
	case !in.IsReg():
		return EINVAL
	case size < 0:
		return EINVAL
	}
	if size == in.Size {
		in.Mtime, in.Ctime = now, now
		return OK
	}
	if e := truncateData(in, size); e != OK {
		return e
	}
	in.Mtime, in.Ctime = now, now
	return OK
}

// Readlink returns a symbolic link's target; EINVAL for any other file (readlink(2)).
func Readlink(ino Ino) ([]byte, Errno) {
	in := &inodes[ino]
	if !in.IsSymlink() {
		return nil, EINVAL
	}
	return linkTarget(in), OK
}

// Chmod sets the permission bits (chmod(2): the type bits stay).
func Chmod(ino Ino, perm uint32) {
	in := &inodes[ino]
	in.Mode = in.Mode&SIFMT | perm&ModeBits
	in.Ctime = now
}

// Chown sets the owner and group; ^0 leaves one as it is (chown(2)'s -1). A regular file loses
// its set-user-ID bit, and its set-group-ID bit if it is group-executable, as Linux's
// (fs/attr.c setattr_should_drop_suidgid: a privileged caller changing the owner too).
func Chown(ino Ino, uid, gid uint32) {
	in := &inodes[ino]
	if uid != ^uint32(0) {
		in.UID = uid
	}
	if gid != ^uint32(0) {
		in.GID = gid
	}
	if in.IsReg() {
		in.Mode &^= 0o4000
		if in.Mode&0o010 != 0 {
			in.Mode &^= 0o2000
		}
	}
	in.Ctime = now
}

// SetTimes sets the access and modification times (utimensat(2)); a negative value leaves the
// time as it is (UTIME_OMIT).
func SetTimes(ino Ino, atime, mtime int64) {
	in := &inodes[ino]
	if atime >= 0 {
		in.Atime = atime
	}
	if mtime >= 0 {
		in.Mtime = mtime
	}
	in.Ctime = now
}

// Reset empties the tree and makes the root directory (boot; tests).
func Reset() {
	if inoUsed > 0 { // at boot the table is still all zeros (BSS): nothing to free or clear
		for i := range inodes {
			if inodes[i].Mode != 0 {
				freeData(&inodes[i])
			}
		}
		inodes = [MaxInodes]Inode{}
	}
	inoCursor, inoUsed = Root, 0
	newInode(SIFDIR | 0o755) // Root
	r := &inodes[Root]
	dirAdd(r, dot[:], Root, DirType(SIFDIR))
	dirAdd(r, dotdot[:], Root, DirType(SIFDIR))
	r.Nlink = 2
}
