// The memory devices every program may open: /dev/null, /dev/zero, /dev/full, /dev/random,
// /dev/urandom.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/kernel/vfs"

// Ordinary programs open these by name: os/exec opens /dev/null for a command's missing stdin
// before it tries to start the command, and tools read /dev/urandom. They behave as Linux's
// (drivers/char/mem.c, random.c): reads of null are end of file, of zero and full zeros, of
// random and urandom random bytes (the getrandom source); writes to full are ENOSPC, to the rest
// accepted and dropped. Their nodes in /dev are made at boot (fs_boot.go); opening one (any
// access mode) finds the device by its number (devByRdev). priv is the index in devFiles, aux the
// node's inode, which fstat describes and the open file holds a reference to.
type devFileKind struct{}

// devFiles are the devices, with their minor numbers (major 1, Documentation/admin-guide/
// devices.txt).
var devFiles = [...]struct {
	path  string
	minor uint64
}{
	{"/dev/null", 3},
	{"/dev/zero", 5},
	{"/dev/full", 7},
	{"/dev/random", 8},
	{"/dev/urandom", 9},
}

const (
	devNull = iota
	devZero
	devFull
	devRandom
	devUrandom
)

// devByRdev returns the index of the device with number rdev, or -1.
func devByRdev(rdev uint64) int {
	for i := range devFiles {
		if rdev == vfs.MakeDev(1, uint32(devFiles[i].minor)) {
			return i
		}
	}
	return -1
}

func (devFileKind) read(f *file, buf, n uintptr) int64 {
	switch f.priv {
	case devNull:
		return 0
	case devRandom, devUrandom:
		return sysGetrandom(buf, n, 0)
	}
	// zero, full: zeros, page by page, stopping at the first page that cannot be written.
	done := uintptr(0)
	for done < n {
		c := min(n-done, 4096-(buf+done)&4095)
		if !userRange(buf+done, c, true) {
			break
		}
		clear(userBytes(buf+done, c))
		done += c
	}
	if done == 0 && n > 0 {
		return -EFAULT
	}
	return int64(done)
}

func (devFileKind) write(f *file, buf, n uintptr) int64 {
	if f.priv == devFull {
		return -ENOSPC
	}
	return int64(n) // dropped unread, as write_null does
}

func (devFileKind) poll(f *file) uint32 { return epollIn | epollOut }

func (devFileKind) stat(f *file) fileStat { return inodeStat(vfs.Ino(f.aux)) }

func (devFileKind) release(f *file) { vfs.Close(vfs.Ino(f.aux)) }
