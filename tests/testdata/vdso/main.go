// vdso checks the kernel's vDSO from inside a program: that AT_SYSINFO_EHDR names an ELF with
// the functions the Go runtime and C libraries look up, that its pages are read-only, that the
// clocks the runtime reads through it (nanotime, time.Now) agree with the clock_gettime system
// call and never go back across threads and cores, that what it cannot answer reaches the
// kernel, and how many clock_gettime system calls the program made beyond its own (gmpos_info
// request 10). With -kopt vdso=0 there is no vDSO and the runtime's reads are system calls.
package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const (
	atSysinfoEhdr = 33
	sysGmposInfo  = 0x6d70
	infoSyscalls  = 10

	clockRealtime       = 0
	clockMonotonic      = 1
	clockProcessCputime = 2
	clockRealtimeCoarse = 5
)

//go:linkname getAuxv runtime.getAuxv
func getAuxv() []uintptr

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// call2 calls the C function at fn with two arguments (call_amd64.s, call_arm64.s).
func call2(fn, a0, a1 uintptr) uintptr

type timespec struct{ sec, nsec int64 }

// out is where the vDSO's functions write when called directly: not on a goroutine stack, which
// may move while foreign code writes to it.
var out = new([4]timespec)

func rawClock(clk int) int64 {
	var ts syscall.Timespec
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, uintptr(clk), uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		panic(e)
	}
	return ts.Nano()
}

func syscallCount(nr int) uint64 {
	var counts [512]uint64
	if _, _, e := syscall.Syscall(sysGmposInfo, infoSyscalls, uintptr(unsafe.Pointer(&counts[0])), uintptr(len(counts))); e != 0 {
		panic(e)
	}
	return counts[nr]
}

// prefix is the vDSO symbols' prefix: Linux's x86-64 vDSO exports __vdso_clock_gettime, its
// arm64 one __kernel_clock_gettime (and no time function).
var prefix = map[string]string{"amd64": "__vdso_", "arm64": "__kernel_"}[runtime.GOARCH]

// addr turns an address the kernel gave into a pointer (the double conversion tells go vet the
// integer is not a Go heap address).
func addr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

func main() {
	var ehdr uintptr
	auxv := getAuxv()
	for i := 0; i+1 < len(auxv); i += 2 {
		if auxv[i] == atSysinfoEhdr {
			ehdr = auxv[i+1]
		}
	}
	syms := map[string]uintptr{}
	if ehdr == 0 {
		fmt.Println("vdso: absent")
	} else {
		fmt.Println("vdso: present")
		syms = inspect(ehdr)
	}

	// The runtime's clocks against the system call, on every core, and monotonic across them.
	const goroutines, rounds, spins = 4, 1500, 50
	before := syscallCount(syscall.SYS_CLOCK_GETTIME)
	var last atomic.Int64
	var agreeMono, agreeReal, forward atomic.Bool
	agreeMono.Store(true)
	agreeReal.Store(true)
	forward.Store(true)
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				s1 := rawClock(clockMonotonic)
				v := nanotime()
				s2 := rawClock(clockMonotonic)
				if v < s1 || v > s2 {
					agreeMono.Store(false)
					fmt.Printf("nanotime %d outside the system call's %d..%d\n", v, s1, s2)
				}
				r1 := rawClock(clockRealtime)
				w := time.Now().UnixNano()
				r2 := rawClock(clockRealtime)
				if w < r1 || w > r2 {
					agreeReal.Store(false)
					fmt.Printf("time.Now %d outside the system call's %d..%d\n", w, r1, r2)
				}
				for j := 0; j < spins; j++ {
					seen := last.Load()
					now := nanotime()
					if now < seen {
						forward.Store(false)
						fmt.Printf("nanotime went back: %d after another thread saw %d\n", now, seen)
					}
					for now > seen && !last.CompareAndSwap(seen, now) {
						seen = last.Load()
					}
				}
				if i%100 == 0 {
					runtime.Gosched() // move between threads and cores
				}
			}
		}()
	}
	wg.Wait()
	own := uint64(goroutines * rounds * 4)
	extra := int64(syscallCount(syscall.SYS_CLOCK_GETTIME)-before) - int64(own)
	fmt.Printf("agree with the system call: monotonic %v realtime %v\n", agreeMono.Load(), agreeReal.Load())
	fmt.Printf("monotonic across threads: %v\n", forward.Load())
	fmt.Printf("runtime clock reads: %d\n", goroutines*rounds*(2+spins))
	fmt.Printf("clock_gettime system calls beyond the program's own %d: %d\n", own, extra)

	if ehdr != 0 {
		callDirectly(syms)
	}
}

