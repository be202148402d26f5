// Several cores: the big kernel lock, TLB shootdowns, and starting the other cores.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"math/bits"
	"sync/atomic"
	_ "unsafe" // for go:linkname

	"gmpos/drivers/virtio"
	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// Every core is an M with its own P. User code runs on all cores in parallel; the kernel is
// serialised by one big kernel lock (BKL), taken at the top of trap and released on the way out —
// the classic first step of every SMP kernel (Linux 2.0, FreeBSD 5's Giant), simple to reason about
// because all of the kernel's tables keep their single-core invariants. The scheduler (package
// sched) is lock-free or finely locked on its own, so the BKL is what a finer-grained kernel
// splits. Eight pieces run without it so far: an idle core's wake-up and a running core's kick
// (wake_unlocked.go), the Go runtime's futex calls (futex_unlocked.go), its sleeps, yields,
// getpid and gettid with the timer interrupts that end the sleeps (sleep_unlocked.go,
// self_unlocked.go), a page fault's first touch of a page (fault_unlocked.go, under mm's lock
// alone), madvise and the mmap, munmap and mprotect calls that take no checked page away
// (mm_unlocked.go, under mm's lock too, with their own shootdowns), and its preemption signal — tgkill, the delivery, the handler's way back
// (signal_unlocked.go: an atomic pending set and Dekker's rule between sender and target,
// signal.go; the frame built in a core's buffer and copied either way with arch.CopyUser; the
// dispositions under a sequence count), writes to the virtio console (console_unlocked.go:
// the device's own lock, vconLock, and the fd tables read under a sequence count, fdSeq), and
// the netpoller's epoll_wait and eventfd reads and writes (poll_unlocked.go: epoll's own lock,
// epollLock, and epoll_wait's waits on futexQ's list) —
// with what they needed: a lock below the BKL for the queue of futex waits and
// sleeps (futex.go, spinlock.go: ranked, checked on every acquisition), mm's lock made a real
// spin lock (kernel/mm/lock.go), a read of user memory that may fail (arch.LoadUser32 and its
// exception fixup, after a page-table check), CPU-time charges without the lock (cputime.go),
// and the rule that no core resumes a thread another core still holds (oncpu.go, Linux's
// on_cpu). None of them polls the network, which needs the BKL, and none needs to: the NIC
// interrupts whenever nobody is draining its ring (nic.go nicIRQ), so they run while a program
// has the NIC open as well.
//
// What the next pieces need: threads (clone, exit) touch the thread and process tables and the
// scheduler's G table together; the other kinds of file need references that survive a
// concurrent close, which the console does without (its files stand for channels that never
// go away) and the eventfd finds in epollLock (putFile takes it before a file goes), and their
// own locks, which epoll's readiness checks (their poll functions) would need too; munmap and mprotect of pages a BKL section may be copying (its space current,
// bklSpaces) need the BKL's user copies made with arch.CopyUser, as the signal frame's are, so
// that a mapping taken away answers EFAULT instead of faulting the kernel; and the blocking calls
// on files, sockets and children, and epoll_pwait with a temporary mask, still share the
// `waiters` list (a path without the BKL that would have to wake one of them leaves its call
// to the BKL: file.waiting, fd.go). Measured (README,
// Benchmarks): the futex piece took a 2-vCPU thread ping-pong from 44,720 BKL-contended entries
// to 149, and its round trip from 61 to 41 µs; the sleep piece took a 4-vCPU GC-churn run from
// 1,014 to 196 and from 1,356 to 928 ms; tgkill took that run's BKL waits (profiled) from
// 36–64 ms to 0–12 ms, its contended entries from 89–107 to 59–81.
//
// What a BKL section need not do inside it, it does after: the wake-up IPIs it owes and the
// NIC's transmit notification go out once the lock is released (bklUnlock), since under TCG
// each is a trap into QEMU that may wait for QEMU's own lock. The notification's move halved
// an HTTP load's BKL waiting on 2 vCPUs and left its requests per second where they were: on a
// 2-core host the waits moved to QEMU's lock (README, Benchmarks), as they did when the timer's
// writes were tried outside the BKL (timer.go), which is why those stay inside.
//
// TLB shootdown (SDM Vol. 3A §4.10.5; the same idea on every architecture with per-core TLBs):
// when mm removes or restricts a translation, every other core may still cache it. The BKL holder
// asks each other core to flush (cpuState.flushReq), sends IPIFlush, and waits for every
// acknowledgement. A core acknowledges wherever it is: in user mode or halted (the IPI arrives;
// trap's fast path flushes without the BKL), or spinning with interrupts off — for the BKL, for
// futexQ's or mm's lock, for a thread another core holds (each spin loop polls its request) — so
// waiting cannot deadlock. A sender holds mm's lock throughout (flushPendingLocked), so there
// is one at a time, whether it holds the BKL or not (mm_unlocked.go): a core's flushReq is one
// sender's request, which the core clears after its flush.
//
// Cores on another page table are skipped. Neither architecture tags TLB entries with an address
// space here (no PCIDs, no ASIDs), so loading a root drops every user translation of the one
// before (SDM Vol. 3A §4.10.4.1; arm64: mmu.go): a core can cache a process's translations only
// while that process's table is loaded. The mm hooks say which table changed (flushRoots), and a
// core publishes the root it loads before it loads it (proc.go loadRoot): a sender that reads
// another root there has made its change before the core's walks through the new root can begin
// (both sides store, fence, then read: Dekker's rule again). The kernel's own table is every
// core's — the first program runs on it, and the other processes' tables share its entries — so
// a change there goes to every core, as before; the skip is for the processes execve gives a
// table of their own (exec.go), whose munmaps and exits need not interrupt the cores running
// anything else, as Linux sends its shootdowns to mm_cpumask's cores only.
//
// Idle cores are lazy (Linux's lazy TLB mode: cpu_tlbstate.is_lazy, arch/x86/mm/tlb.c): a core
// with nothing to run executes only the idle poll and the halt until its next trap, and they
// reach no user page and no mapping mm changes. So a shootdown does not interrupt it — under
// TCG that means waking a halted vCPU's host thread and waiting for it, which made a 16-page
// mmap, touch and munmap 5× slower on 2 vCPUs than on 1 (README, Benchmarks) — but marks the
// flush owed (tlbOwed), and the core flushes as it leaves idle, before anything else (trap:
// tlbWake). The sender's compare-and-swap and the core's swap are sequentially consistent: the
// core either sees the debt or was active already, and then gets the IPI. This is sound because
// mm never frees a page table (mm/process.go): Linux, which does, interrupts lazy cores when it
// frees tables, since a speculative walk through a freed one could cache garbage.
var (
	bkl   atomic.Uint32 // 0 free, else holder's CPU index + 1
	smpGo atomic.Bool   // set by the boot core once the scheduler knows every core

	// remoteFlush: translations were removed or restricted since the last shootdown, on the
	// cores in flushMask (each flushed itself at once). Written under mm's lock, by the mm hooks
	// and the shootdown; remoteFlush is read without it too (flushPending's first look).
	remoteFlush atomic.Bool
	flushMask   uint16

	// flushRoots are the page tables those translations were in (nFlushRoots of them), for the
	// shootdown to skip cores that have none of them loaded; flushEvery: one was the kernel's,
	// whose entries every table shares, or more changed than fit. mm's lock, as above.
	flushRoots  [4]uintptr
	nFlushRoots int
	flushEvery  bool
)

