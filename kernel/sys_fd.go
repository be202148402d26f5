// System calls on file descriptors: read, write, close, fstat, lseek, pread64, pwrite64, ioctl,
// fcntl, dup, dup2, dup3.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/mm"
	"gmpos/kernel/vfs"
	"gmpos/sched"
)

// The calls check their arguments in Linux's order (fs/read_write.c, fs/ioctl.c, fs/fcntl.c,
// fs/file.c) and dispatch to the file's kind (fd.go); none of them knows the kinds.

// accessOK is Linux's access_ok: the range lies in the user half. It does not look at the
// mappings: a buffer that passes may still fault, which the kind then reports (EFAULT).
func accessOK(p, n uintptr) bool { return p+n >= p && p+n <= mm.UserEnd }

// sysRead reads from fd (vfs_read): EBADF unless open for reading, EFAULT outside user space; a
// read that would block waits for the file to become readable (unless O_NONBLOCK: EAGAIN) and
// then runs again.
func sysRead(t *Thread, gp sched.GID, cpu int, fd int32, buf, n uintptr) int64 {
	f, fi := fdFile(fd)
	if f == nil || f.flags&oAccmode == oWronly {
		return -EBADF
	}
	if kindCaps[f.kind]&canRead == 0 {
		return -EINVAL
	}
	if !accessOK(buf, n) {
		return -EFAULT
	}
	if f.kind == kind9p {
		return p9Read(t, gp, cpu, f, fi, buf, min(n, maxRWCount), -1) // waits for the host
	}
	r := kinds[f.kind].read(f, buf, min(n, maxRWCount))
	if r == -EAGAIN && f.flags&oNonblock == 0 {
		waitFileEvent(t, gp, cpu, fi, epollIn|epollErr|epollHup)
	}
	return r
}

// sysWrite writes to fd (vfs_write), waiting like sysRead while the file cannot take the data.
func sysWrite(t *Thread, gp sched.GID, cpu int, fd int32, buf, n uintptr) int64 {
	f, fi := fdFile(fd)
	if f == nil || f.flags&oAccmode == oRdonly {
		return -EBADF
	}
	if kindCaps[f.kind]&canWrite == 0 {
		return -EINVAL
	}
	if !accessOK(buf, n) {
		return -EFAULT
	}
	if f.kind == kind9p {
		return p9Write(t, gp, cpu, f, fi, buf, min(n, maxRWCount), -1) // waits for the host
	}
	r := kinds[f.kind].write(f, buf, min(n, maxRWCount))
	if r == -EAGAIN && f.flags&oNonblock == 0 {
		waitFileEvent(t, gp, cpu, fi, epollOut|epollErr|epollHup)
	}
	if r == -EPIPE && (f.kind == kindPipe || f.kind == kindSocket && sockOf(f).typ == sockStream) {
		// pipe_write, and sk_stream_error for a stream socket: a write nobody can read raises
		// SIGPIPE in the writer as well. (The Go runtime ignores it unless the fd is 1 or 2 or
		// the program asked for it.)
		postSignal(t, gp, sigPIPE, cpu)
	}
	return r
}

// waitFileEvent blocks t until open file fi signals one of events (fileNotify), holding a
// reference to the file; the call then runs again (wait.go, wakeToRestart).
func waitFileEvent(t *Thread, gp sched.GID, cpu int, fi int, events uint32) {
	files[fi].refs++
	atomic.AddInt32(&files[fi].waiting, 1) // paths without the BKL look (fd.go file.waiting)
	t.waitObj = uintptr(fi)
	t.waitArg = uint64(events)
	block(t, gp, cpu, waitFile, 0)
}

func sysClose(fd int32) int64 { return closeFD(fd) }

// sysFstat describes fd in the architecture's struct stat.
func sysFstat(t *Thread, gp sched.GID, cpu int, fd int32, st uintptr) int64 {
	f, fi := fdFile(fd)
	if f == nil {
		return -EBADF
	}
	if f.kind == kind9p {
		return p9Fstat(t, gp, cpu, f, fi, st, false)
	}
	s := kinds[f.kind].stat(f)
	if !userRange(st, statSize, true) {
		return -EFAULT
	}
	putStat(st, &s)
	return 0
}

