// epoll: readiness notification, event-driven.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"
	"unsafe"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// epoll as Linux implements it (fs/eventpoll.c), in miniature. An instance has an interest list —
// items, one per watched (file, fd) — and a ready list. An item joins the ready list when its
// file signals a readiness change it is interested in (fileNotify → epollWake, Linux's
// ep_poll_callback), and at EPOLL_CTL_ADD/MOD if the file is ready already. epoll_wait then takes
// items off the ready list, asks each file for its current readiness (the level is re-checked, so
// a stale entry reports nothing), reports the events, and puts level-triggered items back at the
// tail: they stay ready until their file says otherwise. Nothing scans all watched files.
//
// A thread waiting in epoll_wait blocks until an item becomes ready, its timeout passes or a
// signal arrives. Without a temporary signal mask — the Go runtime's netpoller never passes one —
// it waits on futexQ's list (waitEpoll), whose waits paths without the BKL may begin and end
// (poll_unlocked.go), and the first item that becomes ready wakes it to run its call again with
// the deadline it had (Thread.epollUntil): the call collects its own events, on its own core, in
// its own address space — ep_poll's loop around schedule(), run through user mode as wait.go's
// restarts are. With a temporary mask (epoll_pwait's sigmask) it waits on the BKL's waiters
// (waitEpollMasked), and the waker collects the events into its buffer and ends the call with
// their count, under the BKL, which restores the mask as the call ends (wait.go unblock). Either
// way one waiter is woken per readiness change, as Linux wakes one exclusive waiter. Neither
// wait holds a reference to the epoll file: closing its last fd ends them with no events, as a
// timeout would (epollFile.release), where Linux's waiter holds the file and sleeps on. A
// woken waiter's second run looks its fd up again, so one closed (or dup2'ed over) between the
// wake-up and that run answers as for a new call (EBADF), where Linux's call would have held
// the file and returned its events.
//
// The Go runtime's netpoller uses one instance, its eventfd (level-triggered) and, with sockets,
// edge-triggered items (docs/runtime-contract.md §3.7). Instances and items come from fixed pools.
//
// epollLock protects the instances, the items, the open files' watchers links and the eventfds'
// counters: paths with the BKL and without it take it (rank 2: inside the BKL, outside futexQ's
// lock, which a waker takes to end a wait). The kinds' poll functions that itemPoll calls read
// their own files' state, which is the BKL's but for an eventfd's and an epoll instance's: a
// path without the BKL collects only from instances whose ready items are eventfds.
const (
	maxEpolls  = 64
	maxEpitems = 1024

	epollCtlAdd = 1
	epollCtlDel = 2
	epollCtlMod = 3

	// Event bits (include/uapi/linux/eventpoll.h).
	epollIn        = 0x001
	epollPri       = 0x002
	epollOut       = 0x004
	epollErr       = 0x008
	epollHup       = 0x010
	epollRdhup     = 0x2000
	epollExclusive = 1 << 28
	epollWakeup    = 1 << 29
	epollOneshot   = 1 << 30
	epollET        = 1 << 31

	// epollPrivate are the item's mode bits, not events (EP_PRIVATE_BITS).
	epollPrivate = epollWakeup | epollOneshot | epollET | epollExclusive
	// epollExclusiveOK are the bits allowed with EPOLLEXCLUSIVE (EPOLLEXCLUSIVE_OK_BITS).
	epollExclusiveOK = epollIn | epollOut | epollErr | epollHup | epollWakeup | epollET | epollExclusive

	epollCloexec = oCloexec
	// epMaxEvents is the largest maxevents (EP_MAX_EVENTS: INT_MAX / sizeof(struct epoll_event)).
	epMaxEvents = 0x7fffffff / epollEventSize
	// epMaxNests is how deep epoll instances may watch each other (EP_MAX_NESTS).
	epMaxNests = 4
)

// epollInstance is an epoll file's state; the file's priv is the instance's index.
type epollInstance struct {
	used    bool
	file    int32 // the instance's open file
	ready   itemList
	visited uint32 // the last loop check that saw it (epollReaches)
	// nicItems counts its items watching the NIC's file: its waits are the network poller's,
	// which runs under the BKL (poll_unlocked.go, net_poller.go).
	nicItems int32
}