// bklLock takes the big kernel lock on behalf of core cpu.
//
// Contended acquisitions and the cycles spent spinning are counted (klog=1 prints them): they are
// the measure of what the BKL costs, and of when splitting it pays off.
func bklLock(cpu int) {
	if lockRanks[cpu] != 0 { // every spinLock ranks below the BKL (spinlock.go)
		rankViolation("the BKL", rankBKL, cpu)
	}
	if !bkl.CompareAndSwap(0, uint32(cpu)+1) {
		t0 := arch.Cycles()
		for !bkl.CompareAndSwap(0, uint32(cpu)+1) {
			ackFlush(cpu)
			arch.Pause()
		}
		stats.bklContended++ // BKL held from here
		stats.bklSpinCycles += arch.Cycles() - t0
	}
	bklSeq.Add(1)
	bklSpaces.Or(1 << uspace)
}

// bklSpaces are the address spaces the BKL's holder has made current in this section (bit s
// for space s): the one current as it took the lock, and each setCurrentOn made current since.
// Set before the holder touches their user memory (its code checks a buffer, with userRange,
// and copies in the same section), cleared as it releases the lock. An mm call without the BKL
// may take a checked page away from a space whose bit is clear (mm_unlocked.go
// keepsCheckedPages): a section that makes it current later checks its buffers after the call,
// under mm's lock. Sequentially consistent, as that argument needs (Dekker's rule: the section
// sets the bit, then takes mm's lock; the call holds mm's lock, then reads the bit).
var bklSpaces atomic.Uint32