// sysLseek moves a file's position (fs/read_write.c): after Linux's check of whence (SEEK_SET ..
// SEEK_HOLE), a file of the tree seeks (fileSeek); the console, pipes and sockets are streams
// (ESPIPE), and eventfd, epoll and the memory devices accept any seek and stay at 0
// (noop_llseek).
func sysLseek(fd int32, off int64, whence uint32) int64 {
	f, _ := fdFile(fd)
	if f == nil || f.kind == kindFile && f.flags&oPath != 0 {
		return -EBADF
	}
	if whence > 4 {
		return -EINVAL
	}
	switch f.kind {
	case kindFile:
		return fileSeek(f, off, whence)
	case kind9p:
		return p9Seek(f, off, whence)
	}
	if kindCaps[f.kind]&canSeek != 0 {
		return 0
	}
	return -ESPIPE
}

// sysPread and sysPwrite (ksys_pread64): a negative offset is EINVAL before the fd is looked at;
// then a file without positional I/O — anything but a file of the tree — is ESPIPE, whatever its
// access mode (FMODE_PREAD is checked before FMODE_READ). The file's position does not move. A
// pwrite to a file opened O_APPEND appends whatever the offset, as Linux does (pwrite(2), BUGS).
func sysPread(t *Thread, gp sched.GID, cpu int, fd int32, buf, n uintptr, pos int64) int64 {
	f, e := positional(fd, pos, buf, n, oWronly)
	if f == nil {
		return e
	}
	if f.kind == kind9p {
		return p9Read(t, gp, cpu, f, f.index(), buf, min(n, maxRWCount), pos)
	}
	return fileRead(fileIno(f), pos, buf, min(n, maxRWCount))
}

func sysPwrite(t *Thread, gp sched.GID, cpu int, fd int32, buf, n uintptr, pos int64) int64 {
	f, e := positional(fd, pos, buf, n, oRdonly)
	if f == nil {
		return e
	}
	if f.kind == kind9p {
		return p9Write(t, gp, cpu, f, f.index(), buf, min(n, maxRWCount), pos)
	}
	if f.flags&oAppend != 0 {
		pos = vfs.Get(fileIno(f)).Size
	}
	return fileWrite(fileIno(f), pos, buf, min(n, maxRWCount))
}

// positional checks a pread64 or pwrite64: the file, or nil and the error. wrongMode is the
// access mode that may not do it.
func positional(fd int32, pos int64, buf, n uintptr, wrongMode uint32) (*file, int64) {
	if pos < 0 {
		return nil, -EINVAL
	}
	f, _ := fdFile(fd)
	if f == nil {
		return nil, -EBADF
	}
	if f.kind != kindFile && f.kind != kind9p {
		return nil, -ESPIPE
	}
	if f.flags&oAccmode == wrongMode || f.flags&oPath != 0 {
		return nil, -EBADF
	}
	if !accessOK(buf, n) {
		return nil, -EFAULT
	}
	return f, 0
}

// ioctl requests every file understands (include/uapi/asm-generic/ioctls.h), handled in
// fs/ioctl.c do_vfs_ioctl before the file's own ioctl.
const (
	fionbio  = 0x5421
	fionclex = 0x5450
	fioclex  = 0x5451
	fioasync = 0x5452
	fioqsize = 0x5460
)

// sysIoctl handles the generic requests; no gmpos file has requests of its own (a serial
// terminal's would be TCGETS & co.), so the rest are ENOTTY.
func sysIoctl(fd int32, req uint32, arg uintptr) int64 {
	f, _ := fdFile(fd)
	if f == nil {
		return -EBADF
	}
	switch req {
	case fioclex, fionclex:
		fds()[fd].cloexec = req == fioclex
		return 0
	case fionbio, fioasync:
		if !userRange(arg, 4, false) {
			return -EFAULT
		}
		bit := uint32(oNonblock)
		if req == fioasync {
			bit = 0o20000 // O_ASYNC
		}
		if load32(arg) != 0 {
			f.flags |= bit
		} else {
			f.flags &^= bit
		}
		return 0
	}
	return -ENOTTY
}

