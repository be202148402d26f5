// The initramfs format: cpio "newc", as Linux reads it (init/initramfs.c).
// SPDX-License-Identifier: BSD-3-Clause

package vfs

// An archive is a sequence of entries, each a 110-byte ASCII header, the NUL-terminated name
// padded to a multiple of 4 bytes (header included), and the data padded the same way; the entry
// named "TRAILER!!!" ends it (Documentation/driver-api/early-userspace/buffer-format.rst). The
// header's thirteen fields after the magic "070701" are 8 hex digits each:
//
//	ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor rdevminor namesize check
//
// A symbolic link's data is its target. The archive comes from outside the kernel (the runner,
// or an image someone built by hand), so NextCpio checks every field and reports what is wrong;
// it never reads past b and never allocates: the entry's name and data are sub-slices of b.

// CpioEntry is one decoded entry.
type CpioEntry struct {
	Name       []byte // without the trailing NUL; "." and a leading "/" or "./" are the caller's to strip
	Mode       uint32 // st_mode: type and permission bits
	UID, GID   uint32
	Mtime      int64 // seconds since the epoch
	RdevMajor  uint32
	RdevMinor  uint32
	Data       []byte // file contents, or a symlink's target
	Trailer    bool   // the end marker: no more entries follow
	HeaderSize int    // bytes of header and padded name, for error reports
}

const (
	cpioMagic     = "070701"
	cpioHeaderLen = 110
	cpioMaxName   = 4096 // PATH_MAX, with the NUL
)

// NextCpio decodes the entry at the start of b and returns it with the rest of the archive after
// it, or why b does not start with a valid entry (a constant string: nothing allocates).
func NextCpio(b []byte) (e CpioEntry, rest []byte, why string) {
	if len(b) < cpioHeaderLen {
		return e, nil, "truncated header (no TRAILER!!! entry)"
	}
	if string(b[:6]) != cpioMagic {
		return e, nil, "bad magic: not a cpio newc archive"
	}
	var f [13]uint32
	for i := range f {
		v, ok := hex8(b[6+8*i : 14+8*i])
		if !ok {
			return e, nil, "header field is not 8 hex digits"
		}
		f[i] = v
	}
	mode, uid, gid, mtime, size := f[1], f[2], f[3], f[5], f[6]
	namesize := int(f[11])
	if namesize < 2 || namesize > cpioMaxName {
		return e, nil, "name size out of range"
	}
	nameEnd := cpioHeaderLen + namesize
	dataOff := align4(nameEnd)
	if dataOff > len(b) {
		return e, nil, "name runs past the end of the archive"
	}
	name := b[cpioHeaderLen : nameEnd-1]
	if b[nameEnd-1] != 0 {
		return e, nil, "name is not NUL-terminated"
	}
	for _, c := range name {
		if c == 0 {
			return e, nil, "NUL inside a name"
		}
	}
	e = CpioEntry{Name: name, HeaderSize: dataOff}
	if string(name) == "TRAILER!!!" {
		e.Trailer = true
		return e, nil, ""
	}
	if uint64(size) > uint64(len(b)-dataOff) {
		return e, nil, "file data runs past the end of the archive"
	}
	end := dataOff + int(size)
	e.Mode, e.UID, e.GID, e.Mtime = mode, uid, gid, int64(mtime)
	e.RdevMajor, e.RdevMinor = f[9], f[10]
	e.Data = b[dataOff:end]
	if next := align4(end); next < len(b) {
		rest = b[next:]
	} else {
		rest = b[len(b):]
	}
	return e, rest, ""
}

func align4(n int) int { return (n + 3) &^ 3 }

// hex8 parses 8 hex digits, either case.
func hex8(b []byte) (uint32, bool) {
	var v uint32
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint32(c)
	}
	return v, true
}
