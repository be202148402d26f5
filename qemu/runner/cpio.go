// The cpio "newc" encoder the initramfs is written with (kernel/vfs/cpio.go decodes it).
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"fmt"
	"strconv"
)

// The format (Linux, Documentation/driver-api/early-userspace/buffer-format.rst): per entry a
// 110-byte header, "070701" and thirteen 8-hex-digit fields, then the NUL-terminated name padded
// so that header and name fill a multiple of 4 bytes, then the data padded the same way; an
// entry named "TRAILER!!!" ends the archive. It is small enough that a dependency would cost
// more than these lines.
const (
	cpioHeaderLen = 110
	cpioMaxName   = 4096      // PATH_MAX with the NUL: the kernel's decoder refuses longer names
	cpioMaxSize   = 1<<32 - 1 // filesize is 8 hex digits
	cpioTrailer   = "TRAILER!!!"
)

// Unix st_mode file types (the archive carries Linux's, whatever the host's Go calls them).
const (
	modeDir     = 0o040000
	modeRegular = 0o100000
	modeSymlink = 0o120000
	modeType    = 0o170000
)

// cpioHeader appends the header and padded name of an entry whose data is size bytes long.
// Hard links are not used (every entry has its own ino, nlink 1, 2 for a directory), and the
// owner is root: the guest runs as uid 0 and a host's uids mean nothing there.
func cpioHeader(b []byte, ino uint32, mode uint32, mtime int64, size int64, name string) []byte {
	nlink := uint32(1)
	if mode&modeType == modeDir {
		nlink = 2
	}
	if mtime < 0 || mtime > 0xffffffff { // outside the field's range: say nothing rather than lie
		mtime = 0
	}
	b = append(b, "070701"...)
	for _, v := range [13]uint32{ino, mode, 0, 0, nlink, uint32(mtime), uint32(size), 0, 0, 0, 0, uint32(len(name) + 1), 0} {
		b = appendHex8(b, v)
	}
	b = append(b, name...)
	b = append(b, 0)
	return append(b, make([]byte, cpioPad(int64(cpioHeaderLen+len(name)+1)))...)
}

func appendHex8(b []byte, v uint32) []byte {
	s := strconv.FormatUint(uint64(v), 16)
	for i := len(s); i < 8; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// cpioPad is how many NUL bytes bring n to a multiple of 4.
func cpioPad(n int64) int64 { return -n & 3 }

// cpioEntrySize is the bytes an entry takes in the archive, padding included.
func cpioEntrySize(name string, size int64) int64 {
	h := int64(cpioHeaderLen + len(name) + 1)
	return h + cpioPad(h) + size + cpioPad(size)
}

// checkCpioEntry refuses what the format (or the kernel's decoder) cannot carry.
func checkCpioEntry(name string, size int64) error {
	if len(name)+1 > cpioMaxName {
		return fmt.Errorf("%s: the path is %d bytes, more than the %d a path can have", name, len(name), cpioMaxName-1)
	}
	if size > cpioMaxSize {
		return fmt.Errorf("%s: %d bytes, more than a cpio archive can hold in one file (4 GiB)", name, size)
	}
	return nil
}
