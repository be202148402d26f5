// sigrace drives tgkill, which gmpos runs without its big kernel lock (kernel/signal_unlocked.go),
// through the races it must win:
//
//   - a signal sent just as its thread unblocks it to sleep (epoll_pwait with a mask that lets it
//     in, the race pselect exists for): the signal arrives while the thread still blocks it, or
//     while it is on its way to sleep, or while it sleeps — each must end the sleep with EINTR,
//     and none may leave it asleep with the signal pending;
//   - signals stormed at threads that wait in futexes, sleep, spin and make system calls, on
//     every core, while they pass a token around: every hand-over must arrive, in order;
//   - a thread that exits while it is being signalled: once it is gone its tid is ESRCH.
//
// Every check prints "check NAME: true" when it holds (figures go to stderr); the same lines come
// out natively.
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

var check = racecheck.Check

const (
	sigBlock     = 0 // SIG_BLOCK
	sigSetmask   = 2 // SIG_SETMASK
	futexWait    = 128
	futexWake    = 129
	pwaitTimeout = 2000 // ms: a sleep this long means a signal was lost
)

func sigmask(how int, set uint64) syscall.Errno {
	_, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, uintptr(how), uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0)
	return e
}

func tgkill(tid, sig int) syscall.Errno {
	_, _, e := syscall.RawSyscall(syscall.SYS_TGKILL, uintptr(syscall.Getpid()), uintptr(tid), uintptr(sig))
	return e
}

// epollPwait sleeps in epoll_pwait on an epoll instance with nothing in it, with mask as the
// blocked set meanwhile: it ends only with EINTR, or with 0 at the timeout.
func epollPwait(epfd int, mask uint64, ms int) (int, syscall.Errno) {
	var ev [1]syscall.EpollEvent
	r, _, e := syscall.Syscall6(syscall.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&ev[0])), 1,
		uintptr(ms), uintptr(unsafe.Pointer(&mask)), 8)
	return int(r), e
}

func futex(word *uint32, op int, val uint32) syscall.Errno {
	_, _, e := syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(word)), uintptr(op), uintptr(val), 0, 0, 0)
	return e
}

func main() {
	usr1 := make(chan os.Signal, 4096)
	signal.Notify(usr1, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		for range usr1 {
		}
	}()
	pwaitRace(2, 400)
	storm(4, 500)
	exitRace(20)
}

// pwaitRace: n waiters block SIGUSR1, then, rounds times each, announce that they are about to
// sleep and call epoll_pwait with SIGUSR1 let in; their sender sends SIGUSR1 the moment it sees
// the announcement, after a spin of 0 to a few µs that moves the arrival across the waiter's way
// into the sleep. Every round must end with EINTR, none at the timeout (after three lost rounds
// the pair stops: each costs the timeout).
func pwaitRace(n, rounds int) {
	var wg sync.WaitGroup
	var eintr, lost, other atomic.Int64
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var ready atomic.Int32 // 1: about to sleep; 2: sent; 3: the waiter has finished
			tids := make(chan int)
			go func() { // the waiter
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				usr1 := uint64(1) << (syscall.SIGUSR1 - 1)
				if e := sigmask(sigBlock, usr1); e != 0 {
					panic(e)
				}
				epfd, err := syscall.EpollCreate1(0)
				if err != nil {
					panic(err)
				}
				tids <- syscall.Gettid()
				for r := 0; r < rounds; r++ {
					ready.Store(1)
					_, e := epollPwait(epfd, 0, pwaitTimeout)
					switch e {
					case syscall.EINTR:
						eintr.Add(1)
					case 0:
						if lost.Add(1) >= 3 {
							r = rounds // enough: each lost round costs the timeout
						}
					default:
						other.Add(1)
					}
					for ready.Load() != 2 { // the sender has sent this round's signal
						runtime.Gosched()
					}
				}
				syscall.Close(epfd)
				sigmask(sigSetmask, 0)
				ready.Store(3)
			}()
			tid := <-tids
			for r := 0; r < rounds; r++ {
				for ready.Load() != 1 {
					if ready.Load() == 3 {
						return // the waiter gave up
					}
				}
				for s := 0; s < (r%8)*200; s++ { // 0 to a few µs: across the waiter's way in
				}
				if e := tgkill(tid, int(syscall.SIGUSR1)); e != 0 {
					other.Add(1)
				}
				ready.Store(2)
			}
			for ready.Load() != 3 {
				runtime.Gosched()
			}
		}(i)
	}
	wg.Wait()
	fmt.Fprintf(os.Stderr, "pwait: %d rounds, %d EINTR, %d lost, %d other, %v\n", n*rounds, eintr.Load(), lost.Load(), other.Load(), time.Since(start))
	check("every signal sent across epoll_pwait's mask ends the sleep with EINTR", eintr.Load() == int64(n*rounds) && lost.Load() == 0 && other.Load() == 0,
		eintr.Load(), lost.Load(), other.Load())
}

