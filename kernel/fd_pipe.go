// Pipes: pipe2(2), a 64 KiB byte ring between a read end and a write end.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/netabi"
	"gmpos/sched"
)

// A pipe (fs/pipe.c) is two open files of kind kindPipe, the read end (O_RDONLY) and the write
// end (O_WRONLY), whose priv is the index of one pipeState. The data is a sockRing (socket.go):
// 64 KiB in page frames taken at pipe2 and given back when both ends are closed — Linux's
// default capacity (16 pages, pipe_max_size's floor).
//
// The rules are Linux's (pipe(7)):
//   - read takes what is there (at most n); on an empty pipe it is EOF (0) once the write end
//     is closed, else it would block (EAGAIN, or wait in sysRead);
//   - write with the read end closed is EPIPE, and SIGPIPE for the writer (sysWrite);
//   - a write of at most PIPE_BUF bytes is atomic: all or, until there is room, nothing; a
//     larger one takes what fits.
//
// One difference: Linux's blocking write of more than fits waits until all of it is written;
// here it returns the short count (as a non-blocking one does), because a thread that waits
// re-runs its system call from the start (wait.go). Go's os.File.Write, like every write loop,
// goes on with the rest.
//
// Readiness (pipe_poll): the read end is readable with data, and EPOLLHUP once the write end is
// closed; the write end is writable with room for PIPE_BUF bytes, and EPOLLERR once the read end
// is closed. Either side's change notifies the other end's file (fileNotify), which wakes epoll
// and threads blocked in read or write.
//
// Protected by the BKL, trap context: a fixed table, frames from mm, no pointers stored.

const (
	maxPipes = 512  // pipes open at once; pipe2 is ENFILE beyond (rings are allocated per pipe)
	pipeBuf  = 4096 // PIPE_BUF: the largest write that is atomic (include/uapi/linux/limits.h)

	// pipeCapacity is the ring's size; F_GETPIPE_SZ reports it.
	pipeCapacity = netabi.RingSize

	oNotificationPipe = 0o200 // O_NOTIFICATION_PIPE (= O_EXCL): a watch queue, not implemented
	sIFIFO            = 0o010000
)

// pipeState is one pipe.
type pipeState struct {
	used     bool
	rdOpen   bool  // the read end's open file exists
	wrOpen   bool  // the write end's open file exists
	rfi, wfi int32 // the ends' open-file indices (for fileNotify)
	ino      uint64
	ring     sockRing
}

// The pipe table, and the inode numbers fstat reports (one per pipe, never reused).
// Protected by the BKL.
var (
	pipes   [maxPipes]pipeState
	pipeIno uint64
)

type pipeFile struct{}

// pipeOf is the pipe behind an open file of kind kindPipe.
func pipeOf(f *file) *pipeState { return &pipes[f.priv] }

