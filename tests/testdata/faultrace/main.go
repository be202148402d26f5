// faultrace drives the page faults gmpos answers without its big kernel lock
// (kernel/fault_unlocked.go: a first touch of a page, under mm's lock only) through the cases
// that could go wrong: many threads touching the same fresh pages at once (each page must be
// created once: every thread then sees the others' writes), a region unmapped and mapped again,
// or made PROT_NONE and back, while other threads touch it (each touch either succeeds on a
// page that reads as the mapping's, or faults: recovered here as a panic), a page replaced while
// the core that last read it idles (a lazy TLB, kernel/smp.go), and children that exit while
// their threads fault pages in. Every check prints "check NAME: true" when it holds
// (figures go to stderr); the same lines come out natively.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"gmpos/tests/testdata/racecheck"
)

const pageSize = 4096

// check prints the program's result lines (racecheck.Check).
var check = racecheck.Check

func main() {
	if n, ok := racecheck.Child(); ok {
		exitChild(n)
		return
	}
	if len(os.Args) == 2 && os.Args[1] == "lazy" { // lazyRace alone (TestGuestLazyTLBOff)
		lazyRace(500)
		return
	}
	if len(os.Args) == 2 && os.Args[1] == "drop" { // dropRace in a child (childDropRace)
		dropRace(rounds(1500))
		return
	}
	racecheck.CheckNetworkUp() // the races run beside an open NIC
	timed("same fresh", func() { sameFresh(8, 2048) })
	timed("remap", func() { remapRace(rounds(3000)) })
	timed("protect", func() { protectRace(rounds(3000)) })
	timed("drop", func() { dropRace(rounds(3000)) })
	timed("child drop", childDropRace)
	timed("lazy", func() { lazyRace(500) })
	timed("exit", func() { racecheck.ExitRace(8, nil) }) // children that exit while their threads fault pages in (exitChild)
}

// rounds scales a race's rounds down on more than two cores: tests/fault_test.go runs this on 4
// vCPUs of a 2-core host too, where every shootdown waits for vCPUs the host is not running and
// a round takes milliseconds (the remap race alone took 46 s on arm64 with GICv3). The test
// computes the same figure.
func rounds(n int) int { return n * 2 / max(runtime.NumCPU(), 2) }

// timed runs one race and says on stderr how long it took (a slow one is the first thing to
// look at when the test's boot times out).
func timed(name string, race func()) {
	t0 := time.Now()
	race()
	fmt.Fprintf(os.Stderr, "(%s race: %v)\n", name, time.Since(t0).Round(time.Millisecond))
}

func anon(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		fmt.Println("mmap:", err)
		os.Exit(1)
	}
	return b
}

// sameFresh: n threads write their own word into every page of one fresh region of pages
// pages, all at once, each starting at a different page. Each page must be created once: at the
// end every page holds every thread's word (a page created twice would lose the writes made to
// the first one).
func sameFresh(n, pages int) {
	b := anon(pages * pageSize)
	var wg sync.WaitGroup
	start := make(chan struct{})
	t0 := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread()
			<-start
			for k := 0; k < pages; k++ {
				p := (k + i*pages/n) % pages
				atomic.StoreUint32((*uint32)(unsafe.Pointer(&b[p*pageSize+4*i])), uint32(i+1))
			}
		}(i)
	}
	close(start)
	wg.Wait()
	lost := 0
	for p := 0; p < pages; p++ {
		for i := 0; i < n; i++ {
			if atomic.LoadUint32((*uint32)(unsafe.Pointer(&b[p*pageSize+4*i]))) != uint32(i+1) {
				lost++
			}
		}
	}
	fmt.Fprintf(os.Stderr, "same fresh pages: %d threads × %d pages in %v\n", n, pages, time.Since(t0).Round(time.Millisecond))
	check("fresh pages touched by 8 threads at once: no write lost", lost == 0, lost)
	syscall.Munmap(b)
}

// touch writes v to the first word of page p of the region at base and returns what was there;
// false if the access faulted.
func touch(base uintptr, p int, v uint32) (ok bool, got uint32) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	w := (*uint32)(unsafe.Add(unsafe.Pointer(nil), base+uintptr(p*pageSize)))
	old := atomic.LoadUint32(w)
	atomic.StoreUint32(w, v)
	return true, old
}

// peek reads the first word of page p of the region at base; false if the access faulted.
func peek(base uintptr, p int) (ok bool, got uint32) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return true, atomic.LoadUint32((*uint32)(unsafe.Add(unsafe.Pointer(nil), base+uintptr(p*pageSize))))
}