// storm: n threads pass a token around a ring, each waiting for its turn in a futex wait, a
// sleep or a yield (raw system calls: the kernel's paths, not the Go scheduler's), while a sender
// signals every one of them as fast as it can. Waits that a signal ends with EINTR (or EAGAIN: the
// token moved meanwhile) are waited again; every thread must see the token rounds times, in
// order. Each thread has a P of its own (GOMAXPROCS n+2), so that only the kernel schedules.
func storm(n, rounds int) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n + 2))
	var turn uint32 // whose turn: the token's position
	var stop atomic.Bool
	var sent, failed atomic.Int64
	tids := make([]int, n)
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	bad := make([]int, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			defer done.Done()
			tids[i] = syscall.Gettid()
			ready.Done()
			for r := 0; r < rounds; r++ {
				want := uint32(r*n + i)
				for {
					cur := atomic.LoadUint32(&turn)
					if cur == want {
						break
					}
					if cur > want {
						bad[i]++ // passed over: the ring is broken
						break
					}
					switch (r + i) % 3 {
					case 0:
						futex(&turn, futexWait, cur) // EINTR, EAGAIN or a wake: look again
					case 1:
						ts := syscall.Timespec{Nsec: 20_000}
						syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
					default:
						syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
					}
				}
				atomic.AddUint32(&turn, 1)
				futex(&turn, futexWake, uint32(n))
			}
		}(i)
	}
	ready.Wait()
	go func() { // the sender
		runtime.LockOSThread()
		for k := 0; !stop.Load(); k++ {
			switch tgkill(tids[k%n], int(syscall.SIGUSR2)) {
			case 0:
				sent.Add(1)
			default:
				failed.Add(1)
			}
			if k%16 == 0 { // leave the threads some of the machine
				ts := syscall.Timespec{Nsec: 50_000}
				syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
			}
		}
	}()
	start := time.Now()
	done.Wait()
	stop.Store(true)
	broken := 0
	for _, b := range bad {
		broken += b
	}
	fmt.Fprintf(os.Stderr, "storm: %d threads, %d hand-overs, %d signals sent, %d failed, %v\n", n, n*rounds, sent.Load(), failed.Load(), time.Since(start))
	check("the token goes round every thread in order under a storm of signals", broken == 0 && atomic.LoadUint32(&turn) == uint32(n*rounds), broken, atomic.LoadUint32(&turn))
	check("every signal to a live thread is accepted", failed.Load() == 0 && sent.Load() > 0, sent.Load(), failed.Load())
}

// exitRace: n threads exit while a sender signals each; once a thread is gone, tgkill of its tid
// is ESRCH (a new thread in its slot has another tid). A locked goroutine that happens to run on
// the main thread does not end it — the runtime wedges the main thread instead (runtime/proc.go
// mexit) — so that round is run again.
func exitRace(n int) {
	gone, wedged := 0, 0
	for i := 0; i < n; i++ {
		tids := make(chan int)
		quit := make(chan struct{})
		go func() {
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			tids <- syscall.Gettid()
			<-quit
		}()
		tid := <-tids
		close(quit)
		if tid == syscall.Getpid() {
			wedged++
			i--
			if wedged > 1 {
				break // it is wedged for good: a second one cannot happen
			}
			continue
		}
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if tgkill(tid, int(syscall.SIGUSR2)) == syscall.ESRCH {
				gone++
				break
			}
		}
	}
	check("a thread that exits while signalled is ESRCH once gone", gone == n, gone, n)
}
