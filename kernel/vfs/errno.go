// Linux error numbers the file system returns.
// SPDX-License-Identifier: BSD-3-Clause

package vfs

// Errno is a Linux error number (include/uapi/asm-generic/errno-base.h, errno.h); 0 is success.
// The kernel returns it negated.
type Errno uint32

const (
	OK           Errno = 0
	EPERM        Errno = 1
	ENOENT       Errno = 2
	EIO          Errno = 5
	EACCES       Errno = 13
	EBUSY        Errno = 16
	EEXIST       Errno = 17
	EXDEV        Errno = 18
	ENOTDIR      Errno = 20
	EISDIR       Errno = 21
	EINVAL       Errno = 22
	EFBIG        Errno = 27
	ENOSPC       Errno = 28
	EMLINK       Errno = 31
	ENAMETOOLONG Errno = 36
	ENOTEMPTY    Errno = 39
	ELOOP        Errno = 40
)
