// futexrace drives the Go runtime's two futex calls — a private FUTEX_WAIT without a timeout and
// a private FUTEX_WAKE — through the cases where gmpos runs them without its big kernel lock
// (kernel/futex_unlocked.go) and could go wrong: a futex word that is not mapped or not yet
// faulted in, a word another thread unmaps and maps again meanwhile, wake-ups of a thread whose
// last core has not finished switching away from it, and a process that exits while its threads
// block. Every check prints "check NAME: true" when it holds (figures go to stderr); the same
// lines come out natively.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"gmpos/tests/testdata/racecheck"
)

const (
	futexWaitPrivate = 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 129 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
	pageSize         = 4096
)

func futexWait(addr uintptr, val uint32) syscall.Errno {
	_, _, e := syscall.Syscall6(syscall.SYS_FUTEX, addr, futexWaitPrivate, uintptr(val), 0, 0, 0)
	return e
}

func futexWake(addr uintptr, n int) (int, syscall.Errno) {
	r, _, e := syscall.Syscall6(syscall.SYS_FUTEX, addr, futexWakePrivate, uintptr(n), 0, 0, 0)
	return int(r), e
}

func mmap(addr uintptr, flags uintptr) (uintptr, syscall.Errno) {
	return mmapProt(addr, syscall.PROT_READ|syscall.PROT_WRITE, flags)
}

func mmapProt(addr, prot, flags uintptr) (uintptr, syscall.Errno) {
	r, _, e := syscall.Syscall6(syscall.SYS_MMAP, addr, pageSize, prot,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|flags, ^uintptr(0), 0)
	return r, e
}

func munmap(addr uintptr) syscall.Errno {
	_, _, e := syscall.Syscall(syscall.SYS_MUNMAP, addr, pageSize, 0)
	return e
}

// check prints the program's result lines (racecheck.Check).
var check = racecheck.Check

func main() {
	if n, ok := racecheck.Child(); ok {
		exitChild(n)
		return
	}
	racecheck.CheckNetworkUp() // the races run beside an open NIC
	words()
	munmapRace(3000)
	ring(30000)
	racecheck.ExitRace(12, nil) // children that exit while their threads wait on each other (exitChild)
}

// words: a futex word that is not mapped, one on a page never touched, and one the program may
// not read (PROT_NONE, though its page is present). The kernel's read of the word faults in the
// first two, and must not happen in the third; each call must answer as Linux does.
func words() {
	p, e := mmap(0, 0)
	if e != 0 {
		check("mmap", false, e)
		return
	}
	// q is the upper page of two, so that its hole after munmap ends at a page of ours: the
	// runtime's next mmap, placed top-down, cannot land there while these calls look at it (a
	// zero-filled page there would make the wait below sleep). munmapRace says why it matters.
	g, err := syscall.Mmap(-1, 0, 2*pageSize, syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		check("mmap", false, err)
		return
	}
	q := uintptr(unsafe.Pointer(&g[0])) + pageSize
	munmap(q)
	e = futexWait(q, 1) // 1, not 0: were the page there after all, EAGAIN, not a sleep
	check("futex_wait(unmapped word) is EFAULT", e == syscall.EFAULT, e)
	e = futexWait(p, 1) // the page reads as zeros once faulted in
	check("futex_wait(untouched word holding 0, 1) is EAGAIN", e == syscall.EAGAIN, e)
	n, e := futexWake(q, 1)
	check("futex_wake(unmapped word) wakes nobody", n == 0 && e == 0, n, e)
	// A page the program may not read: present (its data survives), but PROT_NONE.
	if _, _, e := syscall.Syscall(syscall.SYS_MPROTECT, p, pageSize, syscall.PROT_NONE); e != 0 {
		check("mprotect(PROT_NONE)", false, e)
	}
	e = futexWait(p, 1) // a read would find 0: EAGAIN
	check("futex_wait(PROT_NONE word) is EFAULT", e == syscall.EFAULT, e)
	munmap(p)
	syscall.Munmap(g)
}

