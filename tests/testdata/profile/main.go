// profile checks Go's CPU profiler and the timers behind it: runtime/pprof around about a second
// of CPU time used by three goroutines, the program parsing its own profile; then setitimer/getitimer
// (ITIMER_REAL's SIGALRM, the CPU itimers' readback), POSIX timers on the monotonic clock and on
// a thread's CPU clock (SIGEV_SIGNAL, SIGEV_THREAD_ID, SIGEV_NONE), the CPU-time clocks, and a few
// refusals. It prints "check NAME: true|false" lines and "info ..." figures, and last the profile
// itself as "profile BASE64" for the host to show; the same program runs natively, as the reference.
package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/google/pprof/profile"
)

// ABI constants (include/uapi/...), spelled out; the system call numbers are in sysnum_<arch>.go
// (package syscall has no timer_create).
const (
	itimerReal, itimerVirtual, itimerProf = 0, 1, 2
	clockMonotonic, clockMonotonicRaw     = 1, 4
	clockProcessCPU, clockThreadCPU       = 2, 3
	clockProcessUser                      = ^uintptr(0) - 6 // MAKE_PROCESS_CPUCLOCK(0, CPUCLOCK_VIRT): -7
	sigevSignal, sigevNone, sigevThreadID = 0, 1, 4
)

// sigevent is struct sigevent (64 bytes): value, signo, notify, the thread ID.
type sigevent struct {
	value  uint64
	signo  int32
	notify int32
	tid    int32
	_      [44]byte
}

func check(name string, ok bool) { fmt.Printf("check %s: %v\n", name, ok) }

func sys(nr uintptr, a ...uintptr) (uintptr, syscall.Errno) {
	var x [6]uintptr
	copy(x[:], a)
	r, _, e := syscall.Syscall6(nr, x[0], x[1], x[2], x[3], x[4], x[5])
	return r, e
}

func clockNS(clk uintptr) time.Duration {
	var ts syscall.Timespec
	if _, e := sys(sysClockGet, clk, uintptr(unsafe.Pointer(&ts))); e != 0 {
		panic(e)
	}
	return time.Duration(ts.Nano())
}

// itimerval is struct itimerval: it_interval, then it_value.
type itimerval struct{ interval, value syscall.Timeval }

func tv(d time.Duration) syscall.Timeval  { return syscall.NsecToTimeval(d.Nanoseconds()) }
func dur(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }

func setitimer(which int, value, interval time.Duration) (old itimerval, e syscall.Errno) {
	it := itimerval{tv(interval), tv(value)}
	_, e = sys(sysSetitimer, uintptr(which), uintptr(unsafe.Pointer(&it)), uintptr(unsafe.Pointer(&old)))
	return old, e
}

func getitimer(which int) (it itimerval, e syscall.Errno) {
	_, e = sys(sysGetitimer, uintptr(which), uintptr(unsafe.Pointer(&it)))
	return it, e
}

// itimerspec is struct itimerspec: it_interval, then it_value.
type itimerspec struct{ interval, value syscall.Timespec }

func timerCreate(clk uintptr, ev *sigevent) (int32, syscall.Errno) {
	var id int32
	_, e := sys(sysTimerCreate, clk, uintptr(unsafe.Pointer(ev)), uintptr(unsafe.Pointer(&id)))
	return id, e
}

func timerSet(id int32, value, interval time.Duration) syscall.Errno {
	spec := itimerspec{syscall.NsecToTimespec(interval.Nanoseconds()), syscall.NsecToTimespec(value.Nanoseconds())}
	_, e := sys(sysTimerSet, uintptr(id), 0, uintptr(unsafe.Pointer(&spec)), 0)
	return e
}

func timerGet(id int32) (value, interval time.Duration, e syscall.Errno) {
	var spec itimerspec
	_, e = sys(sysTimerGet, uintptr(id), uintptr(unsafe.Pointer(&spec)))
	return time.Duration(spec.value.Nano()), time.Duration(spec.interval.Nano()), e
}

// noisyCPUTime (argument "noisy") says that CPU time may be charged in chunks of more than a
// profiling period, each of which can bring one sample only (a POSIX timer sends one signal per
// expiry and counts the periods it missed as overruns, which the profiler ignores): the case of
// several vCPUs under QEMU's TCG on a busy host, where a vCPU that holds gmpos's big kernel lock
// can be descheduled by the host for tens of milliseconds while the others wait for the lock.
// The sample count is then only reported against the CPU time, not checked.
var noisyCPUTime = len(os.Args) > 1 && os.Args[1] == "noisy"