// epitem is one watched (file, fd) of an instance (Linux's struct epitem). Indices are +1 so
// that 0 means none.
type epitem struct {
	ep        int32 // the instance + 1; 0: the item is free
	fd        int32
	file      int32  // the watched open file
	events    uint32 // interest: event bits plus epollPrivate mode bits
	data      uint64
	nextWatch int32 // the next item watching the same file (+1)
	prev      int32 // ready list links (+1)
	next      int32
	onReady   bool
}

type itemList struct{ head, tail int32 }

// The instance and item pools, and their lock.
var (
	epolls    [maxEpolls]epollInstance // epollLock
	epitems   [maxEpitems]epitem       // epollLock
	epollLock = spinLock{rank: rankEpoll, name: "epoll"}
)

// epollFile is the kind of epoll fds.
type epollFile struct{}

func (epollFile) read(f *file, buf, n uintptr) int64  { return -EINVAL }
func (epollFile) write(f *file, buf, n uintptr) int64 { return -EINVAL }

// poll: an epoll fd is readable when one of its ready items really is (ep_eventpoll_poll).
// epollLock held (itemPoll: an instance watching this one).
func (epollFile) poll(f *file) uint32 {
	ep := &epolls[f.priv]
	for i := ep.ready.head; i != 0; i = epitems[i-1].next {
		if itemPoll(&epitems[i-1]) != 0 {
			return epollIn
		}
	}
	return 0
}

func (epollFile) stat(f *file) fileStat { return fileStat{mode: 0o600, nlink: 1, blksize: 4096} }

// release frees the instance and every item of its interest list, and ends the waits on it
// with no events (they hold no reference: see above). BKL.
func (epollFile) release(f *file) {
	cpu := currentCPU()
	fi := f.index()
	epollLock.lock(cpu)
	ep := int32(f.priv) + 1
	for i := range epitems {
		if epitems[i].ep == ep {
			removeItem(int32(i) + 1)
		}
	}
	epolls[f.priv] = epollInstance{}
	for i := 0; i < waiters.n; {
		gp := waiters.g[i]
		if threads[gp].wait == waitEpollMasked && threads[gp].waitObj == uintptr(fi) {
			wakeThread(gp, 0, cpu) // swaps the last waiter into slot i
			continue
		}
		i++
	}
	futexQ.lock.lock(cpu)
	for i := 0; i < futexQ.list.n; {
		gp := futexQ.list.g[i]
		if threads[gp].wait == waitEpoll && threads[gp].waitObj == uintptr(fi) {
			wakeThread(gp, 0, cpu)
			continue
		}
		i++
	}
	futexQ.lock.unlock(cpu)
	epollLock.unlock(cpu)
}

// sysEpollCreate1 creates an instance (epoll_create1(2)). With the pool exhausted the answer is
// ENOMEM, as from a kernel out of memory for one.
func sysEpollCreate1(flags int32) int64 {
	if flags&^epollCloexec != 0 {
		return -EINVAL
	}
	for i := range epolls {
		if epolls[i].used {
			continue
		}
		fi := newFile(kindEpoll, oRdwr, uint64(i))
		if fi < 0 {
			return -ENFILE
		}
		// The instance before the fd exists: another thread's epoll_wait without the BKL may
		// find the file the moment it is installed (poll_unlocked.go).
		cpu := currentCPU()
		epollLock.lock(cpu)
		epolls[i] = epollInstance{used: true, file: int32(fi)}
		epollLock.unlock(cpu)
		fd := installFD(fi, 0, flags&epollCloexec != 0)
		if fd < 0 {
			epollLock.lock(cpu)
			epolls[i] = epollInstance{}
			epollLock.unlock(cpu)
			files[fi] = file{}
		}
		return fd
	}
	return -ENOMEM
}

// sysEpollCreate is the older epoll_create(size): size only has to be positive.
func sysEpollCreate(size int32) int64 {
	if size <= 0 {
		return -EINVAL
	}
	return sysEpollCreate1(0)
}

