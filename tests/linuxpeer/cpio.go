// A writer for the "newc" cpio format, the format Linux unpacks as its initramfs.
// SPDX-License-Identifier: BSD-3-Clause

package linuxpeer

import (
	"fmt"
	"io"
	"strings"
)

// Mode bits of a cpio entry (the st_mode values of <sys/stat.h>).
const (
	ModeDir  = 0o040000
	ModeFile = 0o100000
	ModeChar = 0o020000
)

// CpioWriter writes a newc archive (Documentation/driver-api/early-userspace/buffer-format.rst):
// each entry is a 110-byte ASCII header — the magic "070701" and 13 fields of 8 hex digits —
// then the name with its NUL, padded to a multiple of 4, then the data, padded likewise; the
// archive ends with an entry named "TRAILER!!!".
//
// Every entry is owned by root (uid and gid 0) with mtime 0, so that the archive depends only
// on its contents. A device node is just a header here: writing /dev/console into the archive
// needs no mknod and no root.
type CpioWriter struct {
	w    io.Writer
	ino  uint32
	err  error
	done bool
}

// NewCpioWriter returns a writer of a newc archive to w; Close writes the trailer.
func NewCpioWriter(w io.Writer) *CpioWriter { return &CpioWriter{w: w} }

// Dir adds a directory. Parents must be added before their children: the kernel creates the
// entries in archive order.
func (c *CpioWriter) Dir(name string, perm uint32) error {
	return c.entry(name, ModeDir|perm&0o7777, 2, 0, 0, nil)
}

// File adds a regular file.
func (c *CpioWriter) File(name string, perm uint32, data []byte) error {
	return c.entry(name, ModeFile|perm&0o7777, 1, 0, 0, data)
}

// CharDev adds a character device node, e.g. /dev/console is major 5, minor 1.
func (c *CpioWriter) CharDev(name string, perm, major, minor uint32) error {
	return c.entry(name, ModeChar|perm&0o7777, 1, major, minor, nil)
}

// Close writes the trailer. It does not close the underlying writer.
func (c *CpioWriter) Close() error {
	if c.done {
		return c.err
	}
	c.done = true
	c.writeEntry("TRAILER!!!", 0, 0, 1, 0, 0, nil)
	return c.err
}

func (c *CpioWriter) entry(name string, mode, nlink, major, minor uint32, data []byte) error {
	if c.done {
		return fmt.Errorf("cpio: entry %q after Close", name)
	}
	if err := checkName(name); err != nil {
		return err
	}
	if uint64(len(data)) > 0xffffffff {
		return fmt.Errorf("cpio: %s: %d bytes do not fit the 32-bit size field", name, len(data))
	}
	c.ino++
	c.writeEntry(name, c.ino, mode, nlink, major, minor, data)
	return c.err
}

// checkName accepts relative slash-separated paths without empty, "." or ".." elements (the
// kernel resolves names from the root of the rootfs; a leading slash is not needed).
func checkName(name string) error {
	if name == "" || name == "TRAILER!!!" || strings.HasPrefix(name, "/") || strings.ContainsRune(name, 0) {
		return fmt.Errorf("cpio: bad entry name %q", name)
	}
	for _, el := range strings.Split(name, "/") {
		if el == "" || el == "." || el == ".." {
			return fmt.Errorf("cpio: bad entry name %q", name)
		}
	}
	return nil
}

func (c *CpioWriter) writeEntry(name string, ino, mode, nlink, major, minor uint32, data []byte) {
	if c.err != nil {
		return
	}
	// ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor rdevminor namesize check
	hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		ino, mode, 0, 0, nlink, 0, len(data), 0, 0, major, minor, len(name)+1, 0)
	buf := make([]byte, 0, pad4(len(hdr)+len(name)+1))
	buf = append(buf, hdr...)
	buf = append(buf, name...)
	buf = append(buf, make([]byte, pad4(len(buf)+1)-len(buf))...) // the NUL and the padding
	if _, c.err = c.w.Write(buf); c.err != nil {
		return
	}
	if _, c.err = c.w.Write(data); c.err != nil {
		return
	}
	_, c.err = c.w.Write(make([]byte, pad4(len(data))-len(data)))
}

func pad4(n int) int { return (n + 3) &^ 3 }
