package kernel

// Linux errno values (include/uapi/asm-generic/errno-base.h, errno.h). System calls return -errno.
const (
	EPERM     = 1
	ENOENT    = 2
	ESRCH     = 3
	EINTR     = 4
	EBADF     = 9
	EAGAIN    = 11
	ENOMEM    = 12
	EFAULT    = 14
	EEXIST    = 17
	ENODEV    = 19
	EINVAL    = 22
	EMFILE    = 24
	ENOTTY    = 25
	ESPIPE    = 29
	ENOSYS    = 38
	ETIMEDOUT = 110
)
