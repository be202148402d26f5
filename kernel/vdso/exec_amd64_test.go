// Tests that run the vDSO's machine code on the host, mapped as the kernel maps it.
// SPDX-License-Identifier: BSD-3-Clause

package vdso

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"gmpos/kernel/vdso/internal/ccall"
)

// Linux clock IDs (include/uapi/linux/time.h).
const (
	clockRealtime        = 0
	clockMonotonic       = 1
	clockProcessCputime  = 2
	clockThreadCputime   = 3
	clockMonotonicRaw    = 4
	clockRealtimeCoarse  = 5
	clockMonotonicCoarse = 6
	clockBoottime        = 7
	clockRealtimeAlarm   = 8
	clockBoottimeAlarm   = 9
	clockTAI             = 11
)

// mapping is the vDSO as a program sees it, at an address of mmap's choosing: the vvar page and
// above it the image, read-only and executable. The test keeps the vvar page writable: it
// plays the kernel. A third page holds what the functions write: the machine code stores
// through plain addresses, so they must not be on a goroutine stack, which may move meanwhile.
type mapping struct {
	t    *testing.T
	mem  []byte
	data *Data
	base uintptr // the image: what AT_SYSINFO_EHDR would say
	out  []byte  // the results page
}

// result returns the i-th 64-byte slot of the results page, filled with 0xff bytes.
func result[T any](m *mapping, i int) *T {
	slot := m.out[64*i : 64*(i+1)]
	for j := range slot {
		slot[j] = 0xff
	}
	return (*T)(unsafe.Pointer(&slot[0]))
}