// One bit per address space: more spaces than bits would mark none, and let every munmap by.
var _ [32 - maxProcs]struct{}

// bklSeq numbers the BKL's sections: each acquisition adds one (bklLock). Atomic.
var bklSeq atomic.Uint64

// markRunnable records that the current BKL section makes thread gp runnable (a wake-up, a new
// thread, a preemption, a yield): the section may go on touching gp after the scheduler has it,
// so a core that picks gp without the BKL must not resume it before the section ends
// (sectionOpen). Called before the scheduler is told; BKL held.
func markRunnable(gp sched.GID) {
	atomic.StoreUint64(&threads[gp].runnableIn, bklSeq.Load())
}

// sectionOpen reports whether the BKL section that last made gp runnable is still open. Read
// after the pick, in this order: the mark (which the scheduler's hand-over orders after the
// section's start), then the lock, then the sequence. A section that marked gp and still holds
// the lock shows its own number; a later one, or none, means it has ended, and its release
// ordered its writes before these reads. A new section that has taken the lock but not yet
// counted itself makes this answer true for nothing: conservative.
func sectionOpen(gp sched.GID) bool {
	mark := atomic.LoadUint64(&threads[gp].runnableIn)
	return bkl.Load() != 0 && bklSeq.Load() == mark
}

// bklHolder is the core that holds the big kernel lock (-1: none): for the holder's own code,
// which may not know its core's index at hand, a cheaper answer than asking the CPU.
func bklHolder() int { return int(bkl.Load()) - 1 }

// bklHeld reports whether core cpu holds the big kernel lock.
func bklHeld(cpu int) bool { return bkl.Load() == uint32(cpu)+1 }

// bklUnlock releases the big kernel lock, then sends the device notification and the wake-up
// IPIs its holder deferred (deferNotify, platform.go WakeM). A notification is a write to a
// virtio device's register, an IPI one to the emulated local APIC's command register: each tens
// of µs under TCG when QEMU's own lock is busy, and the other cores need not wait for the BKL
// meanwhile: the device finds the buffers already published, and the target core takes the IPI
// whenever it comes, halted or not, a thread it is to run already on its queue. The holder's
// trap has stopped its clock by now (trapBKLAs): these writes are outside the kernel-time
// report (ktime) and the profile's kernel items.
func bklUnlock() {
	publishUnlockedView() // for the paths without the lock (wake_unlocked.go)
	holder := int(bkl.Load()) - 1
	bklSpaces.Store(0) // the section's user copies are done
	bkl.Store(0)
	if holder >= 0 {
		if n := cpus[holder].notify; n != (virtio.Notifier{}) {
			cpus[holder].notify = virtio.Notifier{}
			n.Notify() // first: the device's work is the longer
		}
		sendDeferredWakes(holder)
	}
}

// deferNotify has core cpu notify a device (n) once it releases the BKL, or at once if it does
// not hold it. One notification is owed at a time: a second, for another queue, goes out at
// once. Measured (README, Benchmarks): the NIC's transmit kick took 50 µs on average under an
// HTTP load on 2 vCPUs, most of it waiting for QEMU's lock, which the BKL's holder made every
// other core wait for too.
func deferNotify(cpu int, n virtio.Notifier) {
	switch {
	case !bklHeld(cpu):
		n.Notify()
	case cpus[cpu].notify == (virtio.Notifier{}) || cpus[cpu].notify == n:
		cpus[cpu].notify = n
	default:
		n.Notify()
	}
}

