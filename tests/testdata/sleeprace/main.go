// sleeprace drives the calls gmpos runs without its big kernel lock besides the plain futex
// calls (kernel/sleep_unlocked.go, self_unlocked.go, futex_unlocked.go's timeouts) through the
// cases that could go wrong: nanosleep's timespec not mapped, not yet faulted in, not readable,
// across two pages, or invalid; sleeps and futex timeouts on many threads and cores at once,
// none of which may end early or be lost, with sched_yield between them; a signal that must end
// a sleep with EINTR; getpid and gettid; and a process that exits while its threads sleep and
// yield. Every check prints "check NAME: true" when it holds (figures go to stderr); the same
// lines come out natively.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"gmpos/tests/testdata/racecheck"
)

const pageSize = 4096

// nanosleep is the raw call, as the Go runtime's usleep makes it (no remaining time).
func nanosleep(ts uintptr) syscall.Errno {
	_, _, e := syscall.Syscall(syscall.SYS_NANOSLEEP, ts, 0, 0)
	return e
}

func sleepFor(d time.Duration) syscall.Errno {
	ts := syscall.NsecToTimespec(int64(d))
	return nanosleep(uintptr(unsafe.Pointer(&ts)))
}

func schedYield() syscall.Errno {
	_, _, e := syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
	return e
}

func mmap(n int) (uintptr, syscall.Errno) {
	r, _, e := syscall.Syscall6(syscall.SYS_MMAP, 0, uintptr(n), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS, ^uintptr(0), 0)
	return r, e
}

// check prints the program's result lines (racecheck.Check).
var check = racecheck.Check

// times reports whether f holds n times in a row. The bad-argument calls are repeated: the
// kernel's test counts how many its path without the BKL handed over, and one of them may go to
// the BKL's path for another reason (a signal pending at that moment).
func times(n int, f func() bool) bool {
	for i := 0; i < n; i++ {
		if !f() {
			return false
		}
	}
	return true
}

func main() {
	if n, ok := racecheck.Child(); ok {
		exitChild(n)
		return
	}
	racecheck.CheckNetworkUp() // the races run beside an open NIC
	timespecs()
	sleepers(8, 500)
	futexTimeouts(8, 200)
	interrupted()
	kicked()
	identities(8, 1250)
	racecheck.ExitRace(8, func(pid int, stdout string) error { // while their threads sleep and yield
		if stdout != fmt.Sprint(pid) { // each says the pid its fork returned (exitChild)
			return fmt.Errorf("says its pid is %q", stdout)
		}
		return nil
	})
}

const (
	futexWaitPrivate = 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 129 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

func futexWait(word *uint32, val uint32, ts *syscall.Timespec) syscall.Errno {
	_, _, e := syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(word)), futexWaitPrivate, uintptr(val),
		uintptr(unsafe.Pointer(ts)), 0, 0)
	return e
}

// futexTimeouts: FUTEX_WAIT with a timeout (the runtime's futexsleep with ns >= 0). A wait that
// nobody ends times out with ETIMEDOUT, never early; a zero timeout is ETIMEDOUT at once; a word
// that differs is EAGAIN before the timeout is looked at; an invalid timespec is EINVAL; and a
// FUTEX_WAKE ends a timed wait with 0. n threads wait rounds times each for 1 µs to 1 ms.
func futexTimeouts(n, rounds int) {
	var word uint32
	zero := syscall.Timespec{}
	check("futex_wait(timeout 0) is ETIMEDOUT", futexWait(&word, 0, &zero) == syscall.ETIMEDOUT)
	long := syscall.NsecToTimespec(int64(time.Second))
	check("futex_wait(word differs, timeout) is EAGAIN", futexWait(&word, 1, &long) == syscall.EAGAIN)
	check("futex_wait(word differs, timeout 0) is EAGAIN: the word first", futexWait(&word, 1, &zero) == syscall.EAGAIN)
	bad := syscall.Timespec{Nsec: 1_000_000_000}
	check("futex_wait(tv_nsec = 10^9) is EINVAL", times(10, func() bool { return futexWait(&word, 0, &bad) == syscall.EINVAL }))
	check("futex_wait(word differs, tv_nsec = 10^9) is EINVAL: the timespec first",
		times(10, func() bool { return futexWait(&word, 1, &bad) == syscall.EINVAL }))

	page, err := syscall.Mmap(-1, 0, pageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		check("mmap", false, err)
		return
	}
	var wg sync.WaitGroup
	var early, other atomic.Int64
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread()
			w := (*uint32)(unsafe.Pointer(&page[64*i]))
			ts := (*syscall.Timespec)(unsafe.Pointer(&page[64*i+16]))
			for r := 0; r < rounds; r++ {
				d := time.Duration(1+(i*104729+r*7919)%1000) * time.Microsecond
				*ts = syscall.NsecToTimespec(int64(d))
				s := time.Now()
				switch e := futexWait(w, 0, ts); {
				case e == syscall.ETIMEDOUT && time.Since(s) < d:
					early.Add(1)
				case e != syscall.ETIMEDOUT && e != syscall.EINTR:
					other.Add(1)
				}
			}
		}(i)
	}
	wg.Wait()
	check("futex timeouts: none early", early.Load() == 0, early.Load())
	check("futex timeouts: every wait ETIMEDOUT", other.Load() == 0, other.Load())

	// A wake-up before the timeout: 0, not ETIMEDOUT.
	w := (*uint32)(unsafe.Pointer(&page[0]))
	res := make(chan syscall.Errno)
	go func() {
		runtime.LockOSThread()
		e := syscall.EINTR
		for e == syscall.EINTR { // the runtime's own signals may end it first
			e = futexWait(w, 0, &long)
		}
		res <- e
	}()
	var e syscall.Errno = syscall.ETIMEDOUT
	for i := 0; i < 100 && e != 0; i++ {
		time.Sleep(5 * time.Millisecond)
		atomic.StoreUint32(w, 0)
		syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWakePrivate, 1, 0, 0, 0)
		select {
		case e = <-res:
		case <-time.After(5 * time.Millisecond):
		}
	}
	check("futex_wake ends a timed wait with 0", e == 0, e)
	syscall.Munmap(page)
}

