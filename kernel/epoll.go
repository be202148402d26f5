package kernel

import (
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// epoll, as much as the Go runtime's netpoller uses (runtime-contract §3.7): one instance, the
// eventfd that netpollBreak writes, and epoll_pwait as the way an idle M sleeps until the next
// timer. Readiness is computed on demand from the watched objects (level-triggered for the
// eventfd, which Go registers without EPOLLET).
const (
	maxEpolls   = 4
	maxInterest = 64

	epollCtlAdd = 1
	epollCtlDel = 2
	epollCtlMod = 3

	epollIn  = 0x1
	epollOut = 0x4
	epollET  = 1 << 31
)

type epollInterest struct {
	fd     int
	events uint32
	data   uint64
}

type epollInstance struct {
	used     bool
	interest [maxInterest]epollInterest
	n        int
}

var epolls [maxEpolls]epollInstance

func sysEpollCreateCall(flags int) int64 {
	const epollCloexec = 0o2000000
	if flags&^epollCloexec != 0 {
		return -EINVAL
	}
	ep := -1
	for i := range epolls {
		if !epolls[i].used {
			ep = i
			break
		}
	}
	fd := allocFD()
	if ep < 0 || fd < 0 {
		return -EMFILE
	}
	epolls[ep] = epollInstance{used: true}
	fds[fd] = fdEntry{kind: fdEpoll, ep: ep}
	return int64(fd)
}

func epollOf(epfd int) *epollInstance {
	if !validFD(epfd) || fds[epfd].kind != fdEpoll {
		return nil
	}
	return &epolls[fds[epfd].ep]
}

// sysEpollCtlCall; struct epoll_event is packed on x86-64: events u32 at 0, data u64 at 4.
func sysEpollCtlCall(epfd, op, fd int, ev uintptr) int64 {
	ep := epollOf(epfd)
	if ep == nil {
		return -EBADF
	}
	if !validFD(fd) {
		return -EBADF
	}
	if fd == epfd {
		return -EINVAL
	}
	idx := -1
	for i := 0; i < ep.n; i++ {
		if ep.interest[i].fd == fd {
			idx = i
		}
	}
	var events uint32
	var data uint64
	if op != epollCtlDel {
		if !mm.Space.UserRange(ev, 12, false) {
			return -EFAULT
		}
		events = *(*uint32)(ptr(ev))
		data = uint64(*(*uint32)(ptr(ev + 4))) | uint64(*(*uint32)(ptr(ev + 8)))<<32
	}
	switch op {
	case epollCtlAdd:
		if idx >= 0 {
			return -EEXIST
		}
		if ep.n == maxInterest {
			return -ENOMEM
		}
		if fds[fd].kind != fdEventfd {
			return -EPERM // like epoll on a regular file: not pollable
		}
		ep.interest[ep.n] = epollInterest{fd, events, data}
		ep.n++
	case epollCtlMod:
		if idx < 0 {
			return -ENOENT
		}
		ep.interest[idx].events, ep.interest[idx].data = events, data
	case epollCtlDel:
		if idx < 0 {
			return -ENOENT
		}
		ep.n--
		ep.interest[idx] = ep.interest[ep.n]
	default:
		return -EINVAL
	}
	return 0
}

// epollCollect writes ready events to evbuf (at most max) and returns how many.
func epollCollect(ep *epollInstance, evbuf uintptr, max int) int {
	n := 0
	for i := 0; i < ep.n && n < max; i++ {
		in := &ep.interest[i]
		var ready uint32
		if e := &fds[in.fd]; e.kind == fdEventfd && e.counter > 0 {
			ready |= epollIn
		}
		ready &= in.events
		if ready == 0 {
			continue
		}
		p := evbuf + uintptr(12*n)
		*(*uint32)(ptr(p)) = ready
		*(*uint32)(ptr(p + 4)) = uint32(in.data)
		*(*uint32)(ptr(p + 8)) = uint32(in.data >> 32)
		n++
	}
	return n
}

// sysEpollWaitCall returns ready events or blocks until an event, the timeout (ms; -1 forever)
// or a signal.
func sysEpollWaitCall(t *Thread, gp sched.GID, cpu int, epfd int, evbuf uintptr, max, timeout int) int64 {
	ep := epollOf(epfd)
	if ep == nil {
		return -EBADF
	}
	if max <= 0 || max > 1<<16 {
		return -EINVAL
	}
	if !mm.Space.UserRange(evbuf, uintptr(12*max), true) {
		return -EFAULT
	}
	if n := epollCollect(ep, evbuf, max); n > 0 || timeout == 0 {
		return int64(n)
	}
	var deadline int64
	if timeout > 0 {
		deadline = nanotime() + int64(timeout)*1e6
	}
	t.waitAddr = uintptr(epfd)
	t.waitArg = uint64(evbuf)
	t.waitArg2 = uint64(max)
	block(t, gp, cpu, waitEpoll, deadline)
	return 0
}

// epollNotify wakes threads waiting in epoll_pwait on an instance that watches fd.
func epollNotify(fd int, cpu int) {
	for i := 0; i < waiters.n; {
		gp := waiters.g[i]
		t := &threads[gp]
		if t.wait == waitEpoll {
			if ep := epollOf(int(t.waitAddr)); ep != nil {
				if n := epollCollect(ep, uintptr(t.waitArg), int(t.waitArg2)); n > 0 {
					wakeThread(gp, int64(n), cpu)
					continue
				}
			}
		}
		i++
	}
}