// dropRace: one thread keeps dropping the pages of a 16-page region with madvise(MADV_DONTNEED)
// — in gmpos without the BKL, its TLB shootdown included (kernel/mm_unlocked.go) — then writing
// the next generation into the first 8, while two threads read those, and a third has the kernel
// write into the other 8: a read of a 32 KiB file in /tmp, a call under the BKL, which checks
// the whole buffer and then copies into it, so a drop may come in between, and the kernel must
// fault the page in again. A read finds 0 or, if no round began meanwhile, the current
// generation: an earlier one is a dropped frame read through a stale translation. Every read of
// the file must succeed, whole.
func dropRace(rounds int) {
	const pages, genPages = 16, 8
	b := anon(pages * pageSize)
	base := uintptr(unsafe.Pointer(&b[0]))
	var gen atomic.Uint32
	var stop atomic.Bool
	var reads, stale, copies, copyFailed atomic.Int64
	fd, done := tempFile((pages - genPages) * pageSize)
	if fd < 0 {
		return
	}
	defer done()
	var started sync.WaitGroup // the rounds begin once every thread runs
	started.Add(3)
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread()
			started.Done()
			for k := 0; !stop.Load(); k++ {
				g1 := gen.Load()
				v := atomic.LoadUint32((*uint32)(unsafe.Pointer(&b[((k*7+i)%genPages)*pageSize])))
				if g2 := gen.Load(); g1 == g2 && v != 0 && v != g1 {
					stale.Add(1)
				}
				reads.Add(1)
			}
		}(i)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		started.Done()
		for !stop.Load() {
			dst := b[genPages*pageSize:]
			// The bytes cannot be checked afterwards: the next drop may zero them at any time.
			if n, err := syscall.Pread(fd, dst, 0); err != nil || n != len(dst) {
				copyFailed.Add(1)
			}
			copies.Add(1)
		}
	}()
	started.Wait()
	runtime.LockOSThread()
	for r := 0; r < rounds; r++ {
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, base, pages*pageSize, syscall.MADV_DONTNEED); e != 0 {
			check("madvise(MADV_DONTNEED)", false, e)
			break
		}
		stamp(b, genPages, gen.Add(1))
	}
	stop.Store(true)
	wg.Wait()
	runtime.UnlockOSThread()
	fmt.Fprintf(os.Stderr, "drop race: %d drops, %d reads, %d reads of the file\n", rounds, reads.Load(), copies.Load())
	check("drop race: no dropped page read after the drop", stale.Load() == 0 && reads.Load() > 0, stale.Load(), reads.Load())
	check("drop race: the kernel's copies into dropped pages succeed", copyFailed.Load() == 0 && copies.Load() > 0, copyFailed.Load(), copies.Load())
	syscall.Munmap(b)
}

// childDropRace runs dropRace in a child process: on gmpos an execve'd image gets a page table of
// its own, whose shootdowns go only to the cores that have it loaded (kernel/smp.go), so this is
// the race through that filter. The child's checks must hold and it must exit 0.
func childDropRace() {
	exe, err := os.Executable()
	if err != nil {
		check("os.Executable", false, err)
		return
	}
	cmd := exec.Command(exe, "drop")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	for _, l := range strings.SplitAfter(string(out), "\n") {
		if l != "" {
			fmt.Fprintf(os.Stderr, "child: %s", l)
		}
	}
	ok := err == nil && strings.Count(string(out), ": true\n") == 2 && !strings.Contains(string(out), ": false")
	check("drop race in a process of its own: every check holds", ok, err)
}

// stamp writes generation g into the first word of each of b's first n pages, atomically, for
// the readers of the drop and remap races.
func stamp(b []byte, n int, g uint32) {
	for p := 0; p < n; p++ {
		atomic.StoreUint32((*uint32)(unsafe.Pointer(&b[p*pageSize])), g)
	}
}

// tempFile creates a file of n bytes in /tmp and returns its fd and a function that removes
// it (fd -1 after a failed check).
func tempFile(n int) (int, func()) {
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i*7 + 1)
	}
	f, err := os.CreateTemp("", "faultrace")
	if err == nil {
		_, err = f.Write(data)
	}
	if err != nil {
		check("a file to read", false, err)
		return -1, func() {}
	}
	return int(f.Fd()), func() { f.Close(); os.Remove(f.Name()) }
}

