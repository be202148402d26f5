// The address-space calls — mmap, munmap, mprotect, madvise — without the big kernel lock.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
)

// Why. The Go runtime changes its address space all the time: the heap grows by mmap, the
// scavenger returns pages with madvise(MADV_DONTNEED), stacks and arenas come and go. Once the
// page faults had left the BKL (fault_unlocked.go), these calls were what was left of mm under
// it: 13% of the BKL's waits in a profiled 4-vCPU GC churn were madvise. Everything they change
// is mm's — the VMAs, the page tables, the frames — which mm's own lock already protects
// (kernel/mm/lock.go), so that lock is all they take here, as Linux takes the address space's
// mmap_lock and no global one.
//
// What they needed besides: a TLB shootdown sent without the BKL. munmap, MADV_DONTNEED and a
// lowered mprotect remove translations other cores may cache; the mm hooks flush this core and
// note the rest (smp.go flushPage), and this path sends the shootdown before it releases mm's
// lock (flushPendingLocked), as trap does before it releases the BKL. Every sender holds mm's
// lock — the BKL's way out takes it to send (flushPending) — so there is one at a time, and a
// core spinning for mm's lock acknowledges the sender's request (mmRelax). The frames these
// calls free wait off the free list until a shootdown (mm's pending frames), whoever sends it.
//
// An execve, or an exit, as for page faults (fault_unlocked.go): the thread's state is looked
// at under mm's lock, after taking it, and a teardown that came first sends the call to
// trapBKL, which ends the thread; otherwise the change lands in the old space, which the
// teardown then frees. Signals need nothing: one that arrives meanwhile kicks this core.
//
// What stays under the BKL: a change that could pull a page from under a BKL holder's copy —
// munmap, mprotect or MAP_FIXED over pages a system call may have checked, while a BKL section
// has the address space current (keepsCheckedPages, below) — and the calls that populate pages;
// a file mapping (its fd is the fd table's, still the BKL's); every call while the
// scheduler trace or strace runs; and all of them with the kernel option mmbkl=1, which keeps
// the old path for comparisons. mincore and brk stay there too: the Go
// runtime never calls them in steady state. Errors are the same calls' answers: mm decides them
// as it does under the BKL.
//
// Context: trap context (doc.go), without the BKL.

// mmUnlockedOK reports whether the system call in f, from the thread running on core cpu, is
// one mmUnlocked takes: munmap, mprotect, madvise, or an anonymous mmap, with nothing on that
// needs the BKL.
func mmUnlockedOK(f *arch.Frame, cpu int) bool {
	nr, _ := syscallNr(f)
	switch nr {
	case nrMunmap, nrMprotect, nrMadvise:
	case nrMmap:
		if _, a := syscallArgs(f); uint32(a[3])&mm.MAP_ANONYMOUS == 0 {
			return false // a file mapping: its fd is the BKL's (sysMmap)
		}
	default:
		return false
	}
	gp := cpus[cpu].cur
	if gp == 0 || cmd.mmBKL || cmd.trace || cmd.strace {
		return false
	}
	return !needsKernel(&threads[gp])
}

// mmUnlocked runs the call mmUnlockedOK accepted (trap n, entered at cycle t0) on its thread's
// address space, with the arguments syscall.go's dispatch passes sysMmap, sysMunmap,
// sysMprotect and sysMadvise, and returns the frame to resume as trap does.
func mmUnlocked(f *arch.Frame, n, cpu int, t0 uint64) *arch.Frame {
	gp := cpus[cpu].cur
	t := &threads[gp]
	nr, _ := syscallNr(f)
	_, a := syscallArgs(f)
	mm.Lock()
	as := spaceOf(int(t.proc))
	// An exit or execve that came first (see above), or a change the BKL's code must not see
	// happen under it (keepsCheckedPages): the BKL's path. Nothing has changed yet.
	if t.killed || procOf(t).state != procLive || !keepsCheckedPages(as, procOf(t).space, nr, &a) {
		mm.Unlock()
		atomic.AddUint64(&stats.mmFallbacks, 1)
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
	}
	var r int64
	switch nr {
	case nrMmap:
		// sysMmap's order: a misaligned offset first, then mm (NoFile: anonymous).
		if off := uintptr(a[5]); off&(mm.PageSize-1) != 0 {
			r = -EINVAL
		} else if va, e := as.MmapLocked(uintptr(a[0]), uintptr(a[1]), uint32(a[2]), uint32(a[3]), mm.NoFile, off); e != mm.OK {
			r = -int64(e)
		} else {
			r = int64(va)
		}
	case nrMunmap:
		r = errno(as.MunmapLocked(uintptr(a[0]), uintptr(a[1])))
	case nrMprotect:
		r = errno(as.MprotectLocked(uintptr(a[0]), uintptr(a[1]), a[2]))
	case nrMadvise:
		r = errno(as.MadviseLocked(uintptr(a[0]), uintptr(a[1]), int(int32(a[2]))))
	}
	flushPendingLocked() // the shootdown, before the call returns (see above)
	mm.Unlock()
	atomic.AddUint64(&stats.unlockedMM, 1)
	atomic.AddUint64(&stats.syscalls, 1)
	f.SetSyscallResult(uint64(r))
	return resumeUnlocked(f, cpu, gp, t0, ktimeBucket(f, arch.TrapSyscall))
}

