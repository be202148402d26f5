// Inodes: the table, allocation, and what stat reports.
// SPDX-License-Identifier: BSD-3-Clause

package vfs

// Ino is an inode number: the inode's index in the table. 0 is no inode; Root is "/".
type Ino uint32

const (
	Root Ino = 1
	// MaxInodes bounds the files of the tree (tmpfs's nr_inodes): ENOSPC beyond. The table is
	// static, 16,384 × 80 bytes of BSS.
	MaxInodes = 16384
)

// File type bits of st_mode (include/uapi/linux/stat.h) and the d_type values getdents64
// reports (include/linux/fs_types.h: DT_* = S_IF* >> 12).
const (
	SIFMT    = 0o170000
	SIFSOCK  = 0o140000
	SIFLNK   = 0o120000
	SIFREG   = 0o100000
	SIFBLK   = 0o060000
	SIFDIR   = 0o040000
	SIFCHR   = 0o020000
	SIFIFO   = 0o010000
	ModeBits = 0o7777 // permission, set-id and sticky bits
)

// Inode is one file. Protected by the BKL, as everything here.
type Inode struct {
	Mode  uint32 // type and permission bits; 0: the slot is free
	Nlink uint32 // names referring to it (a directory: 2 + its subdirectories)
	UID   uint32 // the owner and group (the process is root: 0 unless chown or the initramfs says)
	GID   uint32
	Size  int64  // bytes of data; a directory: its records' pages
	Rdev  uint64 // a device's number (Linux's new_encode_dev)
	// Times in nanoseconds since the epoch: last access (never updated: noatime), last data
	// change, last inode change.
	Atime, Mtime, Ctime int64
	// Opens counts the open files referring to the inode (kernel/fd_file.go): an inode whose
	// last name is gone lives on until the last of them is closed (Linux's i_count).
	Opens int32

	root  uintptr // the data tree's root frame (physical address), 0 for none (data.go)
	depth uint8   // levels of index frames above the data frames
	// tail is, for a directory, the offset in its last page of the record that reaches the
	// page's end: where dirAdd appends without walking the pages (dir.go).
	tail  uint16
	ext   uintptr // data kept outside the tree: the initramfs's bytes (Size of them), read-only
	pages uint64  // data frames in the tree (st_blocks)
	mount uint8   // a directory where a share is mounted: its number + 1 (SetMount)
}

// IsDir and the others test the file type.
func (in *Inode) IsDir() bool     { return in.Mode&SIFMT == SIFDIR }
func (in *Inode) IsReg() bool     { return in.Mode&SIFMT == SIFREG }
func (in *Inode) IsSymlink() bool { return in.Mode&SIFMT == SIFLNK }

// The table and the allocation cursor (the next slot to try). inodes[0] stays free.
var (
	inodes    [MaxInodes]Inode
	inoCursor Ino = Root
	inoUsed   int
	now       int64 // the time stamps' clock: SetNow
)

// SetNow sets the time that operations stamp on inodes (CLOCK_REALTIME in nanoseconds). The
// kernel calls it before each file system call; tests call it to control time.
func SetNow(ns int64) { now = ns }

// Get returns inode ino; nil for a number that is not in use.
func Get(ino Ino) *Inode {
	if ino == 0 || ino >= MaxInodes || inodes[ino].Mode == 0 {
		return nil
	}
	return &inodes[ino]
}

// newInode takes a free slot for a file of the given mode with no names yet, or 0 when the table
// is full.
func newInode(mode uint32) Ino {
	for range MaxInodes {
		ino := inoCursor
		if inoCursor++; inoCursor == MaxInodes {
			inoCursor = Root
		}
		if inodes[ino].Mode == 0 {
			inodes[ino] = Inode{Mode: mode, Atime: now, Mtime: now, Ctime: now}
			inoUsed++
			return ino
		}
	}
	return 0
}

// put frees inode ino if nothing refers to it any more: no name and no open file.
func put(ino Ino) {
	in := &inodes[ino]
	if in.Nlink > 0 || in.Opens > 0 || in.Mode == 0 {
		return
	}
	freeData(in)
	*in = Inode{}
	inoUsed--
}

// Open and Close count an open file's reference to ino (the kernel's open and its last close).
func Open(ino Ino) { inodes[ino].Opens++ }
func Close(ino Ino) {
	inodes[ino].Opens--
	put(ino)
}

// Stat is what stat(2) reports of an inode; the kernel writes it in the architecture's layout.
type Stat struct {
	Ino, Nlink, Size, Blocks, Rdev uint64
	Mode, UID, GID                 uint32
	Atime, Mtime, Ctime            int64
}

// Dev is the device number every inode of the tree reports as st_dev (an anonymous device, as
// tmpfs's: major 0).
const Dev = 0x19

// StatOf describes inode ino. Blocks counts 512-byte units of the frames the data holds (tmpfs
// reports what is allocated, so a sparse file's is smaller than its size).
func StatOf(ino Ino) Stat {
	in := &inodes[ino]
	return Stat{
		Ino: uint64(ino), Nlink: uint64(in.Nlink), Size: uint64(in.Size), Rdev: in.Rdev,
		Blocks: dataFrames(in) * (pageSize / 512),
		Mode:   in.Mode, UID: in.UID, GID: in.GID, Atime: in.Atime, Mtime: in.Mtime, Ctime: in.Ctime,
	}
}

// SetMount makes directory ino the mount point of share m (the kernel's -share directories,
// served over 9P): from then on a walk that enters it stops there and hands the rest of the path
// to the kernel (Lookup.Mount, Lookup.Rest).
func SetMount(ino Ino, m int) { inodes[ino].mount = uint8(m + 1) }

// MountOf is the share mounted on ino, or -1.
func MountOf(ino Ino) int { return int(inodes[ino].mount) - 1 }

// Usage reports the inodes in use and the table's size (statfs's f_files, f_ffree).
func Usage() (used, total int) { return inoUsed, MaxInodes - 1 }
