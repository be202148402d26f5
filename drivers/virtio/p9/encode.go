// T-message encoders: one request written into the caller's buffer, its length returned.
// SPDX-License-Identifier: BSD-3-Clause

package p9

// Every encoder writes one complete T-message at the start of b — the header with its final
// size, then the body in the order Linux's client sends it (net/9p/client.c; the field lists
// are in each function's comment) — and returns the message's length. It returns 0, and
// writes nothing, when the message does not fit b or a string is longer than 65535 bytes.
// b is usually a device out-buffer (Device.Out). Encoders do not allocate, and keep nothing.
//
// Names (Lcreate, Mkdir, Unlinkat, Renameat, Symlink, Link) are single path elements; the
// encoders send what they are given, so the caller checks them first (ValidName).

// strOK reports whether s fits a string's len[2].
func strOK(s []byte) bool { return len(s) <= maxStr }

// Version encodes Tversion: msize[4] version[s]. tag should be NoTag (version(5)); version is
// Version2000L.
func Version(b []byte, tag uint16, msize uint32, version string) int {
	n := HeaderSize + 4 + 2 + len(version)
	if len(version) > maxStr || !fits(b, n) {
		return 0
	}
	o := header(b, n, Tversion, tag)
	o = put32(b, o, msize)
	putString(b, o, version)
	return n
}

// Attach encodes Tattach: fid[4] afid[4] uname[s] aname[s] n_uname[4]. afid is NoFid (no
// authentication); nUname is the numeric uid the server should act as (NoUname: use uname).
// QEMU ignores aname (the export is fixed by -fsdev) and, with security_model=none, acts with
// its own credentials whatever the names say.
func Attach(b []byte, tag uint16, fid, afid uint32, uname, aname string, nUname uint32) int {
	n := HeaderSize + 4 + 4 + 2 + len(uname) + 2 + len(aname) + 4
	if len(uname) > maxStr || len(aname) > maxStr || !fits(b, n) {
		return 0
	}
	o := header(b, n, Tattach, tag)
	o = put32(b, o, fid)
	o = put32(b, o, afid)
	o = putString(b, o, uname)
	o = putString(b, o, aname)
	put32(b, o, nUname)
	return n
}

// Flush encodes Tflush: oldtag[2] — abandon the request tagged oldtag (flush(5)). A reply to
// oldtag that arrives before the Rflush is honoured as if nothing had been flushed; oldtag may
// be reused only after the Rflush. Over virtio, oldtag's slot stays in flight until the device
// completes its buffers, whatever they then hold.
func Flush(b []byte, tag, oldtag uint16) int {
	const n = HeaderSize + 2
	if !fits(b, n) {
		return 0
	}
	o := header(b, n, Tflush, tag)
	put16(b, o, oldtag)
	return n
}

// fidOnly encodes a request whose body is fid[4]: Tclunk, Treadlink, Tstatfs.
func fidOnly(b []byte, typ uint8, tag uint16, fid uint32) int {
	const n = HeaderSize + 4
	if !fits(b, n) {
		return 0
	}
	o := header(b, n, typ, tag)
	put32(b, o, fid)
	return n
}

// Clunk encodes Tclunk: fid[4]. The fid is free again once the reply arrives, even an Rlerror
// (clunk(5)).
func Clunk(b []byte, tag uint16, fid uint32) int { return fidOnly(b, Tclunk, tag, fid) }

// Readlink encodes Treadlink: fid[4] (a fid walked to a symbolic link, not opened).
func Readlink(b []byte, tag uint16, fid uint32) int { return fidOnly(b, Treadlink, tag, fid) }

// Statfs encodes Tstatfs: fid[4].
func Statfs(b []byte, tag uint16, fid uint32) int { return fidOnly(b, Tstatfs, tag, fid) }

// Lopen encodes Tlopen: fid[4] flags[4]. flags are Linux open flags (OpenRDONLY, ...).
func Lopen(b []byte, tag uint16, fid, flags uint32) int {
	const n = HeaderSize + 4 + 4
	if !fits(b, n) {
		return 0
	}
	o := header(b, n, Tlopen, tag)
	o = put32(b, o, fid)
	put32(b, o, flags)
	return n
}

// Lcreate encodes Tlcreate: fid[4] name[s] flags[4] mode[4] gid[4]. fid is the directory;
// after an Rlcreate it is the new file, open with flags (open flags, as Lopen); mode holds the
// permission bits, gid the creator's group.
func Lcreate(b []byte, tag uint16, fid uint32, name []byte, flags, mode, gid uint32) int {
	n := HeaderSize + 4 + 2 + len(name) + 4 + 4 + 4
	if !strOK(name) || !fits(b, n) {
		return 0
	}
	o := header(b, n, Tlcreate, tag)
	o = put32(b, o, fid)
	o = putStr(b, o, name)
	o = put32(b, o, flags)
	o = put32(b, o, mode)
	put32(b, o, gid)
	return n
}

// rw encodes Tread or Treaddir: fid[4] offset[8] count[4].
func rw(b []byte, typ uint8, tag uint16, fid uint32, offset uint64, count uint32) int {
	const n = HeaderSize + 4 + 8 + 4
	if !fits(b, n) {
		return 0
	}
	o := header(b, n, typ, tag)
	o = put32(b, o, fid)
	o = put64(b, o, offset)
	put32(b, o, count)
	return n
}

// Read encodes Tread: fid[4] offset[8] count[4]. count is at most msize − IOHdrSize (and the
// fid's iounit, when Rlopen gave one).
func Read(b []byte, tag uint16, fid uint32, offset uint64, count uint32) int {
	return rw(b, Tread, tag, fid, offset, count)
}