// sysEpollCtl adds, changes or removes an item, in Linux's order (do_epoll_ctl): the event is
// read first (EFAULT) for every op but DEL, then both fds (EBADF), then the instance checks
// (EINVAL), EPOLLEXCLUSIVE's rules, loops between instances (ELOOP), and the op itself.
func sysEpollCtl(epfd int32, op int32, fd int32, ev uintptr) int64 {
	var events uint32
	var data uint64
	if op != epollCtlDel {
		if !userRange(ev, epollEventSize, false) {
			return -EFAULT
		}
		events, data = getEpollEvent(ev)
	}
	epf, _ := fdFile(epfd)
	if epf == nil {
		return -EBADF
	}
	tf, tfi := fdFile(fd)
	if tf == nil {
		return -EBADF
	}
	if epf == tf || epf.kind != kindEpoll {
		return -EINVAL
	}
	if tf.kind == kindFile || tf.kind == kind9p || tf.kind == kindDev {
		return -EPERM // files and the memory devices are always ready: Linux has no poll for them
	}
	events &^= epollWakeup // without CAP_BLOCK_SUSPEND's meaning here: ignored, as Linux does
	if op != epollCtlDel && events&epollExclusive != 0 {
		if op == epollCtlMod || (op == epollCtlAdd && (tf.kind == kindEpoll || events&^epollExclusiveOK != 0)) {
			return -EINVAL
		}
	}
	cpu := currentCPU()
	epollLock.lock(cpu)
	r := epollCtlLocked(int32(epf.priv), op, tf, int32(tfi), fd, events, data, cpu)
	epollLock.unlock(cpu)
	return r
}

// epollCtlLocked is epoll_ctl's op on instance ep once the arguments are checked: tf, open file
// tfi, is the target, fd its number. epollLock held.
func epollCtlLocked(ep int32, op int32, tf *file, tfi, fd int32, events uint32, data uint64, cpu int) int64 {
	if op == epollCtlAdd && tf.kind == kindEpoll && epollReaches(int32(tf.priv), ep, 1) {
		return -ELOOP
	}
	it := findItem(ep, tfi, fd)
	switch op {
	case epollCtlAdd:
		if it != 0 {
			return -EEXIST
		}
		return addItem(ep, tfi, fd, events|epollErr|epollHup, data, cpu)
	case epollCtlDel:
		if it == 0 {
			return -ENOENT
		}
		removeItem(it)
		return 0
	case epollCtlMod:
		if it == 0 {
			return -ENOENT
		}
		e := &epitems[it-1]
		if e.events&epollExclusive == 0 {
			e.events, e.data = events|epollErr|epollHup, data
			if itemPoll(e) != 0 {
				readyItem(it, cpu)
			}
		}
		return 0
	}
	return -EINVAL
}

// epollReaches reports whether instance from watches instance to, directly or through other
// instances, or nests deeper than epMaxNests (ep_loop_check). Each instance is visited once per
// check (Linux's loop_check_gen), so a wide web of instances costs one pass, not one per path.
func epollReaches(from, to int32, depth int) bool {
	if depth == 1 {
		epollVisitGen++
	}
	if from == to || depth > epMaxNests {
		return true
	}
	if epolls[from].visited == epollVisitGen {
		return false
	}
	epolls[from].visited = epollVisitGen
	for i := range epitems {
		e := &epitems[i]
		if e.ep == from+1 && files[e.file].kind == kindEpoll && epollReaches(int32(files[e.file].priv), to, depth+1) {
			return true
		}
	}
	return false
}

// epollVisitGen numbers the loop checks (epollReaches). epollLock.
var epollVisitGen uint32

// findItem returns the item of instance ep watching (file fi, fd), or 0.
func findItem(ep, fi, fd int32) int32 {
	for i := files[fi].watchers; i != 0; i = epitems[i-1].nextWatch {
		if e := &epitems[i-1]; e.ep == ep+1 && e.fd == fd {
			return i
		}
	}
	return 0
}

// addItem creates an item and queues it at once if its file is ready (ep_insert). ENOSPC when the
// pool is full, as when max_user_watches is reached. epollLock held, as for every function below.
func addItem(ep, fi, fd int32, events uint32, data uint64, cpu int) int64 {
	for i := range epitems {
		e := &epitems[i]
		if e.ep != 0 {
			continue
		}
		*e = epitem{ep: ep + 1, fd: fd, file: fi, events: events, data: data, nextWatch: files[fi].watchers}
		files[fi].watchers = int32(i) + 1
		if files[fi].kind == kindNIC {
			epolls[ep].nicItems++
		}
		if itemPoll(e) != 0 {
			readyItem(int32(i)+1, cpu)
		}
		return 0
	}
	return -ENOSPC
}