// remapRace: one thread keeps unmapping a 16-page region, mapping it again (fresh, zeroed) and
// writing the mapping's generation into the first 8 pages, while two others read those (their first
// touches are faults the kernel may answer without the BKL), and a fourth has the kernel read a
// file into the other 8. A read either faults (no access at that moment) or, if no remap began
// meanwhile, finds 0 or the current generation: a page with an earlier one would have outlived
// its mapping. The kernel's read either succeeds or answers EFAULT (the region was PROT_NONE as
// it checked): a remap between its check and its copy would be a kernel fault.
//
// The region is unmapped by a MAP_FIXED mapping without access, not by munmap, whose hole the
// runtime's own next mmap could take and the remap would then destroy (futexrace's munmapRace
// says how that went once); the replacement frees the frames and shoots the TLBs down the same.
func remapRace(rounds int) {
	const pages, genPages = 16, 8
	b := anon(pages * pageSize)
	base := uintptr(unsafe.Pointer(&b[0]))
	var gen atomic.Uint32 // the mapping's generation, advanced after each remap
	var stop atomic.Bool
	var reads, faults, stale, copies, copyFaults, copyFailed atomic.Int64
	var wg sync.WaitGroup
	fd, done := tempFile((pages - genPages) * pageSize)
	if fd < 0 {
		return
	}
	defer done()
	var started sync.WaitGroup // the rounds begin once every thread runs
	started.Add(3)
	wg.Add(1)
	go func() {
		// The kernel's copy into the other half: a pread under the BKL checks the buffer, then
		// copies. A remap without the BKL must not come in between (kernel/mm_unlocked.go
		// keepsCheckedPages): the pread finds the pages mapped, or answers EFAULT.
		defer wg.Done()
		runtime.LockOSThread()
		started.Done()
		for !stop.Load() {
			n, _, e := syscall.Syscall6(syscall.SYS_PREAD64, uintptr(fd), base+genPages*pageSize, (pages-genPages)*pageSize, 0, 0, 0)
			switch {
			case e == syscall.EFAULT:
				copyFaults.Add(1)
			case e != 0 || n != (pages-genPages)*pageSize:
				copyFailed.Add(1)
			}
			copies.Add(1)
			// A pause: back to back, the preads kept the BKL so busy that the remaps, which
			// then wait for it, took minutes on 4 vCPUs of a 2-core host.
			time.Sleep(50 * time.Microsecond)
		}
	}()
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread()
			debug.SetPanicOnFault(true) // a fault on an unmapped page: a panic, recovered (peek)
			started.Done()
			for k := 0; !stop.Load(); k++ {
				g1 := gen.Load()
				ok, v := peek(base, (k*7+i)%genPages)
				g2 := gen.Load()
				switch {
				case !ok:
					faults.Add(1)
				case g1 == g2 && v != 0 && v != g1:
					stale.Add(1)
				}
				reads.Add(1)
			}
		}(i)
	}
	started.Wait()
	runtime.LockOSThread()
	for r := 0; r < rounds; r++ {
		if r, _, e := syscall.Syscall6(syscall.SYS_MMAP, base, pages*pageSize, syscall.PROT_NONE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_FIXED, ^uintptr(0), 0); e != 0 || r != base {
			check("mmap(PROT_NONE, MAP_FIXED)", false, e)
			break
		}
		r, _, e := syscall.Syscall6(syscall.SYS_MMAP, base, pages*pageSize, syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_FIXED, ^uintptr(0), 0)
		if e != 0 || r != base {
			check("mmap(MAP_FIXED)", false, e)
			break
		}
		stamp(b, genPages, gen.Add(1))
	}
	stop.Store(true)
	wg.Wait()
	runtime.UnlockOSThread()
	fmt.Fprintf(os.Stderr, "remap race: %d remaps, %d reads, %d faulted; %d preads, %d EFAULT\n", rounds, reads.Load(), faults.Load(), copies.Load(), copyFaults.Load())
	check("remap race: no page outlived its mapping", stale.Load() == 0 && reads.Load() > 0, stale.Load(), reads.Load())
	check("remap race: the kernel's copies into the region succeed or answer EFAULT", copyFailed.Load() == 0 && copies.Load() > copyFaults.Load(), copyFailed.Load(), copies.Load(), copyFaults.Load())
	syscall.Munmap(b)
}

