// Linux error numbers.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// Linux errno values (include/uapi/asm-generic/errno-base.h, errno.h; the same on x86-64 and
// arm64). System calls return -errno.
const (
	EPERM           = 1
	ENOENT          = 2
	ESRCH           = 3
	EINTR           = 4
	EIO             = 5
	ENXIO           = 6
	E2BIG           = 7
	ENOEXEC         = 8
	EBADF           = 9
	ECHILD          = 10
	EAGAIN          = 11
	ENOMEM          = 12
	EFAULT          = 14
	EACCES          = 13
	EEXIST          = 17
	ENODEV          = 19
	EBUSY           = 16
	EXDEV           = 18
	ENOTDIR         = 20
	EISDIR          = 21
	EINVAL          = 22
	ENFILE          = 23
	EMFILE          = 24
	ENOTTY          = 25
	EFBIG           = 27
	ENOSPC          = 28
	ESPIPE          = 29
	EROFS           = 30
	EPIPE           = 32
	ERANGE          = 34
	ENAMETOOLONG    = 36
	ENOSYS          = 38
	ENOTEMPTY       = 39
	ELOOP           = 40
	ENODATA         = 61
	ENOTSOCK        = 88
	EDESTADDRREQ    = 89
	EMSGSIZE        = 90
	ENOPROTOOPT     = 92
	EPROTONOSUPPORT = 93
	ESOCKTNOSUPPORT = 94
	EOPNOTSUPP      = 95
	EAFNOSUPPORT    = 97
	EADDRINUSE      = 98
	ENOBUFS         = 105
	EISCONN         = 106
	ENOTCONN        = 107
	ETIMEDOUT       = 110
	ECONNREFUSED    = 111
	EALREADY        = 114
	EINPROGRESS     = 115
)