func mapVDSO(t *testing.T) *mapping {
	t.Helper()
	mem, err := syscall.Mmap(-1, 0, 3*PageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	copy(mem[PageSize:], Image)
	if err := syscall.Mprotect(mem[PageSize:2*PageSize], syscall.PROT_READ|syscall.PROT_EXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	return &mapping{t: t, mem: mem, data: (*Data)(unsafe.Pointer(&mem[0])), base: uintptr(unsafe.Pointer(&mem[PageSize])), out: mem[2*PageSize:]}
}

// call runs the function at offset off of the image with two arguments.
func (m *mapping) call(off uint64, a0, a1 uintptr) int64 {
	m.t.Helper()
	r, saved := ccall.Call2(m.base+uintptr(off), a0, a1)
	if !saved {
		m.t.Fatalf("the function at %#x changed a callee-saved register", off)
	}
	return int64(r)
}

type timespec struct{ sec, nsec int64 }

func (ts timespec) ns() int64 { return ts.sec*1e9 + ts.nsec }

func (m *mapping) clockGettime(clk int32, ts *timespec) int64 {
	return m.call(offClockGettime, uintptr(uint32(clk)), uintptr(unsafe.Pointer(ts)))
}

// hostClock is a plausible calibration: a 2.5 GHz counter, time 0 one second ago, a wall clock
// far from the host's so that a result from the host's own clock stands out.
func hostClock(mode uint32) Clock {
	const hz = 2_500_000_000
	return Clock{
		Mode:      mode,
		Cycles0:   ccall.Cycles() - hz,
		Mult:      (1_000_000_000 << 32) / hz,
		RealBase:  946_684_800_000_000_000, // 2000-01-01
		CoarseRes: 1_000_000,
	}
}

// TestExecClockGettime: every clock the vDSO answers gives the value of the kernel's formula
// for a counter value read between just before and just after the call, split as Go splits it.
func TestExecClockGettime(t *testing.T) {
	m := mapVDSO(t)
	for _, c := range []Clock{hostClock(ModeCounter),
		// A negative wall clock: the split truncates toward zero, as Go's / and %.
		{Mode: ModeCounter, Cycles0: ccall.Cycles(), Mult: 1 << 31, RealBase: -5_500_000_000_000}} {
		m.data.Publish(&c)
		for clk, realtime := range map[int32]bool{clockRealtime: true, clockRealtimeCoarse: true, clockTAI: true,
			clockMonotonic: false, clockMonotonicRaw: false, clockMonotonicCoarse: false, clockBoottime: false} {
			for i := 0; i < 100; i++ {
				ts := result[timespec](m, 0)
				c1 := ccall.Cycles()
				r := m.clockGettime(clk, ts)
				c2 := ccall.Cycles()
				lo, hi := c.Monotonic(c1), c.Monotonic(c2)
				if realtime {
					lo, hi = c.Realtime(c1), c.Realtime(c2)
				}
				if r != 0 || ts.ns() < lo || ts.ns() > hi {
					t.Fatalf("clock %d: returned %d, %+v = %d ns, want 0 and %d..%d", clk, r, ts, ts.ns(), lo, hi)
				}
				if ts.sec != ts.ns()/1e9 || ts.nsec != ts.ns()%1e9 || ts.nsec <= -1e9 || ts.nsec >= 1e9 {
					t.Fatalf("clock %d: %+v is not ns/1e9, ns%%1e9", clk, ts)
				}
			}
		}
	}
}

// rawClockGettime is the host kernel's answer.
func rawClockGettime(clk int32, ts *timespec) int64 {
	r, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, uintptr(uint32(clk)), uintptr(unsafe.Pointer(ts)), 0)
	if e != 0 {
		return -int64(e)
	}
	return int64(r)
}

// TestExecFallback: the clocks the vDSO does not answer go to the (host's) kernel with the
// caller's arguments, so the result and errno are the kernel's; with ModeSyscall every clock does.
func TestExecFallback(t *testing.T) {
	m := mapVDSO(t)
	c := hostClock(ModeCounter)
	m.data.Publish(&c)
	const pidCPUClock = -6 // CPU clock of the calling process: ^0<<3 | CPUCLOCK_SCHED
	for _, clk := range []int32{clockProcessCputime, clockThreadCputime, clockRealtimeAlarm, clockBoottimeAlarm,
		10, 12, 100, -1, pidCPUClock, 1 << 30} {
		got, want := result[timespec](m, 0), result[timespec](m, 1)
		r := m.clockGettime(clk, got)
		w := rawClockGettime(clk, want)
		if r != w {
			t.Errorf("clock %d: vDSO returned %d, the system call %d", clk, r, w)
		}
		if w == 0 && (got.ns() < 0 || got.ns() > want.ns()) {
			t.Errorf("clock %d: vDSO read %+v, then the system call %+v", clk, got, want)
		}
	}
	if r := m.clockGettime(100, nil); r != -int64(syscall.EINVAL) {
		t.Errorf("bad clock ID: %d, want -EINVAL", r)
	}

	// ModeSyscall: the host's wall clock, not the published one (which says 2000).
	c.Mode = ModeSyscall
	m.data.Publish(&c)
	ts := result[timespec](m, 0)
	if r := m.clockGettime(clockRealtime, ts); r != 0 || time.Since(time.Unix(ts.sec, ts.nsec)).Abs() > time.Minute {
		t.Errorf("ModeSyscall CLOCK_REALTIME: %d, %v; want the host's time", r, time.Unix(ts.sec, ts.nsec))
	}
	tv := result[[2]int64](m, 1)
	if r := m.call(offGettimeofday, uintptr(unsafe.Pointer(tv)), 0); r != 0 || time.Since(time.Unix(tv[0], tv[1]*1000)).Abs() > time.Minute {
		t.Errorf("ModeSyscall gettimeofday: %d, %v", r, tv)
	}
	if r := m.call(offTime, 0, 0); time.Since(time.Unix(r, 0)).Abs() > time.Minute {
		t.Errorf("ModeSyscall time: %d", r)
	}
}

// TestExecGettimeofday: the wall clock in microseconds, the time zone UTC, either pointer NULL.
func TestExecGettimeofday(t *testing.T) {
	m := mapVDSO(t)
	c := hostClock(ModeCounter)
	m.data.Publish(&c)
	tv, tz := result[[2]int64](m, 0), result[[2]int32](m, 1)
	c1 := ccall.Cycles()
	r := m.call(offGettimeofday, uintptr(unsafe.Pointer(tv)), uintptr(unsafe.Pointer(tz)))
	c2 := ccall.Cycles()
	us := tv[0]*1e6 + tv[1]
	if r != 0 || us < c.Realtime(c1)/1000 || us > c.Realtime(c2)/1000 || tv[1] < 0 || tv[1] >= 1e6 {
		t.Errorf("gettimeofday: %d, %v; want 0 and %d..%d µs", r, tv, c.Realtime(c1)/1000, c.Realtime(c2)/1000)
	}
	if *tz != [2]int32{0, 0} {
		t.Errorf("timezone %v, want UTC", *tz)
	}
	tz = result[[2]int32](m, 1)
	if r := m.call(offGettimeofday, 0, uintptr(unsafe.Pointer(tz))); r != 0 || *tz != [2]int32{0, 0} {
		t.Errorf("gettimeofday(NULL, tz): %d, %v", r, tz)
	}
	if r := m.call(offGettimeofday, 0, 0); r != 0 {
		t.Errorf("gettimeofday(NULL, NULL) = %d", r)
	}
}

// TestExecTime: the seconds, returned and (if asked) stored.
func TestExecTime(t *testing.T) {
	m := mapVDSO(t)
	c := hostClock(ModeCounter)
	m.data.Publish(&c)
	tloc := result[int64](m, 0)
	c1 := ccall.Cycles()
	r := m.call(offTime, uintptr(unsafe.Pointer(tloc)), 0)
	c2 := ccall.Cycles()
	if r != *tloc || r < c.Realtime(c1)/1e9 || r > c.Realtime(c2)/1e9 {
		t.Errorf("time: returned %d, stored %d; want %d..%d", r, *tloc, c.Realtime(c1)/1e9, c.Realtime(c2)/1e9)
	}
	if r := m.call(offTime, 0, 0); r != c.Realtime(ccall.Cycles())/1e9 && r != c.Realtime(ccall.Cycles())/1e9-1 {
		t.Errorf("time(NULL) = %d", r)
	}
}

// TestExecClockGetres: 1 ns, a tick for the coarse clocks, NULL allowed, the rest the kernel's.
func TestExecClockGetres(t *testing.T) {
	m := mapVDSO(t)
	c := hostClock(ModeCounter)
	c.CoarseRes = 4_000_000
	m.data.Publish(&c)
	for clk, want := range map[int32]int64{clockRealtime: 1, clockMonotonic: 1, clockMonotonicRaw: 1, clockBoottime: 1,
		clockTAI: 1, clockRealtimeCoarse: c.CoarseRes, clockMonotonicCoarse: c.CoarseRes} {
		ts := result[timespec](m, 0)
		if r := m.call(offClockGetres, uintptr(clk), uintptr(unsafe.Pointer(ts))); r != 0 || *ts != (timespec{0, want}) {
			t.Errorf("clock_getres(%d): %d, %+v; want 0, {0 %d}", clk, r, *ts, want)
		}
		if r := m.call(offClockGetres, uintptr(clk), 0); r != 0 {
			t.Errorf("clock_getres(%d, NULL) = %d", clk, r)
		}
	}
	for _, clk := range []int32{clockProcessCputime, clockRealtimeAlarm, 10, 100, -1} {
		got, want := result[timespec](m, 0), result[timespec](m, 1)
		r := m.call(offClockGetres, uintptr(uint32(clk)), uintptr(unsafe.Pointer(got)))
		w, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETRES, uintptr(uint32(clk)), uintptr(unsafe.Pointer(want)), 0)
		if e != 0 {
			w = uintptr(-int64(e))
		}
		if r != int64(w) || *got != *want {
			t.Errorf("clock_getres(%d): vDSO %d %+v, system call %d %+v", clk, r, *got, int64(w), *want)
		}
	}
}