// fcntl commands (include/uapi/asm-generic/fcntl.h, linux/fcntl.h).
const (
	fDupfd        = 0
	fGetfd        = 1
	fSetfd        = 2
	fGetfl        = 3
	fSetfl        = 4
	fSetown       = 8
	fGetown       = 9
	fSetsig       = 10
	fGetsig       = 11
	fGetlk        = 5
	fSetlk        = 6
	fSetlkw       = 7
	fSetownEx     = 15
	fGetownEx     = 16
	fOfdGetlk     = 36
	fOfdSetlk     = 37
	fOfdSetlkw    = 38
	fDupfdCloexec = 1030
	fSetpipeSz    = 1031
	fGetpipeSz    = 1032
	fdCloexecFlag = 1 // FD_CLOEXEC
)

// sysFcntl (fs/fcntl.c do_fcntl). The runtime checks fds 0-2 with F_GETFD at start-up, and a
// wrong answer there is fatal (docs/runtime-contract.md §0 fact 8).
func sysFcntl(fd int32, c int32, arg uint64) int64 {
	f, fi := fdFile(fd)
	if f == nil {
		return -EBADF
	}
	argi := uint32(arg)
	switch c {
	case fDupfd, fDupfdCloexec:
		if uint64(argi) >= rlimits[rlimitNofile][0] {
			return -EINVAL
		}
		r := installFD(fi, int(min(argi, maxFDs)), c == fDupfdCloexec) // EMFILE past the table
		if r >= 0 {
			f.refs++
		}
		return r
	case fGetfd:
		if fds()[fd].cloexec {
			return fdCloexecFlag
		}
		return 0
	case fSetfd:
		fds()[fd].cloexec = argi&fdCloexecFlag != 0
		return 0
	case fGetfl:
		return int64(f.flags)
	case fSetfl:
		if argi&oDirect != 0 { // O_DIRECT: no gmpos file supports it (FMODE_CAN_ODIRECT)
			return -EINVAL
		}
		f.flags = argi&setflMask | f.flags&^setflMask
		return 0
	case fGetown:
		return 0
	case fSetown:
		return 0
	case fGetsig:
		return 0
	case fSetsig:
		if argi > nSig {
			return -EINVAL
		}
		return 0
	case fGetownEx, fSetownEx:
		// struct f_owner_ex {int type; pid_t pid}: no owner (F_OWNER_TID, 0).
		if !userRange(uintptr(arg), 8, c == fGetownEx) {
			return -EFAULT
		}
		if c == fGetownEx {
			store64(uintptr(arg), 0)
		} else if load32(uintptr(arg)) > 2 { // F_OWNER_TID, F_OWNER_PID, F_OWNER_PGRP
			return -EINVAL
		}
		return 0
	case fGetlk, fSetlk, fSetlkw, fOfdGetlk, fOfdSetlk, fOfdSetlkw:
		return fcntlLock(c, uintptr(arg))
	case fGetpipeSz, fSetpipeSz:
		if f.kind == kindPipe {
			return pipeSize(c, arg)
		}
		return -EBADF // not a pipe (pipe_fcntl: get_pipe_info fails)
	}
	return -EINVAL
}

// fcntlLock answers the record-lock commands (fs/locks.c) for a process that is alone: no lock is
// ever held by anyone else, so F_GETLK reports F_UNLCK and every F_SETLK succeeds. struct flock:
// l_type (short) at 0, l_whence at 2, then start, len, pid.
func fcntlLock(c int32, p uintptr) int64 {
	const fRdlck, fWrlck, fUnlck, flockSize = 0, 1, 2, 32
	if !userRange(p, flockSize, false) {
		return -EFAULT
	}
	typ := *(*int16)(ptr(p))
	if typ != fRdlck && typ != fWrlck && typ != fUnlck {
		return -EINVAL
	}
	if c == fGetlk || c == fOfdGetlk {
		if !userRange(p, flockSize, true) {
			return -EFAULT
		}
		store16(p, fUnlck)
	}
	return 0
}