// inspect reads the vDSO as an ELF file from memory (one page at ehdr) and checks its pages.
func inspect(ehdr uintptr) map[string]uintptr {
	img := unsafe.Slice((*byte)(addr(ehdr)), 4096)
	f, err := elf.NewFile(bytes.NewReader(img))
	if err != nil {
		fmt.Println("vdso: not an ELF file:", err)
		return nil
	}
	dyn, err := f.DynamicSymbols()
	if err != nil {
		fmt.Println("vdso: no dynamic symbols:", err)
		return nil
	}
	syms := map[string]uintptr{}
	var names []string
	for _, s := range dyn {
		if strings.HasPrefix(s.Name, prefix) {
			names = append(names, s.Name+"@"+s.Version)
			syms[s.Name] = ehdr + uintptr(s.Value)
		}
	}
	sort.Strings(names)
	fmt.Printf("symbols: %s\n", strings.Join(names, " "))
	fmt.Printf("read-only: image %v vvar %v\n", faults(ehdr), faults(ehdr-4096))
	return syms
}

// faults reports whether a write to at faults.
func faults(at uintptr) (faulted bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() { faulted = recover() != nil }()
	atomic.AddUint32((*uint32)(addr(at)), 0) // a write that leaves the value (an atomic: the compiler keeps it)
	return false
}

// callDirectly calls the vDSO's functions the way C code would, for what the runtime never
// asks: the fallbacks to the system call, clock_getres, gettimeofday, time.
func callDirectly(syms map[string]uintptr) {
	ts := &out[0]
	r := int64(call2(syms[prefix+"clock_gettime"], clockProcessCputime, uintptr(unsafe.Pointer(ts))))
	bad := int64(call2(syms[prefix+"clock_gettime"], 100, uintptr(unsafe.Pointer(ts))))
	res, want := &out[1], &out[3]
	call2(syms[prefix+"clock_getres"], clockRealtimeCoarse, uintptr(unsafe.Pointer(res)))
	syscall.RawSyscall(syscall.SYS_CLOCK_GETRES, clockRealtimeCoarse, uintptr(unsafe.Pointer(want)), 0)
	fmt.Printf("fallback: process-cputime %d bad-id %d\n", r, bad)
	fmt.Printf("clock_getres(REALTIME_COARSE) = the system call's: %v\n", *res == *want && res.nsec > 1)

	tv := &out[2]
	t0 := time.Now().Unix()
	call2(syms[prefix+"gettimeofday"], uintptr(unsafe.Pointer(tv)), 0)
	if syms[prefix+"time"] == 0 { // arm64
		t1 := time.Now().Unix()
		fmt.Printf("gettimeofday agrees with time.Now: %v\n", tv.sec >= t0 && tv.sec <= t1 && tv.nsec < 1e6)
		return
	}
	secs := int64(call2(syms[prefix+"time"], 0, 0))
	t1 := time.Now().Unix()
	fmt.Printf("gettimeofday and time agree with time.Now: %v\n", tv.sec >= t0 && tv.sec <= t1 && secs >= t0 && secs <= t1 && tv.nsec < 1e6)
}
