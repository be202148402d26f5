// File descriptors and open files: the table, and the operations every kind of file provides.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"
	"unsafe"

	"gmpos/kernel/arch"
)

// Two levels, as in Linux (fs/file.c, include/linux/fs.h):
//
//   - the fd table maps a small integer to an open file, with a per-fd close-on-exec flag;
//   - an open file (Linux's struct file, POSIX's "open file description") is what dup shares:
//     its kind, status flags (O_NONBLOCK, O_APPEND, access mode) and the kind's own data. It
//     lives until the last fd referring to it is closed.
//
// Each kind — the console, eventfd, epoll, sockets, pipes, the tree's files — implements
// fileOps, one small set of operations; the system calls (sys_fd.go) and epoll dispatch through
// it and never switch on the kind. A kind whose readiness changes (an eventfd's counter became
// non-zero) calls fileNotify, which is what makes epoll event-driven and wakes threads blocked on
// the file.
//
// Each process has its fd table (proc.go; threads share it: CLONE_FILES); the open files are
// machine-wide. Protected by the BKL; fds 0-2 of the program are the console from boot on. A
// write to the console runs without the BKL (console_unlocked.go): it reads its fd's slot and
// open file under fdSeq, the sequence count every change of a slot and every release of a file
// bumps (setFD, putFile).

const (
	maxFDs   = 1024 // the fd table's size: RLIMIT_NOFILE's ceiling (Linux's default soft limit)
	maxFiles = 1024 // open files (Linux: fs.file-max, far larger; one per fd here at most)
)

// fileKind names a kind of open file; kinds[kind] implements it.
type fileKind uint8

const (
	kindFree fileKind = iota
	kindConsole
	kindEventfd
	kindEpoll
	kindSocket // fd_socket.go
	kindNIC    // nic.go: the network stack's NIC file
	kindNetSvc // net_svc.go: the network stack's service file
	kindFile   // fd_file.go: regular files, directories and O_PATH files of the tree (kernel/vfs)
	kind9p     // fd_9p.go: files of a share, on the host (virtio-9p)
	// fd_netlink.go: NETLINK_ROUTE sockets
	kindNetlink
	kindPipe // fd_pipe.go
	kindDev  // fd_dev.go: /dev/null, /dev/zero, /dev/full, /dev/random, /dev/urandom
	numKinds
)

// fileOps are the operations of one kind of file (Linux's struct file_operations). Every method
// runs in trap context under the BKL (the console's writes also without it, outside fileOps:
// console_unlocked.go); f is the open file, buf/n a user buffer that the method
// checks itself (userRange). Methods return a result or -errno.
type fileOps interface {
	// read and write transfer bytes. A call that would block returns -EAGAIN; the caller
	// (sysRead, sysWrite) then either returns it (O_NONBLOCK) or waits for readiness.
	read(f *file, buf, n uintptr) int64
	write(f *file, buf, n uintptr) int64
	// poll returns the file's current readiness: epollIn, epollOut, epollErr, epollHup bits.
	poll(f *file) uint32
	// stat describes the file for fstat.
	stat(f *file) fileStat
	// release frees the kind's own state when the last fd referring to f is closed.
	release(f *file)
}

// What a kind of file can do at all (Linux: FMODE_CAN_READ, FMODE_CAN_WRITE, and an llseek that
// is noop_llseek rather than no_llseek). A call the kind cannot do is EINVAL (read, write) or
// ESPIPE (lseek), checked before the buffer is.
const (
	canRead = 1 << iota
	canWrite
	canSeek // lseek succeeds and reports position 0 (anonymous-inode files: eventfd, epoll)
)

var kindCaps = [numKinds]uint8{
	kindConsole: canRead | canWrite,
	kindEventfd: canRead | canWrite | canSeek,
	kindEpoll:   canSeek,
	kindSocket:  canRead | canWrite,
	kindNIC:     canRead | canWrite,
	kindNetSvc:  0,
	kindFile:    canRead | canWrite | canSeek,
	kind9p:      canRead | canWrite | canSeek,
	kindNetlink: canRead | canWrite,
	kindPipe:    canRead | canWrite,
	kindDev:     canRead | canWrite | canSeek,
}

// kinds is the operations table, indexed by fileKind. Zero-size values: the table is static
// data, and calling through it allocates nothing.
var kinds = [numKinds]fileOps{
	kindFree:    noFile{},
	kindConsole: consoleFile{},
	kindEventfd: eventfdFile{},
	kindEpoll:   epollFile{},
	kindSocket:  socketFile{},
	kindNIC:     nicFile{},
	kindNetSvc:  netSvcFile{},
	kindFile:    fileFile{},
	kind9p:      p9File{},
	kindNetlink: netlinkFile{},
	kindPipe:    pipeFile{},
	kindDev:     devFileKind{},
}

