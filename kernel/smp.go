package kernel

import (
	"sync/atomic"
	_ "unsafe" // for go:linkname

	"gmpos/kernel/arch/amd64"
)

// SMP: every core is an M with its own P. User code runs on all cores in parallel; the kernel is
// serialised by one big kernel lock (BKL), taken at the top of trap and released on the way out —
// the classic first step of every SMP kernel (Linux 2.0, FreeBSD 5's Giant), simple to reason about
// because all of the kernel's tables keep their single-core invariants. The scheduler (package
// sched) is lock-free or finely locked on its own, so the BKL is what a finer-grained kernel would
// split later: futexes, threads, fds, mm.
//
// Lock order: BKL → sched's locks → mm lock → console. Nothing here is taken from a context that
// can interrupt a holder (the kernel runs with interrupts off).
//
// TLB shootdown (SDM Vol. 3A §4.10.5): when mm removes or restricts a translation, every other core
// may still cache it. The BKL holder asks each other core to flush (flushReq) and sends VecFlush;
// it then waits for every acknowledgement. A core acknowledges wherever it is: in user mode or
// halted (the IPI arrives; trap's fast path flushes without the BKL), or spinning for the BKL
// with interrupts off (the spin loop polls its request) — so waiting cannot deadlock.
var (
	bkl      atomic.Uint32 // 0 free, else holder's CPU index + 1
	flushReq [amd64.MaxCPU]atomic.Uint32
	smpGo    atomic.Bool // set by the BSP once the scheduler knows every core
)

// bklLock takes the big kernel lock on behalf of core cpu.
//
// Contended acquisitions and the TSC cycles spent spinning are counted (klog=1 prints them): they
// are the measure of what the BKL costs, and of when splitting it pays off.
//
//go:nosplit
func bklLock(cpu int) {
	if bkl.CompareAndSwap(0, uint32(cpu)+1) {
		return
	}
	t0 := amd64.TSC()
	for !bkl.CompareAndSwap(0, uint32(cpu)+1) {
		ackFlush(cpu)
		amd64.Pause()
	}
	stats.bklContended++
	stats.bklSpinCycles += amd64.TSC() - t0
}

//go:nosplit
func bklUnlock() { bkl.Store(0) }

// ackFlush performs a pending TLB flush request for this core.
//
//go:nosplit
func ackFlush(cpu int) {
	if flushReq[cpu].Load() != 0 {
		amd64.FlushAll()
		flushReq[cpu].Store(0)
	}
}

// flushOthers makes every other core drop its cached translations, and waits until they have.
func flushOthers() {
	if ncpu == 1 {
		return
	}
	self := amd64.Current().ID()
	for i := 0; i < ncpu; i++ {
		if i != self {
			flushReq[i].Store(1)
		}
	}
	amd64.SendIPIOthers(amd64.VecFlush)
	for i := 0; i < ncpu; i++ {
		for i != self && flushReq[i].Load() != 0 {
			amd64.Pause()
		}
	}
	stats.shootdowns++
}

// The mm hooks invalidate locally at once and leave the other cores to one shootdown at the end
// of the kernel entry (flushPending, called by trap before it releases the BKL), instead of one
// IPI round trip per page. That is safe because nothing mm frees during a trap is handed out
// again during the same trap: unmapped, discarded or replaced pages come back only through a later
// demand-paging fault, i.e. after the shootdown (Linux's mmu_gather makes the same promise
// explicitly by deferring the frees).
var remoteFlush bool

func flushPage(va uintptr) {
	amd64.FlushPage(va)
	remoteFlush = true
}

func flushAllCPUs() {
	amd64.FlushAll()
	remoteFlush = true
}

// flushPending performs the deferred shootdown, if any. Called with the BKL held.
func flushPending() {
	if remoteFlush {
		remoteFlush = false
		flushOthers()
	}
}

// startAPs wakes the other cores (INIT-SIPI-SIPI) and waits until they have checked in. want is
// the processor count from the ACPI MADT (0: unknown). With it, the BSP waits for all of them, up
// to 500 ms — the firmware says they exist, and an emulated core on a busy host can take many
// milliseconds to run its first instructions. Without it, a core that has not arrived 10 ms after
// the last one is taken to be absent. Returns the core count.
func startAPs(want int) int {
	if want == 1 {
		return 1
	}
	amd64.SendINIT()
	spinFor(10_000_000)
	amd64.SendSIPI()
	spinFor(200_000)
	amd64.SendSIPI()
	seen, last := amd64.Online(), nanotime()
	patience := int64(10_000_000)
	if want > 0 {
		patience = 500_000_000
	}
	for nanotime()-last < patience && (want == 0 || seen < want) {
		if n := amd64.Online(); n != seen {
			seen, last = n, nanotime()
		}
		amd64.Pause()
	}
	if seen > amd64.MaxCPU {
		seen = amd64.MaxCPU
	}
	return seen
}

func spinFor(ns int64) {
	for end := nanotime() + ns; nanotime() < end; {
		amd64.Pause()
	}
}

// apMain is where an application processor enters the kernel (from arch/amd64 apMain): wait
// until the BSP has sized the scheduler, move to a guarded kernel stack, arm the timer and join
// the scheduler — usually as an idle core that the next wakep will send an IPI.
//
//go:linkname apMain
func apMain(cpu int) {
	for !smpGo.Load() {
		ackFlush(cpu)
		amd64.Pause()
	}
	if cpu >= ncpu {
		// Arrived after the BSP stopped counting: stay out of the way for good.
		for {
			amd64.Halt()
		}
	}
	bklLock(cpu)
	top, e := mmMapKernelStack(cpu)
	if e {
		bklUnlock()
		bootPanic("cannot map an AP's kernel stack")
	}
	amd64.Current().UseKernelStack(top-kernelStackSize, top)
	amd64.StartOneShot()
	f := schedule(cpu)
	flushPending()
	bklUnlock()
	amd64.Enter(f)
}
