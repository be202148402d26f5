// fdops checks the semantics of file descriptors and epoll that the Go runtime and its libraries
// rely on, with raw system calls: blocking and semaphore eventfds, dup and F_DUPFD_CLOEXEC sharing
// one open file, epoll's level-triggered, edge-triggered and one-shot modes, an epoll_wait woken by
// another thread, nested epoll instances, and what close does to an epoll item. It prints one line
// per check; the same program runs natively, as the reference.
package main

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

const (
	sysEventfd2   = syscall.SYS_EVENTFD2
	sysEpollPwait = syscall.SYS_EPOLL_PWAIT
	efdNonblock   = syscall.O_NONBLOCK
	efdSemaphore  = 1
	efdCloexec    = syscall.O_CLOEXEC
	fDupfdCloexec = 1030
	epollET       = 1 << 31
	epollOneshot  = 1 << 30
)

func check(name string, ok bool) { fmt.Printf("%-44s %v\n", name, ok) }

func eventfd(initval uint, flags int) int {
	fd, _, e := syscall.RawSyscall(sysEventfd2, uintptr(initval), uintptr(flags), 0)
	if e != 0 {
		panic(e)
	}
	return int(fd)
}

func write8(fd int, v uint64) syscall.Errno {
	_, _, e := syscall.Syscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&v)), 8)
	return e
}

func read8(fd int) (uint64, syscall.Errno) {
	var v uint64
	_, _, e := syscall.Syscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&v)), 8)
	return v, e
}

// wait calls epoll_pwait and returns the events' data words (their fds). EINTR is the Go
// runtime's own preemption signal (SIGURG) arriving during the wait, which Linux answers the same
// way (epoll_wait is never restarted after a handler): the wait is made again, as Go's netpoller
// does. A CI run once panicked here.
func wait(ep int, ms int) []int {
	var evs [8]syscall.EpollEvent
	n, _, e := syscall.Syscall6(sysEpollPwait, uintptr(ep), uintptr(unsafe.Pointer(&evs[0])), 8, uintptr(ms), 0, 8)
	for e == syscall.EINTR {
		n, _, e = syscall.Syscall6(sysEpollPwait, uintptr(ep), uintptr(unsafe.Pointer(&evs[0])), 8, uintptr(ms), 0, 8)
	}
	if e != 0 {
		panic(e)
	}
	var fds []int
	for _, ev := range evs[:n] {
		fds = append(fds, int(ev.Fd))
	}
	return fds
}

// waitMax is wait with at most max events.
func waitMax(ep, max int) []int {
	var evs [8]syscall.EpollEvent
	n, _, e := syscall.Syscall6(sysEpollPwait, uintptr(ep), uintptr(unsafe.Pointer(&evs[0])), uintptr(max), 0, 0, 8)
	if e != 0 {
		panic(e)
	}
	var fds []int
	for _, ev := range evs[:n] {
		fds = append(fds, int(ev.Fd))
	}
	return fds
}

func ctl(ep, op, fd int, events uint32) syscall.Errno {
	ev := syscall.EpollEvent{Events: events, Fd: int32(fd)}
	_, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_CTL, uintptr(ep), uintptr(op), uintptr(fd), uintptr(unsafe.Pointer(&ev)), 0, 0)
	return e
}

func epollCreate() int {
	fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		panic(err)
	}
	return fd
}