// Readdir encodes Treaddir: fid[4] offset[8] count[4]. offset is 0 to start, then the offset
// of the last entry received; count bounds the reply's data as Read's does.
func Readdir(b []byte, tag uint16, fid uint32, offset uint64, count uint32) int {
	return rw(b, Treaddir, tag, fid, offset, count)
}

// WriteHeader encodes the header of Twrite: fid[4] offset[8] count[4], and a size field
// counting the count data bytes that follow. It returns WriteHeaderSize; the caller copies the
// data to b[WriteHeaderSize:WriteHeaderSize+count] and submits WriteHeaderSize+count bytes.
// 0 if the whole message does not fit b.
func WriteHeader(b []byte, tag uint16, fid uint32, offset uint64, count uint32) int {
	n := WriteHeaderSize + int(count)
	if !fits(b, n) {
		return 0
	}
	o := header(b, n, Twrite, tag)
	o = put32(b, o, fid)
	o = put64(b, o, offset)
	put32(b, o, count)
	return WriteHeaderSize
}

// Getattr encodes Tgetattr: fid[4] request_mask[8] (GetattrBasic for struct stat).
func Getattr(b []byte, tag uint16, fid uint32, mask uint64) int {
	const n = HeaderSize + 4 + 8
	if !fits(b, n) {
		return 0
	}
	o := header(b, n, Tgetattr, tag)
	o = put32(b, o, fid)
	put64(b, o, mask)
	return n
}

// Setattr encodes Tsetattr: fid[4] valid[4] mode[4] uid[4] gid[4] size[8] atime_sec[8]
// atime_nsec[8] mtime_sec[8] mtime_nsec[8]. valid (Setattr* bits) says which fields count.
func Setattr(b []byte, tag uint16, fid, valid, mode, uid, gid uint32, size, atimeSec, atimeNsec, mtimeSec, mtimeNsec uint64) int {
	const n = HeaderSize + 4*5 + 8*5
	if !fits(b, n) {
		return 0
	}
	o := header(b, n, Tsetattr, tag)
	o = put32(b, o, fid)
	o = put32(b, o, valid)
	o = put32(b, o, mode)
	o = put32(b, o, uid)
	o = put32(b, o, gid)
	o = put64(b, o, size)
	o = put64(b, o, atimeSec)
	o = put64(b, o, atimeNsec)
	o = put64(b, o, mtimeSec)
	put64(b, o, mtimeNsec)
	return n
}

// Mkdir encodes Tmkdir: dfid[4] name[s] mode[4] gid[4].
func Mkdir(b []byte, tag uint16, dfid uint32, name []byte, mode, gid uint32) int {
	n := HeaderSize + 4 + 2 + len(name) + 4 + 4
	if !strOK(name) || !fits(b, n) {
		return 0
	}
	o := header(b, n, Tmkdir, tag)
	o = put32(b, o, dfid)
	o = putStr(b, o, name)
	o = put32(b, o, mode)
	put32(b, o, gid)
	return n
}

// Unlinkat encodes Tunlinkat: dfid[4] name[s] flags[4] (AtRemoveDir for a directory).
func Unlinkat(b []byte, tag uint16, dfid uint32, name []byte, flags uint32) int {
	n := HeaderSize + 4 + 2 + len(name) + 4
	if !strOK(name) || !fits(b, n) {
		return 0
	}
	o := header(b, n, Tunlinkat, tag)
	o = put32(b, o, dfid)
	o = putStr(b, o, name)
	put32(b, o, flags)
	return n
}

// Renameat encodes Trenameat: olddirfid[4] oldname[s] newdirfid[4] newname[s].
func Renameat(b []byte, tag uint16, olddfid uint32, oldname []byte, newdfid uint32, newname []byte) int {
	n := HeaderSize + 4 + 2 + len(oldname) + 4 + 2 + len(newname)
	if !strOK(oldname) || !strOK(newname) || !fits(b, n) {
		return 0
	}
	o := header(b, n, Trenameat, tag)
	o = put32(b, o, olddfid)
	o = putStr(b, o, oldname)
	o = put32(b, o, newdfid)
	putStr(b, o, newname)
	return n
}

// Fsync encodes Tfsync: fid[4] datasync[4] (1: fdatasync, only the data).
func Fsync(b []byte, tag uint16, fid uint32, datasync bool) int {
	const n = HeaderSize + 4 + 4
	if !fits(b, n) {
		return 0
	}
	var ds uint32
	if datasync {
		ds = 1
	}
	o := header(b, n, Tfsync, tag)
	o = put32(b, o, fid)
	put32(b, o, ds)
	return n
}

// Symlink encodes Tsymlink: dfid[4] name[s] symtgt[s] gid[4]. target is the link's contents,
// any bytes but NUL.
func Symlink(b []byte, tag uint16, dfid uint32, name, target []byte, gid uint32) int {
	n := HeaderSize + 4 + 2 + len(name) + 2 + len(target) + 4
	if !strOK(name) || !strOK(target) || !fits(b, n) {
		return 0
	}
	o := header(b, n, Tsymlink, tag)
	o = put32(b, o, dfid)
	o = putStr(b, o, name)
	o = putStr(b, o, target)
	put32(b, o, gid)
	return n
}

// Link encodes Tlink: dfid[4] fid[4] name[s] — a new name in directory dfid for fid's file.
func Link(b []byte, tag uint16, dfid, fid uint32, name []byte) int {
	n := HeaderSize + 4 + 4 + 2 + len(name)
	if !strOK(name) || !fits(b, n) {
		return 0
	}
	o := header(b, n, Tlink, tag)
	o = put32(b, o, dfid)
	o = put32(b, o, fid)
	putStr(b, o, name)
	return n
}
