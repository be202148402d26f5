// Open files of a share: fds whose reads, writes and stats are 9P round trips.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/drivers/virtio/p9"
	"gmpos/sched"
)

// A kind9p open file is a fid of a share, opened on the host (Tlopen or Tlcreate): priv is
// share<<32 | fid, pos the file position (for a directory, Treaddir's cookie). Its calls wait for
// the host, so they cannot be fileOps methods, which return at once: read, write, pread64,
// pwrite64, fstat, getdents64, fsync, ftruncate and fchmod send kind9p files here (p9Read and
// the others) with the thread, which parks until the reply. lseek is local: SEEK_END uses the
// size the open's Tgetattr reported, updated by this file's own writes (a host process writing
// the file meanwhile is not seen; Linux's 9p client in its default cache=none mode asks the
// host instead). The last close clunks the fid.

// p9FileInfo is what the kernel keeps of an open share file, indexed like files.
type p9FileInfo struct {
	size int64
	dir  bool
	ino  uint64
}

var p9Files [maxFiles]p9FileInfo

type p9File struct{}

func p9Of(f *file) (share int, fid uint32) { return int(f.priv >> 32), uint32(f.priv) }

// read and write are never called: sysRead and sysWrite send kind9p files to p9Read, p9Write.
func (p9File) read(f *file, buf, n uintptr) int64  { return -EIO }
func (p9File) write(f *file, buf, n uintptr) int64 { return -EIO }
func (p9File) poll(f *file) uint32                 { return epollIn | epollOut }

// stat is what the kernel knows without asking (fstat asks: p9Fstat).
func (p9File) stat(f *file) fileStat {
	fi := f.index()
	mode := uint32(sIFREG | 0o644)
	if p9Files[fi].dir {
		mode = sIFDIR | 0o755
	}
	s, _ := p9Of(f)
	return fileStat{dev: 0x30 + uint64(s), ino: p9Files[fi].ino, size: uint64(p9Files[fi].size), mode: mode, nlink: 1, blksize: 4096}
}

func (p9File) release(f *file) {
	s, fid := p9Of(f)
	p9Clunk(s, fid)
}

// p9FdCall takes a slot for a call on open file fi, holding a reference to it until the call ends
// (another thread may close the fd meanwhile).
func p9FdCall(t *Thread, gp sched.GID, cpu int, f *file, fi int, op p9Op) (r *p9Req, slot int, ret int64, ok bool) {
	s, fid := p9Of(f)
	r, slot, ret, ok = p9Begin(t, gp, cpu, s, op)
	if !ok {
		return nil, -1, ret, false
	}
	f.refs++
	r.fi, r.fid = int32(fi), fid
	return r, slot, 0, true
}

// p9Start sends an fd call's message and parks the thread.
func p9StartFd(t *Thread, gp sched.GID, cpu int, f *file, slot int, n int, typ uint8) int64 {
	s, _ := p9Of(f)
	if !p9Send(s, slot, n, typ) {
		p9Finish(s, slot, -EIO, cpu)
		return -EIO
	}
	return p9Wait(t, gp, cpu, s, slot)
}

// p9Read reads at most one message's worth at pos (-1: at the file's position, which moves).
func p9Read(t *Thread, gp sched.GID, cpu int, f *file, fi int, buf, n uintptr, pos int64) int64 {
	if p9Files[fi].dir {
		return -EISDIR
	}
	if n == 0 {
		return 0
	}
	r, slot, ret, ok := p9FdCall(t, gp, cpu, f, fi, p9OpRead)
	if !ok {
		return ret
	}
	s, fid := p9Of(f)
	at := pos
	if pos < 0 {
		at = f.pos
	}
	r.buf, r.n, r.pos = buf, min(n, uintptr(p9s[s].iounit)), pos
	return p9StartFd(t, gp, cpu, f, slot, p9.Read(p9s[s].dev.Out(slot), uint16(slot), fid, uint64(at), uint32(r.n)), p9.Tread)
}