// identities: on every thread getpid is the process's (rounds times each), and gettid the
// thread's own. exitRace checks getpid in children too: each must say what its fork returned.
func identities(n, rounds int) {
	tids := make(chan int, n)
	var wrong atomic.Int64
	pid := syscall.Getpid()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			tids <- syscall.Gettid()
			for r := 0; r < rounds; r++ {
				if syscall.Getpid() != pid {
					wrong.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(tids)
	seen := map[int]bool{}
	for tid := range tids {
		seen[tid] = true
	}
	check("getpid and gettid: the process's and each thread's own", wrong.Load() == 0 && len(seen) == n, wrong.Load(), len(seen))
}

// kicked: a thread that spins on a core of its own takes no timer interrupt under gmpos while
// it has the core to itself, so what another thread does for it must reach it by a kick, an IPI:
// a signal sent to it (tgkill) must be delivered, and a CPU-time timer armed meanwhile must make
// its core take the periodic tick on which the timer's expiry is found — ITIMER_VIRTUAL's
// SIGVTALRM must come once the process has run 50 ms in user mode.
func kicked() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGVTALRM)
	defer signal.Stop(sig)
	var stop atomic.Bool
	var wg sync.WaitGroup
	tid := make(chan int)
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		tid <- syscall.Gettid()
		for !stop.Load() {
		}
	}()
	id := <-tid
	wait := func(want os.Signal) bool {
		select {
		case s := <-sig:
			return s == want
		case <-time.After(10 * time.Second):
			return false
		}
	}
	time.Sleep(50 * time.Millisecond) // it spins, its core to itself
	syscall.Tgkill(syscall.Getpid(), id, syscall.SIGUSR1)
	check("a signal reaches a thread spinning on its own core", wait(syscall.SIGUSR1))
	it := [4]int64{0, 0, 0, 50_000} // it_interval 0; it_value 0 s 50,000 µs
	_, _, e := syscall.Syscall(syscall.SYS_SETITIMER, 1 /* ITIMER_VIRTUAL */, uintptr(unsafe.Pointer(&it)), 0)
	check("a CPU-time timer armed beside a spinning thread fires", e == 0 && wait(syscall.SIGVTALRM), e)
	stop.Store(true)
	wg.Wait()
}