// protectRace: one thread keeps making a 16-page region PROT_NONE and readable-writable again
// while two others touch it. A touch either faults or succeeds; the data survives (mprotect
// keeps the pages), so each toucher finds its own last value or 0.
func protectRace(rounds int) {
	const pages = 16
	b := anon(pages * pageSize)
	base := uintptr(unsafe.Pointer(&b[0]))
	var stop atomic.Bool
	var touches, faults, wrong atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread()
			debug.SetPanicOnFault(true) // a fault on a PROT_NONE page: a panic, recovered (touch)
			var last [pages]uint32
			for k := 0; !stop.Load(); k++ {
				p := 2*((k*5)%(pages/2)) + i // toucher i owns the pages of its parity
				v := uint32(k + 1)
				ok, old := touch(base, p, v)
				switch {
				case !ok:
					faults.Add(1)
					continue // nothing stored
				case old != last[p]:
					wrong.Add(1)
				}
				last[p] = v
				touches.Add(1)
			}
		}(i)
	}
	runtime.LockOSThread()
	for r := 0; r < rounds; r++ {
		prot := syscall.PROT_NONE
		if r%2 == 1 {
			prot = syscall.PROT_READ | syscall.PROT_WRITE
		}
		if err := syscall.Mprotect(b, prot); err != nil {
			check("mprotect", false, err)
			break
		}
	}
	syscall.Mprotect(b, syscall.PROT_READ|syscall.PROT_WRITE)
	stop.Store(true)
	wg.Wait()
	runtime.UnlockOSThread()
	fmt.Fprintf(os.Stderr, "protect race: %d mprotects, %d touches, %d faulted\n", rounds, touches.Load(), faults.Load())
	check("protect race: every page kept its data", wrong.Load() == 0 && touches.Load() > 0, wrong.Load(), touches.Load())
	syscall.Munmap(b)
}

// exitChild faults pages in on three threads, endlessly (a fresh region each round), and exits
// from the main thread after a while that varies from child to child.
func exitChild(n int) {
	for i := 0; i < 3; i++ {
		go func() {
			runtime.LockOSThread()
			for {
				b := anon(64 * pageSize)
				for p := 0; p < 64; p++ {
					b[p*pageSize] = 1
				}
				syscall.Munmap(b)
			}
		}()
	}
	time.Sleep(time.Duration(1+n%5) * 5 * time.Millisecond)
	os.Exit(0)
}

// lazyRace: a thread reads a page and blocks, so that its core idles with the page's translation
// cached; meanwhile another thread replaces the page (MAP_FIXED: a new frame, the old one freed),
// which gmpos's shootdown does not interrupt an idle core for (kernel/smp.go: the core owes a
// flush instead), and wakes the reader. The waker spins meanwhile, its core busy, so on two or
// more vCPUs the reader wakes on the idle core, which must flush before it runs the reader: a
// read that finds the old page's value means it did not. (On one vCPU the waker gives way after
// a millisecond, and the check holds trivially.) The word read is not the page's first, which a
// freed frame's free-list link overwrites.
func lazyRace(rounds int) {
	b := anon(pageSize)
	base := uintptr(unsafe.Pointer(&b[0]))
	w := (*uint32)(unsafe.Pointer(&b[64]))
	wake := make(chan uint32) // the value the reader must find
	var ack atomic.Uint32     // the last value sent, set by the reader after its read
	stale := 0
	go func() {
		runtime.LockOSThread()
		for want := range wake {
			if atomic.LoadUint32(w) != want {
				stale++
			}
			ack.Store(want)
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	busy := func(d time.Duration, done func() bool) { // this thread keeps its core meanwhile
		for t := time.Now(); !done() && time.Since(t) < d; {
		}
	}
	t0 := time.Now()
	for g := uint32(1); g <= uint32(rounds); g++ {
		if g > 1 {
			busy(300*time.Microsecond, func() bool { return false }) // the reader blocks, its core idles
			if r, _, e := syscall.Syscall6(syscall.SYS_MMAP, base, pageSize, syscall.PROT_READ|syscall.PROT_WRITE,
				syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_FIXED, ^uintptr(0), 0); e != 0 || r != base {
				check("mmap(MAP_FIXED)", false, e)
				break
			}
		}
		atomic.StoreUint32(w, g)
		wake <- g
		for ack.Load() != g {
			busy(time.Millisecond, func() bool { return ack.Load() == g })
			if ack.Load() != g {
				runtime.Gosched() // one vCPU, or the reader woke here: let it run
			}
		}
	}
	close(wake)
	fmt.Fprintf(os.Stderr, "lazy race: %d pages replaced under an idle reader in %v\n", rounds-1, time.Since(t0).Round(time.Millisecond))
	check("lazy TLB: a page replaced while its reader's core idled reads as the new page", stale == 0, stale)
	syscall.Munmap(b)
}