// sendDeferredWakes sends the wake-up IPIs core cpu deferred while it held the BKL. Only cpu
// touches its own mask, so no lock is needed.
func sendDeferredWakes(cpu int) {
	for m := cpus[cpu].wakeIPIs; m != 0; m &= m - 1 {
		arch.SendIPI(bits.TrailingZeros16(m), arch.IPIWake)
	}
	cpus[cpu].wakeIPIs = 0
}

// ackFlush performs a pending TLB flush request for this core.
func ackFlush(cpu int) {
	if cpus[cpu].flushReq.Load() != 0 {
		arch.FlushAll()
		cpus[cpu].flushReq.Store(0)
	}
}

// cpuState.tlbState values (see TLB shootdown above).
const (
	tlbActive = 0 // the core may use any translation: a shootdown interrupts it
	tlbLazy   = 1 // idle: a shootdown need not interrupt it
	tlbOwed   = 2 // idle, and a shootdown skipped it: it flushes as it wakes
)

// flushOthers makes every other core than self that may cache the changed translations drop
// them, and waits until the active ones have; an idle core is left a flush to do as it wakes
// (tlbWake), a core on another page table nothing (see above). mm's lock held: the only sender
// (see TLB shootdown above).
func flushOthers(self int) {
	if ncpu == 1 {
		return
	}
	var mask uint16 // the cores interrupted
	for i := 0; i < ncpu; i++ {
		c := &cpus[i]
		if i == self {
			continue
		}
		if !flushEvery && !changedRoot(atomic.LoadUintptr(&c.root)) {
			stats.spaceSkips++
			continue
		}
		if c.tlbState.CompareAndSwap(tlbLazy, tlbOwed) || c.tlbState.Load() == tlbOwed {
			stats.lazySkips++
			continue
		}
		c.flushReq.Store(1)
		mask |= 1 << i
	}
	stats.shootdowns++
	if mask == 0 {
		return
	}
	if bits.OnesCount16(mask) == ncpu-1 {
		arch.SendIPIOthers(arch.IPIFlush) // one local-APIC write instead of ncpu-1
	} else {
		for m := mask; m != 0; m &= m - 1 {
			arch.SendIPI(bits.TrailingZeros16(m), arch.IPIFlush)
		}
	}
	for m := mask; m != 0; m &= m - 1 {
		for c := &cpus[bits.TrailingZeros16(m)]; c.flushReq.Load() != 0; {
			arch.Pause()
		}
	}
}

// tlbIdle makes core cpu lazy: from now until tlbWake it runs only the idle poll and the halt.
// A shootdown sent before this may still be waiting for it: the poll and the halt's IPI
// acknowledge it. The core itself, on trap's way to idle; never with the kernel option
// lazytlb=0 (for comparisons: every shootdown interrupts every other core, as before).
func tlbIdle(cpu int) {
	if !cmd.noLazyTLB {
		cpus[cpu].tlbState.Store(tlbLazy)
	}
}

// tlbWake makes core cpu active again, and does the flush a shootdown left it meanwhile. The
// core itself, in trap, before it touches anything mm may have changed.
func tlbWake(cpu int) {
	if cpus[cpu].tlbState.Swap(tlbActive) == tlbOwed {
		arch.FlushAll()
		atomic.AddUint64(&stats.lazyFlushes, 1)
	}
}

// The mm hooks invalidate locally at once and leave the other cores to one shootdown at the end
// of the kernel entry (flushPending, called by trap before it releases the BKL, or by a path
// without it before it releases mm's lock), instead of one IPI round trip per page. Until then another core may still reach a freed frame through a stale
// translation, so mm keeps the frames it frees off its free list until it has called SyncTLB
// (= flushPending; kernel/mm/frame.go pending), as Linux's mmu_gather defers its frees: a
// thread on another core could otherwise read, or overwrite, the free list's link in the frame
// (tests/fault_test.go found that).
// The hooks run under mm's lock, on the core that changes table root.
func flushPage(root, va uintptr) {
	arch.FlushPage(va)
	noteFlush(root)
}