// removeItem unlinks item it from its file's watchers and its instance's ready list, and frees it.
func removeItem(it int32) {
	e := &epitems[it-1]
	unready(it)
	w := &files[e.file].watchers
	for *w != 0 && *w != it {
		w = &epitems[*w-1].nextWatch
	}
	if *w == it {
		*w = e.nextWatch
	}
	if files[e.file].kind == kindNIC {
		epolls[e.ep-1].nicItems--
	}
	*e = epitem{}
}

// epollForget removes every item watching open file fi, which is going away.
func epollForget(fi int) {
	for files[fi].watchers != 0 {
		removeItem(files[fi].watchers)
	}
}

// itemPoll is the item's current events: its file's readiness within its interest
// (ep_item_poll). A disarmed one-shot item has no interest left.
func itemPoll(e *epitem) uint32 {
	return kinds[files[e.file].kind].poll(&files[e.file]) & e.events &^ epollPrivate
}

// epollWake is the readiness callback (ep_poll_callback): every item watching file fi that is
// interested in events joins its instance's ready list.
func epollWake(fi int, events uint32, cpu int) {
	for i := files[fi].watchers; i != 0; {
		e := &epitems[i-1]
		next := e.nextWatch
		if e.ep != 0 && events&e.events != 0 && e.events&^epollPrivate != 0 {
			readyItem(i, cpu)
		}
		i = next
	}
}

// readyItem puts item it on its instance's ready list, then wakes one thread waiting on the
// instance, and tells instances watching this one.
func readyItem(it int32, cpu int) {
	inst := epitems[it-1].ep - 1
	epFile := int(epolls[inst].file)
	readyItemQuiet(it)
	if itemPoll(&epitems[it-1]) != 0 {
		wakeEpollWaiter(inst, epFile, cpu)
	}
	epollWake(epFile, epollIn, cpu)
}

// wakeEpollWaiter ends one wait on instance inst (open file epFile): a wait with a temporary
// mask (waiters; under the BKL — a path without it has made sure there is none) gets the events
// collected into its buffer and its call ended with their count; else a wait on futexQ's list
// runs its call again, with the deadline it had.
func wakeEpollWaiter(inst int32, epFile int, cpu int) {
	if atomic.LoadInt32(&files[epFile].waiting) != 0 {
		for i := 0; i < waiters.n; i++ {
			gp := waiters.g[i]
			t := &threads[gp]
			if t.wait == waitEpollMasked && t.waitObj == uintptr(epFile) {
				old := enterProc(gp) // the events go to the sleeper's memory (proc.go)
				n := epollCollect(inst, uintptr(t.waitArg), int(t.waitArg2), false)
				leaveProc(old)
				if n != 0 {
					wakeThread(gp, n, cpu)
				}
				return // one waiter per event (exclusive wake-up)
			}
		}
	}
	futexQ.lock.lock(cpu)
	for i := 0; i < futexQ.list.n; i++ {
		gp := futexQ.list.g[i]
		t := &threads[gp]
		if t.wait == waitEpoll && t.waitObj == uintptr(epFile) {
			t.epollAgain, t.epollUntil = true, t.deadline
			wakeToRestart(gp, cpu)
			break
		}
	}
	futexQ.lock.unlock(cpu)
}

// unready takes item it off its instance's ready list.
func unready(it int32) {
	e := &epitems[it-1]
	if !e.onReady {
		return
	}
	ep := &epolls[e.ep-1]
	if e.prev != 0 {
		epitems[e.prev-1].next = e.next
	} else {
		ep.ready.head = e.next
	}
	if e.next != 0 {
		epitems[e.next-1].prev = e.prev
	} else {
		ep.ready.tail = e.prev
	}
	e.onReady, e.prev, e.next = false, 0, 0
}

