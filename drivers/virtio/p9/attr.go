// Rgetattr and Rstatfs: a file's attributes and a file system's, decoded into plain structs.
// SPDX-License-Identifier: BSD-3-Clause

package p9

// Time is a timestamp as 9P2000.L sends it: seconds and nanoseconds since the epoch.
type Time struct {
	Sec, Nsec uint64
}

// Attr is Rgetattr's body: a file's attributes, close to Linux's struct stat (no st_dev; the
// inode number is Qid.Path). Valid (Getattr* bits) says which fields the server filled in: it
// may answer more or fewer than asked, and fields it did not fill in are zero. Btime, Gen and
// DataVersion are the protocol's reserve (QEMU fills in Gen when asked, the others never).
type Attr struct {
	Valid       uint64
	Qid         Qid
	Mode        uint32 // st_mode: file type and permission bits
	UID, GID    uint32
	Nlink       uint64
	Rdev        uint64
	Size        uint64
	Blksize     uint64
	Blocks      uint64 // 512-byte blocks
	Atime       Time
	Mtime       Time
	Ctime       Time
	Btime       Time
	Gen         uint64
	DataVersion uint64
}

// RgetattrSize is Rgetattr's body: valid[8] qid[13] mode[4] uid[4] gid[4] nlink[8] rdev[8]
// size[8] blksize[8] blocks[8] atime_sec[8] atime_nsec[8] mtime_sec[8] mtime_nsec[8]
// ctime_sec[8] ctime_nsec[8] btime_sec[8] btime_nsec[8] gen[8] data_version[8].
const RgetattrSize = 8 + QidSize + 3*4 + 5*8 + 8*8 + 2*8

// Rgetattr decodes Rgetattr (exactly RgetattrSize bytes). Values are passed through as the
// server sent them; the caller decides what a nanosecond field ≥ 10⁹ or a mode whose type
// disagrees with the qid means.
func Rgetattr(body []byte) (a Attr, why string) {
	r := reader{b: body}
	a.Valid = r.u64()
	a.Qid = r.qid()
	a.Mode = r.u32()
	a.UID = r.u32()
	a.GID = r.u32()
	a.Nlink = r.u64()
	a.Rdev = r.u64()
	a.Size = r.u64()
	a.Blksize = r.u64()
	a.Blocks = r.u64()
	a.Atime = Time{r.u64(), r.u64()}
	a.Mtime = Time{r.u64(), r.u64()}
	a.Ctime = Time{r.u64(), r.u64()}
	a.Btime = Time{r.u64(), r.u64()}
	a.Gen = r.u64()
	a.DataVersion = r.u64()
	if !r.done() {
		return Attr{}, whyRgetattr
	}
	return a, ""
}

// FSInfo is Rstatfs's body, Linux's struct statfs: the file system's type (magic), block size,
// block counts in those blocks, file counts, id and longest name.
type FSInfo struct {
	Type    uint32
	Bsize   uint32
	Blocks  uint64
	Bfree   uint64
	Bavail  uint64
	Files   uint64
	Ffree   uint64
	Fsid    uint64
	Namelen uint32
}

// RstatfsSize is Rstatfs's body: type[4] bsize[4] blocks[8] bfree[8] bavail[8] files[8]
// ffree[8] fsid[8] namelen[4].
const RstatfsSize = 4 + 4 + 6*8 + 4

// Rstatfs decodes Rstatfs (exactly RstatfsSize bytes).
func Rstatfs(body []byte) (s FSInfo, why string) {
	r := reader{b: body}
	s.Type = r.u32()
	s.Bsize = r.u32()
	s.Blocks = r.u64()
	s.Bfree = r.u64()
	s.Bavail = r.u64()
	s.Files = r.u64()
	s.Ffree = r.u64()
	s.Fsid = r.u64()
	s.Namelen = r.u32()
	if !r.done() {
		return FSInfo{}, whyRstatfs
	}
	return s, ""
}
