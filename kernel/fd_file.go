// Open files of the tree: regular files, directories, and O_PATH handles.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/vfs"
	"gmpos/sched"
)

// A kindFile open file refers to an inode of the tree (kernel/vfs): priv is the inode number,
// pos the file position — a byte offset, or for a directory the getdents64 cookie where the
// next read of it starts. Opening counts a reference in the inode (vfs.Open) and the last close
// drops it, so an unlinked file stays readable through its fds, as on Linux.
//
// Data moves between the tree's frames and user memory directly, fileChunk bytes at a time, each
// chunk's user range checked (and faulted in) first: a read into a buffer that runs into an
// unmapped page returns what it copied before, or EFAULT if nothing. One call transfers at most
// fileMaxRW bytes and returns a short count beyond, which POSIX allows for regular files and Go's
// os.File loops over: the copy runs with the BKL held and interrupts off, and other cores'
// timers must not wait on a 1 GiB read.
type fileFile struct{}

const (
	fileChunk = 1 << 20
	fileMaxRW = 4 << 20
	oPath     = 0o10000000
	oTrunc    = 0o1000
)

func fileIno(f *file) vfs.Ino { return vfs.Ino(f.priv) }

func (fileFile) read(f *file, buf, n uintptr) int64 {
	if f.flags&oPath != 0 {
		return -EBADF
	}
	r := fileRead(fileIno(f), f.pos, buf, n)
	if r > 0 {
		f.pos += r
	}
	return r
}

// fileRead copies up to n bytes at pos of inode ino to user memory at buf (read, pread64).
func fileRead(ino vfs.Ino, pos int64, buf, n uintptr) int64 {
	in := vfs.Get(ino)
	if in.IsDir() {
		return -EISDIR
	}
	if pos >= in.Size {
		return 0
	}
	n = min(n, fileMaxRW, uintptr(in.Size-pos))
	done := uintptr(0)
	for done < n {
		c := min(n-done, fileChunk)
		if !userRange(buf+done, c, true) {
			break
		}
		done += uintptr(vfs.Read(ino, pos+int64(done), userBytes(buf+done, c)))
	}
	if done == 0 && n > 0 {
		return -EFAULT
	}
	return int64(done)
}

func (fileFile) write(f *file, buf, n uintptr) int64 {
	if f.flags&oPath != 0 {
		return -EBADF
	}
	if f.flags&oAppend != 0 {
		f.pos = vfs.Get(fileIno(f)).Size
	}
	r := fileWrite(fileIno(f), f.pos, buf, n)
	if r > 0 {
		f.pos += r
	}
	return r
}

// fileWrite copies up to n bytes from user memory at buf into inode ino at pos (write,
// pwrite64): a short count when memory runs out (ENOSPC if nothing fit) or at the largest size.
func fileWrite(ino vfs.Ino, pos int64, buf, n uintptr) int64 {
	n = min(n, fileMaxRW)
	done := uintptr(0)
	for done < n {
		c := min(n-done, fileChunk)
		if !userRange(buf+done, c, false) {
			if done == 0 {
				return -EFAULT
			}
			break
		}
		w, e := vfs.Write(ino, pos+int64(done), userBytes(buf+done, c))
		done += uintptr(w)
		if e != vfs.OK {
			if done == 0 {
				return -int64(e)
			}
			break
		}
	}
	return int64(done)
}

func (fileFile) poll(f *file) uint32 { return epollIn | epollOut }

func (fileFile) stat(f *file) fileStat { return inodeStat(fileIno(f)) }

func (fileFile) release(f *file) { vfs.Close(fileIno(f)) }

// inodeStat is what stat reports of an inode.
func inodeStat(ino vfs.Ino) fileStat {
	s := vfs.StatOf(ino)
	return fileStat{
		dev: vfs.Dev, ino: s.Ino, nlink: s.Nlink, rdev: s.Rdev, size: s.Size, blksize: 4096,
		blocks: s.Blocks, mode: s.Mode, uid: s.UID, gid: s.GID, atime: s.Atime, mtime: s.Mtime, ctime: s.Ctime,
	}
}

// fileSeek is lseek on a file of the tree (fs/read_write.c generic_file_llseek, and
// dcache_dir_lseek for directories, whose positions are cookies).
func fileSeek(f *file, off int64, whence uint32) int64 {
	return seekTo(f, vfs.Get(fileIno(f)).Size, off, whence)
}

// seekTo moves f's position as lseek(off, whence) does on a file of size bytes (whence already
// checked ≤ 4). SEEK_DATA and SEEK_HOLE see the whole file as data (allowed: a hole may be
// reported as data). The new position, or -EINVAL before the start or on overflow, -ENXIO for
// SEEK_DATA/HOLE at or past the end.
func seekTo(f *file, size, off int64, whence uint32) int64 {
	var pos int64
	switch whence {
	case 0: // SEEK_SET
		pos = off
	case 1: // SEEK_CUR
		pos = f.pos + off
	case 2: // SEEK_END
		pos = size + off
	case 3, 4: // SEEK_DATA, SEEK_HOLE
		if off < 0 || off >= size {
			return -ENXIO
		}
		pos = off
		if whence == 4 {
			pos = size
		}
	}
	if pos < 0 || whence == 1 && off > 0 && pos < f.pos || whence == 2 && off > 0 && pos < size {
		return -EINVAL // before the start, or past the largest offset (overflowed)
	}
	f.pos = pos
	return pos
}

// sysGetdents64 fills buf with struct linux_dirent64 records of directory fd from its position
// on (fs/readdir.c): ino u64, off s64 (the next record's cookie), reclen u16, type u8, the name
// and its NUL, padded to 8. EINVAL when not even the first record fits.
func sysGetdents64(t *Thread, gp sched.GID, cpu int, fd int32, buf, n uintptr) int64 {
	f, fi := fdFile(fd)
	if f == nil || f.flags&oPath != 0 {
		return -EBADF
	}
	if f.kind == kind9p {
		return p9Getdents(t, gp, cpu, f, fi, buf, n)
	}
	if f.kind != kindFile || !vfs.Get(fileIno(f)).IsDir() {
		return -ENOTDIR
	}
	if !userRange(buf, n, true) {
		return -EFAULT
	}
	done := uintptr(0)
	for {
		ino, typ, name, next, ok := vfs.NextEntry(fileIno(f), f.pos)
		if !ok {
			break
		}
		reclen := (19 + uintptr(len(name)) + 1 + 7) &^ 7
		if done+reclen > n {
			if done == 0 {
				return -EINVAL
			}
			break
		}
		p := buf + done
		zeroUser(p, reclen)
		store64(p, uint64(ino))
		store64(p+8, uint64(next))
		store16(p+16, uint16(reclen))
		store8(p+18, typ)
		copyOut(p+19, name)
		done += reclen
		f.pos = next
	}
	return int64(done)
}
