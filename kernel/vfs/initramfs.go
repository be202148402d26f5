// Unpacking the initramfs into the tree.
// SPDX-License-Identifier: BSD-3-Clause

package vfs

import "unsafe"

// Unpack adds the files of a cpio newc archive (cpio.go) to the tree, as Linux's
// unpack_to_rootfs does (init/initramfs.c): entries in order, each one's parent directory named
// by an earlier entry (or already in the tree); an existing directory takes the entry's mode and
// time, any other existing file is replaced. Names may start with "/" or "./"; "." is the root.
// A regular file's and a symbolic link's data stay where they are in the archive (ext), so the
// archive's memory must stay mapped and unchanged for as long as the tree lives: the kernel
// keeps the module out of the frame allocator.
//
// It returns the number of entries added, or why the archive was refused and the name of the
// entry at fault; entries before that one stay in the tree (the boot stops anyway).
//
// Consecutive entries in one directory (an archive lists a directory's files together) are
// looked up from that directory rather than walked from the root again: the parent is cached
// by its name, and the cache is dropped whenever an entry replaces a file, the only change that
// can make a path lead elsewhere.
func Unpack(b []byte) (n int, why string, at []byte) {
	var parent []byte // the last entry's parent directory's name ("" for the root) ...
	var parentIno Ino // ... and its inode; 0: no cache
	for {
		e, rest, bad := NextCpio(b)
		if bad != "" {
			return n, bad, e.Name
		}
		if e.Trailer {
			return n, "", nil
		}
		b = rest
		name := e.Name
		for len(name) > 0 && name[0] == '/' || len(name) > 1 && name[0] == '.' && name[1] == '/' {
			name = name[1:]
		}
		for len(name) > 0 && name[len(name)-1] == '/' {
			name = name[:len(name)-1]
		}
		perm := e.Mode & ModeBits
		mtime := e.Mtime * 1e9
		if len(name) == 0 || string(name) == "." {
			if e.Mode&SIFMT != SIFDIR {
				return n, "the root is not a directory", e.Name
			}
			Chmod(Root, perm)
			inodes[Root].Mtime = mtime
			n++
			continue
		}
		dir, base := splitLast(name)
		var lk Lookup
		var err Errno
		if parentIno != 0 && string(dir) == string(parent) {
			lk, err = Walk(parentIno, base, false)
		} else {
			lk, err = Walk(Root, name, false)
			parent, parentIno = dir, lk.Dir
			if err != OK {
				parentIno = 0
			}
		}
		switch {
		case err != OK:
			return n, "a parent directory is missing or not a directory", e.Name
		case IsDots(lk.Name):
			return n, "a name ends in . or ..", e.Name
		}
		typ := e.Mode & SIFMT
		if lk.Ino != 0 {
			old := &inodes[lk.Ino]
			if old.IsDir() && typ == SIFDIR {
				Chmod(lk.Ino, perm)
				old.Mtime = mtime
				n++
				continue
			}
			parentIno = 0 // a path through the replaced file leads elsewhere now
			var e Errno
			if old.IsDir() {
				e = Rmdir(lk.Dir, lk.Name)
			} else {
				e = Unlink(lk.Dir, lk.Name)
			}
			if e != OK {
				return n, "an entry replaces a directory that is not empty", name
			}
		}
		var ino Ino
		var e2 Errno
		switch typ {
		case SIFDIR:
			ino, e2 = Mkdir(lk.Dir, lk.Name, perm)
		case SIFREG, SIFLNK:
			if typ == SIFLNK && (len(e.Data) == 0 || len(e.Data) >= PathMax) {
				return n, "a symbolic link's target is empty or too long", e.Name
			}
			ino, e2 = Create(lk.Dir, lk.Name, typ|perm)
			if e2 == OK && len(e.Data) > 0 {
				in := &inodes[ino]
				in.ext, in.Size = uintptr(unsafe.Pointer(unsafe.SliceData(e.Data))), int64(len(e.Data))
			}
		case SIFCHR, SIFBLK, SIFIFO, SIFSOCK:
			ino, e2 = Create(lk.Dir, lk.Name, typ|perm)
			if e2 == OK {
				inodes[ino].Rdev = MakeDev(e.RdevMajor, e.RdevMinor)
			}
		default:
			return n, "an entry has an unknown file type", e.Name
		}
		if e2 != OK {
			return n, "the tree is full (inodes or memory)", e.Name
		}
		inodes[ino].Mtime, inodes[ino].Ctime = mtime, mtime
		inodes[ino].UID, inodes[ino].GID = e.UID, e.GID
		n++
	}
}

// MakeDev encodes a device number as Linux's new_encode_dev (include/linux/kdev_t.h), the
// st_rdev a program sees.
func MakeDev(major, minor uint32) uint64 {
	return uint64(minor&0xff) | uint64(major&0xfff)<<8 | uint64(minor&^0xff)<<12
}

// splitLast splits a relative path at its last slash: the directory part ("" if none) and the
// last name.
func splitLast(name []byte) (dir, base []byte) {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '/' {
			return name[:i], name[i+1:]
		}
	}
	return nil, name
}