// file is an open file description.
type file struct {
	kind  fileKind
	refs  int32  // fds referring to it
	flags uint32 // status flags: O_ACCMODE bits, O_NONBLOCK, O_APPEND (F_GETFL/F_SETFL)
	// priv is the kind's own data: the console channel, an eventfd's counter (under
	// epollLock: poll_unlocked.go changes it without the BKL), the epoll instance's index.
	priv uint64
	aux  uint32 // more of the kind's own data: eventfd's EFD_SEMAPHORE
	pos  int64  // the file position (kindFile: a byte offset, or a directory's getdents cookie)
	// watchers is the first epoll item watching this file (epoll.go), 0 for none. epollLock.
	watchers int32
	// waiting counts the threads parked on this file's readiness on the BKL's waiters list:
	// blocked in read or write (waitFile), or, for an epoll file, in epoll_pwait with a
	// temporary signal mask (waitEpollMasked). A path without the BKL that would have to wake
	// one leaves its call to the BKL (poll_unlocked.go). Atomic: raised by the waits under the
	// BKL, lowered by unblock.
	waiting int32
	// dir is the directory a tree file (kindFile) was opened in, to name it in /proc/self/fd
	// (procfd.go); 0 if unknown.
	dir uint32
}

// fdSlot is one entry of the fd table.
type fdSlot struct {
	file    int16 // index of the open file + 1; 0: the fd is free
	cloexec bool
}

// Status flags and fcntl/ioctl values (include/uapi/asm-generic/fcntl.h, ioctls.h; the same on
// x86-64 and arm64 but for O_DIRECT, O_DIRECTORY and O_NOFOLLOW, which abi_<arch>.go defines).
const (
	oRdonly   = 0
	oWronly   = 1
	oRdwr     = 2
	oAccmode  = 3
	oAppend   = 0o2000
	oNonblock = 0o4000
	oCloexec  = 0o2000000

	// setflMask: the flags F_SETFL may change (fs/fcntl.c SETFL_MASK), O_DIRECT and O_NOATIME
	// among them, which no gmpos file honours.
	setflMask = oAppend | oNonblock | 0o20000 /* O_ASYNC */ | oDirect | 0o1000000 /* O_NOATIME */
)

// The open files, shared by every process (each process's fd table is in proc.go). The console
// is open on the program's fds 0-2 from boot, statically. Protected by the BKL.
var (
	files = [maxFiles]file{
		0: {kind: kindConsole, refs: 1, flags: oRdonly, priv: consoleStdin},
		1: {kind: kindConsole, refs: 1, flags: oWronly, priv: consoleStdout},
		2: {kind: kindConsole, refs: 1, flags: oWronly, priv: consoleStderr},
	}
)

// fileStat is what fstat reports; abi_<arch>.go writes it in the architecture's struct stat.
type fileStat struct {
	dev, ino, nlink, rdev, size, blksize, blocks uint64
	mode, uid, gid                               uint32
	atime, mtime, ctime                          int64 // nanoseconds since the epoch
}

// File type bits of st_mode (include/uapi/linux/stat.h).
const (
	sIFMT  = 0o170000
	sIFCHR = 0o020000
	sIFDIR = 0o040000
	sIFREG = 0o100000
)

// index returns f's position in the open-file table.
func (f *file) index() int {
	return int((uintptr(unsafe.Pointer(f)) - uintptr(unsafe.Pointer(&files[0]))) / unsafe.Sizeof(file{}))
}

// fdFile returns the open file behind fd, or nil (then the caller answers EBADF). fd is the
// system call's int argument: only its low 32 bits count, as in Linux.
func fdFile(fd int32) (*file, int) {
	if fd < 0 || int(fd) >= maxFDs || fds()[fd].file == 0 {
		return nil, -1
	}
	i := int(fds()[fd].file) - 1
	return &files[i], i
}

// newFile finds a free open-file slot and fills it in with one reference; -1 if none.
func newFile(kind fileKind, flags uint32, priv uint64) int {
	for i := range files {
		if files[i].kind == kindFree {
			files[i] = file{kind: kind, refs: 1, flags: flags, priv: priv}
			return i
		}
	}
	return -1
}

// installFD gives open file fi the lowest free fd ≥ min (the POSIX rule), or -EMFILE.
func installFD(fi int, min int, cloexec bool) int64 {
	for fd := min; fd < fdLimit(); fd++ {
		if fds()[fd].file == 0 {
			setFD(fds(), fd, fdSlot{file: int16(fi + 1), cloexec: cloexec})
			return int64(fd)
		}
	}
	return -EMFILE
}

// openFile creates an open file and an fd for it; the kind's state is priv. -EMFILE or -ENFILE
// when a table is full.
func openFile(kind fileKind, flags uint32, priv uint64) int64 {
	fi := newFile(kind, flags&^oCloexec, priv)
	if fi < 0 {
		return -ENFILE
	}
	fd := installFD(fi, 0, flags&oCloexec != 0)
	if fd < 0 {
		files[fi] = file{}
	}
	return fd
}

// closeFD frees fd; the open file goes when its last fd does.
func closeFD(fd int32) int64 {
	f, fi := fdFile(fd)
	if f == nil {
		return -EBADF
	}
	setFD(fds(), int(fd), fdSlot{})
	putFile(fi)
	return 0
}