func main() {
	// A blocking eventfd: read waits for a write from another thread, then sees its value.
	efd := eventfd(0, 0)
	got := make(chan uint64)
	go func() {
		runtime.LockOSThread()
		v, _ := read8(efd)
		got <- v
	}()
	time.Sleep(20 * time.Millisecond)
	select {
	case <-got:
		check("blocking read waited for a write", false)
	default:
		write8(efd, 5)
		check("blocking read waited for a write", <-got == 5)
	}

	// EFD_SEMAPHORE: each read takes one.
	sem := eventfd(3, efdSemaphore|efdNonblock)
	a, _ := read8(sem)
	b, _ := read8(sem)
	c, _ := read8(sem)
	_, e := read8(sem)
	check("semaphore eventfd reads 1, 1, 1, then EAGAIN", a == 1 && b == 1 && c == 1 && e == syscall.EAGAIN)

	// dup and F_DUPFD_CLOEXEC share the open file; closing one fd keeps the other working.
	nb := eventfd(0, efdNonblock)
	d, _ := syscall.Dup(nb)
	hi, _, _ := syscall.Syscall(syscall.SYS_FCNTL, uintptr(nb), fDupfdCloexec, 100)
	fl, _, _ := syscall.Syscall(syscall.SYS_FCNTL, hi, syscall.F_GETFD, 0)
	write8(d, 7)
	syscall.Close(nb)
	v, _ := read8(int(hi))
	check("dup'd fds share one open file", v == 7)
	check("F_DUPFD_CLOEXEC gives fd >= 100 with FD_CLOEXEC", hi >= 100 && fl == syscall.FD_CLOEXEC)
	getfl, _, _ := syscall.Syscall(syscall.SYS_FCNTL, uintptr(d), syscall.F_GETFL, 0)
	check("the shared file is O_NONBLOCK through the dup", getfl&syscall.O_NONBLOCK != 0)

	// Level-triggered: reported until drained. Edge-triggered: once per write. One-shot: once.
	ep := epollCreate()
	ctl(ep, syscall.EPOLL_CTL_ADD, d, syscall.EPOLLIN)
	write8(d, 1)
	check("level-triggered: ready twice before the read", len(wait(ep, 0)) == 1 && len(wait(ep, 0)) == 1)
	read8(d)
	check("level-triggered: not ready after the read", len(wait(ep, 0)) == 0)
	ctl(ep, syscall.EPOLL_CTL_MOD, d, syscall.EPOLLIN|epollET)
	write8(d, 1)
	first, second := wait(ep, 0), wait(ep, 0)
	write8(d, 1)
	third := wait(ep, 0)
	check("edge-triggered: once per write", len(first) == 1 && len(second) == 0 && len(third) == 1)
	read8(d)
	ctl(ep, syscall.EPOLL_CTL_MOD, d, syscall.EPOLLIN|epollOneshot)
	write8(d, 1)
	first, second = wait(ep, 0), wait(ep, 0)
	ctl(ep, syscall.EPOLL_CTL_MOD, d, syscall.EPOLLIN|epollOneshot)
	third = wait(ep, 0)
	check("one-shot: once, and again after MOD re-arms it", len(first) == 1 && len(second) == 0 && len(third) == 1)
	read8(d)

	// Several ready level-triggered items: a wait that can take only some of them leaves the rest
	// first in line for the next one, so nobody starves behind items that are always ready.
	many := epollCreate()
	var efds [3]int
	for i := range efds {
		efds[i] = eventfd(1, efdNonblock)
		ctl(many, syscall.EPOLL_CTL_ADD, efds[i], syscall.EPOLLIN)
	}
	all := wait(many, 0)
	first, second = waitMax(many, 2), waitMax(many, 2)
	seen := map[int]bool{}
	for _, fd := range append(first, second...) {
		seen[fd] = true
	}
	check("three ready items are all reported", len(all) == 3)
	check("two waits of two report all three", len(seen) == 3 && len(first) == 2 && len(second) == 2)

	// An epoll_wait blocked in another thread is woken by the write, with the right data.
	woke := make(chan []int)
	go func() {
		runtime.LockOSThread()
		ctl(ep, syscall.EPOLL_CTL_MOD, d, syscall.EPOLLIN)
		woke <- wait(ep, 5000)
	}()
	time.Sleep(20 * time.Millisecond)
	write8(d, 1)
	w := <-woke
	check("a blocked epoll_wait is woken by a write", len(w) == 1 && w[0] == d)
	read8(d)

	// Nested: an epoll fd is readable when its own items are; a loop between two is ELOOP.
	outer := epollCreate()
	check("epoll inside epoll", ctl(outer, syscall.EPOLL_CTL_ADD, ep, syscall.EPOLLIN) == 0)
	write8(d, 1)
	o := wait(outer, 0)
	check("the outer instance reports the inner one", len(o) == 1 && o[0] == ep)
	check("a loop between instances is ELOOP", ctl(ep, syscall.EPOLL_CTL_ADD, outer, syscall.EPOLLIN) == syscall.ELOOP)
	read8(d)

	// Closing the last fd of a watched file removes its item.
	write8(d, 1)
	syscall.Close(d)
	syscall.Close(int(hi))
	check("closing the file removes its item", len(wait(ep, 0)) == 0)
	check("the fd is gone from the instance too", ctl(ep, syscall.EPOLL_CTL_DEL, d, 0) != 0)
}