// TestExecSeqlock: while a writer publishes two calibrations in turn, readers on other threads
// must always get a time that one of them gives — never a mix of fields from both. A and B
// differ in every field, so any torn read is far from both. There are more threads than cores,
// so the host preempts readers in the middle of a read — which is when the second check of
// the sequence counter matters (without it in mkvdso.go, most runs of this test fail).
func TestExecSeqlock(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a second")
	}
	const readers = 8
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(readers + 1))
	m := mapVDSO(t)
	a := hostClock(ModeCounter)
	b := Clock{Mode: ModeCounter, Cycles0: a.Cycles0 - 1<<40, Mult: a.Mult * 3, RealBase: a.RealBase + 1e15, CoarseRes: 7}
	m.data.Publish(&a)
	var stop atomic.Bool
	var writes, reads, inA atomic.Int64
	var torn atomic.Value
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			for _, c := range []*Clock{&b, &a} {
				m.data.Publish(c)
				for t0 := ccall.Cycles(); ccall.Cycles()-t0 < 5000; { // keep each state a while
				}
			}
			writes.Add(2)
		}
	}()
	for i := 0; i < readers; i++ {
		ts := result[timespec](m, i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				c1 := ccall.Cycles()
				r := m.clockGettime(clockRealtime, ts)
				c2 := ccall.Cycles()
				ns := ts.ns()
				switch {
				case r != 0:
					torn.Store(fmt.Sprintf("clock_gettime returned %d", r))
				case ns >= a.Realtime(c1) && ns <= a.Realtime(c2):
					inA.Add(1)
				case ns >= b.Realtime(c1) && ns <= b.Realtime(c2):
				default:
					torn.Store(fmt.Sprintf("read %d ns: neither A (%d..%d) nor B (%d..%d): a torn read",
						ns, a.Realtime(c1), a.Realtime(c2), b.Realtime(c1), b.Realtime(c2)))
				}
				reads.Add(1)
			}
		}()
	}
	time.Sleep(time.Second)
	stop.Store(true)
	wg.Wait()
	if msg := torn.Load(); msg != nil {
		t.Fatal(msg)
	}
	t.Logf("%d reads (%d saw A) during %d writes", reads.Load(), inA.Load(), writes.Load())
}

// TestExecWaitsForWriter: a reader that finds the counter odd waits (PAUSE) until the writer
// is done, then reads the new clock.
func TestExecWaitsForWriter(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the waiting reader occupies a thread")
	}
	m := mapVDSO(t)
	a := hostClock(ModeCounter)
	m.data.Publish(&a)
	atomic.AddUint32(&m.data.seq, 1) // the writer has begun
	got := make(chan timespec)
	go func() {
		ts := result[timespec](m, 0)
		m.clockGettime(clockRealtime, ts)
		got <- *ts
	}()
	select {
	case ts := <-got:
		t.Fatalf("the reader did not wait for the writer: %+v", ts)
	case <-time.After(50 * time.Millisecond):
	}
	b := a
	b.RealBase += 1e15
	atomic.StoreInt64(&m.data.realBase, b.RealBase)
	atomic.AddUint32(&m.data.seq, 1) // done
	select {
	case ts := <-got:
		if now := b.Realtime(ccall.Cycles()); ts.ns() < b.RealBase || ts.ns() > now {
			t.Errorf("the reader got %d, want B's time (<= %d)", ts.ns(), now)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reader never finished")
	}
}
