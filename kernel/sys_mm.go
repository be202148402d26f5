// System calls of the address space: mmap, munmap, mprotect, madvise, brk, mincore.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/kernel/mm"

// The work is kernel/mm's (mmap.go, madvise.go); the system calls add what involves the rest of
// the kernel: the fd of a file mapping.

// sysMmap passes the Linux mmap contract to mm (anonymous mappings, private or shared), in
// Linux's order (arch/x86/kernel/sys_x86_64.c sys_mmap, mm/mmap.c ksys_mmap_pgoff): a misaligned
// offset is EINVAL, then a file mapping's fd must be open (EBADF) and its access mode goes to mm,
// which answers EACCES or ENODEV (no gmpos file can be mapped) after its own checks.
func sysMmap(addr, length uintptr, prot, flags uint32, fd int32, off uintptr) int64 {
	if off&(mm.PageSize-1) != 0 {
		return -EINVAL
	}
	access := mm.NoFile
	if flags&mm.MAP_ANONYMOUS == 0 {
		f, _ := fdFile(fd)
		if f == nil {
			return -EBADF
		}
		access = 0
		if f.flags&oAccmode != oWronly {
			access |= mm.FileRead
		}
		if f.flags&oAccmode != oRdonly {
			access |= mm.FileWrite
		}
	}
	va, e := userSpace().Mmap(addr, length, prot, flags, access, off)
	if e != mm.OK {
		return -int64(e)
	}
	return int64(va)
}

func sysMunmap(addr, length uintptr) int64 { return errno(userSpace().Munmap(addr, length)) }

// sysMprotect: prot is an unsigned long, so a bit above 32 is EINVAL, not ignored.
func sysMprotect(addr, length uintptr, prot uint64) int64 {
	return errno(userSpace().Mprotect(addr, length, prot))
}

// sysMincore reports which pages of [start, start+length) are resident, one byte each
// (mm/mincore.c): a misaligned start is EINVAL, a range outside user space ENOMEM, a vector
// outside it EFAULT; then VMA by VMA, in chunks through a kernel buffer: a hole is ENOMEM, a
// vector that cannot be written EFAULT.
func sysMincore(start, length, vec uintptr) int64 {
	if start&(mm.PageSize-1) != 0 {
		return -EINVAL
	}
	if !accessOK(start, length) {
		return -ENOMEM
	}
	pages := length>>mm.PageShift + min(length&(mm.PageSize-1), 1)
	if !accessOK(vec, pages) {
		return -EFAULT
	}
	var buf [256]byte
	for pages > 0 {
		n, e := userSpace().Mincore(start, buf[:min(pages, uintptr(len(buf)))])
		if e != mm.OK {
			return -int64(e)
		}
		if !userRange(vec, uintptr(n), true) {
			return -EFAULT
		}
		copyOut(vec, buf[:n])
		pages -= uintptr(n)
		vec += uintptr(n)
		start += uintptr(n) << mm.PageShift
	}
	return 0
}

func sysMadvise(addr, length uintptr, advice int32) int64 {
	return errno(userSpace().Madvise(addr, length, int(advice)))
}

// sysBrk: gmpos gives the program no heap segment (the Go runtime never calls brk), so the break
// stays where it starts, at the end of the image's data, and cannot move: brk returns the current
// break for every request, which is how Linux reports a failed move.
func sysBrk(addr uintptr) int64 { return int64(imageEnd) }

// imageEnd is the end of the loaded image, page-rounded: the initial program break. Boot.
var imageEnd uintptr

func errno(e mm.Errno) int64 { return -int64(e) }