// timespecs: nanosleep's argument where the kernel's read of it could go wrong. A timespec not
// mapped, and one the program may not read (PROT_NONE, though present and valid), are EFAULT;
// one on a page never touched reads as zero (no sleep); one across two pages is read whole; an
// invalid one is EINVAL.
func timespecs() {
	b, err := syscall.Mmap(-1, 0, 2*pageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		check("mmap", false, err)
		return
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	q, e := mmap(pageSize)
	if e != 0 {
		check("mmap", false, e)
		return
	}
	syscall.Syscall(syscall.SYS_MUNMAP, q, pageSize, 0)
	check("nanosleep(unmapped timespec) is EFAULT", times(10, func() bool { return nanosleep(q) == syscall.EFAULT }))
	check("nanosleep(untouched timespec) is 0", nanosleep(p) == 0)

	ts := (*[2]int64)(unsafe.Pointer(&b[0]))
	ts[1] = 1_000_000_000
	check("nanosleep(tv_nsec = 10^9) is EINVAL", times(10, func() bool { return nanosleep(p) == syscall.EINVAL }))
	ts[0], ts[1] = -1, 0
	check("nanosleep(tv_sec < 0) is EINVAL", times(10, func() bool { return nanosleep(p) == syscall.EINVAL }))

	across := (*[2]int64)(unsafe.Pointer(&b[pageSize-8])) // tv_sec ends the first page, tv_nsec begins the second
	across[0], across[1] = 0, 20_000_000
	t0 := time.Now()
	e = nanosleep(uintptr(unsafe.Pointer(across)))
	d := time.Since(t0)
	check("nanosleep(timespec across two pages) sleeps 20 ms", e == 0 && d >= 20*time.Millisecond, e, d)

	ts[0], ts[1] = 0, 1 // valid, and present: only the protection forbids the read
	if err := syscall.Mprotect(b[:pageSize], syscall.PROT_NONE); err != nil {
		check("mprotect(PROT_NONE)", false, err)
	}
	check("nanosleep(PROT_NONE timespec) is EFAULT", times(10, func() bool { return nanosleep(p) == syscall.EFAULT }))
	syscall.Munmap(b)
}

// sleepers: n threads, each locked to its goroutine, sleep rounds times each for 1 µs to 2 ms,
// with a sched_yield after every third sleep. No sleep may end before its time (Linux's
// guarantee: at least the time asked), and every thread must finish.
func sleepers(n, rounds int) {
	// Each thread's timespec in one page, 16-aligned: never across two (which the kernel's fast
	// path leaves to the BKL, and the test counts the calls the fast path took).
	page, err := syscall.Mmap(-1, 0, pageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		check("mmap", false, err)
		return
	}
	var wg sync.WaitGroup
	var early, failed, yields atomic.Int64
	var worst atomic.Int64 // the longest overshoot, ns
	t0 := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread()
			for r := 0; r < rounds; r++ {
				d := time.Duration(1+(i*7919+r*104729)%2000) * time.Microsecond
				ts := (*syscall.Timespec)(unsafe.Pointer(&page[16*i]))
				*ts = syscall.NsecToTimespec(int64(d))
				s := time.Now()
				if e := nanosleep(uintptr(unsafe.Pointer(ts))); e != 0 && e != syscall.EINTR {
					failed.Add(1)
				} else if got := time.Since(s); e == 0 && got < d {
					early.Add(1)
				} else if over := int64(got - d); over > worst.Load() {
					worst.Store(over)
				}
				if r%3 == 2 {
					if schedYield() != 0 {
						failed.Add(1)
					}
					yields.Add(1)
				}
			}
		}(i)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(120 * time.Second):
		fmt.Printf("sleepers: stuck after %v\n", time.Since(t0))
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "sleepers: %d sleeps and %d yields on %d threads in %v; longest overshoot %v\n",
		n*rounds, yields.Load(), n, time.Since(t0).Round(time.Millisecond), time.Duration(worst.Load()))
	check("sleepers: none woke early", early.Load() == 0, early.Load())
	check("sleepers: every sleep and yield succeeded", failed.Load() == 0, failed.Load())
}

// interrupted: a signal for a sleeping thread ends its sleep with EINTR (the Go runtime has a
// handler for every signal, and Linux never restarts nanosleep after a handler). SIGURG is the
// runtime's own preemption signal, which it ignores when it did not send it.
func interrupted() {
	tid := make(chan int)
	res := make(chan syscall.Errno)
	go func() {
		runtime.LockOSThread()
		tid <- syscall.Gettid()
		res <- sleepFor(20 * time.Second)
	}()
	id := <-tid
	t0 := time.Now()
	var e syscall.Errno
	for e == 0 { // until the sleep has begun and the signal ends it
		time.Sleep(20 * time.Millisecond)
		syscall.Tgkill(syscall.Getpid(), id, syscall.SIGURG)
		select {
		case e = <-res:
		case <-time.After(200 * time.Millisecond):
		}
		if time.Since(t0) > 10*time.Second {
			break
		}
	}
	check("a signal ends a sleep with EINTR", e == syscall.EINTR, e, time.Since(t0))
}

// exitChild sleeps on three threads (one of them for a minute) and yields on a fourth, and exits
// from the main thread after a while that varies from child to child.
func exitChild(n int) {
	fmt.Print(syscall.Getpid()) // its parent compares it with what its fork returned
	for i := 0; i < 3; i++ {
		go func(i int) {
			runtime.LockOSThread()
			for r := 0; ; r++ {
				if i == 0 {
					sleepFor(time.Minute)
				}
				sleepFor(time.Duration(1+r%300) * time.Microsecond)
			}
		}(i)
	}
	go func() {
		runtime.LockOSThread()
		for {
			schedYield()
		}
	}()
	time.Sleep(time.Duration(1+n%5) * 7 * time.Millisecond)
	os.Exit(0)
}
