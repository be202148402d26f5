// pollrace drives epoll_wait and the eventfd — the Go runtime's netpoller calls — through the
// cases where gmpos runs them without its big kernel lock (kernel/poll_unlocked.go) and could go
// wrong: waits that begin on one core while another core makes the instance ready, a waiter
// woken over and over by readiness that is gone before it looks (it must keep its deadline),
// waits that the BKL's paths must end (a temporary signal mask, a blocking eventfd, a close), and
// a process that exits while its threads wait. Every check prints "check NAME: true" when it
// holds (figures go to stderr); the same lines come out natively.
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"gmpos/tests/testdata/racecheck"
)

const efdNonblock = syscall.O_NONBLOCK // EFD_NONBLOCK

var check = racecheck.Check

func main() {
	if n, ok := racecheck.Child(); ok {
		exitChild(n)
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "bench" {
		// The README's figures: the ping-pong and the timers alone (-kopt pollbkl=1 against
		// the default, with klog=1's BKL counters).
		pingPong(20000)
		timers(3 * time.Second)
		return
	}
	pingPong(20000)
	keepsDeadline()
	maskedWaits(2000)
	blockingEventfd()
	closeWhileWaiting()
	timers(2 * time.Second)
	racecheck.ExitRace(8, nil) // children that exit while their threads wait in epoll_wait (exitChild)
}

// eventfd makes an eventfd with the given flags.
func eventfd(flags int) int {
	fd, _, e := syscall.Syscall(syscall.SYS_EVENTFD2, 0, uintptr(flags|syscall.O_CLOEXEC), 0)
	if e != 0 {
		panic(fmt.Sprintf("eventfd2: %v", e))
	}
	return int(fd)
}

// watcher makes an epoll instance watching fd for EPOLLIN, level-triggered.
func watcher(fd int) int {
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		panic(err)
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		panic(err)
	}
	return ep
}

// post adds v to eventfd fd.
func post(fd int, v uint64) error {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], v)
	_, err := syscall.Write(fd, b[:])
	return err
}

// drain reads eventfd fd: its counter, or an error (EAGAIN when it is 0 and fd is non-blocking).
func drain(fd int) (uint64, error) {
	var b [8]byte
	n, err := syscall.Read(fd, b[:])
	if err != nil {
		return 0, err
	}
	if n != 8 {
		return 0, fmt.Errorf("read %d bytes", n)
	}
	return binary.NativeEndian.Uint64(b[:]), nil
}

// wait is epoll_wait on ep with a timeout in ms (-1: none): the events' count.
func wait(ep int, ms int) (int, error) {
	var evs [4]syscall.EpollEvent
	for {
		n, err := syscall.EpollWait(ep, evs[:], ms)
		if err == syscall.EINTR {
			continue // the runtime's preemption signal
		}
		return n, err
	}
}

// pingPong passes a token n times between two threads through two non-blocking eventfds, each
// side waiting in epoll_wait without a timeout: every hop is a wait that may begin just as the
// other core's write makes its instance ready. A lost wake-up hangs the program (the harness's
// timeout); a wrong count or an error fails the check.
func pingPong(n int) {
	a, b := eventfd(efdNonblock), eventfd(efdNonblock)
	epA, epB := watcher(a), watcher(b)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		for i := 0; i < n; i++ {
			if _, err := wait(epA, -1); err != nil {
				done <- err
				return
			}
			if v, err := drain(a); err != nil || v != 1 {
				done <- fmt.Errorf("hop %d: read %d, %v", i, v, err)
				return
			}
			if err := post(b, 1); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	runtime.LockOSThread()
	t0 := time.Now()
	var err error
	for i := 0; i < n && err == nil; i++ {
		if err = post(a, 1); err != nil {
			break
		}
		if _, err = wait(epB, -1); err != nil {
			break
		}
		var v uint64
		if v, err = drain(b); err == nil && v != 1 {
			err = fmt.Errorf("hop %d: read %d", i, v)
		}
	}
	if err == nil {
		err = <-done
	}
	runtime.UnlockOSThread()
	fmt.Fprintf(os.Stderr, "ping-pong: %d round trips through epoll_wait and two eventfds, %.1f µs each\n",
		n, float64(time.Since(t0).Microseconds())/float64(n))
	check("pingpong", err == nil, err)
	for _, fd := range []int{a, b, epA, epB} {
		syscall.Close(fd)
	}
}

// keepsDeadline waits 300 ms at a time on an instance whose eventfd another thread makes ready
// and drains again every 50 ms: each time the waiter is woken to look again and finds nothing,
// and it must go back to sleep with the deadline it had, not a new 300 ms (Linux's ep_poll
// keeps its timeout across wake-ups). So three waits must time out, each after about 300 ms,
// while the pokes go on; a wait that starts its timeout anew at every poke never times out. A
// wait that happens to catch the event before the drain returns it and does not count: on 4
// vCPUs one poke in eight or so is caught, which is why the pokes are not closer together (a
// 300 ms window with six pokes passes uncaught about half the time).
func keepsDeadline() {
	e := eventfd(efdNonblock)
	ep := watcher(e)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		for {
			select {
			case <-stop:
				return
			default:
			}
			post(e, 1)
			drain(e)
			for t := time.Now(); time.Since(t) < 50*time.Millisecond; {
				// spin: a sleep's timer may fire late, and the pokes must keep coming
			}
		}
	}()
	var timedOut, caught int
	var worst time.Duration
	start := time.Now()
	for timedOut < 3 && time.Since(start) < 8*time.Second {
		t0 := time.Now()
		n, err := wait(ep, 300)
		el := time.Since(t0)
		if err != nil {
			check("keepsdeadline", false, err)
			close(stop)
			wg.Wait()
			return
		}
		if n > 0 {
			caught++
			drain(e)
			continue
		}
		timedOut++
		worst = max(worst, el)
	}
	close(stop)
	wg.Wait()
	fmt.Fprintf(os.Stderr, "keepsdeadline: %d waits timed out (the longest %v) in %v, %d caught an event\n",
		timedOut, worst, time.Since(start).Round(time.Millisecond), caught)
	check("keepsdeadline", timedOut == 3 && worst >= 290*time.Millisecond && worst < 800*time.Millisecond,
		timedOut, "timed out; the longest", worst)
	syscall.Close(e)
	syscall.Close(ep)
}