// putFile drops one reference to open file fi, releasing it with the last.
func putFile(fi int) {
	f := &files[fi]
	if f.refs--; f.refs > 0 {
		return
	}
	epollLock.lock(currentCPU())
	epollForget(fi) // epoll items watching it go away with the file (Linux: eventpoll_release)
	epollLock.unlock(currentCPU())
	kinds[f.kind].release(f)
	fdSeq.Add(1) // a reader without the BKL may have found f through an fd that named it
	arch.Fence() // arm64: the count's add is no barrier for the stores after it (signal.go)
	*f = file{}
	arch.Fence()
	fdSeq.Add(1)
}

// fdSeq is the sequence count of the fd tables' slots and of the open files' identity (Linux
// reads its fd tables under RCU; this is the seqlock counterpart, as the dispositions have
// theirs: signal.go). Odd while a BKL section changes a slot (setFD) or frees an open file
// (putFile); the BKL orders those writers, which fence after making it odd and before making it
// even again, as setSigaction does. A reader without the BKL (console_unlocked.go
// fdPeekConsole) reads it, then the slot and the file, then — after a fence — reads it again, and
// trusts what it read only if both reads were the same even count.
var fdSeq atomic.Uint32

// fdView is what an fd named when fdPeek looked: its open file's index (-1: none), the file's
// kind, status flags and priv, and the fdSeq count they were read under.
type fdView struct {
	fi    int
	kind  fileKind
	flags uint32
	priv  uint64
	seq   uint32
}

// fdPeek reads, without the BKL, what fd of process p names, and reports whether the fd tables
// and open files held still while it looked (an even fdSeq count, the same before and after).
// The thread asking is p's and running, so p lives on; the file may go the moment after: a
// caller that acts on it takes the lock of the file's kind and checks that the count has not
// moved (fdStill), since every change of a slot (setFD) and every release of a file (putFile)
// moves it, and putFile takes that lock before the file goes (epollLock: epollForget; the
// console's files never go).
func fdPeek(p *process, fd int32) (v fdView, still bool) {
	v.fi = -1
	if fd < 0 || int(fd) >= maxFDs {
		return v, false
	}
	v.seq = fdSeq.Load()
	fi := int(p.fds[fd].file) - 1
	if fi < 0 || fi >= maxFiles {
		return v, false
	}
	fl := &files[fi]
	v.fi, v.kind, v.flags, v.priv = fi, fl.kind, fl.flags, fl.priv
	arch.Fence() // the reads above before the second look (arm64 may otherwise reorder them)
	return v, v.seq&1 == 0 && fdSeq.Load() == v.seq
}

// fdStill reports whether no fd slot changed and no open file went since fdPeek's look at count
// seq. Read under the lock of the file's kind, after taking it.
func fdStill(seq uint32) bool { return fdSeq.Load() == seq }

// setFD stores slot s as fd of table tab. Every change of a slot goes through here (the cloexec
// flag alone excepted, which no reader without the BKL looks at, and vfork's copy of its
// parent's table, whose process has no thread running yet). Under the BKL.
func setFD(tab *[maxFDs]fdSlot, fd int, s fdSlot) {
	fdSeq.Add(1)
	arch.Fence() // as in putFile
	tab[fd] = s
	arch.Fence()
	fdSeq.Add(1)
}

// fileNotify tells the file's watchers that its readiness may have changed to events: epoll
// instances watching it queue it as ready, and threads blocked reading or writing it (waitFile)
// run their system call again. Called by the kinds, in trap or interrupt context, under the BKL
// and no other lock: it takes epollLock for the epoll part.
func fileNotify(fi int, events uint32, cpu int) {
	epollLock.lock(cpu)
	epollWake(fi, events, cpu)
	epollLock.unlock(cpu)
	fileWakeWaiters(fi, events, cpu)
}

// fileWakeWaiters is fileNotify's second half, for a caller that has told epoll under epollLock
// itself (the eventfd): the threads blocked on file fi for one of events run their call again.
// BKL.
func fileWakeWaiters(fi int, events uint32, cpu int) {
	if atomic.LoadInt32(&files[fi].waiting) == 0 {
		return // nobody parked on it: no need to look through every waiter
	}
	for i := 0; i < waiters.n; {
		gp := waiters.g[i]
		t := &threads[gp]
		if t.wait == waitFile && t.waitObj == uintptr(fi) && uint32(t.waitArg)&events != 0 {
			wakeToRestart(gp, cpu) // swaps the last waiter into slot i
			continue
		}
		i++
	}
}

// noFile is the free slot's kind: nothing may reach it through an fd.
type noFile struct{}

func (noFile) read(*file, uintptr, uintptr) int64  { return -EBADF }
func (noFile) write(*file, uintptr, uintptr) int64 { return -EBADF }
func (noFile) poll(*file) uint32                   { return 0 }
func (noFile) stat(*file) fileStat                 { return fileStat{} }
func (noFile) release(*file)                       {}