// sysPipe2 creates a pipe and stores its two fds, read end first, at fds (pipe2(2)). Linux's
// order (do_pipe2): the flags, then the pipe and its files, then the fds, then the copy-out, which
// undoes everything if it faults.
func sysPipe2(fds uintptr, flags int32) int64 {
	if flags&^(oCloexec|oNonblock|oDirect|oNotificationPipe) != 0 {
		return -EINVAL
	}
	if flags&(oDirect|oNotificationPipe) != 0 {
		// Linux accepts both; gmpos has neither packet mode nor watch queues, and says so
		// rather than give a byte-stream pipe to a program that asked for packets.
		return -EINVAL
	}
	pi := -1
	for i := range pipes {
		if !pipes[i].used {
			pi = i
			break
		}
	}
	if pi < 0 {
		return -ENFILE
	}
	p := &pipes[pi]
	if !p.ring.alloc() {
		p.ring.free()
		return -ENOMEM
	}
	status := uint32(flags) & oNonblock
	rfi := newFile(kindPipe, oRdonly|status, uint64(pi))
	if rfi < 0 {
		p.ring.free()
		return -ENFILE
	}
	wfi := newFile(kindPipe, oWronly|status, uint64(pi))
	if wfi < 0 {
		files[rfi] = file{}
		p.ring.free()
		return -ENFILE
	}
	pipeIno++
	p.used, p.rdOpen, p.wrOpen, p.rfi, p.wfi, p.ino = true, true, true, int32(rfi), int32(wfi), pipeIno
	cloexec := flags&oCloexec != 0
	rfd := installFD(rfi, 0, cloexec)
	wfd := int64(-EMFILE)
	if rfd >= 0 {
		if wfd = installFD(wfi, 0, cloexec); wfd < 0 {
			setFD(&cur().fds, int(rfd), fdSlot{})
		}
	}
	if rfd < 0 || wfd < 0 || !userRange(fds, 8, true) {
		if rfd >= 0 && wfd >= 0 {
			setFD(&cur().fds, int(rfd), fdSlot{})
			setFD(&cur().fds, int(wfd), fdSlot{})
		}
		putFile(rfi)
		putFile(wfi)
		if rfd < 0 || wfd < 0 {
			return -EMFILE
		}
		return -EFAULT
	}
	store32(fds, uint32(rfd))
	store32(fds+4, uint32(wfd))
	return 0
}

func (pipeFile) read(f *file, buf, n uintptr) int64 {
	p := pipeOf(f)
	used := p.ring.used()
	if used == 0 {
		if !p.wrOpen {
			return 0
		}
		return -EAGAIN
	}
	if n == 0 {
		return 0
	}
	c := min(uint64(n), used)
	if !userRange(buf, uintptr(c), true) {
		return -EFAULT
	}
	p.ring.readAt(p.ring.head, buf, c)
	wasFull := p.ring.space() < pipeBuf
	p.ring.head += c
	if p.ring.head == p.ring.tail {
		p.ring.head, p.ring.tail = 0, 0
	}
	if wasFull && p.ring.space() >= pipeBuf && p.wrOpen {
		fileNotify(int(p.wfi), epollOut, currentCPU())
	}
	return int64(c)
}

func (pipeFile) write(f *file, buf, n uintptr) int64 {
	p := pipeOf(f)
	if !p.rdOpen {
		return -EPIPE
	}
	if n == 0 {
		return 0
	}
	space := p.ring.space()
	if space == 0 || uint64(n) <= pipeBuf && space < uint64(n) {
		return -EAGAIN
	}
	c := min(uint64(n), space)
	if !userRange(buf, uintptr(c), false) {
		return -EFAULT
	}
	wasEmpty := p.ring.used() == 0
	p.ring.write(buf, c)
	if wasEmpty {
		fileNotify(int(p.rfi), epollIn, currentCPU())
	}
	return int64(c)
}

func (pipeFile) poll(f *file) uint32 {
	p := pipeOf(f)
	var ev uint32
	if f.flags&oAccmode == oRdonly {
		if p.ring.used() > 0 {
			ev |= epollIn
		}
		if !p.wrOpen {
			ev |= epollHup
		}
		return ev
	}
	if p.ring.space() >= pipeBuf {
		ev |= epollOut
	}
	if !p.rdOpen {
		ev |= epollErr
	}
	return ev
}

// stat: a FIFO of pipefs, mode 0600, as Linux reports an anonymous pipe.
func (pipeFile) stat(f *file) fileStat {
	return fileStat{mode: sIFIFO | 0o600, nlink: 1, blksize: 4096, ino: pipeOf(f).ino}
}

// release closes one end: the other end learns it (EOF and EPOLLHUP for a reader, EPIPE and
// EPOLLERR for a writer); the pipe goes with its last end.
func (pipeFile) release(f *file) {
	p := pipeOf(f)
	if f.flags&oAccmode == oRdonly {
		p.rdOpen = false
		if p.wrOpen {
			fileNotify(int(p.wfi), epollOut|epollErr, currentCPU())
		}
	} else {
		p.wrOpen = false
		if p.rdOpen {
			fileNotify(int(p.rfi), epollIn|epollHup, currentCPU())
		}
	}
	if !p.rdOpen && !p.wrOpen {
		p.ring.free()
		*p = pipeState{}
	}
}