func main() {
	profileCheck()
	itimerRealCheck()
	cpuItimerCheck()
	posixTimerCheck()
	threadTimerCheck()
	refusals()
}

var sink atomic.Uint64

// hot is where nearly all the profiled time goes: the profile's top function.
//
//go:noinline
func hot(seed uint64) uint64 {
	x := seed
	for range 20000 {
		x = x*6364136223846793005 + 1442695040888963407
		x ^= x >> 17
	}
	return x
}

// warm takes a hundredth of hot's time.
//
//go:noinline
func warm(seed uint64) uint64 {
	x := seed
	for range 2000 {
		x = x*2862933555777941757 + 3037000493
		x ^= x >> 13
	}
	return x
}

// profileCheck profiles three goroutines that compute until the process has used one second of
// CPU time (at most 20 s of wall time: the host may be busy) and checks the profile: about 100
// samples per CPU second (the runtime's default rate) — at least half of them, and not more than
// half again (no double counting of the per-thread and process-wide timers' signals) — and
// main.hot on top.
func profileCheck() {
	var buf bytes.Buffer
	wall0, cpu0, user0 := time.Now(), clockNS(clockProcessCPU), clockNS(clockProcessUser)
	if err := pprof.StartCPUProfile(&buf); err != nil {
		check("StartCPUProfile", false)
		fmt.Println("info", err)
		return
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := uint64(g)
			for !stop.Load() {
				for j := range 10 {
					acc += hot(uint64(j))
				}
				acc += warm(acc)
			}
			sink.Add(acc)
		}()
	}
	for clockNS(clockProcessCPU)-cpu0 < time.Second && time.Since(wall0) < 20*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	pprof.StopCPUProfile()
	wall, cpu, user := time.Since(wall0), clockNS(clockProcessCPU)-cpu0, clockNS(clockProcessUser)-user0
	check("the work got a second of CPU time", cpu >= time.Second)

	p, err := profile.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		check("profile parses", false)
		fmt.Println("info", err)
		return
	}
	flat := map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		total += s.Value[0]
		// The function the thread was in: the leaf, or the caller of runtime.asyncPreempt, a
		// call the runtime's SIGURG handler injected at the interrupted instruction — a SIGPROF
		// that arrives while SIGURG's handler runs is delivered right after it, with the PC
		// changed to asyncPreempt.
		for _, loc := range s.Location {
			if len(loc.Line) > 0 && loc.Line[0].Function.Name != "runtime.asyncPreempt" {
				flat[loc.Line[0].Function.Name] += s.Value[0]
				break
			}
		}
	}
	var names []string
	for n := range flat {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return flat[names[i]] > flat[names[j]] })
	expected := cpu.Seconds() * 100
	fmt.Printf("info wall %v, process CPU %v (user %v), samples %d, expected %.0f (100 Hz), GOMAXPROCS %d\n",
		wall.Round(time.Millisecond), cpu.Round(time.Millisecond), user.Round(time.Millisecond), total, expected, runtime.GOMAXPROCS(0))
	for i, n := range names {
		if i == 5 {
			break
		}
		fmt.Printf("info flat %5d %5.1f%% %s\n", flat[n], 100*float64(flat[n])/float64(max(total, 1)), n)
	}
	check("samples >= 10", total >= 10)
	if noisyCPUTime {
		fmt.Printf("info samples >= half of 100 Hz x CPU seconds: %v (not checked: noisy)\n", float64(total) >= expected/2)
	} else {
		check("samples >= half of 100 Hz x CPU seconds", float64(total) >= expected/2)
	}
	check("samples <= 1.5 x 100 Hz x CPU seconds", float64(total) <= expected*1.5+5)
	check("main.hot is the top function", len(names) > 0 && names[0] == "main.hot")
	check("main.hot has most samples", flat["main.hot"]*2 > total)
	fmt.Println("profile", base64.StdEncoding.EncodeToString(buf.Bytes()))
}

// itimerRealCheck: setitimer(ITIMER_REAL) sends SIGALRM when the time is up, once or
// periodically; getitimer reads the time left.
func itimerRealCheck() {
	c := make(chan os.Signal, 16)
	signal.Notify(c, syscall.SIGALRM)
	defer signal.Stop(c)

	_, e := setitimer(itimerReal, 50*time.Millisecond, 0)
	it, e2 := getitimer(itimerReal)
	left := dur(it.value)
	check("ITIMER_REAL: getitimer reads the time left", e == 0 && e2 == 0 && left > 0 && left <= 50*time.Millisecond && dur(it.interval) == 0)
	check("ITIMER_REAL: SIGALRM arrives", waitSignals(c, 1))
	it, _ = getitimer(itimerReal)
	check("ITIMER_REAL: disarmed after it fired once", dur(it.value) == 0)

	setitimer(itimerReal, 20*time.Millisecond, 20*time.Millisecond)
	check("ITIMER_REAL periodic: three SIGALRMs", waitSignals(c, 3))
	old, e := setitimer(itimerReal, 0, 0)
	check("ITIMER_REAL periodic: disarming returns the old interval", e == 0 && dur(old.interval) == 20*time.Millisecond)
	it, _ = getitimer(itimerReal)
	check("ITIMER_REAL: disarmed reads zero", it == itimerval{})
}

