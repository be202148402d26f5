// /proc/self/fd: the calling process's open fds, as symbolic links.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/kernel/vfs"

// Linux's /proc/self/fd (fs/proc/fd.c) has one entry per open fd, a symbolic link to what the fd
// refers to: a path, or "pipe:[INO]", "socket:[INO]", "anon_inode:[eventfd]". Programs list it to
// find leaked fds (os's tests, gmpos's TestGuestFiles) and readlink an entry to name a file.
//
// gmpos's tree is a tmpfs, not a pseudo file system, so the directory is rebuilt from the calling
// process's fd table whenever a path names it (resolve calls procFdRefresh for a path under
// /proc/self/fd): what the caller sees is its own fds at that moment, as on Linux. Opening an
// entry follows the link: a path reopens the file by name; "pipe:[...]" and the like do not
// exist (ENOENT, where Linux would reopen the pipe).
//
// Trap context, BKL.

// procFdDir is /proc/self/fd's inode (boot: procInit).
var procFdDir vfs.Ino

// procFdPrefix is the path that makes resolve refresh the directory.
const procFdPrefix = "/proc/self/fd"

// procFdTarget is scratch for one link's target. BKL.
var procFdTarget [vfs.PathMax]byte

// procFdRefresh makes /proc/self/fd list the current process's fds.
func procFdRefresh() {
	if procFdDir == 0 {
		return
	}
	for emptied := false; !emptied; { // empty it: unlink the first entry that is not a dot, again
		emptied = true
		for off := int64(0); ; {
			_, _, name, next, ok := vfs.NextEntry(procFdDir, off)
			if !ok {
				break
			}
			if !vfs.IsDots(name) {
				emptied = vfs.Unlink(procFdDir, name) != vfs.OK // a failure would loop forever
				break
			}
			off = next
		}
	}
	p := cur()
	for fd := range p.fds {
		fi := p.fds[fd].file
		if fi == 0 {
			continue
		}
		var k kbuf
		k.d(int64(fd))
		n := procFdLink(&files[fi-1])
		if n > 0 {
			vfs.Symlink(procFdDir, k.b[:k.n], procFdTarget[:n])
		}
	}
}

// procFdLink writes what open file f refers to into procFdTarget, as Linux's readlink of
// /proc/self/fd/N says it; the length (0: nothing to say).
func procFdLink(f *file) int {
	var k kbuf
	switch f.kind {
	case kindFile:
		ino := fileIno(f)
		n, e := 0, vfs.ENOENT
		switch {
		case vfs.Get(ino).IsDir(): // a directory knows its own path
			n, e = vfs.Path(ino, procFdTarget[:])
		case f.dir != 0: // a file: where it was opened
			n, e = vfs.PathIn(vfs.Ino(f.dir), ino, procFdTarget[:])
		}
		if e != vfs.OK {
			k.s("(deleted)") // renamed or removed since it was opened
			break
		}
		return n
	case kindDev:
		k.s(devFiles[f.priv].path)
	case kindConsole:
		k.s("/dev/console")
	case kindPipe:
		k.s("pipe:[").d(int64(pipeOf(f).ino)).s("]")
	case kindSocket, kindNetlink:
		k.s("socket:[").d(int64(f.index())).s("]")
	case kindEventfd:
		k.s("anon_inode:[eventfd]")
	case kindEpoll:
		k.s("anon_inode:[eventpoll]")
	case kind9p:
		k.s("anon_inode:[9p]") // a share's file: its host path is not kept
	default:
		k.s("anon_inode:[gmpos]")
	}
	return copy(procFdTarget[:], k.b[:k.n])
}