// epollCollect writes up to max ready events of instance ep to the user buffer and returns how
// many, or -EFAULT if the buffer cannot take the first (ep_send_events). unlocked: the caller
// has no BKL, so each event is copied with arch.CopyUser after the loaded page table says the
// program may write there (poll_unlocked.go); else it is stored after userRange's check. One pass over the ready
// list: items with no events now are dropped, one-shot items are disarmed, edge-triggered ones
// leave the list, level-triggered ones go back to its tail; the items not reached (max, or a
// fault) go back to its head, ahead of them, as Linux splices them (ep_done_scan), so that no
// ready item waits behind ones that are always ready.
func epollCollect(ep int32, buf uintptr, max int, unlocked bool) int64 {
	n := 0
	fault := false
	pending := epolls[ep].ready
	epolls[ep].ready = itemList{}
	it := pending.head
	for it != 0 && n < max {
		e := &epitems[it-1]
		next := e.next
		ev := itemPoll(e)
		if ev != 0 {
			p := buf + uintptr(n)*epollEventSize
			if !putEvent(p, ev, e.data, unlocked) {
				fault = true
				break
			}
			n++
		}
		e.onReady, e.prev, e.next = false, 0, 0
		if ev != 0 && e.events&epollOneshot != 0 {
			e.events &= epollPrivate
		} else if ev != 0 && e.events&epollET == 0 {
			readyItemQuiet(it) // level-triggered: still ready until its file says otherwise
		}
		it = next
	}
	// Splice the rest (from it on, still linked to each other) in front of the list.
	if it != 0 {
		l := &epolls[ep].ready
		epitems[it-1].prev = 0
		tail := pending.tail
		if l.head != 0 {
			epitems[tail-1].next = l.head
			epitems[l.head-1].prev = tail
		} else {
			l.tail = tail
		}
		l.head = it
	}
	if n == 0 && fault {
		return -EFAULT
	}
	return int64(n)
}

// putEvent writes one event at p in the user buffer: with the BKL after userRange's check,
// without it by arch.CopyUser of the whole struct from a kernel copy.
func putEvent(p uintptr, events uint32, data uint64, unlocked bool) bool {
	if !unlocked {
		if !userRange(p, epollEventSize, true) {
			return false
		}
		putEpollEvent(p, events, data)
		return true
	}
	var ev [16]byte // epollEventSize: 12 on amd64 (packed), 16 on arm64
	k := uintptr(unsafe.Pointer(&ev))
	putEpollEvent(k, events, data)
	return loadedWritable(p, epollEventSize) && arch.CopyUser(p, k, epollEventSize)
}

// readyItemQuiet appends item it to its instance's ready list without waking anyone.
func readyItemQuiet(it int32) {
	e := &epitems[it-1]
	ep := &epolls[e.ep-1]
	if e.onReady {
		return
	}
	e.onReady, e.prev, e.next = true, ep.ready.tail, 0
	if ep.ready.tail != 0 {
		epitems[ep.ready.tail-1].next = it
	} else {
		ep.ready.head = it
	}
	ep.ready.tail = it
}

// sysEpollPwait returns ready events or blocks until there are some, the timeout (ns; negative:
// forever) passes, or a signal arrives, in Linux's order (do_epoll_pwait, do_epoll_wait): the
// signal mask (EINVAL for a bad size, EFAULT), maxevents (EINVAL), the buffer's range (EFAULT),
// the fd (EBADF), that it is an epoll fd (EINVAL). A given sigmask replaces the thread's mask for
// the wait (restored afterwards, or by rt_sigreturn if a signal interrupts it).
func sysEpollPwait(t *Thread, gp sched.GID, cpu int, epfd int32, buf uintptr, max int32, timeoutNS int64, sigmask, sigsetsize uintptr) int64 {
	again := takeEpollAgain(t)
	return epollPwait(t, gp, cpu, epfd, buf, max, timeoutNS, sigmask, sigsetsize, again)
}