// waitSignals waits up to 10 s for n signals on c.
func waitSignals(c chan os.Signal, n int) bool {
	timeout := time.After(10 * time.Second)
	for range n {
		select {
		case <-c:
		case <-timeout:
			return false
		}
	}
	return true
}

// cpuItimerCheck: ITIMER_PROF and ITIMER_VIRTUAL, set far ahead, read back what was set (Linux
// adds a tick to the first expiry) and return it as the old value when disarmed.
func cpuItimerCheck() {
	for _, w := range []struct {
		name  string
		which int
	}{{"ITIMER_PROF", itimerProf}, {"ITIMER_VIRTUAL", itimerVirtual}} {
		_, e := setitimer(w.which, time.Hour, 0)
		it, e2 := getitimer(w.which)
		v := dur(it.value)
		ok := e == 0 && e2 == 0 && v > time.Hour-time.Minute && v <= time.Hour+time.Second && it.interval == syscall.Timeval{}
		if !ok {
			fmt.Printf("info %s: setitimer %v, getitimer %v: %+v\n", w.name, e, e2, it)
		}
		check(w.name+": getitimer reads what was set", ok)
		old, e := setitimer(w.which, 0, 0)
		check(w.name+": disarming returns it", e == 0 && dur(old.value) > time.Hour-time.Minute)
		it, _ = getitimer(w.which)
		check(w.name+": disarmed reads zero", it == itimerval{})
	}
}

// posixTimerCheck: a periodic CLOCK_MONOTONIC timer signalling the process; then a SIGEV_NONE
// timer on the process's CPU clock, read with timer_gettime.
func posixTimerCheck() {
	c := make(chan os.Signal, 16)
	signal.Notify(c, syscall.SIGUSR1)
	defer signal.Stop(c)
	id, e := timerCreate(clockMonotonic, &sigevent{value: 0x1234, signo: int32(syscall.SIGUSR1), notify: sigevSignal})
	check("timer_create(CLOCK_MONOTONIC, SIGEV_SIGNAL)", e == 0)
	e = timerSet(id, 10*time.Millisecond, 10*time.Millisecond)
	check("timer_settime: periodic 10ms", e == 0)
	check("CLOCK_MONOTONIC timer: three SIGUSR1s", waitSignals(c, 3))
	_, iv, e := timerGet(id)
	check("timer_gettime reads the interval", e == 0 && iv == 10*time.Millisecond)
	n, e := sys(sysTimerOver, uintptr(id))
	check("timer_getoverrun", e == 0 && int32(n) >= 0)
	_, e = sys(sysTimerDelete, uintptr(id))
	check("timer_delete", e == 0)
	_, _, e = timerGet(id)
	check("timer_gettime after delete: EINVAL", e == syscall.EINVAL)

	id, e = timerCreate(clockProcessCPU, &sigevent{notify: sigevNone})
	e2 := timerSet(id, time.Hour, 0)
	v, _, e3 := timerGet(id)
	check("SIGEV_NONE timer on the process's CPU clock: armed for an hour", e == 0 && e2 == 0 && e3 == 0 && v > time.Hour-time.Minute && v <= time.Hour)
	sys(sysTimerDelete, uintptr(id))
}

