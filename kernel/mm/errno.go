package mm

// Errno is a Linux error number as returned (negated) by the syscall layer.
// Zero means success. The values are Linux's (include/uapi/asm-generic/
// errno-base.h and errno.h, used by both x86-64 and arm64) so the kernel can
// hand them back to the Go runtime unchanged.
type Errno uintptr

// Error numbers used by this package.
const (
	OK     Errno = 0
	EPERM  Errno = 1  // sealed (pinned) mapping, or below MinAddr with MAP_FIXED
	ENOMEM Errno = 12 // out of frames, out of VMA slots, or range not mapped/out of bounds
	EFAULT Errno = 14 // bad user pointer
	EACCES Errno = 13 // a file mapping the file's access mode does not allow
	EEXIST Errno = 17 // MAP_FIXED_NOREPLACE overlap, or page already mapped
	ENODEV Errno = 19 // file or shared mappings (no files in this kernel)
	EINVAL Errno = 22 // malformed arguments

	EOPNOTSUPP Errno = 95 // MAP_SHARED_VALIDATE with a flag the mapping cannot honour (asm-generic/errno.h)
)

// String returns the symbolic name. It returns constant strings only so it is
// usable from trap context (no allocation).
func (e Errno) String() string {
	switch e {
	case OK:
		return "OK"
	case EPERM:
		return "EPERM"
	case ENOMEM:
		return "ENOMEM"
	case EFAULT:
		return "EFAULT"
	case EACCES:
		return "EACCES"
	case EEXIST:
		return "EEXIST"
	case ENODEV:
		return "ENODEV"
	case EINVAL:
		return "EINVAL"
	case EOPNOTSUPP:
		return "EOPNOTSUPP"
	}
	return "E?"
}