// pipeSize answers fcntl F_GETPIPE_SZ and F_SETPIPE_SZ: the capacity is fixed at 64 KiB, so a
// request up to it is granted as 64 KiB (Linux rounds up too) and a larger one is EPERM (Linux's
// answer beyond pipe-max-size without CAP_SYS_RESOURCE; gmpos cannot grow a ring).
func pipeSize(cmd int32, arg uint64) int64 {
	if cmd == fSetpipeSz && arg > pipeCapacity {
		return -EPERM
	}
	return int64(pipeCapacity)
}

// splice(2) flags (include/linux/splice.h): SPLICE_F_MOVE, _NONBLOCK, _MORE, _GIFT.
const (
	spliceNonblock = 0x02
	spliceAll      = 0x0f
)

// sysSplice moves data between two pipes without a user buffer (fs/splice.c). Between a pipe and
// any other gmpos file it is EINVAL, Linux's answer for a file without splice_read or
// splice_write: none of gmpos's other kinds has them, and a caller such as Go's
// net.TCPConn.ReadFrom then falls back to copying (it treats every other error as fatal to the
// copy). The checks come in Linux's order: len 0, the flags, the fds, an offset on a pipe
// (ESPIPE), the access modes, the same pipe at both ends.
func sysSplice(t *Thread, gp sched.GID, cpu int, fdIn int32, offIn uintptr, fdOut int32, offOut uintptr, n uintptr, flags uint32) int64 {
	if n == 0 {
		return 0
	}
	if flags&^spliceAll != 0 {
		return -EINVAL
	}
	in, _ := fdFile(fdIn)
	out, ofi := fdFile(fdOut)
	if in == nil || out == nil {
		return -EBADF
	}
	inPipe, outPipe := in.kind == kindPipe, out.kind == kindPipe
	if inPipe && offIn != 0 || outPipe && offOut != 0 {
		return -ESPIPE
	}
	if in.flags&oAccmode == oWronly || out.flags&oAccmode == oRdonly {
		return -EBADF
	}
	if !inPipe || !outPipe {
		return -EINVAL
	}
	src, dst := pipeOf(in), pipeOf(out)
	if src == dst {
		return -EINVAL
	}
	// splice_pipe_to_pipe: wait for data in src (EOF if its writer is gone), then for room in
	// dst (EPIPE if its reader is gone), unless non-blocking.
	nonblock := flags&spliceNonblock != 0 || in.flags&oNonblock != 0 || out.flags&oNonblock != 0
	if src.ring.used() == 0 {
		if !src.wrOpen {
			return 0
		}
		if !nonblock {
			waitFileEvent(t, gp, cpu, int(src.rfi), epollIn|epollErr|epollHup)
		}
		return -EAGAIN
	}
	if !dst.rdOpen {
		postSignal(t, gp, sigPIPE, cpu)
		return -EPIPE
	}
	if dst.ring.space() == 0 {
		if !nonblock {
			waitFileEvent(t, gp, cpu, ofi, epollOut|epollErr|epollHup)
		}
		return -EAGAIN
	}
	c := min(uint64(n), src.ring.used(), dst.ring.space())
	for done := uint64(0); done < c; {
		p, room := src.ring.chunk(src.ring.head + done)
		k := min(room, c-done)
		dst.ring.write(p, k)
		done += k
	}
	srcWasFull, dstWasEmpty := src.ring.space() < pipeBuf, dst.ring.used() == c
	src.ring.head += c
	if src.ring.head == src.ring.tail {
		src.ring.head, src.ring.tail = 0, 0
	}
	if srcWasFull && src.ring.space() >= pipeBuf && src.wrOpen {
		fileNotify(int(src.wfi), epollOut, cpu)
	}
	if dstWasEmpty {
		fileNotify(int(dst.rfi), epollIn, cpu)
	}
	return int64(c)
}