func flushAllCPUs(root uintptr) {
	arch.FlushAll()
	noteFlush(root)
}

// noteFlush records that this core changed translations of table root (mm's lock held).
func noteFlush(root uintptr) {
	flushMask |= 1 << currentCPU()
	switch {
	case flushEvery:
	case root == mm.Kernel.Root || nFlushRoots == len(flushRoots) && !changedRoot(root):
		flushEvery = true
	case !changedRoot(root):
		flushRoots[nFlushRoots] = root
		nFlushRoots++
	}
	remoteFlush.Store(true) // last: a sender that sees it sees the rest (under mm's lock anyway)
}

// changedRoot reports whether root is one of the tables changed since the last shootdown.
func changedRoot(root uintptr) bool {
	for _, r := range flushRoots[:nFlushRoots] {
		if r == root {
			return true
		}
	}
	return false
}

// flushPending performs the deferred shootdown, if any: the way out of a kernel entry that may
// have changed translations (trap's, under the BKL). Not under mm's lock, which it takes if
// there is a shootdown to send. A shootdown another core sent after this entry's changes —
// its own way out, or an allocation's (mm SyncTLB) — clears remoteFlush only once every core
// has flushed, so the look without the lock is enough: false means the changes are everywhere.
func flushPending() {
	if remoteFlush.Load() {
		mm.Lock()
		flushPendingLocked()
		mm.Unlock()
	}
}

// flushPendingLocked is flushPending with mm's lock held: mm's SyncTLB hook (the allocator's
// sync before frames freed since the last shootdown are reused), and the way out of mm's calls
// without the BKL. The changes may be another core's: then this one flushes too, since the
// hooks flushed only the core that made them.
func flushPendingLocked() {
	if !remoteFlush.Load() {
		return
	}
	self := currentCPU()
	if flushMask&^(1<<self) != 0 {
		arch.FlushAll()
	}
	flushOthers(self)
	flushMask, nFlushRoots, flushEvery = 0, 0, false
	remoteFlush.Store(false) // last: every core has flushed (see flushPending)
}

// startCPUs starts the other cores and waits until they have checked in. want is the processor
// count the board reports (0: unknown). With it, the boot core waits for all of them, up to
// 500 ms — the firmware says they exist, and an emulated core on a busy host can take many
// milliseconds to run its first instructions. Without it, a core that has not arrived 10 ms after
// the last one is taken to be absent. Returns the core count.
func startCPUs(want int) int {
	if want == 1 {
		return 1
	}
	arch.StartCPUs(spinFor)
	seen, last := arch.Online(), nanotime()
	patience := int64(10_000_000)
	if want > 0 {
		patience = 500_000_000
	}
	for nanotime()-last < patience && (want == 0 || seen < want) {
		if n := arch.Online(); n != seen {
			seen, last = n, nanotime()
		}
		arch.Pause()
	}
	return min(seen, arch.MaxCPU)
}

// apMain is where another core enters the kernel (from the architecture's start-up code): wait
// until the boot core has sized the scheduler, move to a guarded kernel stack, start the timer and
// join the scheduler — usually as an idle core that the next wakep will send an IPI.
//
//go:linkname apMain
func apMain(cpu int) {
	for !smpGo.Load() {
		ackFlush(cpu)
		arch.Pause()
	}
	if cpu >= ncpu {
		// Arrived after the boot core stopped counting: stay out of the way for good.
		for {
			arch.Halt()
		}
	}
	bklLock(cpu)
	top, e := mm.MapKernelStack(cpu)
	if e != mm.OK {
		bklUnlock()
		bootPanic("cannot map a kernel stack for another core")
	}
	arch.Current().UseKernelStack(top-mm.KernelStackSize, top)
	arch.StartTimer()
	f := schedule(cpu)
	flushPending()
	bklUnlock()
	arch.Enter(f)
}