// threadTimerCheck, on one locked thread: its CPU clock advances while it computes and not while
// it sleeps; a SIGEV_NONE timer on it counts down with it; a SIGEV_THREAD_ID timer on it — the
// profiler's kind — signals the thread every 5 ms of its CPU time (about 10 times here; os/signal
// may merge some).
func threadTimerCheck() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	t0 := clockNS(clockThreadCPU)
	time.Sleep(100 * time.Millisecond)
	slept := clockNS(clockThreadCPU) - t0
	fmt.Printf("info thread CPU time over a 100ms sleep: %v\n", slept)
	check("thread CPU clock: a sleep uses (almost) none", slept < 50*time.Millisecond)
	check("process CPU clock >= thread CPU clock", clockNS(clockProcessCPU) >= clockNS(clockThreadCPU))

	none, e := timerCreate(clockThreadCPU, &sigevent{notify: sigevNone})
	e2 := timerSet(none, time.Hour, 0)
	before, _, _ := timerGet(none)

	c := make(chan os.Signal, 64)
	signal.Notify(c, syscall.SIGUSR2)
	defer signal.Stop(c)
	prof, e3 := timerCreate(clockThreadCPU, &sigevent{signo: int32(syscall.SIGUSR2), notify: sigevThreadID, tid: int32(syscall.Gettid())})
	e4 := timerSet(prof, 5*time.Millisecond, 5*time.Millisecond)
	check("timer_create(CLOCK_THREAD_CPUTIME_ID, SIGEV_NONE and SIGEV_THREAD_ID)", e == 0 && e2 == 0 && e3 == 0 && e4 == 0)

	// Compute, letting os/signal's goroutine take each signal before the next: the runtime
	// merges the signals that arrive before that goroutine has taken the last one. It waits in
	// a futex on a thread of its own, and needs this core and then the P; Gosched alone gives
	// it neither (a locked goroutine's Gosched hands the P around, but the woken thread may not
	// get the core in time), and one run in six then saw all the signals merged into one. So
	// once per timer period of computing, sleep for a moment: the sleep uses no CPU time.
	spin := clockNS(clockThreadCPU)
	for wall, last := time.Now(), spin; clockNS(clockThreadCPU)-spin < 50*time.Millisecond && time.Since(wall) < 10*time.Second; {
		sink.Add(hot(sink.Load()))
		runtime.Gosched()
		if now := clockNS(clockThreadCPU); now-last >= 5*time.Millisecond {
			time.Sleep(time.Millisecond)
			last = now
		}
	}
	spun := clockNS(clockThreadCPU) - spin
	after, _, _ := timerGet(none)
	timerSet(prof, 0, 0)
	check("thread CPU clock: 50ms of computing counted", spun >= 50*time.Millisecond)
	check("SIGEV_NONE thread CPU timer counted the computing down", before-after >= 40*time.Millisecond && after > 0)
	got := 0
	for drain := time.After(2 * time.Second); got < 2; got++ {
		select {
		case <-c:
			continue
		case <-drain:
		}
		break
	}
	check("SIGEV_THREAD_ID thread CPU timer: SIGUSR2s while computing", got >= 2)
	sys(sysTimerDelete, uintptr(none))
	sys(sysTimerDelete, uintptr(prof))
}

// refusals: a few of the argument checks (the conformance test has the rest).
func refusals() {
	var id int32
	_, e := sys(sysTimerCreate, 99, 0, uintptr(unsafe.Pointer(&id)))
	check("timer_create(clock 99): EINVAL", e == syscall.EINVAL)
	_, e = sys(sysTimerCreate, clockMonotonicRaw, 0, uintptr(unsafe.Pointer(&id)))
	check("timer_create(CLOCK_MONOTONIC_RAW): EOPNOTSUPP", e == syscall.EOPNOTSUPP)
	_, e = timerCreate(clockMonotonic, &sigevent{signo: 10, notify: 99})
	check("timer_create(sigev_notify 99): EINVAL", e == syscall.EINVAL)
	_, e = timerCreate(clockMonotonic, &sigevent{signo: 65, notify: sigevSignal})
	check("timer_create(signal 65): EINVAL", e == syscall.EINVAL)
	_, e = timerCreate(clockMonotonic, &sigevent{signo: 10, notify: sigevThreadID, tid: 0x3ffffff0})
	check("timer_create(SIGEV_THREAD_ID, no such thread): EINVAL", e == syscall.EINVAL)
	_, e = sys(sysTimerCreate, clockMonotonic, 0xdead0000, uintptr(unsafe.Pointer(&id)))
	check("timer_create(unmapped sigevent): EFAULT", e == syscall.EFAULT)
	spec := itimerspec{value: syscall.Timespec{Nsec: 1e9}}
	_, e = sys(sysTimerSet, 0x7fff0000, 0, uintptr(unsafe.Pointer(&spec)), 0)
	check("timer_settime(tv_nsec 1e9): EINVAL", e == syscall.EINVAL)
	_, e = sys(sysTimerDelete, 0x7fff0000)
	check("timer_delete(no such timer): EINVAL", e == syscall.EINVAL)
	_, e = getitimer(3)
	check("getitimer(3): EINVAL", e == syscall.EINVAL)
	it := itimerval{value: syscall.Timeval{Usec: 1e6}}
	_, e = sys(sysSetitimer, itimerReal, uintptr(unsafe.Pointer(&it)), 0)
	check("setitimer(tv_usec 1e6): EINVAL", e == syscall.EINVAL)
}
