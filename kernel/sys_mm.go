// System calls of the address space: mmap, munmap, mprotect, madvise, brk, mincore.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/kernel/mm"

// The work is kernel/mm's (mmap.go, madvise.go); the system calls add what involves the rest of
// the kernel: the fd of a file mapping.

// sysMmap passes the Linux mmap contract to mm (anonymous private mappings only). A file mapping
// names an fd: EBADF if it is not open, ENODEV if it is (no gmpos file can be mapped).
func sysMmap(addr, length uintptr, prot, flags uint32, fd int32, off uintptr) int64 {
	if flags&mm.MAP_ANONYMOUS == 0 && length != 0 {
		if f, _ := fdFile(fd); f == nil {
			return -EBADF
		}
	}
	va, e := mm.Space.Mmap(addr, length, prot, flags, int(fd), off)
	if e != mm.OK {
		return -int64(e)
	}
	return int64(va)
}

func sysMunmap(addr, length uintptr) int64 { return errno(mm.Space.Munmap(addr, length)) }

func sysMprotect(addr, length uintptr, prot uint32) int64 {
	return errno(mm.Space.Mprotect(addr, length, prot))
}

func sysMadvise(addr, length uintptr, advice int32) int64 {
	return errno(mm.Space.Madvise(addr, length, int(advice)))
}

// sysBrk: gmpos gives the program no heap segment (the Go runtime never calls brk), so the break
// stays where it starts, at the end of the image's data, and cannot move: brk returns the current
// break for every request, which is how Linux reports a failed move.
func sysBrk(addr uintptr) int64 { return int64(imageEnd) }

// imageEnd is the end of the loaded image, page-rounded: the initial program break. Boot.
var imageEnd uintptr

func errno(e mm.Errno) int64 { return -int64(e) }