// keepsCheckedPages reports whether the call mmUnlocked is about to make (number nr, arguments a)
// on address space as (index s) leaves alone every page a BKL holder may be using. Code under
// the BKL checks a user buffer (userRange: in a VMA that allows the access, faulted in) and then
// reads or writes it with plain loads and stores, which must not fault — and until this path,
// nothing could change the address space in between, since every change took the BKL. So a
// change without it may not remove or restrict a mapping such a check may have passed:
//   - madvise keeps every VMA as it is; a page MADV_DONTNEED drops is faulted in again if the
//     kernel touches it (kernelUserFault), as a program's own touch would;
//   - an mmap without MAP_FIXED takes a free range;
//   - munmap, mprotect and MAP_FIXED take any range while no BKL section has the space current
//     (smp.go bklSpaces): none has checked a page of it, and one that makes it current later
//     checks after this call, under mm's lock;
//   - otherwise only over PROT_NONE VMAs and holes, which no check passes (the Go runtime's heap
//     grows so: a PROT_NONE reservation, then MAP_FIXED read-write);
//   - a range mm refuses changes nothing.
//
// And none of them may allocate frames itself: MAP_POPULATE, MAP_LOCKED and MADV_POPULATE_* go
// to the BKL. An allocation may synchronise the TLBs and take the frames an madvise freed
// (mm's pending frames), leaving nothing for the kernel's fault on a dropped page in a BKL
// holder's copy (kernelUserFault, which cannot fail softly); under the BKL, that holder is the
// only core that may take them.
//
// The rest goes to the BKL's path, as Linux's copy_to_user would fault and answer EFAULT where
// gmpos's plain stores cannot. mm lock held.
func keepsCheckedPages(as *mm.AddressSpace, s uint8, nr uint64, a *[6]uint64) bool {
	switch {
	case nr == nrMadvise:
		advice := int32(a[2])
		return advice != mm.MADV_POPULATE_READ && advice != mm.MADV_POPULATE_WRITE
	case nr == nrMmap && uint32(a[3])&(mm.MAP_POPULATE|mm.MAP_LOCKED) != 0:
		return false
	case nr == nrMmap && uint32(a[3])&mm.MAP_FIXED == 0:
		return true
	case bklSpaces.Load()&(1<<s) == 0:
		return true
	}
	start, length := uintptr(a[0]), uintptr(a[1])
	end := start + length
	if end < start || end > mm.UserEnd {
		return true // EINVAL or ENOMEM: nothing changes
	}
	end = (end + mm.PageSize - 1) &^ (mm.PageSize - 1)
	return as.OnlyProtNone(start&^(mm.PageSize-1), end)
}

// kernelUserFault handles a page fault that kernel code under the BKL took on a user address
// it had checked (keepsCheckedPages): the page was dropped by an madvise without the BKL since
// the check, and is faulted in again, a fresh zero page, as the program's own touch would have
// done; the access then runs again. Any other fault is not this one (false: the kernel fault
// report). The address space is userSpace's: the current thread's, or, while a waker completes
// a sleeper's call (enterProc, possibly on an idle core), the sleeper's. Trap context, on the
// faulting core, nested in the BKL holder's trap; the access did not happen under mm's lock
// (mm reaches frames through the direct map, never user addresses).
func kernelUserFault(f *arch.Frame, cpu int) bool {
	flt := f.Fault()
	if flt.Kind != arch.FaultPage || flt.Exec || flt.Addr >= mm.UserEnd || !bklHeld(cpu) {
		return false
	}
	ok, code := userSpace().HandleFault(flt.Addr, flt.Write, false, false)
	if !ok && code == mm.FaultOOM {
		kernelFault(f, "out of memory faulting in a user page the kernel was copying (dropped by madvise meanwhile)")
	}
	if ok {
		atomic.AddUint64(&stats.kernelUserFaults, 1)
	}
	return ok
}
