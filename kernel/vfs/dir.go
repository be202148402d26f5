// Directories: files of name records.
// SPDX-License-Identifier: BSD-3-Clause

package vfs

import "encoding/binary"

// A directory's data is a sequence of pages, each cut into records that cover it exactly, as
// ext2's directory blocks (fs/ext2/dir.c):
//
//	ino     uint32  the inode, 0 for a free record
//	reclen  uint16  bytes to the next record (the last one reaches the page's end)
//	namelen uint8
//	type    uint8   the DT_* type, as getdents64 reports it
//	name    namelen bytes, then padding to 8
//
// Adding a name takes a free record or the slack at the end of a live one, or appends a page;
// removing one merges its record into the one before it in the page. A record's offset in the
// directory never changes while it lives, which makes it getdents64's cookie (d_off): a program
// that removes entries while reading a directory (os.RemoveAll) neither skips nor repeats any.
// The size of a directory is its pages' bytes. Names are at most NameMax bytes.
const (
	recHeader = 8
	NameMax   = 255
)

func recSize(namelen int) int { return (recHeader + namelen + 7) &^ 7 }

// DirType is the d_type of a file of mode mode.
func DirType(mode uint32) uint8 { return uint8(mode & SIFMT >> 12) }

// record is a record's fields; name points into the page.
type record struct {
	ino    Ino
	reclen int
	typ    uint8
	name   []byte
}

func readRecord(pg *[pageSize]byte, o int) record {
	r := record{
		ino:    Ino(binary.LittleEndian.Uint32(pg[o:])),
		reclen: int(binary.LittleEndian.Uint16(pg[o+4:])),
		typ:    pg[o+7],
	}
	if r.reclen < recHeader || o+r.reclen > pageSize || r.reclen%8 != 0 {
		panic("vfs: corrupt directory record") // the kernel's own data: a bug, not input
	}
	r.name = pg[o+recHeader : o+recHeader+int(pg[o+6])]
	return r
}

func writeRecord(pg *[pageSize]byte, o int, ino Ino, reclen int, typ uint8, name []byte) {
	binary.LittleEndian.PutUint32(pg[o:], uint32(ino))
	binary.LittleEndian.PutUint16(pg[o+4:], uint16(reclen))
	pg[o+6], pg[o+7] = uint8(len(name)), typ
	copy(pg[o+recHeader:], name)
}

// dirPage returns page i of a directory; directories have no holes.
func dirPage(dir *Inode, i int64) *[pageSize]byte {
	pa, _ := page(dir, uint64(i), false)
	if pa == 0 {
		panic("vfs: directory page missing")
	}
	return frame(pa)
}

// dirLookup finds name in dir: the inode and the record's offset, or 0.
func dirLookup(dir *Inode, name []byte) (Ino, int64) {
	for p := int64(0); p < dir.Size/pageSize; p++ {
		pg := dirPage(dir, p)
		for o := 0; o < pageSize; {
			r := readRecord(pg, o)
			if r.ino != 0 && string(r.name) == string(name) {
				return r.ino, p*pageSize + int64(o)
			}
			o += r.reclen
		}
	}
	return 0, -1
}

// dirAdd adds the record name → ino; ENOSPC when no frame is left for a new page.
//
// The last page's last record (dir.tail) is tried first: a directory that is being filled — the
// initramfs unpacked at boot, a program creating files — has its room there, and every other
// place would take a walk through all the records, which made unpacking 600 zoneinfo files
// quadratic (12-25 ms of a TCG boot). Then the first free record or slack, then a new page.
func dirAdd(dir *Inode, name []byte, ino Ino, typ uint8) Errno {
	need := recSize(len(name))
	if n := dir.Size / pageSize; n > 0 && recAdd(dir, n-1, int(dir.tail), name, ino, typ, need) {
		return OK
	}
	for p := int64(0); p < dir.Size/pageSize; p++ {
		for o := 0; o < pageSize; {
			if recAdd(dir, p, o, name, ino, typ, need) {
				return OK
			}
			o += readRecord(dirPage(dir, p), o).reclen
		}
	}
	pa, e := page(dir, uint64(dir.Size/pageSize), true)
	if e != OK {
		return e
	}
	writeRecord(frame(pa), 0, ino, pageSize, typ, name)
	dir.Size += pageSize
	dir.tail = 0
	return OK
}

// recAdd puts the record name → ino in page p at the record at offset o if it has room: the
// record itself if free, else the slack after its name (the record is cut in two, and the new
// one is the page's tail if the old one was). need is the new record's size.
func recAdd(dir *Inode, p int64, o int, name []byte, ino Ino, typ uint8, need int) bool {
	pg := dirPage(dir, p)
	r := readRecord(pg, o)
	if r.ino == 0 && r.reclen >= need {
		writeRecord(pg, o, ino, r.reclen, typ, name)
		return true
	}
	if used := recSize(len(r.name)); r.ino != 0 && r.reclen-used >= need {
		binary.LittleEndian.PutUint16(pg[o+4:], uint16(used))
		writeRecord(pg, o+used, ino, r.reclen-used, typ, name)
		if o+r.reclen == pageSize && p == dir.Size/pageSize-1 {
			dir.tail = uint16(o + used)
		}
		return true
	}
	return false
}

// dirRemove frees the record at off, merging it into the record before it in its page.
func dirRemove(dir *Inode, off int64) {
	pg := dirPage(dir, off/pageSize)
	at := int(off % pageSize)
	r := readRecord(pg, at)
	prev := -1
	for o := 0; o < at; {
		prev = o
		o += readRecord(pg, o).reclen
	}
	if prev < 0 {
		binary.LittleEndian.PutUint32(pg[at:], 0)
		return
	}
	binary.LittleEndian.PutUint16(pg[prev+4:], uint16(readRecord(pg, prev).reclen+r.reclen))
	if at+r.reclen == pageSize && off/pageSize == dir.Size/pageSize-1 {
		dir.tail = uint16(prev) // the merged record now reaches the last page's end
	}
}

// dirSet points the record at off to another inode (rename over an existing name, "..").
func dirSet(dir *Inode, off int64, ino Ino, typ uint8) {
	pg := dirPage(dir, off/pageSize)
	binary.LittleEndian.PutUint32(pg[off%pageSize:], uint32(ino))
	pg[off%pageSize+7] = typ
}

// dirEmpty reports whether dir has no names but "." and "..".
func dirEmpty(dir *Inode) bool {
	for off := int64(0); ; {
		_, _, name, next, ok := nextEntry(dir, off)
		if !ok {
			return true
		}
		if string(name) != "." && string(name) != ".." {
			return false
		}
		off = next
	}
}

// nextEntry returns the first live record at or after offset off, and the offset after it.
func nextEntry(dir *Inode, off int64) (ino Ino, typ uint8, name []byte, next int64, ok bool) {
	for off >= 0 && off < dir.Size {
		pg := dirPage(dir, off/pageSize)
		// off may be any cookie a program passes to lseek: find the record that starts at or
		// after it by walking the page from its start.
		for o := 0; o < pageSize; {
			r := readRecord(pg, o)
			at := off - off%pageSize + int64(o)
			if r.ino != 0 && at >= off {
				return r.ino, r.typ, r.name, at + int64(r.reclen), true
			}
			o += r.reclen
		}
		off = off - off%pageSize + pageSize
	}
	return 0, 0, nil, 0, false
}

// NextEntry is nextEntry for the kernel's getdents64: dir must be a directory.
func NextEntry(dir Ino, off int64) (ino Ino, typ uint8, name []byte, next int64, ok bool) {
	return nextEntry(&inodes[dir], off)
}