// epollPwait is sysEpollPwait once the thread's kept deadline is taken: again, if its waker
// asked for this run (epollAgain), is the deadline it had (0: none), else -1.
func epollPwait(t *Thread, gp sched.GID, cpu int, epfd int32, buf uintptr, max int32, timeoutNS int64, sigmask, sigsetsize uintptr, again int64) int64 {
	var mask uint64
	if sigmask != 0 {
		if sigsetsize != sigsetSize {
			return -EINVAL
		}
		if !userRange(sigmask, 8, false) {
			return -EFAULT
		}
		mask = load64(sigmask)
	}
	if max <= 0 || max > epMaxEvents {
		return -EINVAL
	}
	if end := buf + uintptr(max)*epollEventSize; end < buf || end > mm.UserEnd {
		return -EFAULT
	}
	f, fi := fdFile(epfd)
	if f == nil {
		return -EBADF
	}
	if f.kind != kindEpoll {
		return -EINVAL
	}
	deadline, expired := epollDeadline(again, timeoutNS)
	epollLock.lock(cpu)
	defer epollLock.unlock(cpu)
	if n := epollCollect(int32(f.priv), buf, int(max), false); n != 0 || timeoutNS == 0 || expired {
		return n
	}
	if sigmask != 0 {
		if setTemporarySigmask(t, mask) {
			return -EINTR // the new mask lets a pending signal through
		}
		atomic.AddInt32(&files[fi].waiting, 1) // paths without the BKL look (poll_unlocked.go)
		t.waitObj = uintptr(fi)
		t.waitArg = uint64(buf)
		t.waitArg2 = uint64(max)
		block(t, gp, cpu, waitEpollMasked, deadline)
		return 0
	}
	if !epollBlock(t, gp, cpu, fi, deadline) {
		return -EINTR // cannot happen under the BKL, which marking the thread needs
	}
	return 0
}

// takeEpollAgain takes the deadline a woken epoll_wait kept for its next run (wakeEpollWaiter):
// the deadline (0: none) if the thread's call is that run, else -1. Every epoll_wait takes it
// first thing, whatever it then answers: the run the waker asked for is the thread's next
// system call (a handler in between ends the call instead: setupSigframe), so a flag still set
// after it would only mislead a later call.
func takeEpollAgain(t *Thread) int64 {
	if !t.epollAgain {
		return -1
	}
	t.epollAgain = false
	return t.epollUntil
}

// epollDeadline is the deadline of an epoll_wait with the given timeout (ns; negative: none):
// again, the one the call had if this is the run its waker asked for (takeEpollAgain, -1 if
// not), else now plus the timeout. expired: the call's deadline has passed already.
func epollDeadline(again, timeoutNS int64) (deadline int64, expired bool) {
	if again >= 0 {
		return again, again != 0 && again <= nanotime()
	}
	if timeoutNS > 0 {
		return nanotime() + timeoutNS, false
	}
	return 0, false
}

// epollBlock parks t on futexQ's list until a ready item of the instance of open file fi wakes
// it to run its call again (wakeEpollWaiter), the deadline passes (0 events) or a signal
// arrives. epollLock held, so that no readiness change falls between the caller's look at the
// ready list and the wait; the thread's frame is saved (the waker restarts it). false, with
// nothing done, if an exit or execve has marked the thread: they end waits under futexQ's lock
// (endWaitOrKick), so a thread that parked after their look would sleep on.
func epollBlock(t *Thread, gp sched.GID, cpu int, fi int, deadline int64) bool {
	futexQ.lock.lock(cpu)
	if t.killed || procOf(t).state != procLive {
		futexQ.lock.unlock(cpu)
		return false
	}
	t.waitObj = uintptr(fi)
	block(t, gp, cpu, waitEpoll, deadline)
	futexQ.lock.unlock(cpu)
	return true
}

// sysEpollPwait2 is epoll_pwait with a struct timespec timeout (NULL: forever).
func sysEpollPwait2(t *Thread, gp sched.GID, cpu int, epfd int32, buf uintptr, max int32, timeout, sigmask, sigsetsize uintptr) int64 {
	again := takeEpollAgain(t)
	ns := int64(-1)
	if timeout != 0 {
		var err int64
		if ns, err = readTimespec(timeout); err != 0 {
			return err
		}
	}
	return epollPwait(t, gp, cpu, epfd, buf, max, ns, sigmask, sigsetsize, again)
}

// epollTimeout converts epoll_wait's milliseconds (negative: forever) to sysEpollPwait's ns.
func epollTimeout(ms int32) int64 {
	if ms < 0 {
		return -1
	}
	return int64(ms) * 1e6
}