// munmapRace: one thread waits on a word whose page another thread keeps taking away and
// mapping again. Each wait must end with EAGAIN (mapped: the word is 0, not 0xdead) or EFAULT
// (no access), and the kernel must not fault reading the word.
//
// The page is taken away by a MAP_FIXED mapping without access, not by munmap: munmap would
// leave a hole that the runtime's own next mmap may take (top-down, it lands right there), and
// the MAP_FIXED that maps the page again would then destroy the runtime's memory. That happened
// once in CI: a new heap arena's metadata (18 pages, its last one the hole) lost its last page,
// and the runtime died in mheap.allocNeedsZero. The replacement unmaps the page all the same
// (its frame freed, its table entry cleared, a shootdown), but never frees the address.
func munmapRace(rounds int) {
	b, err := syscall.Mmap(-1, 0, pageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		check("mmap", false, err)
		return
	}
	p := uintptr(unsafe.Pointer(&b[0])) // b stays a view of whatever is mapped at p
	var stop atomic.Bool
	var waits, again, fault, other int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		for !stop.Load() {
			switch e := futexWait(p, 0xdead); e {
			case syscall.EAGAIN:
				again++
			case syscall.EFAULT:
				fault++
			default:
				other++
			}
			waits++
		}
	}()
	runtime.LockOSThread()
	remapped := 0
	for i := 0; i < rounds; i++ {
		if r, e := mmapProt(p, syscall.PROT_NONE, syscall.MAP_FIXED); e != 0 || r != p {
			check("mmap(PROT_NONE, MAP_FIXED)", false, e)
			break
		}
		if r, e := mmap(p, syscall.MAP_FIXED); e != 0 || r != p {
			check("mmap(MAP_FIXED)", false, e)
			break
		}
		b[0] = 0 // fault it in
		remapped++
	}
	stop.Store(true)
	wg.Wait()
	runtime.UnlockOSThread()
	fmt.Fprintf(os.Stderr, "munmap race: %d remaps, %d waits: %d EAGAIN, %d EFAULT, %d other\n", remapped, waits, again, fault, other)
	check("munmap race: every wait EAGAIN or EFAULT", other == 0 && waits > 0 && remapped == rounds, other, waits, remapped)
	munmap(p)
}

// ring passes a token around three threads, each locked to its goroutine, through futex words:
// every pass is a FUTEX_WAKE of a thread that has just blocked or is about to, often on the
// other core, and sometimes before its core has switched away from it.
func ring(passes int) {
	var w [3]uint32
	addr := func(i int) uintptr { return uintptr(unsafe.Pointer(&w[i])) }
	var wg sync.WaitGroup
	var got [3]int
	per := passes / 3
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread()
			next := (i + 1) % 3
			for n := 0; n < per; n++ {
				for atomic.LoadUint32(&w[i]) == 0 {
					if e := futexWait(addr(i), 0); e != 0 && e != syscall.EAGAIN && e != syscall.EINTR {
						fmt.Println("ring: futex_wait:", e)
						os.Exit(1)
					}
				}
				atomic.StoreUint32(&w[i], 0)
				got[i]++
				atomic.StoreUint32(&w[next], 1)
				futexWake(addr(next), 1)
			}
		}(i)
	}
	done := make(chan struct{})
	t0 := time.Now()
	atomic.StoreUint32(&w[0], 1)
	futexWake(addr(0), 1)
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		fmt.Printf("ring: stuck after %v: passes %v\n", time.Since(t0), got)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "ring: %d passes in %v\n", got[0]+got[1]+got[2], time.Since(t0).Round(time.Millisecond))
	check("ring: every pass arrived", got[0]+got[1]+got[2] == 3*per, got)
}

// exitChild runs a futex ring on three threads and exits from a fourth after a while that
// varies from child to child, without stopping the ring.
func exitChild(n int) {
	var w [3]uint32
	for i := 0; i < 3; i++ {
		go func(i int) {
			runtime.LockOSThread()
			next := (i + 1) % 3
			for {
				for atomic.LoadUint32(&w[i]) == 0 {
					futexWait(uintptr(unsafe.Pointer(&w[i])), 0)
				}
				atomic.StoreUint32(&w[i], 0)
				atomic.StoreUint32(&w[next], 1)
				futexWake(uintptr(unsafe.Pointer(&w[next])), 1)
			}
		}(i)
	}
	atomic.StoreUint32(&w[0], 1)
	futexWake(uintptr(unsafe.Pointer(&w[0])), 1)
	time.Sleep(time.Duration(1+n%5) * 7 * time.Millisecond)
	os.Exit(0)
}
