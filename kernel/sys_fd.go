package kernel

import (
	"github.com/usbarmory/tamago/soc/intel/uart"

	kuart "gmpos/drivers/uart"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// The file descriptor table. gmpos has no file system: fds 0-2 are the console, and the rest are
// the kernel objects the Go runtime's netpoller needs (an eventfd and an epoll instance,
// runtime-contract §3.7). The table is process-wide (CLONE_FILES).
const maxFDs = 256

type fdKind uint8

const (
	fdFree fdKind = iota
	fdConsole
	fdEventfd
	fdEpoll
)

type fdEntry struct {
	kind    fdKind
	nonblk  bool
	port    int    // console: 0 stdin, 1 stdout, 2 stderr
	counter uint64 // eventfd
	ep      int    // epoll: index into epolls
}

var fds = [maxFDs]fdEntry{
	0: {kind: fdConsole, port: 0},
	1: {kind: fdConsole, port: 1},
	2: {kind: fdConsole, port: 2},
}

func allocFD() int {
	for i := 3; i < maxFDs; i++ {
		if fds[i].kind == fdFree {
			return i
		}
	}
	return -1
}

func validFD(fd int) bool { return fd >= 0 && fd < maxFDs && fds[fd].kind != fdFree }

func consolePort(port int) *uart.UART {
	if port == 2 {
		return &kuart.Stderr
	}
	return &kuart.Stdout
}

// sysWriteFd writes to the console (COM1 for fd 1, COM2 for fd 2) or adds to an eventfd.
func sysWriteFd(t *Thread, gp sched.GID, cpu int, fd int, buf, n uintptr) int64 {
	if !validFD(fd) {
		return -EBADF
	}
	e := &fds[fd]
	switch e.kind {
	case fdConsole:
		if e.port == 0 {
			return -EBADF
		}
		if !mm.Space.UserRange(buf, n, false) {
			return -EFAULT
		}
		p := consolePort(e.port)
		for i := uintptr(0); i < n; i++ {
			p.Tx(*(*byte)(ptr(buf + i)))
		}
		return int64(n)
	case fdEventfd:
		if n < 8 {
			return -EINVAL
		}
		if !mm.Space.UserRange(buf, 8, false) {
			return -EFAULT
		}
		v := load64(buf)
		if v == ^uint64(0) {
			return -EINVAL
		}
		if e.counter+v < e.counter || e.counter+v == ^uint64(0) {
			return -EAGAIN // would overflow; a blocking write would wait — gmpos only has non-blocking eventfds
		}
		e.counter += v
		if e.counter > 0 {
			epollNotify(fd, cpu)
		}
		return 8
	}
	return -EINVAL
}

// sysReadFd: stdin is empty (EOF); an eventfd read returns and clears the counter.
func sysReadFd(fd int, buf, n uintptr) int64 {
	if !validFD(fd) {
		return -EBADF
	}
	e := &fds[fd]
	switch e.kind {
	case fdConsole:
		if e.port != 0 {
			return -EBADF
		}
		return 0
	case fdEventfd:
		if n < 8 {
			return -EINVAL
		}
		if e.counter == 0 {
			return -EAGAIN
		}
		if !mm.Space.UserRange(buf, 8, true) {
			return -EFAULT
		}
		store64(buf, e.counter)
		e.counter = 0
		return 8
	}
	return -EINVAL
}

func sysCloseFd(fd int) int64 {
	if !validFD(fd) {
		return -EBADF
	}
	if fds[fd].kind == fdEpoll {
		epolls[fds[fd].ep].used = false
	}
	if fd > 2 {
		fds[fd] = fdEntry{}
	}
	return 0
}

// sysFstatFd reports a character device for the console and an anonymous inode otherwise
// (struct stat, x86-64 layout: st_mode at offset 24).
func sysFstatFd(fd int, st uintptr) int64 {
	if !validFD(fd) {
		return -EBADF
	}
	if !mm.Space.UserRange(st, 144, true) {
		return -EFAULT
	}
	for i := uintptr(0); i < 144; i += 8 {
		store64(st+i, 0)
	}
	mode := uint32(0o600)
	if fds[fd].kind == fdConsole {
		mode |= 0o020000 // S_IFCHR
	}
	store32(st+24, mode)
	store64(st+56, 4096) // st_blksize
	return 0
}

func sysLseekFd(fd int) int64 {
	if !validFD(fd) {
		return -EBADF
	}
	return -ESPIPE
}

func sysPreadFd(fd int) int64 {
	if !validFD(fd) {
		return -EBADF
	}
	return -ESPIPE
}

func sysIoctlFd(fd int) int64 {
	if !validFD(fd) {
		return -EBADF
	}
	return -ENOTTY
}

// sysFcntlFd answers F_GETFD/F_SETFD/F_GETFL/F_SETFL; the runtime checks fds 0-2 at start-up and a
// wrong answer there is fatal (runtime-contract §0, fact 8).
func sysFcntlFd(fd, cmd int) int64 {
	const fGetfd, fSetfd, fGetfl, fSetfl = 1, 2, 3, 4
	if !validFD(fd) {
		return -EBADF
	}
	switch cmd {
	case fGetfd, fSetfd, fSetfl:
		return 0
	case fGetfl:
		if fds[fd].kind == fdConsole {
			if fd == 0 {
				return 0 // O_RDONLY
			}
			return 1 // O_WRONLY
		}
		return 2 | 0o4000 // O_RDWR|O_NONBLOCK
	}
	return -EINVAL
}

// sysEventfdCall creates an eventfd (eventfd2(2)); only non-blocking ones are supported, which is
// how the Go runtime creates its netpoll break fd.
func sysEventfdCall(initval uint32, flags int) int64 {
	const efdSemaphore, efdCloexec, efdNonblock = 1, 0o2000000, 0o4000
	if flags&^(efdSemaphore|efdCloexec|efdNonblock) != 0 || flags&efdSemaphore != 0 {
		return -EINVAL
	}
	if flags&efdNonblock == 0 {
		return -EINVAL
	}
	fd := allocFD()
	if fd < 0 {
		return -EMFILE
	}
	fds[fd] = fdEntry{kind: fdEventfd, nonblk: true, counter: uint64(initval)}
	return int64(fd)
}
