// eventfd: a 64-bit counter as a file, the Go runtime's way to wake its netpoller.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/sched"

// eventfd2 flags (include/uapi/linux/eventfd.h).
const (
	efdSemaphore = 1
	efdCloexec   = oCloexec
	efdNonblock  = oNonblock

	// eventfdMax is the largest counter value: a write that would reach 2^64-1 waits (or is
	// EAGAIN without blocking), fs/eventfd.c.
	eventfdMax = ^uint64(0) - 1
)

// eventfdFile: priv is the counter, aux the EFD_SEMAPHORE flag. Readable while the
// counter is non-zero, writable while it is below eventfdMax (fs/eventfd.c).
type eventfdFile struct{}

// sysEventfd2 creates an eventfd (eventfd2(2)): the Go runtime makes a non-blocking one as its
// netpoll break fd; blocking ones wait in read and write (sysRead, sysWrite).
func sysEventfd2(initval uint32, flags int32) int64 {
	if flags&^(efdSemaphore|efdCloexec|efdNonblock) != 0 {
		return -EINVAL
	}
	fi := newFile(kindEventfd, oRdwr|uint32(flags&efdNonblock), uint64(initval))
	if fi < 0 {
		return -ENFILE
	}
	// The semaphore flag before the fd exists: another thread's read without the BKL may
	// find the file the moment it is installed (poll_unlocked.go).
	files[fi].aux = uint32(flags & efdSemaphore)
	fd := installFD(fi, 0, flags&efdCloexec != 0)
	if fd < 0 {
		files[fi] = file{}
	}
	return fd
}

// read returns the counter and clears it, or, with EFD_SEMAPHORE, returns 1 and decrements it.
// As in Linux (eventfd_read), the count is consumed before it is copied out: a bad buffer loses it.
func (eventfdFile) read(f *file, buf, n uintptr) int64 {
	if n < 8 {
		return -EINVAL
	}
	v, e := eventfdTake(f)
	if e != 0 {
		return e
	}
	if !userRange(buf, 8, true) {
		return -EFAULT
	}
	store64(buf, v)
	return 8
}

// eventfdTake consumes what a read returns: the counter, or 1 with EFD_SEMAPHORE; -EAGAIN while
// it is 0. BKL; the counter is epollLock's (poll_unlocked.go reads and writes it without the BKL).
func eventfdTake(f *file) (uint64, int64) {
	cpu := currentCPU()
	epollLock.lock(cpu)
	v, e := eventfdTakeLocked(f, cpu)
	epollLock.unlock(cpu)
	if e == 0 {
		fileWakeWaiters(f.index(), epollOut, cpu)
	}
	return v, e
}

// eventfdTakeLocked is eventfdTake's work under epollLock: it tells epoll, and leaves the threads
// parked on the file to its caller.
func eventfdTakeLocked(f *file, cpu int) (uint64, int64) {
	if f.priv == 0 {
		return 0, -EAGAIN
	}
	v := f.priv
	if f.aux&efdSemaphore != 0 {
		v = 1
	}
	f.priv -= v
	epollWake(f.index(), epollOut, cpu)
	return v, 0
}

// eventfdReadv is readv on an eventfd: its 8 bytes go across the iovecs u (total bytes long),
// as eventfd_read copies them to an iov_iter; a blocking one waits like read.
func eventfdReadv(t *Thread, gp sched.GID, cpu int, f *file, fi int, u *userIO, total uintptr) int64 {
	if total < 8 {
		return -EINVAL
	}
	v, e := eventfdTake(f)
	if e == -EAGAIN && f.flags&oNonblock == 0 {
		waitFileEvent(t, gp, cpu, fi, epollIn|epollErr|epollHup)
	}
	if e != 0 {
		return e
	}
	if !u.ok(8, true) {
		return -EFAULT
	}
	var b [8]byte
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	if !u.put(b[:]) {
		return -EFAULT
	}
	return 8
}

// write adds to the counter.
func (eventfdFile) write(f *file, buf, n uintptr) int64 {
	if n < 8 {
		return -EINVAL
	}
	if !userRange(buf, 8, false) {
		return -EFAULT
	}
	v := load64(buf)
	cpu := currentCPU()
	epollLock.lock(cpu)
	r := eventfdAddLocked(f, v, cpu)
	epollLock.unlock(cpu)
	if r > 0 && v != 0 {
		fileWakeWaiters(f.index(), epollIn, cpu)
	}
	return r
}

// eventfdAddLocked adds v to the counter and tells epoll: 8 (the bytes written), EINVAL for
// 2^64-1, EAGAIN if the sum would pass eventfdMax. epollLock held; the threads parked on the file
// are the caller's to wake.
func eventfdAddLocked(f *file, v uint64, cpu int) int64 {
	if v == ^uint64(0) {
		return -EINVAL
	}
	if eventfdMax-f.priv < v {
		return -EAGAIN
	}
	f.priv += v
	if v != 0 {
		epollWake(f.index(), epollIn, cpu)
	}
	return 8
}

// poll: epollLock held (itemPoll).
func (eventfdFile) poll(f *file) uint32 {
	var ev uint32
	if f.priv > 0 {
		ev |= epollIn
	}
	if f.priv < eventfdMax {
		ev |= epollOut
	}
	return ev
}

// stat: an anonymous inode ([eventfd]), mode 0600 with no file type, as Linux reports it.
func (eventfdFile) stat(f *file) fileStat {
	return fileStat{mode: 0o600, nlink: 1, blksize: 4096}
}

func (eventfdFile) release(f *file) {}