// p9Write writes at most one message's worth at pos (-1: at the file's position; O_APPEND: at
// the end, which the host's O_APPEND decides). The data is copied into the message now.
func p9Write(t *Thread, gp sched.GID, cpu int, f *file, fi int, buf, n uintptr, pos int64) int64 {
	if n == 0 {
		return 0
	}
	s, fid := p9Of(f)
	c := min(n, uintptr(p9s[s].iounit))
	if !userRange(buf, c, false) {
		return -EFAULT
	}
	r, slot, ret, ok := p9FdCall(t, gp, cpu, f, fi, p9OpWrite)
	if !ok {
		return ret
	}
	at := pos
	if pos < 0 {
		at = f.pos
	}
	if f.flags&oAppend != 0 {
		at = p9Files[fi].size
	}
	r.n, r.pos, r.size = c, pos, at
	out := p9s[s].dev.Out(slot)
	h := p9.WriteHeader(out, uint16(slot), fid, uint64(at), uint32(c))
	copy(out[h:], userBytes(buf, c))
	return p9StartFd(t, gp, cpu, f, slot, h+int(c), p9.Twrite)
}

// p9Fstat asks the host (Tgetattr) and writes a stat (or statx) to st.
func p9Fstat(t *Thread, gp sched.GID, cpu int, f *file, fi int, st uintptr, statx bool) int64 {
	r, slot, ret, ok := p9FdCall(t, gp, cpu, f, fi, p9OpFstat)
	if !ok {
		return ret
	}
	s, fid := p9Of(f)
	r.buf, r.statx = st, statx
	return p9StartFd(t, gp, cpu, f, slot, p9.Getattr(p9s[s].dev.Out(slot), uint16(slot), fid, p9.GetattrBasic), p9.Tgetattr)
}

// p9Getdents reads directory entries from the directory's cookie on (Treaddir).
func p9Getdents(t *Thread, gp sched.GID, cpu int, f *file, fi int, buf, n uintptr) int64 {
	if !p9Files[fi].dir {
		return -ENOTDIR
	}
	if !userRange(buf, n, true) {
		return -EFAULT
	}
	r, slot, ret, ok := p9FdCall(t, gp, cpu, f, fi, p9OpGetdents)
	if !ok {
		return ret
	}
	s, fid := p9Of(f)
	r.buf, r.n = buf, n
	count := uint32(min(n, uintptr(p9s[s].iounit)))
	return p9StartFd(t, gp, cpu, f, slot, p9.Readdir(p9s[s].dev.Out(slot), uint16(slot), fid, uint64(f.pos), count), p9.Treaddir)
}

// p9Fsync makes the host write the file's data to its disk (Tfsync).
func p9Fsync(t *Thread, gp sched.GID, cpu int, f *file, fi int) int64 {
	_, slot, ret, ok := p9FdCall(t, gp, cpu, f, fi, p9OpFsync)
	if !ok {
		return ret
	}
	s, fid := p9Of(f)
	return p9StartFd(t, gp, cpu, f, slot, p9.Fsync(p9s[s].dev.Out(slot), uint16(slot), fid, false), p9.Tfsync)
}

// p9Fsetattr changes the open file's size, mode or times (ftruncate, fchmod, futimens).
func p9Fsetattr(t *Thread, gp sched.GID, cpu int, f *file, fi int, valid, mode uint32, size, atime, mtime int64) int64 {
	r, slot, ret, ok := p9FdCall(t, gp, cpu, f, fi, p9OpFsetattr)
	if !ok {
		return ret
	}
	s, _ := p9Of(f)
	r.valid, r.mode, r.size, r.atime, r.mtime = valid, mode, size, atime, mtime
	return p9StartFd(t, gp, cpu, f, slot, p9Setattr(p9s[s].dev.Out(slot), uint16(slot), r), p9.Tsetattr)
}

// p9Seek is lseek on a share file (see above for SEEK_END).
func p9Seek(f *file, off int64, whence uint32) int64 {
	return seekTo(f, p9Files[f.index()].size, off, whence)
}