// sysDup gives the open file behind oldfd the lowest free fd.
func sysDup(oldfd int32) int64 {
	f, fi := fdFile(oldfd)
	if f == nil {
		return -EBADF
	}
	r := installFD(fi, 0, false)
	if r >= 0 {
		f.refs++
	}
	return r
}

// sysDup2 is dup3 without flags, except that dup2(fd, fd) checks fd and returns it.
func sysDup2(oldfd, newfd int32) int64 {
	if oldfd == newfd {
		if f, _ := fdFile(oldfd); f == nil {
			return -EBADF
		}
		return int64(newfd)
	}
	return sysDup3(oldfd, newfd, 0)
}

// sysDup3 makes newfd refer to oldfd's open file, closing what newfd referred to (fs/file.c
// ksys_dup3): flags other than O_CLOEXEC and oldfd == newfd are EINVAL, a newfd beyond
// RLIMIT_NOFILE (newfd is unsigned there: negative ones too) is EBADF.
func sysDup3(oldfd, newfd int32, flags int32) int64 {
	if flags&^oCloexec != 0 || oldfd == newfd {
		return -EINVAL
	}
	if uint32(newfd) >= uint32(fdLimit()) {
		return -EBADF
	}
	f, fi := fdFile(oldfd)
	if f == nil {
		return -EBADF
	}
	f.refs++
	if _, old := fdFile(newfd); old >= 0 {
		setFD(fds(), int(newfd), fdSlot{})
		putFile(old)
	}
	setFD(fds(), int(newfd), fdSlot{file: int16(fi + 1), cloexec: flags&oCloexec != 0})
	return int64(newfd)
}

// sysReadv and sysWritev transfer to or from several buffers (fs/read_write.c do_readv,
// vfs_readv): the fd and its access mode (EBADF, or EINVAL for a file that cannot), then the
// iovecs (iovImport; the count is an unsigned int), all of them before anything moves; nothing
// to move is 0. A socket takes them as one message (sock_read_iter, sock_write_iter); an
// eventfd reads its 8 bytes across them (eventfd_read); any other file gets one read or write
// per iovec, in order, stopping after a short one (do_loop_readv_writev), the first waiting
// like read and write do, the later ones never.
func sysReadv(t *Thread, gp sched.GID, cpu int, fd int32, iov, n uintptr, write bool) int64 {
	f, fi := fdFile(fd)
	if f == nil {
		return -EBADF
	}
	if write {
		if f.flags&oAccmode == oRdonly {
			return -EBADF
		}
		if kindCaps[f.kind]&canWrite == 0 {
			return -EINVAL
		}
	} else {
		if f.flags&oAccmode == oWronly {
			return -EBADF
		}
		if kindCaps[f.kind]&canRead == 0 {
			return -EINVAL
		}
	}
	n = uintptr(uint32(n))
	total := iovImport(iov, n)
	if total <= 0 {
		return total
	}
	u := iovIO(iov, n)
	switch {
	case f.kind == kindSocket && write:
		return sockSendMsg(t, gp, cpu, sockOf(f), f, fi, &u, uintptr(total), 0, 0, 0, 0, 0)
	case f.kind == kindSocket:
		return sockRecvMsg(t, gp, cpu, sockOf(f), f, fi, &u, uintptr(total), 0, 0, 0, nil)
	case f.kind == kindEventfd && !write:
		return eventfdReadv(t, gp, cpu, f, fi, &u, uintptr(total))
	}
	done := int64(0)
	for i := uintptr(0); i < n && done < total; i++ {
		base, l := u.seg(i)
		l = min(l, uintptr(total-done))
		var r int64
		switch {
		case done == 0 && write:
			r = sysWrite(t, gp, cpu, fd, base, l)
		case done == 0:
			r = sysRead(t, gp, cpu, fd, base, l)
		case write:
			r = kinds[f.kind].write(f, base, l)
		default:
			r = kinds[f.kind].read(f, base, l)
		}
		if r < 0 {
			if done > 0 {
				return done
			}
			return r
		}
		done += r
		if uintptr(r) < l {
			break
		}
	}
	return done
}