// maskedWaits passes a token n times to a thread that waits in epoll_pwait with a temporary
// signal mask (the BKL's wait: the mask is restored as the call ends) on a non-blocking eventfd,
// which the other thread writes — a write that must not be made without the BKL while the
// waiter is parked there.
func maskedWaits(n int) {
	e, back := eventfd(efdNonblock), eventfd(0)
	ep := watcher(e)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		mask := uint64(1) << (syscall.SIGUSR2 - 1)
		var evs [4]syscall.EpollEvent
		for i := 0; i < n; i++ {
			for {
				_, _, errno := syscall.Syscall6(syscall.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&evs[0])), 4,
					^uintptr(0), uintptr(unsafe.Pointer(&mask)), 8)
				if errno == syscall.EINTR {
					continue
				}
				if errno != 0 {
					done <- errno
					return
				}
				break
			}
			if _, err := drain(e); err != nil {
				done <- err
				return
			}
			if err := post(back, 1); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	runtime.LockOSThread()
	var err error
	for i := 0; i < n && err == nil; i++ {
		if err = post(e, 1); err == nil {
			_, err = drain(back) // a blocking eventfd: waits for the other side
		}
	}
	if err == nil {
		err = <-done
	}
	runtime.UnlockOSThread()
	check("masked", err == nil, err)
	syscall.Close(e)
	syscall.Close(back)
	syscall.Close(ep)
}

// blockingEventfd parks a reader in read(2) on a blocking eventfd, then makes the file
// non-blocking with F_SETFL and writes it: the write is one the kernel could make without the
// BKL but for the reader parked under it, who must wake with the value.
func blockingEventfd() {
	e := eventfd(0)
	got := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		v, err := drain(e)
		if err == nil && v != 42 {
			err = fmt.Errorf("read %d, want 42", v)
		}
		got <- err
	}()
	time.Sleep(100 * time.Millisecond) // the reader parks
	_, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(e), syscall.F_SETFL, syscall.O_NONBLOCK)
	var err error
	if errno != 0 {
		err = errno
	} else if err = post(e, 42); err == nil {
		select {
		case err = <-got:
		case <-time.After(5 * time.Second):
			err = fmt.Errorf("the parked reader did not wake")
		}
	}
	check("blocking", err == nil, err)
	if err == nil {
		syscall.Close(e)
	}
}

// closeWhileWaiting closes an epoll instance's only fd while a thread waits on it with a 2 s
// timeout: the wait must end with no events and no error, at once on gmpos (epoll.go: closing
// the last fd ends the waits) and after the timeout natively.
func closeWhileWaiting() {
	e := eventfd(efdNonblock)
	ep := watcher(e)
	res := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		n, err := wait(ep, 2000)
		if err == nil && n != 0 {
			err = fmt.Errorf("%d events", n)
		}
		res <- err
	}()
	time.Sleep(100 * time.Millisecond)
	syscall.Close(ep)
	var err error
	select {
	case err = <-res:
	case <-time.After(10 * time.Second):
		err = fmt.Errorf("the wait did not end")
	}
	post(e, 1) // an event for nobody: the items went with the instance
	check("close", err == nil, err)
	syscall.Close(e)
}

// timers runs many goroutines sleeping for short, different times on every P for d: the
// runtime's netpoller sleeps in epoll_wait until the next timer, and each earlier timer wakes it
// through its eventfd. Every sleep must end, and none too early.
func timers(d time.Duration) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var sleeps, early int
	end := time.Now().Add(d)
	for g := 0; g < 4*runtime.GOMAXPROCS(0); g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; time.Now().Before(end); i++ {
				want := time.Duration(100+(g*37+i*11)%900) * time.Microsecond
				t0 := time.Now()
				time.Sleep(want)
				mu.Lock()
				sleeps++
				if time.Since(t0) < want {
					early++
				}
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	fmt.Fprintf(os.Stderr, "timers: %d sleeps, %d early\n", sleeps, early)
	check("timers", sleeps > 100 && early == 0, sleeps, "sleeps", early, "early")
}

// exitChild is one child of the exit race: threads wait in epoll_wait without a timeout, one
// without events for ever and two in a ping-pong, when the program exits.
func exitChild(n int) {
	a, b := eventfd(efdNonblock), eventfd(efdNonblock)
	epA, epB, idle := watcher(a), watcher(b), watcher(eventfd(efdNonblock))
	for _, side := range [][3]int{{epA, a, b}, {epB, b, a}} {
		go func(ep, in, out int) {
			runtime.LockOSThread()
			for {
				wait(ep, -1)
				drain(in)
				post(out, 1)
			}
		}(side[0], side[1], side[2])
	}
	go func() {
		runtime.LockOSThread()
		wait(idle, -1)
	}()
	post(a, 1)
	time.Sleep(time.Duration(n%4) * 5 * time.Millisecond)
	os.Exit(0)
}
